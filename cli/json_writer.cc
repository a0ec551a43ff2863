#include "cli/json_writer.h"

#include <cmath>

namespace kc {

void JsonWriter::flush() {
  os_.write(buf_.get(), static_cast<std::streamsize>(used_));
  used_ = 0;
}

void JsonWriter::indent(size_t depth) {
  static constexpr char kSpaces[] = "                                                                ";
  constexpr size_t kMost = sizeof kSpaces - 1;
  for (; depth > kMost; depth -= kMost) put(kSpaces, kMost);
  put(kSpaces, depth);
}

void JsonWriter::element() {
  if (after_key_) {
    after_key_ = false;
    return;
  }
  if (open_.empty()) return;
  // Brackets open lazily: an empty container prints as "[]" or "{}" on one line.
  Level& l = open_.back();
  put(l.members++ == 0 ? "[\n" : ",\n", 2);
  indent(open_.size());
}

void JsonWriter::key(std::string_view k) {
  Level& l = open_.back();
  put(l.members++ == 0 ? "{\n" : ",\n", 2);
  indent(open_.size());
  write_string(k);
  put(": ", 2);
  after_key_ = true;
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
  put('\n');
  indent(open_.size());
  put('}');
}

void JsonWriter::end_array() {
  const size_t members = open_.back().members;
  open_.pop_back();
  if (members == 0) {
    put("[]", 2);
    return;
  }
  put('\n');
  indent(open_.size());
  put(']');
}

namespace {

// Whether every byte is printable ASCII other than '"' and '\\' (0x20..0x7e): such a string
// is written as it is. Eight bytes at a time, the last few padded with spaces to a word of
// their own: a report is mostly short keys, names and source lines.
bool plain(std::string_view s) {
  constexpr uint64_t kOnes = 0x0101010101010101ull, kHigh = 0x8080808080808080ull;
  auto has_zero = [&](uint64_t x) { return (x - kOnes) & ~x & kHigh; };
  auto bad = [&](uint64_t x) {
    const uint64_t below_space = (x - kOnes * 0x20) & ~x & kHigh;
    return (x & kHigh) | below_space | has_zero(x ^ (kOnes * '"')) | has_zero(x ^ (kOnes * '\\')) |
           has_zero(x ^ (kOnes * 0x7f));
  };
  size_t i = 0;
  for (; i + 8 <= s.size(); i += 8) {
    uint64_t x;
    std::memcpy(&x, s.data() + i, 8);
    if (bad(x)) return false;
  }
  if (i == s.size()) return true;
  uint64_t tail = kOnes * ' ';
  std::memcpy(&tail, s.data() + i, s.size() - i);
  return !bad(tail);
}

}  // namespace

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
