// A strict pull parser over one JSON value's text: the reader asks for the value it expects
// where it expects it, and builds what it reads straight from the text, with no document in
// between. It accepts only what nlohmann::json accepts and gives the same values
// (json_lexer.h); where the text is anything else, or not what the reader asked for, a call
// returns false and the reader falls back to a parser that gives the error. Every byte of the
// value is checked: what the reader skips (skip) too.
#pragma once

#include <cstddef>
#include <string_view>

#include "analyzer/json_lexer.h"
#include "analyzer/json_limits.h"

namespace kc {

class JsonCursor : JsonLexer {
 public:
  // `text` holds one value, which sits `depth` deep in its document (the depth limit counts
  // from the document's root). Escaped strings are decoded into `decoded` where given
  // (JsonLexer).
  JsonCursor(std::string_view text, size_t depth, std::string* decoded = nullptr)
      : JsonLexer(text.data(), text.data() + text.size(), decoded), begin_(text.data()), depth_(depth) {}

  // The next value's first byte ('{', '[', '"', 't', 'f', 'n', or a number's), 0 at the end.
  char peek() {
    skip_space();
    return p_ == end_ ? 0 : *p_;
  }
  // A string, a view of the text or of a buffer the next string read replaces.
  bool string(std::string_view& s) { return peek() == '"' && JsonLexer::string(s); }
  // An integer, signed or unsigned (one over INT64_MAX wraps, as nlohmann's get<int64_t>).
  bool integer(int64_t& v) {
    JsonNumber n;
    if (!number_at(n) || n.kind == JsonNumber::kFloat) return false;
    v = n.kind == JsonNumber::kInteger ? n.i : static_cast<int64_t>(n.u);
    return true;
  }
  // A number of any kind, as a double.
  bool number(double& v) {
    JsonNumber n;
    if (!number_at(n)) return false;
    v = n.kind == JsonNumber::kFloat      ? n.d
        : n.kind == JsonNumber::kUnsigned ? static_cast<double>(n.u)
                                          : static_cast<double>(n.i);
    return true;
  }
  bool boolean(bool& v) {
    const char c = peek();
    v = c == 't';
    return c == 't' ? literal("true") : c == 'f' && literal("false");
  }
  bool null() { return peek() == 'n' && literal("null"); }

  // An object: member(key) for each member in order, which must read its value. The key is a
  // view that the value's own strings may replace: compare it before reading the value.
  template <class F>
  bool members(F&& member) {
    if (peek() != '{' || !open()) return false;
    if (peek() == '}') return close();
    for (;;) {
      std::string_view key;
      if (!string(key) || peek() != ':') return false;
      ++p_;
      if (!member(key)) return false;
      const char c = peek();
      if (c == '}') return close();
      if (c != ',') return false;
      ++p_;
    }
  }
  // An array: element() for each element in order, which must read it.
  template <class F>
  bool elements(F&& element) {
    if (peek() != '[' || !open()) return false;
    if (peek() == ']') return close();
    for (;;) {
      if (!element()) return false;
      const char c = peek();
      if (c == ']') return close();
      if (c != ',') return false;
      ++p_;
    }
  }
  // A value of any kind, checked and dropped.
  bool skip() {
    switch (peek()) {
      case '{':
        return members([this](std::string_view) { return skip(); });
      case '[':
        return elements([this] { return skip(); });
      case '"': {
        std::string_view s;
        return JsonLexer::string(s);
      }
      case 't':
        return literal("true");
      case 'f':
        return literal("false");
      case 'n':
        return literal("null");
      default: {
        JsonNumber n;
        return number_at(n);
      }
    }
  }
  // Whether only whitespace is left: call once the value has been read.
  bool done() { return peek() == 0; }
  // Whether `s`, from string(), is a view of the text rather than of the buffer.
  bool in_text(std::string_view s) const { return s.data() >= begin_ && s.data() + s.size() <= end_; }

 private:
  bool number_at(JsonNumber& n) {
    const char c = peek();
    return (c == '-' || (c >= '0' && c <= '9')) && read_number(n);
  }
  // Past the bracket at p_ (open) or the one that ends the container (close).
  bool open() {
    ++p_;
    return ++depth_ <= kMaxJsonDepth;
  }
  bool close() {
    ++p_;
    --depth_;
    return true;
  }

  const char* const begin_;
  size_t depth_;
};

}  // namespace kc
