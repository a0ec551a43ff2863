// An interned name: an op's ("aten::add"), its overload's ("Tensor"), an argument's ("dim").
// A model of 100,000 ops names a few hundred distinct things, so each text is kept once for the
// life of the process and every Name holding it is one pointer: 8 bytes where a std::string
// took 32 (and a heap block past 15 characters), copied without a look at the bytes, equal
// when the pointers are.
#pragma once

#include <cstddef>
#include <functional>
#include <ostream>
#include <string>
#include <string_view>

namespace kc {

class Name {
 public:
  Name() : text_(&empty_text()) {}
  Name(std::string_view s) : text_(&intern(s)) {}            // NOLINT: a text names
  Name(const std::string& s) : Name(std::string_view(s)) {}  // NOLINT: so does this
  Name(const char* s) : Name(std::string_view(s)) {}         // NOLINT: and this

  const std::string& str() const { return *text_; }
  operator const std::string&() const { return *text_; }  // NOLINT: reads as the text it holds
  operator std::string_view() const { return *text_; }    // NOLINT: as does this
  bool empty() const { return text_->empty(); }
  size_t size() const { return text_->size(); }
  const char* c_str() const { return text_->c_str(); }
  std::string substr(size_t pos, size_t n = std::string::npos) const { return text_->substr(pos, n); }
  size_t find(std::string_view s, size_t pos = 0) const { return text_->find(s, pos); }
  size_t find(char c, size_t pos = 0) const { return text_->find(c, pos); }
  size_t rfind(std::string_view s, size_t pos = std::string::npos) const { return text_->rfind(s, pos); }
  size_t rfind(char c, size_t pos = std::string::npos) const { return text_->rfind(c, pos); }

  // One text, one pointer: equal names share it.
  friend bool operator==(const Name& a, const Name& b) { return a.text_ == b.text_; }
  friend bool operator!=(const Name& a, const Name& b) { return a.text_ != b.text_; }
  friend bool operator==(const Name& a, std::string_view b) { return *a.text_ == b; }
  friend bool operator!=(const Name& a, std::string_view b) { return *a.text_ != b; }
  friend bool operator==(const Name& a, const std::string& b) { return *a.text_ == b; }
  friend bool operator!=(const Name& a, const std::string& b) { return *a.text_ != b; }
  friend bool operator==(const Name& a, const char* b) { return std::string_view(*a.text_) == b; }
  friend bool operator!=(const Name& a, const char* b) { return std::string_view(*a.text_) != b; }
  friend bool operator==(std::string_view a, const Name& b) { return b == a; }
  friend bool operator==(const std::string& a, const Name& b) { return b == a; }
  friend bool operator==(const char* a, const Name& b) { return b == a; }
  friend bool operator!=(const char* a, const Name& b) { return b != a; }
  friend bool operator<(const Name& a, const Name& b) { return *a.text_ < *b.text_; }
  friend std::string operator+(const Name& a, std::string_view b) { return *a.text_ + std::string(b); }
  friend std::string operator+(const std::string& a, const Name& b) { return a + *b.text_; }
  friend std::string operator+(const char* a, const Name& b) { return a + *b.text_; }
  friend std::ostream& operator<<(std::ostream& os, const Name& n) { return os << *n.text_; }

 private:
  static const std::string& empty_text();
  // The pool's copy of s, added at its first use; never freed. Thread-safe.
  static const std::string& intern(std::string_view s);
  const std::string* text_;
};

}  // namespace kc

template <>
struct std::hash<kc::Name> {
  size_t operator()(const kc::Name& n) const { return std::hash<std::string_view>()(n.str()); }
};
