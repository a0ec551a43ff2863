// Writes JSON to a stream as it goes, byte for byte as nlohmann::ordered_json::dump(1) would
// print the same document, so that a report of 100,000 ops never exists as a tree in memory.
#pragma once

#include <charconv>
#include <cstdint>
#include <cstring>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

namespace kc {

class JsonWriter {
 public:
  explicit JsonWriter(std::ostream& os) : os_(os), buf_(new char[kBufBytes + kSlack]) {}
  ~JsonWriter() { flush(); }
  JsonWriter(const JsonWriter&) = delete;
  JsonWriter& operator=(const JsonWriter&) = delete;
  // Hands what is buffered to the stream (the destructor does too).
  void flush();

  void begin_object();
  void end_object();
  void begin_array();
  void end_array();
  // The next member's key, inside an object; its value follows.
  void key(std::string_view k);
  // A key spelled in the code, as nearly every key of a report is: printable ASCII without a
  // quote or backslash, so it is copied without the check key() makes of any other.
  template <size_t N>
  void key(const char (&k)[N]) {
    // Its bytes copied in a size the compiler knows, where the buffer has room.
    if (char* at = key_at(N - 1)) {
      std::memcpy(at, k, N - 1);
      std::memcpy(at + N - 1, "\": ", 3);
      return;
    }
    plain_key(std::string_view(k, N - 1));
  }

  void value(std::string_view s);
  void value(const char* s) { value(std::string_view(s)); }
  void value(const std::string& s) { value(std::string_view(s)); }
  void value(bool b);
  void null();
  // As nlohmann prints a double: the shortest digits that read back the same, "null" for NaN
  // and infinities.
  void value(double d);
  template <typename T, std::enable_if_t<std::is_integral_v<T> && !std::is_same_v<T, bool>, int> = 0>
  void value(T n) {
    element();
    // Written straight into the buffer where it has room for any integer's digits.
    constexpr size_t kDigits = 24;
    if (used_ + kDigits > kBufBytes) flush();
    used_ = static_cast<size_t>(std::to_chars(buf_.get() + used_, buf_.get() + used_ + kDigits, n).ptr - buf_.get());
  }
  // A whole value built as a tree, for the small parts of a report.
  void value(const nlohmann::ordered_json& j);
  template <typename T>
  void value(const std::vector<T>& list) {
    if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
      if (int_list(list.data(), list.size())) return;
    }
    begin_array();
    for (const T& v : list) value(v);
    end_array();
  }
  // key(k) then value(v).
  template <typename T>
  void member(std::string_view k, const T& v) {
    key(k);
    value(v);
  }
  template <size_t N, typename T>
  void member(const char (&k)[N], const T& v) {
    key(k);
    value(v);
  }

 private:
  // key() of a key known to need no escapes.
  void plain_key(std::string_view k);
  // Where a plain key of `size` bytes goes, its line and opening quote written and room kept
  // for it and the '": ' after it; null, with nothing written, where the buffer has no room.
  char* key_at(size_t size);
  // Before a value: the separator and indent of an array element; after a key, nothing.
  void element();
  void indent(size_t depth);
  // Where `prefix` bytes (a line break, after a comma or a bracket) and the indent of `depth`
  // may be written at once, followed by `more` bytes: the indent's spaces are already there,
  // copied in a fixed size into the buffer's slack. Null where they do not fit.
  char* line_at(size_t prefix, size_t depth, size_t more);
  // A line break, the indent of the current depth and a closing bracket.
  void close_line(char bracket);
  // A member's list of integers as the elements one by one would write it, in one piece where
  // the buffer has room for the longest it could be (a report holds two shapes per tensor of
  // every op); false, with nothing written, where it has not or the list is no member's.
  template <typename T>
  bool int_list(const T* values, size_t n) {
    constexpr size_t kDigits = 24;
    const size_t depth = open_.size() + 1;  // the elements'
    if (n == 0 || !after_key_ || depth + 8 > kSlack || used_ + n * (2 + depth + kDigits) + 2 + depth > kBufBytes)
      return false;
    after_key_ = false;
    char* at = buf_.get() + used_;
    for (size_t k = 0; k < n; ++k) {
      std::memcpy(at, k == 0 ? "[\n" : ",\n", 2);
      std::memset(at + 2, ' ', depth);
      at = std::to_chars(at + 2 + depth, at + 2 + depth + kDigits, values[k]).ptr;
    }
    *at++ = '\n';
    std::memset(at, ' ', depth - 1);
    at[depth - 1] = ']';
    used_ = static_cast<size_t>(at + depth - buf_.get());
    return true;
  }
  void write_string(std::string_view s);
  // One value through nlohmann's serializer, indented for the current depth.
  void dump(const nlohmann::ordered_json& j);
  void put(const char* p, size_t n) {
    if (used_ + n > kBufBytes) {
      flush();
      if (n > kBufBytes) {
        os_.write(p, static_cast<std::streamsize>(n));
        return;
      }
    }
    std::memcpy(buf_.get() + used_, p, n);
    used_ += n;
  }
  void put(std::string_view s) { put(s.data(), s.size()); }
  void put(char c) {
    if (used_ == kBufBytes) flush();
    buf_[used_++] = c;
  }

  struct Level {
    bool object;
    size_t members = 0;
  };
  // Written to os_ in blocks: a stream call per token is most of the cost.
  static constexpr size_t kBufBytes = 1 << 16;
  // Bytes past kBufBytes that a line's fixed-size indent may write over (line_at).
  static constexpr size_t kSlack = 64;
  std::ostream& os_;
  std::unique_ptr<char[]> buf_;
  size_t used_ = 0;
  std::string escaped_;  // what the serializer writes, then put()
  std::optional<nlohmann::detail::serializer<nlohmann::ordered_json>> serializer_;  // writes into escaped_
  std::vector<Level> open_;
  bool after_key_ = false;
};

}  // namespace kc
