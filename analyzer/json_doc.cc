#include "analyzer/json_doc.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <nlohmann/json.hpp>

#include "analyzer/error.h"
#include "analyzer/json_blocks.h"
#include "analyzer/json_lexer.h"
#include "analyzer/json_limits.h"

namespace kc {

// Fills a JsonDoc from parse events: nlohmann::json's SAX events, or FastParser's. Containers
// get their span and count when they close.
class JsonDocBuilder {
 public:
  using Type = JsonDoc::Type;
  // With keys_in_text, keys are views of the text rather than copies (see key_view).
  explicit JsonDocBuilder(JsonDoc& doc, bool keys_in_text = false)
      : doc_(doc), open_(doc.open_), keys_in_text_(keys_in_text) {
    open_.clear();
  }

  bool null() { return add(Type::kNull), true; }
  bool boolean(bool v) { return add(Type::kBoolean).b = v, true; }
  bool number_integer(int64_t v) { return add(Type::kInteger).i = v, true; }
  bool number_unsigned(uint64_t v) { return add(Type::kUnsigned).u = v, true; }
  bool number_float(double v, const std::string&) { return add(Type::kFloat).d = v, true; }
  bool string(std::string& v) { return string_view(v); }
  // Offsets are 32 bits: the text is at most 1 GiB, so its strings are too.
  bool string_view(std::string_view v) {
    JsonDoc::Node& n = add(Type::kString);
    const std::string_view text = doc_.text_;
    if (v.data() >= text.data() && v.data() + v.size() <= text.data() + text.size()) {
      n.in_text = true;  // a view of the text: no copy
      n.s.offset = static_cast<uint32_t>(v.data() - text.data());
    } else {
      n.s.offset = static_cast<uint32_t>(doc_.chars_.size());
      doc_.chars_ += v;
    }
    n.s.length = static_cast<uint32_t>(v.size());
    return true;
  }
  // A value left as text: [offset, offset + length) of the document's text.
  void lazy(size_t offset, size_t length, bool has_noted_key) {
    JsonDoc::Node& n = add(Type::kLazy);
    n.has_noted_key = has_noted_key;
    n.s.offset = static_cast<uint32_t>(offset);
    n.s.length = static_cast<uint32_t>(length);
  }
  bool binary(nlohmann::json::binary_t&) { return add(Type::kNull), true; }  // JSON text has none
  bool start_object(size_t) { return open(Type::kObject); }
  bool start_array(size_t) { return open(Type::kArray); }
  bool end_object() { return close(); }
  bool end_array() { return close(); }
  bool key(std::string& k) { return key_view(k); }
  // An outline's keys are copied: a reader compares them long after the text's pages were
  // given back. An expanded value is read before its text is passed, so its keys stay views.
  bool key_view(std::string_view k) {
    const std::string_view text = doc_.text_;
    key_in_text_ = keys_in_text_ && k.data() >= text.data() && k.data() + k.size() <= text.data() + text.size();
    if (key_in_text_) {
      key_offset_ = static_cast<uint32_t>(k.data() - text.data());
    } else {
      key_offset_ = static_cast<uint32_t>(doc_.chars_.size());
      doc_.chars_ += k;
    }
    key_length_ = static_cast<uint32_t>(k.size());
    return true;
  }
  bool parse_error(size_t, const std::string&, const nlohmann::json::exception& e) { throw e; }

 private:
  JsonDoc::Node& add(Type type) {
    if (!open_.empty()) ++doc_.nodes_[open_.back()].count;
    JsonDoc::Node& n = doc_.nodes_.emplace_back();
    n.type = type;
    n.key_offset = key_offset_;
    n.key_length = key_length_;
    n.key_in_text = key_in_text_;
    key_length_ = JsonDoc::kNoKey;
    key_in_text_ = false;
    return n;
  }
  bool open(Type type) {
    add(type).count = 0;
    open_.push_back(static_cast<uint32_t>(doc_.nodes_.size() - 1));
    return true;
  }
  bool close() {
    JsonDoc::Node& n = doc_.nodes_[open_.back()];
    n.span = static_cast<uint32_t>(doc_.nodes_.size() - open_.back());
    open_.pop_back();
    return true;
  }

  JsonDoc& doc_;
  std::vector<uint32_t>& open_;  // containers not yet closed, innermost last
  const bool keys_in_text_;
  bool key_in_text_ = false;
  uint32_t key_offset_ = 0, key_length_ = JsonDoc::kNoKey;
};

namespace {

// A strict JSON parser for the common case, several times faster than nlohmann's lexer, which
// reads a character at a time through an adapter. It accepts only what nlohmann::json accepts
// and gives the same values (numbers are converted as the same C functions convert them); on
// anything else (invalid JSON, a byte-order mark, a value over the limits of json_limits.h) it
// gives up, and check_json_limits and nlohmann's parser decide, with their messages. Its own
// depth check bounds its recursion. Containers `lazy_depth` deep are skipped by their brackets
// and strings (skip_container) and handed to the builder as text, checked when expanded.
class FastParser : JsonLexer {
 public:
  FastParser(std::string_view text, size_t begin, size_t end, JsonDocBuilder& out, size_t lazy_depth,
             const std::function<void(size_t)>* passed, std::string_view noted_key = {})
      : JsonLexer(text.data() + begin, text.data() + end),
        text_(text.data()),
        out_(out),
        lazy_depth_(lazy_depth),
        passed_(passed && *passed ? passed : nullptr),
        noted_key_(noted_key),
        plain_noted_key_(noted_key.find_first_of("\"\\/\b\f\n\r\t") == std::string_view::npos) {}

  bool run() {
    skip_space();
    if (!value()) return false;
    skip_space();
    return p_ == end_;
  }

 private:
  // How often passed_ hears of the parse's progress.
  static constexpr size_t kPassedStep = 1u << 20;

  void progress() {
    if (passed_ && static_cast<size_t>(p_ - text_) >= next_passed_) {
      next_passed_ = static_cast<size_t>(p_ - text_) + kPassedStep;
      (*passed_)(static_cast<size_t>(p_ - text_));
    }
  }

  bool value() {
    if (p_ == end_) return false;
    switch (*p_) {
      case '{':
      case '[': {
        if (depth_ >= lazy_depth_) {
          const char* start = p_;
          if (!skip_container()) return false;
          out_.lazy(static_cast<size_t>(start - text_), static_cast<size_t>(p_ - start), seen_noted_key_);
          return true;
        }
        return *p_ == '{' ? object() : array();
      }
      case '"': {
        std::string_view s;
        return string(s) && out_.string_view(s);
      }
      case 't':
        return literal("true") && out_.boolean(true);
      case 'f':
        return literal("false") && out_.boolean(false);
      case 'n':
        return literal("null") && out_.null();
      default:
        return number();
    }
  }

  bool object() {
    ++p_;
    if (++depth_ > kMaxJsonDepth) return false;
    out_.start_object(0);
    skip_space();
    if (p_ != end_ && *p_ == '}') {
      ++p_;
      --depth_;
      return out_.end_object();
    }
    for (;;) {
      skip_space();
      std::string_view key;
      if (p_ == end_ || *p_ != '"' || !string(key)) return false;
      out_.key_view(key);
      skip_space();
      if (p_ == end_ || *p_ != ':') return false;
      ++p_;
      skip_space();
      if (!value()) return false;
      progress();
      skip_space();
      if (p_ == end_) return false;
      if (*p_ == '}') {
        ++p_;
        --depth_;
        return out_.end_object();
      }
      if (*p_++ != ',') return false;
    }
  }

  bool array() {
    ++p_;
    if (++depth_ > kMaxJsonDepth) return false;
    out_.start_array(0);
    skip_space();
    if (p_ != end_ && *p_ == ']') {
      ++p_;
      --depth_;
      return out_.end_array();
    }
    for (;;) {
      skip_space();
      if (!value()) return false;
      progress();
      skip_space();
      if (p_ == end_) return false;
      if (*p_ == ']') {
        ++p_;
        --depth_;
        return out_.end_array();
      }
      if (*p_++ != ',') return false;
    }
  }

  // Finds the end of the object or array at p_ from its brackets and strings alone, noting the
  // outline's key where it occurs. What lies between is checked when the value is expanded
  // (JsonDoc::expand) or, if it never is, by JsonDoc::check_unexpanded: the text is parsed once
  // where it is read. The brackets must pair within the depth limit, so that the outline's own
  // structure is that of a full parse.
  bool skip_container() {
    const char* start = p_;
    bool may_hold_key = false;
    if (!find_container_end(may_hold_key)) return false;
    seen_noted_key_ = false;
    if (noted_key_.empty() || (plain_noted_key_ && !may_hold_key)) return true;
    p_ = start;
    return walk_container();
  }

  // skip_container's scan, 64 bytes at a time (json_blocks.h): a string's quotes are those no
  // backslash escapes, the bytes between them are inside it, and the brackets outside strings
  // are followed one by one. A backslash escapes the byte after it wherever it stands (outside
  // a string it is invalid JSON, which the value's parse finds). `may_hold_key`: whether a
  // string spells the noted key as it is, or any escape is a "\u", which may spell it: the
  // other escapes decode to bytes a plain noted key does not hold, so that otherwise the key
  // is not there.
  bool find_container_end(bool& may_hold_key) {
    char closing[kMaxJsonDepth];  // the bracket each open container expects, innermost last
    size_t open = 0;
    uint64_t inside = 0;         // all ones where a block starts inside a string
    uint64_t escaped_first = 0;  // 1 where a block's first byte is escaped by the last one's
    const size_t key = noted_key_.size();
    char tail[64];
    while (p_ != end_) {
      const size_t left = static_cast<size_t>(end_ - p_);
      const char* block = p_;
      if (left < 64) {  // the text's last bytes, padded with spaces, which mean nothing here
        std::memset(tail, ' ', sizeof tail);
        std::memcpy(tail, p_, left);
        block = tail;
      }
      const JsonBlock b = json_block(block);
      uint64_t escaped = escaped_first;
      escaped_first = 0;
      for (uint64_t escapes = b.backslash & ~escaped; escapes != 0; escapes &= escapes - 1) {
        const int i = __builtin_ctzll(escapes);
        if (i == 63) {
          escaped_first = 1;
          may_hold_key |= left > 64 && p_[64] == 'u';
          break;
        }
        escaped |= uint64_t{2} << i;
        escapes &= ~(uint64_t{2} << i);  // an escaped backslash escapes nothing
        may_hold_key |= block[i + 1] == 'u';
      }
      const uint64_t quotes = b.quote & ~escaped;
      const uint64_t in_string = prefix_xor(quotes) ^ inside;
      inside = in_string >> 63 ? ~uint64_t{0} : 0;
      if (key > 0 && !may_hold_key) {
        // Strings as long as the key: closed key + 1 bytes after they open, or past the block.
        const uint64_t opening = quotes & in_string, closing_quotes = quotes & ~in_string;
        const uint64_t ends =
            key + 1 < 64 ? (closing_quotes >> (key + 1)) | ~(~uint64_t{0} >> (key + 1)) : ~uint64_t{0};
        for (uint64_t q = opening & ends; q != 0; q &= q - 1) {
          const size_t i = static_cast<size_t>(__builtin_ctzll(q));
          may_hold_key |=
              i + key + 1 < left && p_[i + key + 1] == '"' && std::memcmp(p_ + i + 1, noted_key_.data(), key) == 0;
        }
      }
      for (uint64_t brackets = (b.open | b.close) & ~in_string; brackets != 0; brackets &= brackets - 1) {
        const int i = __builtin_ctzll(brackets);
        const char c = block[i];
        if (c == '{' || c == '[') {
          if (depth_ + open >= kMaxJsonDepth) return false;
          closing[open++] = c == '{' ? '}' : ']';
        } else {
          if (closing[--open] != c) return false;
          if (open == 0) {
            p_ += i + 1;
            return true;
          }
        }
      }
      p_ += left < 64 ? left : 64;
    }
    return false;
  }

  // skip_container's walk byte by byte, noting the outline's key exactly, escapes decoded: for
  // the values whose text may hold it.
  bool walk_container() {
    char closing[kMaxJsonDepth];  // the bracket each open container expects, innermost last
    size_t open = 0;
    while (p_ != end_) {
      const char c = *p_;
      if (c == '"') {
        const char* start = p_;
        if (!skip_string()) return false;
        if (!note_key(start)) return false;
        continue;
      }
      if (c == '{' || c == '[') {
        if (depth_ + open >= kMaxJsonDepth) return false;
        closing[open++] = c == '{' ? '}' : ']';
      } else if (c == '}' || c == ']') {
        if (closing[--open] != c) return false;
        if (open == 0) {
          ++p_;
          return true;
        }
      }
      ++p_;
    }
    return false;
  }

  // Moves past the string at p_ without decoding it: a backslash escapes the byte after it.
  bool skip_string() {
    ++p_;
    for (;;) {
      skip_plain();
      if (p_ == end_) return false;
      const char c = *p_++;
      if (c == '"') return true;
      if (c == '\\') {
        if (p_ == end_) return false;
        ++p_;
      }
    }
  }

  // After skip_string of the string at `start`: where it is a key, whether it is the noted one,
  // escapes decoded. False where its escapes are not valid. Most strings differ from the key in
  // length, which decides without a look at their bytes: an escaped spelling is only longer.
  bool note_key(const char* start) {
    const std::string_view raw(start + 1, static_cast<size_t>(p_ - start - 2));
    if (raw.size() < noted_key_.size() || seen_noted_key_) return true;
    const bool escaped = raw.size() > noted_key_.size();
    if (escaped && raw.find('\\') == std::string_view::npos) return true;
    const char* colon = p_;
    while (colon != end_ && (*colon == ' ' || *colon == '\n' || *colon == '\r' || *colon == '\t')) ++colon;
    if (colon == end_ || *colon != ':') return true;
    if (!escaped) {
      seen_noted_key_ = raw == noted_key_;
      return true;
    }
    const char* after = p_;
    p_ = start;
    std::string_view key;
    if (!string(key)) return false;
    seen_noted_key_ = key == noted_key_;
    p_ = after;
    return true;
  }

  bool number() {
    JsonNumber n;
    if (!read_number(n)) return false;
    return n.kind == JsonNumber::kFloat     ? out_.number_float(n.d, number_)
           : n.kind == JsonNumber::kInteger ? out_.number_integer(n.i)
                                            : out_.number_unsigned(n.u);
  }

  const char* const text_;  // offsets given to the builder and to passed_ count from here
  JsonDocBuilder& out_;
  const size_t lazy_depth_;
  const std::function<void(size_t)>* const passed_;
  const std::string_view noted_key_;
  const bool plain_noted_key_;   // no escape but "\u" decodes to a byte of it
  bool seen_noted_key_ = false;  // in the lazy value being skipped
  size_t depth_ = 0, next_passed_ = 0;
};

}  // namespace

static_assert(sizeof(JsonDoc::Node) == 24);

namespace {

// nlohmann::json's parse events, dropped: what check_text needs of its parser is its verdict.
struct DropEvents {
  bool null() { return true; }
  bool boolean(bool) { return true; }
  bool number_integer(int64_t) { return true; }
  bool number_unsigned(uint64_t) { return true; }
  bool number_float(double, const std::string&) { return true; }
  bool string(std::string&) { return true; }
  bool binary(nlohmann::json::binary_t&) { return true; }
  bool start_object(size_t) { return true; }
  bool end_object() { return true; }
  bool start_array(size_t) { return true; }
  bool end_array() { return true; }
  bool key(std::string&) { return true; }
  bool parse_error(size_t, const std::string&, const nlohmann::json::exception& e) { throw e; }
};

// Throws the Error a parse of the whole `text` gives, if any: over a limit (check_json_limits'
// message, as if the limits were checked before the parse), else not valid JSON (nlohmann's).
// A text both accept is returned from.
void check_text(std::string_view text, const std::string& what) {
  check_json_limits(text, what);
  DropEvents events;
  try {
    nlohmann::json::sax_parse(text, &events);
  } catch (const nlohmann::json::exception& e) {
    throw json_parse_error(e, what);
  }
}

}  // namespace

JsonDoc JsonDoc::parse(std::string_view text, const std::string& what, size_t lazy_depth,
                       const std::function<void(size_t)>& passed, std::string_view noted_key) {
  // 32-bit offsets hold for any text up to 1 GiB; callers limit theirs to far less.
  if (text.size() > (1u << 30)) throw Error(what + ": larger than 1 GiB");
  {
    JsonDoc doc;
    doc.text_ = text;
    doc.what_ = what;
    doc.noted_key_ = noted_key;
    JsonDocBuilder builder(doc);
    if (FastParser(text, 0, text.size(), builder, lazy_depth, &passed, noted_key).run()) return doc;
  }
  // Over a limit, or not JSON FastParser reads: the limits' message first, as if they had been
  // checked before the parse, else nlohmann's.
  check_json_limits(text, what);
  JsonDoc doc;
  doc.text_ = text;
  doc.what_ = what;
  JsonDocBuilder builder(doc);
  try {
    nlohmann::json::sax_parse(text, &builder);
  } catch (const nlohmann::json::exception& e) {
    throw json_parse_error(e, what);
  }
  return doc;
}

JsonDoc JsonDoc::parse(std::string_view text, const std::string& what) {
  return parse(text, what, std::numeric_limits<size_t>::max(), {}, {});
}

JsonDoc JsonDoc::parse_outline(std::string_view text, const std::string& what, size_t lazy_depth,
                               const std::function<void(size_t)>& passed, std::string_view noted_key) {
  return parse(text, what, lazy_depth, passed, noted_key);
}

JsonRef JsonDoc::expand(JsonRef lazy) {
  const JsonDoc& outline = *lazy.doc_;
  const Node& n = outline.nodes_[lazy.index_];
  text_ = outline.text_;
  nodes_.clear();
  chars_.clear();
  bool parsed;
  {
    JsonDocBuilder builder(*this, true);
    parsed =
        FastParser(text_, n.s.offset, n.s.offset + n.s.length, builder, std::numeric_limits<size_t>::max(), nullptr)
            .run();
  }
  if (!parsed) {
    // Not JSON FastParser reads: the whole text's first error, where it has one, is the one a
    // full parse would have met; else the value is JSON only nlohmann's parser takes.
    check_text(text_, outline.what_);
    nodes_.clear();
    chars_.clear();
    JsonDocBuilder builder(*this, true);
    nlohmann::json::sax_parse(text_.substr(n.s.offset, n.s.length), &builder);
  }
  mark_checked(lazy);
  return root();
}

void JsonDoc::mark_checked(JsonRef lazy) {
  const JsonDoc& outline = *lazy.doc_;
  if (outline.expanded_.size() < outline.nodes_.size()) outline.expanded_.resize(outline.nodes_.size());
  outline.expanded_[lazy.index_] = true;
}

void JsonDoc::check_unexpanded() const {
  JsonDoc scratch;
  for (uint32_t i = 0; i < nodes_.size(); ++i)
    if (nodes_[i].type == Type::kLazy && !(i < expanded_.size() && expanded_[i])) {
      const Node& n = nodes_[i];
      scratch.text_ = text_;
      scratch.nodes_.clear();
      scratch.chars_.clear();
      JsonDocBuilder builder(scratch, true);
      if (!FastParser(text_, n.s.offset, n.s.offset + n.s.length, builder, std::numeric_limits<size_t>::max(), nullptr)
               .run())
        return check_text(text_, what_);  // the first error of the text, or none
    }
}

namespace {
using Type = JsonDoc::Type;
}  // namespace

#define KC_NODE (doc_->nodes_[index_])

bool JsonRef::is_null() const {
  return KC_NODE.type == Type::kNull;
}
bool JsonRef::is_object() const {
  return KC_NODE.type == Type::kObject;
}
bool JsonRef::is_array() const {
  return KC_NODE.type == Type::kArray;
}
bool JsonRef::is_string() const {
  return KC_NODE.type == Type::kString;
}
bool JsonRef::is_boolean() const {
  return KC_NODE.type == Type::kBoolean;
}
bool JsonRef::is_number() const {
  const Type t = KC_NODE.type;
  return t == Type::kInteger || t == Type::kUnsigned || t == Type::kFloat;
}
bool JsonRef::is_number_integer() const {
  return KC_NODE.type == Type::kInteger || KC_NODE.type == Type::kUnsigned;
}

const char* JsonRef::type_name() const {
  const JsonDoc::Node& n = KC_NODE;
  switch (n.type) {
    case Type::kNull:
      return "null";
    case Type::kObject:
      return "object";
    case Type::kArray:
      return "array";
    case Type::kString:
      return "string";
    case Type::kBoolean:
      return "boolean";
    case Type::kLazy:
      return doc_->text_[n.s.offset] == '{' ? "object" : "array";
    default:
      return "number";
  }
}

std::string_view JsonRef::str() const {
  const JsonDoc::Node& n = KC_NODE;
  return (n.in_text ? doc_->text_ : std::string_view(doc_->chars_)).substr(n.s.offset, n.s.length);
}
int64_t JsonRef::integer() const {
  return KC_NODE.i;
}
double JsonRef::number() const {
  const JsonDoc::Node& n = KC_NODE;
  return n.type == Type::kFloat ? n.d : n.type == Type::kUnsigned ? static_cast<double>(n.u) : static_cast<double>(n.i);
}
bool JsonRef::boolean() const {
  return KC_NODE.b;
}

size_t JsonRef::size() const {
  const JsonDoc::Node& n = KC_NODE;
  return n.type == Type::kObject || n.type == Type::kArray ? n.count : 0;
}

std::string_view JsonRef::key() const {
  const JsonDoc::Node& n = KC_NODE;
  return n.key_length == JsonDoc::kNoKey
             ? std::string_view()
             : (n.key_in_text ? doc_->text_ : std::string_view(doc_->chars_)).substr(n.key_offset, n.key_length);
}

JsonRef::Children JsonRef::children() const {
  const JsonDoc::Node& n = KC_NODE;
  const bool container = n.type == Type::kObject || n.type == Type::kArray;
  return Children(doc_, index_ + 1, container ? index_ + n.span : index_ + 1);
}

bool JsonRef::contains_key(std::string_view key) const {
  // Lazy values lie side by side in the text: one search over their stretch. A key spelled with
  // an escape ("\u0061s_expr") holds no copy of itself, but a "\u".
  const bool noted = !doc_->noted_key_.empty() && key == doc_->noted_key_;
  size_t lazy_begin = std::numeric_limits<size_t>::max(), lazy_end = 0;
  for (uint32_t c = index_; c < index_ + KC_NODE.span; ++c) {
    const JsonRef value(doc_, c);
    if (c > index_ && value.key() == key) return true;
    if (value.is_lazy() && noted) {
      if (doc_->nodes_[c].has_noted_key) return true;
    } else if (value.is_lazy()) {
      lazy_begin = std::min(lazy_begin, value.text_begin());
      lazy_end = std::max(lazy_end, value.text_end());
    }
  }
  if (lazy_begin >= lazy_end) return false;
  const char* text = doc_->text_.data() + lazy_begin;
  const size_t size = lazy_end - lazy_begin;
  return ::memmem(text, size, key.data(), key.size()) != nullptr || ::memmem(text, size, "\\u", 2) != nullptr;
}

JsonRef JsonRef::find(std::string_view key) const {
  const JsonDoc::Node& n = KC_NODE;
  if (n.type != Type::kObject) return {};
  // Lengths first: most keys of an object differ from the one sought in length.
  JsonRef found;
  for (uint32_t c = index_ + 1; c < index_ + n.span; c += doc_->nodes_[c].span) {
    const JsonDoc::Node& member = doc_->nodes_[c];
    if (member.key_length != key.size()) continue;
    const char* text = member.key_in_text ? doc_->text_.data() : doc_->chars_.data();
    if (std::memcmp(text + member.key_offset, key.data(), key.size()) == 0) found = JsonRef(doc_, c);
  }
  return found;
}

std::vector<std::pair<std::string_view, JsonRef>> JsonRef::items() const {
  std::vector<std::pair<std::string_view, JsonRef>> out;
  const JsonDoc::Node& n = KC_NODE;
  if (n.type != Type::kObject) return out;
  // Sorted and, among equal keys, the last in the document kept: what std::map gives
  // nlohmann::json. Sorted by each key's first eight bytes, as a number, first: most
  // comparisons of 100,000 names then touch no string. A merge sort: the names of an export's
  // tensors in document order (v0, v1, ..., v99999) sent introsort into its heap sort.
  struct Entry {
    uint64_t prefix;
    uint32_t index;  // document order, which decides among equal keys
  };
  std::vector<Entry> entries;
  entries.reserve(n.count);
  for (uint32_t c = index_ + 1; c < index_ + n.span; c += doc_->nodes_[c].span) {
    const std::string_view key = JsonRef(doc_, c).key();
    uint64_t prefix = 0;
    for (size_t i = 0; i < 8; ++i) prefix = prefix << 8 | (i < key.size() ? static_cast<unsigned char>(key[i]) : 0u);
    entries.push_back({prefix, c});
  }
  std::stable_sort(entries.begin(), entries.end(), [&](const Entry& a, const Entry& b) {
    if (a.prefix != b.prefix) return a.prefix < b.prefix;
    const std::string_view ka = JsonRef(doc_, a.index).key(), kb = JsonRef(doc_, b.index).key();
    return ka != kb ? ka < kb : a.index < b.index;
  });
  out.reserve(entries.size());
  for (const Entry& e : entries) out.emplace_back(JsonRef(doc_, e.index).key(), JsonRef(doc_, e.index));
  size_t kept = 0;
  for (size_t i = 0; i < out.size(); ++i) {
    if (i + 1 < out.size() && out[i + 1].first == out[i].first) continue;
    out[kept++] = out[i];
  }
  out.resize(kept);
  return out;
}

#undef KC_NODE

}  // namespace kc
