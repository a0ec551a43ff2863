#include "analyzer/name_index.h"

#include <catch2/catch.hpp>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <vector>

TEST_CASE("name_index: finds what it was given, as std::unordered_map would, through its growth") {
  std::vector<std::string> names;
  for (int i = 0; i < 5000; ++i) names.push_back("v" + std::to_string(i));
  names.push_back("");  // an empty name is a name too
  kc::NameIndex index;
  std::unordered_map<std::string, int> expected;
  for (size_t i = 0; i < names.size(); ++i) {
    auto [entry, added] = index.try_emplace(names[i], static_cast<int>(i));
    CHECK(added);
    CHECK(entry->second == static_cast<int>(i));
    expected[names[i]] = static_cast<int>(i);
  }
  CHECK(index.size() == names.size());
  for (const auto& [name, value] : expected) {
    REQUIRE(index.find(name) != index.end());
    CHECK(index.find(name)->second == value);
    CHECK(index.at(name) == value);
  }
  CHECK(index.find("v5000") == index.end());
  CHECK(index.find("v") == index.end());
  CHECK_THROWS_AS(index.at("missing"), std::out_of_range);
  // A name bound again keeps its entry (try_emplace says so), and operator[] rebinds it.
  auto [entry, added] = index.try_emplace(names[7], -1);
  CHECK_FALSE(added);
  CHECK(entry->second == 7);
  index[names[7]] = 42;
  CHECK(index.at("v7") == 42);
  CHECK(index.size() == names.size());
}

TEST_CASE("name_index: an empty index finds nothing, and reserve keeps what it holds") {
  kc::NameIndex index;
  CHECK(index.find("x") == index.end());
  CHECK_THROWS_AS(index.at("x"), std::out_of_range);
  index["x"] = 1;
  index.reserve(100000);
  CHECK(index.at("x") == 1);
  CHECK(index.size() == 1);
}
