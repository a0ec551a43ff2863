#include "analyzer/json_doc.h"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <string>

#include "analyzer/error.h"

namespace {

// The document as nlohmann::json would hold it: the reader must see exactly that.
nlohmann::json rebuild(kc::JsonRef j) {
  if (j.is_null()) return nullptr;
  if (j.is_boolean()) return j.boolean();
  if (j.is_string()) return std::string(j.str());
  if (j.is_number_integer()) return j.integer();
  if (j.is_number()) return j.number();
  if (j.is_array()) {
    nlohmann::json a = nlohmann::json::array();
    for (kc::JsonRef e : j.children()) a.push_back(rebuild(e));
    return a;
  }
  nlohmann::json o = nlohmann::json::object();
  for (const auto& [key, value] : j.items()) o[std::string(key)] = rebuild(value);
  return o;
}

// Same document or same error message as nlohmann::json's parser.
void same_as_nlohmann(const std::string& text) {
  INFO(text);
  std::string expected, got;
  try {
    // Integers as the reader sees them: nlohmann's get<int64_t> (non-negative ones are unsigned).
    expected = nlohmann::json::parse(text, [](int, nlohmann::json::parse_event_t, nlohmann::json& j) {
                 if (j.is_number_unsigned()) j = j.get<int64_t>();
                 return true;
               }).dump();
  } catch (const nlohmann::json::exception& e) {
    expected = std::string("error: ") + e.what();
  }
  try {
    got = rebuild(kc::JsonDoc::parse(text, "t").root()).dump();
  } catch (const kc::Error& e) {
    got = std::string("error: ") + e.what();
    // "t is not valid JSON: <nlohmann's message without its tag>", bytes that are not printable
    // ASCII as '?'; a fault in the UTF-8 is named as such, without the bytes nlohmann quotes.
    std::string tail = expected.substr(expected.find("] ") + 2);
    CHECK(expected.rfind("error: ", 0) == 0);
    if (tail.find("UTF-8") != std::string::npos && tail.find(" - ") != std::string::npos) {
      CHECK(got == "error: t is not valid UTF-8: " + tail.substr(0, tail.find(" - ")));
      return;
    }
    for (char& c : tail)
      if (static_cast<unsigned char>(c) >= 0x80 || static_cast<unsigned char>(c) < 0x20) c = '?';
    CHECK(got == "error: t is not valid JSON: " + tail);
    return;
  }
  CHECK(got == expected);
}

}  // namespace

TEST_CASE("json_doc: values, nesting and key order as nlohmann::json has them") {
  for (const char* text : {R"({"b": 1, "a": [true, false, null, "x", -2, 3.5e2, {}], "c": {"z": [], "y": {"k": "v"}}})",
                           R"([1, [2, [3, [4]]], {"a": {"b": {"c": null}}}])", "  \t\n\r 7 \n", R"("")", "[]", "{}",
                           R"({"a": 1, "a": 2, "b": 3, "a": null})",  // the last of repeated keys wins
                           R"({"10": 1, "9": 2, "b": 3, "B": 4, "": 5})"}) {
    same_as_nlohmann(text);
  }
}

TEST_CASE("json_doc: numbers converted as nlohmann::json converts them") {
  for (const char* text : {"0",
                           "-0",
                           "18446744073709551615",
                           "18446744073709551616",
                           "9223372036854775807",
                           "-9223372036854775808",
                           "-9223372036854775809",
                           "1e400",
                           "-1e-400",
                           "0.1",
                           "1E+2",
                           "123456789012345678901234567890",
                           "[01]",
                           "1.",
                           ".5",
                           "-",
                           "1e",
                           "+1",
                           "0x10",
                           "1.5e+"}) {
    same_as_nlohmann(text);
  }
}

TEST_CASE("json_doc: strings, escapes and UTF-8 as nlohmann::json reads them") {
  for (const char* text :
       {R"("a\"b\\c\/d\b\f\n\r\t")", R"("\u0041\u00e9\u20ac\ud83d\ude00")", R"("\ud83d")", R"("\ude00")",
        R"("\ud83dx")", R"("\u12")", R"("\q")", "\"\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80\"", "\"\xc3\"",
        "\"\xe0\x80\x80\"", "\"\xed\xa0\x80\"", "\"\xf4\x90\x80\x80\"", "\"\xff\"", "\"tab\there\"", "\"open",
        "\xef\xbb\xbf[1]", "\xef\xbb[1]"}) {
    same_as_nlohmann(text);
  }
}

// Plain bytes are skipped a word at a time: a byte that ends the run must be seen wherever it
// sits in the word, and a string ends where it ends, at every length around a word's.
TEST_CASE("json_doc: a string's quote, escape, control byte or UTF-8 at every position of a word") {
  const std::string kinds[] = {"\\\"", "\\n", "\x01", "\x1f", "\x7f", "\xc3\xa9", "\xe2\x82\xac", "\xc3", "\xff", "\""};
  for (size_t length = 0; length <= 20; ++length)
    for (size_t at = 0; at <= length; ++at)
      for (const std::string& kind : kinds) {
        const std::string body = std::string(at, 'a') + kind + std::string(length - at, 'b');
        same_as_nlohmann("\"" + body + "\"");
        same_as_nlohmann("{\"" + body + "\": [\"" + body + "\", 1]}");
      }
}

TEST_CASE("json_doc: malformed documents give nlohmann::json's message") {
  for (const char* text : {"", "[1,]", "{\"a\" 1}", "{\"a\":}", "[1 2]", "{,}", "tru", "nul", "[1]]", "{\"a\":1,}", "[",
                           "{\"a\"", "// c\n1", "[1] x", "{1: 2}"}) {
    same_as_nlohmann(text);
  }
}

TEST_CASE("json_doc: limits come first") {
  CHECK_THROWS_WITH(kc::JsonDoc::parse(std::string(100, '[') + std::string(100, ']'), "t"),
                    Catch::Contains("nested deeper than 64 levels"));
}

TEST_CASE("json_doc: lookups") {
  const kc::JsonDoc doc = kc::JsonDoc::parse(R"({"x": {"k": [1, 2, {"as_expr": 3}]}, "y": null})", "t");
  const kc::JsonRef root = doc.root();
  CHECK(root.size() == 2);
  CHECK(root.find("x").find("k").size() == 3);
  CHECK(root.find("y").is_null());
  CHECK_FALSE(root.find("z"));
  CHECK_FALSE(root.find("x").find("k").find("k"));  // an array has no keys
  CHECK(root.contains_key("as_expr"));
  CHECK_FALSE(root.find("y").contains_key("as_expr"));
  CHECK(root.find("x").key() == "x");
}

TEST_CASE("json_doc: an outline keeps deep values as text, and expands them to what a full parse has") {
  const std::string text = R"({"a": {"b": [1, {"c": "\u0041"}], "s": "x"}, "n": [[2], {"as_expr": 3}, null]})";
  const kc::JsonDoc outline = kc::JsonDoc::parse_outline(text, "t", 2);
  const kc::JsonRef a = outline.root().find("a");
  CHECK(a.find("s").str() == "x");
  CHECK(a.find("b").is_lazy());
  CHECK_FALSE(a.find("b").is_array());
  CHECK(a.find("b").type_name() == std::string("array"));
  kc::JsonDoc scratch;
  const kc::JsonRef b = scratch.expand(a.find("b"));
  CHECK(rebuild(b).dump() == R"([1,{"c":"A"}])");
  CHECK(a.find("b").key() == "b");
  // contains_key looks into lazy values' text: a filter that may say yes where a key is not.
  CHECK(outline.root().find("n").contains_key("as_expr"));
  CHECK_FALSE(outline.root().find("n").contains_key("as_int"));
  CHECK(outline.root().find("a").contains_key("zzz"));  // the "\u" escape in its text
  CHECK(rebuild(scratch.expand(outline.root().find("n").children().begin().operator*())).dump() == "[2]");
  // The outline reads a deep value's brackets and strings only: invalid JSON inside is found
  // when the value is expanded, or by check_unexpanded where it never is, with the message a
  // parse of the whole text gives (its first error, wherever the value read lies).
  const std::string bad = R"({"a": {"b": [1, 2,]}, "c": [3]})";
  const kc::JsonDoc unchecked = kc::JsonDoc::parse_outline(bad, "t", 1);
  CHECK_THROWS_WITH(scratch.expand(unchecked.root().find("a")), Catch::Contains("not valid JSON"));
  CHECK_THROWS_WITH(unchecked.check_unexpanded(), Catch::Contains("not valid JSON"));
  const kc::JsonDoc unread = kc::JsonDoc::parse_outline(bad, "t", 1);
  CHECK(rebuild(scratch.expand(unread.root().find("c"))).dump() == "[3]");
  CHECK_THROWS_WITH(unread.check_unexpanded(), Catch::Contains("not valid JSON") && Catch::Contains("column 19"));
  const kc::JsonDoc first = kc::JsonDoc::parse_outline(R"({"a": [1,], "c": {"d": [,]}})", "t", 1);
  CHECK_THROWS_WITH(scratch.expand(first.root().find("c")), Catch::Contains("column 10"));
  // Brackets that do not pair, or a string left open, are the outline's own errors.
  CHECK_THROWS_WITH(kc::JsonDoc::parse_outline(R"({"a": {"b": [1, 2}]})", "t", 1), Catch::Contains("not valid JSON"));
  CHECK_THROWS_WITH(kc::JsonDoc::parse_outline(R"({"a": {"b": "x}})", "t", 1), Catch::Contains("not valid JSON"));
  // A valid text passes, whether its deep values were expanded or not.
  CHECK_NOTHROW(outline.check_unexpanded());
  CHECK_NOTHROW(kc::JsonDoc::parse_outline(text, "t", 2).check_unexpanded());
  // The limits hold inside lazy values too, with their own message.
  CHECK_THROWS_WITH(kc::JsonDoc::parse_outline("[" + std::string(100, '[') + std::string(100, ']') + "]", "t", 1),
                    Catch::Contains("nested deeper than 64 levels"));
  // A noted key is looked for as the outline skips each lazy value: exactly, escapes decoded.
  const std::string noted_text =
      R"({"v": {"a": {"sizes": [{"as_int": 2}]}, "b": {"s": "as_expr"}, "c": [{"\u0061s_expr": 1}]}})";
  const kc::JsonDoc noted = kc::JsonDoc::parse_outline(noted_text, "t", 2, {}, "as_expr");
  const kc::JsonRef v = noted.root().find("v");
  CHECK_FALSE(v.find("a").contains_key("as_expr"));
  CHECK_FALSE(v.find("b").contains_key("as_expr"));  // the word in a string is no key
  CHECK(v.find("c").contains_key("as_expr"));
  CHECK(v.contains_key("as_expr"));
  CHECK(v.find("a").contains_key("as_int"));  // a key not noted: the search of the text
  CHECK(v.find("b").contains_key("s"));
  // An expanded value's keys: a plain one is a view of the text, an escaped one a decoded copy.
  const std::string keys = R"({"o": {"plain": 1, "\u0065sc": 2, "last": {"in": 3}}})";
  const kc::JsonDoc keyed = kc::JsonDoc::parse_outline(keys, "t", 1);
  const kc::JsonRef o = scratch.expand(keyed.root().find("o"));
  CHECK(rebuild(o).dump() == R"({"esc":2,"last":{"in":3},"plain":1})");
  CHECK(o.find("esc").integer() == 2);
  CHECK(o.find("last").find("in").key() == "in");
}
