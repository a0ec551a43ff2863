#include "cli/json_writer.h"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

namespace {

// The same document through JsonWriter and through nlohmann::ordered_json::dump(1), which the
// writer must match byte for byte.
struct Both {
  std::ostringstream os;
  kc::JsonWriter w{os};
  nlohmann::ordered_json j;
};

// Strings of every length around a word's with a byte that needs escaping (or replacing, as
// invalid UTF-8) at every position, and plain ones.
std::vector<std::string> strings() {
  std::vector<std::string> out;
  const std::string kinds[] = {"\"", "\\", "\n", "\x01", "\x1f", "\x7f", "\xc3\xa9", "\xff", "~", " "};
  for (size_t length = 0; length <= 20; ++length)
    for (size_t at = 0; at <= length; ++at)
      for (const std::string& kind : kinds) out.push_back(std::string(at, 'a') + kind + std::string(length - at, 'b'));
  return out;
}

}  // namespace

TEST_CASE("json_writer: keys and strings escaped as nlohmann::json dumps them") {
  const std::vector<std::string> all = strings();
  std::ostringstream os;
  {
    kc::JsonWriter w(os);
    w.begin_object();
    for (size_t i = 0; i < all.size(); ++i) {
      w.key(all[i] + std::to_string(i));  // unique keys: an ordered_json keeps them all
      w.value(all[i]);
    }
    w.end_object();
  }
  nlohmann::ordered_json j = nlohmann::ordered_json::object();
  for (size_t i = 0; i < all.size(); ++i) j[all[i] + std::to_string(i)] = all[i];
  CHECK(os.str() == j.dump(1, ' ', false, nlohmann::json::error_handler_t::replace));
}

TEST_CASE("json_writer: indents at every depth, past what one copy of spaces covers") {
  std::ostringstream os;
  nlohmann::ordered_json j = nlohmann::ordered_json::array();
  {
    kc::JsonWriter w(os);
    w.begin_array();
    std::vector<nlohmann::ordered_json*> path{&j};
    for (int depth = 1; depth <= 150; ++depth) {
      w.begin_object();
      w.key("k");
      w.value(depth);
      w.key("list");
      w.begin_array();
      w.value("x");
      w.begin_array();
      w.end_array();
      w.end_array();
      w.key("next");
      w.begin_array();
      nlohmann::ordered_json o = {
          {"k", depth}, {"list", {"x", nlohmann::ordered_json::array()}}, {"next", nlohmann::ordered_json::array()}};
      path.back()->push_back(o);
      path.push_back(&path.back()->back()["next"]);
    }
    for (int depth = 150; depth >= 1; --depth) {
      w.end_array();
      w.end_object();
    }
    w.end_array();
  }
  CHECK(os.str() == j.dump(1));
}

TEST_CASE("json_writer: output larger than its buffer, in lines that straddle the flushes") {
  std::ostringstream os;
  nlohmann::ordered_json j = nlohmann::ordered_json::array();
  {
    kc::JsonWriter w(os);
    w.begin_array();
    for (int i = 0; i < 20000; ++i) {
      const std::string s(static_cast<size_t>(i % 37), 'z');
      w.begin_object();
      w.key(s + "key");
      w.value(s);
      w.end_object();
      j.push_back({{s + "key", s}});
    }
    w.end_array();
  }
  CHECK(os.str().size() > (1u << 17));
  CHECK(os.str() == j.dump(1));
}
