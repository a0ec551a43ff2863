#include "cli/json_writer.h"

#include <cmath>

namespace kc {

void JsonWriter::flush() {
  os_.write(buf_.get(), static_cast<std::streamsize>(used_));
  used_ = 0;
}

namespace {

constexpr char kSpaces[] = "                                                                ";

// Whether every byte is printable ASCII other than '"' and '\\' (0x20..0x7e): such a string
// is written as it is. A word at a time, whatever the length, with no call to memcpy: a
// report is mostly keys and names of a few bytes. Which bytes share a word does not matter, so
// the last word overlaps the one before, and a short string is read as two overlapping halves
// (four to seven bytes) or as its first, middle and last bytes among spaces (one to three).
bool plain(std::string_view s) {
  constexpr uint64_t kOnes = 0x0101010101010101ull, kHigh = 0x8080808080808080ull;
  auto has_zero = [&](uint64_t x) { return (x - kOnes) & ~x & kHigh; };
  auto bad = [&](uint64_t x) {
    const uint64_t below_space = (x - kOnes * 0x20) & ~x & kHigh;
    return (x & kHigh) | below_space | has_zero(x ^ (kOnes * '"')) | has_zero(x ^ (kOnes * '\\')) |
           has_zero(x ^ (kOnes * 0x7f));
  };
  const char* p = s.data();
  const size_t n = s.size();
  uint64_t x;
  if (n >= 8) {
    for (size_t i = 0; i + 8 < n; i += 8) {
      std::memcpy(&x, p + i, 8);
      if (bad(x)) return false;
    }
    std::memcpy(&x, p + n - 8, 8);
    return !bad(x);
  }
  if (n >= 4) {
    uint32_t first, last;
    std::memcpy(&first, p, 4);
    std::memcpy(&last, p + n - 4, 4);
    return !bad(first | uint64_t{last} << 32);
  }
  if (n == 0) return true;
  auto byte = [](char c) { return uint64_t{static_cast<unsigned char>(c)}; };
  x = (kOnes * ' ') >> 24 << 24 | byte(p[0]) | byte(p[n / 2]) << 8 | byte(p[n - 1]) << 16;
  return !bad(x);
}

}  // namespace

void JsonWriter::indent(size_t depth) {
  constexpr size_t kMost = sizeof kSpaces - 1;
  for (; depth > kMost; depth -= kMost) put(kSpaces, kMost);
  put(kSpaces, depth);
}

// A report is mostly lines of a few bytes after their indent: each went through several calls
// to memcpy, one per piece. Here the two bytes before the line break and every space an indent
// may need are copied in fixed sizes, which the compiler writes inline, and the spaces past the
// indent are overwritten by what follows.
char* JsonWriter::line_at(size_t prefix, size_t depth, size_t more) {
  static_assert(sizeof kSpaces - 1 >= kSlack, "an indent copy covers the slack");
  if (depth + 8 > kSlack || used_ + prefix + depth + more > kBufBytes) return nullptr;
  char* at = buf_.get() + used_;
  std::memcpy(at + prefix, kSpaces, kSlack);
  return at;
}

void JsonWriter::element() {
  if (after_key_) {
    after_key_ = false;
    return;
  }
  if (open_.empty()) return;
  // Brackets open lazily: an empty container prints as "[]" or "{}" on one line.
  Level& l = open_.back();
  const char* open = l.members++ == 0 ? "[\n" : ",\n";
  const size_t depth = open_.size();
  if (char* at = line_at(2, depth, 0)) {
    std::memcpy(at, open, 2);
    used_ += 2 + depth;
    return;
  }
  put(open, 2);
  indent(depth);
}

void JsonWriter::key(std::string_view k) {
  if (plain(k)) return plain_key(k);
  Level& l = open_.back();
  put(l.members++ == 0 ? "{\n" : ",\n", 2);
  indent(open_.size());
  after_key_ = true;
  write_string(k);
  put(": ", 2);
}

char* JsonWriter::key_at(size_t size) {
  const size_t depth = open_.size();
  char* at = line_at(2, depth, size + 4);
  if (!at) return nullptr;
  Level& l = open_.back();
  std::memcpy(at, l.members++ == 0 ? "{\n" : ",\n", 2);
  at += 2 + depth;
  *at++ = '"';
  used_ += 2 + depth + size + 4;
  after_key_ = true;
  return at;
}

void JsonWriter::plain_key(std::string_view k) {
  if (char* at = key_at(k.size())) {
    std::memcpy(at, k.data(), k.size());
    std::memcpy(at + k.size(), "\": ", 3);
    return;
  }
  Level& l = open_.back();
  put(l.members++ == 0 ? "{\n" : ",\n", 2);
  indent(open_.size());
  after_key_ = true;
  put('"');
  put(k);
  put("\": ", 3);
}

void JsonWriter::close_line(char bracket) {
  const size_t depth = open_.size();
  if (char* at = line_at(1, depth, 1)) {
    at[0] = '\n';
    at[1 + depth] = bracket;
    used_ += 2 + depth;
    return;
  }
  put('\n');
  indent(depth);
  put(bracket);
}

void JsonWriter::begin_object() {
  element();
  open_.push_back({true});
}

void JsonWriter::begin_array() {
  element();
  open_.push_back({false});
}

void JsonWriter::end_object() {
  const size_t members = open_.back().members;
  open_.pop_back();
  if (members == 0) {
    put("{}", 2);
    return;
  }
  close_line('}');
}

void JsonWriter::end_array() {
  const size_t members = open_.back().members;
  open_.pop_back();
  if (members == 0) {
    put("[]", 2);
    return;
  }
  close_line(']');
}

void JsonWriter::write_string(std::string_view s) {
  // Most strings need no escaping and no UTF-8 check: they go out as they are. The rest go
  // through nlohmann's serializer, which escapes them (and replaces invalid UTF-8).
  if (!plain(s)) {
    dump(nlohmann::ordered_json(std::string(s)));
    return;
  }
  if (used_ + s.size() + 2 > kBufBytes) {
    put('"');
    put(s);
    put('"');
    return;
  }
  char* at = buf_.get() + used_;
  at[0] = '"';
  std::memcpy(at + 1, s.data(), s.size());
  at[s.size() + 1] = '"';
  used_ += s.size() + 2;
}

void JsonWriter::dump(const nlohmann::ordered_json& j) {
  // One serializer for the whole report: making one allocates and reads the locale.
  // Source text from a damaged archive may hold invalid UTF-8: it is written as U+FFFD.
  if (!serializer_)
    serializer_.emplace(nlohmann::detail::output_adapter<char>(escaped_), ' ',
                        nlohmann::json::error_handler_t::replace);
  serializer_->dump(j, true, false, 1, static_cast<unsigned int>(open_.size()));
  put(escaped_);
  escaped_.clear();
}

void JsonWriter::value(std::string_view s) {
  element();
  write_string(s);
}

void JsonWriter::value(bool b) {
  element();
  if (b)
    put("true", 4);
  else
    put("false", 5);
}

void JsonWriter::null() {
  element();
  put("null", 4);
}

void JsonWriter::value(double d) {
  element();
  // What nlohmann's serializer does for a double (serializer::dump_float), without a tree.
  if (!std::isfinite(d)) {
    put("null", 4);
    return;
  }
  char digits[64];
  const char* end = nlohmann::detail::to_chars(digits, digits + sizeof digits, d);
  put(digits, static_cast<size_t>(end - digits));
}

void JsonWriter::value(const nlohmann::ordered_json& j) {
  element();
  dump(j);
}

}  // namespace kc
