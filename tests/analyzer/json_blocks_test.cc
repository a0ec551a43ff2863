#include "analyzer/json_blocks.h"

#include <catch2/catch.hpp>
#include <random>
#include <string>

#include "analyzer/json_doc.h"

namespace {

// The masks byte by byte, as the definitions say.
kc::JsonBlock by_bytes(const char* p) {
  kc::JsonBlock b;
  for (int i = 0; i < 64; ++i) {
    const uint64_t bit = uint64_t{1} << i;
    if (p[i] == '"') b.quote |= bit;
    if (p[i] == '\\') b.backslash |= bit;
    if (p[i] == '{' || p[i] == '[') b.open |= bit;
    if (p[i] == '}' || p[i] == ']') b.close |= bit;
  }
  return b;
}

bool same(const kc::JsonBlock& a, const kc::JsonBlock& b) {
  return a.quote == b.quote && a.backslash == b.backslash && a.open == b.open && a.close == b.close;
}

}  // namespace

TEST_CASE("json_blocks: both ways of finding the bytes agree with a byte-by-byte look, any byte anywhere") {
  std::mt19937 random(7);
  // Bytes that mean something, their neighbours in the table (one bit off: '{' and '[' differ
  // by 0x20, as '|' and '\\' do), and any byte at all.
  const std::string near = "\"\\{}[]|;:;=_}\x02\x22\x5c\x7b\x7d\x5b\x5d\x3b\x7c\x80\xa2\xdb\xfb\xfd\xff";
  for (int round = 0; round < 2000; ++round) {
    char block[64];
    for (char& c : block) c = round % 2 ? near[random() % near.size()] : static_cast<char>(random() % 256);
    INFO(round);
    CHECK(same(kc::json_block_portable(block), by_bytes(block)));
    CHECK(same(kc::json_block(block), by_bytes(block)));
  }
}

TEST_CASE("json_blocks: prefix_xor marks the bytes from each opening quote to its closing one") {
  CHECK(kc::prefix_xor(0) == 0);
  CHECK(kc::prefix_xor(0b1001) == 0b0111);
  CHECK(kc::prefix_xor(uint64_t{1} << 63) == uint64_t{1} << 63);
  CHECK(kc::prefix_xor(1) == ~uint64_t{0});
}

// The outline finds where each lazy value ends 64 bytes at a time: strings, escapes and
// brackets at every offset around a block's edge must end it where a parse does.
TEST_CASE("json_blocks: an outline's lazy values end where they end, wherever a block's edge falls") {
  const std::string pieces[] = {R"("a\"]")",    R"("\\")", R"("\\\"}")", R"({"k": [1, "]"]})",
                                R"("x\u005d")", R"("{[")", R"([[], {}])"};
  for (size_t pad = 0; pad < 140; ++pad)
    for (const std::string& piece : pieces) {
      const std::string value = "[\"" + std::string(pad, 'p') + "\", " + piece + ", " + piece + "]";
      const std::string text = R"({"v": [)" + value + ", 1]}";
      INFO(text);
      const kc::JsonDoc outline = kc::JsonDoc::parse_outline(text, "t", 2);
      const kc::JsonRef first = *outline.root().find("v").children().begin();
      REQUIRE(first.is_lazy());
      CHECK(first.text() == value);
      CHECK_NOTHROW(outline.check_unexpanded());
    }
}

// The noted key is found exactly wherever it sits: a string spelling it, as a key or not, and
// a "\u" escape send the outline to its walk, byte by byte.
TEST_CASE("json_blocks: the noted key at every offset around a block's edge") {
  for (size_t pad = 0; pad < 140; ++pad) {
    const std::string p(pad, 'p');
    auto noted = [&](const std::string& value) {
      const std::string text = R"({"v": [)" + value + "]}";
      INFO(text);
      return kc::JsonDoc::parse_outline(text, "t", 2, {}, "as_expr")
          .root()
          .find("v")
          .children()
          .begin()
          .
          operator*()
          .contains_key("as_expr");
    };
    CHECK(noted("{\"" + p + "\": 1, \"as_expr\": 2}"));
    CHECK(noted("[\"" + p + "\", {\"as_expr\" : 2}]"));
    CHECK(noted("[\"" + p + "\", {\"as_\\u0065xpr\": 2}]"));
    CHECK_FALSE(noted("[\"" + p + "\", \"as_expr\"]"));
    CHECK_FALSE(noted("{\"" + p + "\": \"as_expr\", \"as_exp\": 1, \"as_exprs\": 2}"));
    CHECK_FALSE(noted("{\"" + p + "_as_expr\": 1, \"strides\": [\"as_expr\"]}"));
  }
}
