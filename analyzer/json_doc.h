// A read-only JSON document stored flat: every value is one 24-byte record in one array, in
// document order. Strings are views of the text where they hold no escapes, so the text must
// outlive the document; keys and decoded strings are copied into one buffer. It is what the
// .pt2 reader walks instead of a nlohmann::json tree, which costs several times the memory and a
// heap allocation per value. An outline (parse_outline) leaves the deep values as text, found by
// their brackets alone, so that a reader parses them one at a time (expand) rather than holding
// them all, and reads the text once: each deep value is checked as it is expanded, the rest by
// check_unexpanded.
// It answers what nlohmann::json's tree would: items() gives an object's keys in the sorted
// order of its std::map, and the last of duplicate keys wins.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace kc {

class JsonDoc;

// One value of a JsonDoc, or none (false in a condition); valid while its JsonDoc lives.
class JsonRef {
 public:
  JsonRef() = default;
  explicit operator bool() const { return doc_ != nullptr; }

  bool is_null() const;
  bool is_object() const;
  bool is_array() const;
  bool is_string() const;
  bool is_boolean() const;
  bool is_number() const;
  bool is_number_integer() const;  // signed or unsigned integers, as nlohmann::json counts them
  // "null", "object", "array", "string", "boolean" or "number", as nlohmann::json names them.
  const char* type_name() const;

  // The value itself; each requires its type (checked by the caller).
  std::string_view str() const;
  int64_t integer() const;  // an unsigned value over INT64_MAX wraps, as nlohmann's get<int64_t>
  double number() const;    // of an integer too
  bool boolean() const;

  // The key this value has in its object; empty for an array element or the root.
  std::string_view key() const;

  // A value parse_outline left unparsed (an object or an array): only JsonDoc::expand reads it;
  // it is none of the types above.
  bool is_lazy() const;
  // Where a lazy value's text starts and ends in the document's text; 0 for other values.
  size_t text_begin() const;
  size_t text_end() const;
  // A lazy value's text, for a reader that parses it itself (JsonDoc::mark_checked); empty for
  // other values.
  std::string_view text() const;

  // Elements of an array or values of an object, in document order, as a range to iterate.
  class Children;
  Children children() const;
  size_t size() const;
  bool empty() const { return size() == 0; }
  // Whether any value inside this one sits under `key`, at any depth. Linear in the subtree.
  // Inside a lazy value, exact for the key its outline noted (parse_outline); for another, a
  // search of its text that may answer true where the key is not one (the word in a string, an
  // escape): a filter, not a lookup.
  bool contains_key(std::string_view key) const;
  // The value of `key` in an object (the last one when the key repeats); none when this is not
  // an object or has no such key. Linear in the object's size.
  JsonRef find(std::string_view key) const;
  // An object's keys and values sorted by key, each key once (with its last value).
  std::vector<std::pair<std::string_view, JsonRef>> items() const;

 private:
  friend class JsonDoc;
  JsonRef(const JsonDoc* doc, uint32_t index) : doc_(doc), index_(index) {}
  const JsonDoc* doc_ = nullptr;
  uint32_t index_ = 0;
};

class JsonRef::Children {
 public:
  class iterator {
   public:
    JsonRef operator*() const { return JsonRef(doc_, index_); }
    iterator& operator++();
    bool operator!=(const iterator& o) const { return index_ != o.index_; }

   private:
    friend class Children;
    iterator(const JsonDoc* doc, uint32_t index) : doc_(doc), index_(index) {}
    const JsonDoc* doc_;
    uint32_t index_;
  };
  iterator begin() const { return iterator(doc_, first_); }
  iterator end() const { return iterator(doc_, end_); }

 private:
  friend class JsonRef;
  Children(const JsonDoc* doc, uint32_t first, uint32_t end) : doc_(doc), first_(first), end_(end) {}
  const JsonDoc* doc_;
  uint32_t first_, end_;
};

class JsonDoc {
 public:
  // Parses `text`, which must outlive the document. Throws Error "<what> is not valid JSON: ..."
  // with nlohmann::json's message, or "<what>: ..." over a limit of check_json_limits, which
  // come first.
  static JsonDoc parse(std::string_view text, const std::string& what);
  // The same, except that objects and arrays nested `lazy_depth` deep (the root is 0) are kept
  // as text (JsonRef::is_lazy) for expand to parse and check; only their brackets, strings and
  // depth are checked here. passed(offset) is called now and then with how far into the text the
  // parse has read. A text that only nlohmann::json reads (one that starts with a byte-order
  // mark) is parsed whole.
  // With `noted_key`, each lazy value records whether that key occurs in it at any depth (escapes
  // decoded), so that contains_key answers for it without reading the text again.
  static JsonDoc parse_outline(std::string_view text, const std::string& what, size_t lazy_depth,
                               const std::function<void(size_t)>& passed = {}, std::string_view noted_key = {});
  JsonRef root() const { return JsonRef(this, 0); }
  // Parses a lazy value of another document into this one, in place of what this one held, and
  // returns it; the other document's text must outlive this one's use. A value that is not valid
  // JSON throws the Error a parse of the other document's whole text gives (its first error).
  JsonRef expand(JsonRef lazy);
  // Checks the lazy values no expand has read, as parse would have: throws its Error where the
  // text is not valid JSON. A reader calls it once done, and before reporting an error of its
  // own, so that an invalid text's error comes first wherever it lies.
  void check_unexpanded() const;
  // Notes that a reader has parsed the lazy value `lazy` itself and found it valid JSON, as
  // expand would have: check_unexpanded then leaves it alone.
  static void mark_checked(JsonRef lazy);

  // What a value is; public for the parser that fills the document.
  enum class Type : uint8_t { kNull, kObject, kArray, kString, kBoolean, kInteger, kUnsigned, kFloat, kLazy };
  static constexpr uint32_t kNoKey = ~0u;
  struct Node {
    uint32_t span = 1;  // records in this value's subtree, itself included
    Type type = Type::kNull;
    bool in_text = false;                          // a string's bytes are in text_, not chars_
    bool key_in_text = false;                      // the key's bytes are in text_, not chars_
    bool has_noted_key = false;                    // a lazy value holds the outline's noted key
    uint32_t key_offset = 0, key_length = kNoKey;  // into chars_; kNoKey for array elements and the root
    union {
      int64_t i = 0;
      uint64_t u;
      double d;
      bool b;
      uint32_t count;  // elements of an array or object
      struct {
        uint32_t offset, length;  // a string's bytes, or a lazy value's text
      } s;
    };
  };

 private:
  friend class JsonRef;
  friend class JsonDocBuilder;
  static JsonDoc parse(std::string_view text, const std::string& what, size_t lazy_depth,
                       const std::function<void(size_t)>& passed, std::string_view noted_key);
  std::vector<Node> nodes_;
  std::string chars_;
  std::string noted_key_;  // see parse_outline; empty when none was noted
  std::string what_;       // the text's name in errors
  // Lazy values expand has read (checked), by index; check_unexpanded reads the others.
  mutable std::vector<bool> expanded_;
  // The containers a parse has open, innermost last: kept between expands, which parse a value
  // per op, so that none of them allocates it anew.
  std::vector<uint32_t> open_;
  std::string_view text_;
};

// Defined here, where the compiler can inline them: a reader asks them of every record.
inline bool JsonRef::is_lazy() const {
  return doc_->nodes_[index_].type == JsonDoc::Type::kLazy;
}
inline size_t JsonRef::text_begin() const {
  return is_lazy() ? doc_->nodes_[index_].s.offset : 0;
}
inline size_t JsonRef::text_end() const {
  return is_lazy() ? size_t{doc_->nodes_[index_].s.offset} + doc_->nodes_[index_].s.length : 0;
}
inline std::string_view JsonRef::text() const {
  const JsonDoc::Node& n = doc_->nodes_[index_];
  return is_lazy() ? doc_->text_.substr(n.s.offset, n.s.length) : std::string_view();
}
inline JsonRef::Children::iterator& JsonRef::Children::iterator::operator++() {
  index_ += doc_->nodes_[index_].span;
  return *this;
}

}  // namespace kc
