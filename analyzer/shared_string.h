// An immutable string that copies share rather than duplicate: what many ops hold alike (the
// launch key of every op of one signature) is stored once.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <utility>

namespace kc {

class SharedString {
 public:
  SharedString() = default;
  SharedString(std::string s) : text_(std::make_shared<const std::string>(std::move(s))) {}  // NOLINT: a string is one
  SharedString(const char* s) : SharedString(std::string(s)) {}                              // NOLINT: so is this

  // The text; empty for a default-made one.
  const std::string& str() const { return text_ ? *text_ : none(); }
  operator const std::string&() const { return str(); }  // NOLINT: reads as the string it holds
  bool empty() const { return str().empty(); }
  // Copies of one string share its text: equal without a look at the bytes.
  friend bool operator==(const SharedString& a, const SharedString& b) {
    return a.text_ == b.text_ || a.str() == b.str();
  }
  friend bool operator==(const SharedString& a, std::string_view b) { return a.str() == b; }
  // As views: with a literal, a length that differs decides without a call.
  friend bool operator==(const SharedString& a, const char* b) { return std::string_view(a.str()) == b; }
  friend bool operator!=(const SharedString& a, const SharedString& b) { return !(a == b); }

 private:
  static const std::string& none() {
    static const std::string text;
    return text;
  }
  std::shared_ptr<const std::string> text_;
};

}  // namespace kc
