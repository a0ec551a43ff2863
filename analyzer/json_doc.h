// A read-only JSON document stored flat: every value is one 16-byte record in one array, in
// document order, with its string bytes in one buffer and its object keys interned. It is what
// the .pt2 reader walks instead of a nlohmann::json tree, which costs several times the memory
// and a heap allocation per value: a 100,000-op model.json holds some 5 million values.
// It answers what nlohmann::json's tree would: items() gives an object's keys in the sorted
// order of its std::map, and the last of duplicate keys wins.
#pragma once

#include <cstdint>
#include <deque>
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

  // Elements of an array or values of an object, in document order, as a range to iterate.
  class Children;
  Children children() const;
  size_t size() const;
  bool empty() const { return size() == 0; }
  // Whether any value inside this one sits under `key`, at any depth. Linear in the subtree.
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
  // Parses `text` after check_json_limits; throws Error "<what> is not valid JSON: ..." with
  // nlohmann::json's message, or "<what>: ..." over a limit.
  static JsonDoc parse(std::string_view text, const std::string& what);
  JsonRef root() const { return JsonRef(this, 0); }

  // What a value is; public for the parser that fills the document.
  enum class Type : uint8_t { kNull, kObject, kArray, kString, kBoolean, kInteger, kUnsigned, kFloat };
  static constexpr uint32_t kNoKey = (1u << 28) - 1;  // a text of 256 MiB has fewer distinct keys
  // 16 bytes: the type shares a word with the key.
  struct Node {
    uint32_t key_type = kNoKey << 4;  // index into keys_ (kNoKey for array elements and the root), then the type
    uint32_t span = 1;                // records in this value's subtree, itself included
    union {
      int64_t i = 0;
      uint64_t u;
      double d;
      bool b;
      uint32_t count;  // elements of an array or object
      struct {
        uint32_t offset, length;  // into chars_
      } s;
    };
    Type type() const { return static_cast<Type>(key_type & 15); }
    uint32_t key() const { return key_type >> 4; }
  };

 private:
  friend class JsonRef;
  friend class JsonDocBuilder;
  std::vector<Node> nodes_;
  std::string chars_;
  std::deque<std::string> keys_;  // interned keys; a deque, so that views of them stay valid
};

}  // namespace kc
