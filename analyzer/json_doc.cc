#include "analyzer/json_doc.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <unordered_map>

#include "analyzer/error.h"
#include "analyzer/json_limits.h"

namespace kc {

// Fills a JsonDoc from parse events: nlohmann::json's SAX events, or FastParser's. Containers
// get their span and count when they close.
class JsonDocBuilder {
 public:
  using Type = JsonDoc::Type;
  explicit JsonDocBuilder(JsonDoc& doc) : doc_(doc) {}

  bool null() { return add(Type::kNull), true; }
  bool boolean(bool v) { return add(Type::kBoolean).b = v, true; }
  bool number_integer(int64_t v) { return add(Type::kInteger).i = v, true; }
  bool number_unsigned(uint64_t v) { return add(Type::kUnsigned).u = v, true; }
  bool number_float(double v, const std::string&) { return add(Type::kFloat).d = v, true; }
  bool string(std::string& v) { return string_view(v); }
  bool string_view(std::string_view v) {
    // Offsets are 32 bits: the text is at most 256 MiB, so its strings are too.
    JsonDoc::Node& n = add(Type::kString);
    n.s.offset = static_cast<uint32_t>(doc_.chars_.size());
    n.s.length = static_cast<uint32_t>(v.size());
    doc_.chars_ += v;
    return true;
  }
  bool binary(nlohmann::json::binary_t&) { return add(Type::kNull), true; }  // JSON text has none
  bool start_object(size_t) { return open(Type::kObject); }
  bool start_array(size_t) { return open(Type::kArray); }
  bool end_object() { return close(); }
  bool end_array() { return close(); }
  bool key(std::string& k) { return key_view(k); }
  bool key_view(std::string_view k) {
    // A document repeats a few dozen keys millions of times: a small table, indexed by the
    // key's length and ends, answers most lookups with one comparison and no hash.
    Recent& recent = recent_[k.empty() ? 0
                                       : (k.size() * 31 + static_cast<unsigned char>(k.front()) * 7 +
                                          static_cast<unsigned char>(k.back())) %
                                             kRecent];
    if (recent.id != JsonDoc::kNoKey && recent.key == k) {
      key_ = recent.id;
      return true;
    }
    auto it = key_ids_.find(k);
    if (it == key_ids_.end()) {
      // keys_ is a deque: its strings never move, so the map can hold views of them.
      doc_.keys_.emplace_back(k);
      it = key_ids_.emplace(doc_.keys_.back(), static_cast<uint32_t>(doc_.keys_.size() - 1)).first;
    }
    key_ = it->second;
    recent = {it->first, it->second};
    return true;
  }
  bool parse_error(size_t, const std::string&, const nlohmann::json::exception& e) { throw e; }

 private:
  JsonDoc::Node& add(Type type) {
    if (!open_.empty()) ++doc_.nodes_[open_.back()].count;
    JsonDoc::Node& n = doc_.nodes_.emplace_back();
    n.key_type = key_ << 4 | static_cast<uint32_t>(type);
    key_ = JsonDoc::kNoKey;
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
  std::vector<uint32_t> open_;  // containers not yet closed, innermost last
  uint32_t key_ = JsonDoc::kNoKey;
  std::unordered_map<std::string_view, uint32_t> key_ids_;
  struct Recent {
    std::string_view key;  // a view of the interned key
    uint32_t id = JsonDoc::kNoKey;
  };
  static constexpr size_t kRecent = 256;
  Recent recent_[kRecent];
};

namespace {

// A strict JSON parser for the common case, several times faster than nlohmann's lexer, which
// reads a character at a time through an adapter. It accepts only what nlohmann::json accepts
// and gives the same values (numbers are converted by the same C functions); on anything else
// (invalid JSON, a byte-order mark) it gives up and nlohmann's parser decides, with its message.
// Recursion is bounded: check_json_limits has bounded the nesting first.
class FastParser {
 public:
  FastParser(std::string_view text, JsonDocBuilder& out)
      : p_(text.data()), end_(text.data() + text.size()), out_(out) {}

  bool run() {
    skip_space();
    if (!value()) return false;
    skip_space();
    return p_ == end_;
  }

 private:
  void skip_space() {
    while (p_ != end_ && (*p_ == ' ' || *p_ == '\n' || *p_ == '\r' || *p_ == '\t')) ++p_;
  }
  bool literal(std::string_view word) {
    if (static_cast<size_t>(end_ - p_) < word.size() || std::string_view(p_, word.size()) != word) return false;
    p_ += word.size();
    return true;
  }

  bool value() {
    if (p_ == end_) return false;
    switch (*p_) {
      case '{':
        return object();
      case '[':
        return array();
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
    out_.start_object(0);
    skip_space();
    if (p_ != end_ && *p_ == '}') {
      ++p_;
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
      skip_space();
      if (p_ == end_) return false;
      if (*p_ == '}') {
        ++p_;
        return out_.end_object();
      }
      if (*p_++ != ',') return false;
    }
  }

  bool array() {
    ++p_;
    out_.start_array(0);
    skip_space();
    if (p_ != end_ && *p_ == ']') {
      ++p_;
      return out_.end_array();
    }
    for (;;) {
      skip_space();
      if (!value()) return false;
      skip_space();
      if (p_ == end_) return false;
      if (*p_ == ']') {
        ++p_;
        return out_.end_array();
      }
      if (*p_++ != ',') return false;
    }
  }

  // A string without escapes is a view of the text; one with escapes is decoded into scratch_.
  bool string(std::string_view& s) {
    const char* start = ++p_;
    while (p_ != end_) {
      const auto c = static_cast<unsigned char>(*p_);
      if (c == '"') {
        s = std::string_view(start, static_cast<size_t>(p_ - start));
        ++p_;
        return true;
      }
      if (c == '\\') return escaped_string(start, s);
      if (c < 0x20) return false;
      if (c < 0x80) {
        ++p_;
      } else if (!utf8()) {
        return false;
      }
    }
    return false;
  }

  bool escaped_string(const char* start, std::string_view& s) {
    scratch_.assign(start, static_cast<size_t>(p_ - start));
    while (p_ != end_) {
      const auto c = static_cast<unsigned char>(*p_);
      if (c == '"') {
        s = scratch_;
        ++p_;
        return true;
      }
      if (c < 0x20) return false;
      if (c >= 0x80) {
        const char* from = p_;
        if (!utf8()) return false;
        scratch_.append(from, static_cast<size_t>(p_ - from));
        continue;
      }
      ++p_;
      if (c != '\\') {
        scratch_ += static_cast<char>(c);
        continue;
      }
      if (p_ == end_) return false;
      const char e = *p_++;
      switch (e) {
        case '"':
        case '\\':
        case '/':
          scratch_ += e;
          break;
        case 'b':
          scratch_ += '\b';
          break;
        case 'f':
          scratch_ += '\f';
          break;
        case 'n':
          scratch_ += '\n';
          break;
        case 'r':
          scratch_ += '\r';
          break;
        case 't':
          scratch_ += '\t';
          break;
        case 'u':
          if (!unicode_escape()) return false;
          break;
        default:
          return false;
      }
    }
    return false;
  }

  // Four hex digits after "\u"; -1 when they are not.
  int hex4() {
    if (end_ - p_ < 4) return -1;
    int v = 0;
    for (int i = 0; i < 4; ++i) {
      const char c = *p_++;
      const int d = c >= '0' && c <= '9'   ? c - '0'
                    : c >= 'a' && c <= 'f' ? c - 'a' + 10
                    : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                           : -1;
      if (d < 0) return -1;
      v = v * 16 + d;
    }
    return v;
  }

  // "\uXXXX" (p_ after the "u"), a surrogate pair in two of them, appended as UTF-8.
  bool unicode_escape() {
    int cp = hex4();
    if (cp < 0 || (cp >= 0xDC00 && cp <= 0xDFFF)) return false;
    if (cp >= 0xD800 && cp <= 0xDBFF) {
      if (end_ - p_ < 2 || p_[0] != '\\' || p_[1] != 'u') return false;
      p_ += 2;
      const int low = hex4();
      if (low < 0xDC00 || low > 0xDFFF) return false;
      cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
    }
    if (cp < 0x80) {
      scratch_ += static_cast<char>(cp);
    } else if (cp < 0x800) {
      scratch_ += static_cast<char>(0xC0 | (cp >> 6));
      scratch_ += static_cast<char>(0x80 | (cp & 0x3F));
    } else if (cp < 0x10000) {
      scratch_ += static_cast<char>(0xE0 | (cp >> 12));
      scratch_ += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
      scratch_ += static_cast<char>(0x80 | (cp & 0x3F));
    } else {
      scratch_ += static_cast<char>(0xF0 | (cp >> 18));
      scratch_ += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
      scratch_ += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
      scratch_ += static_cast<char>(0x80 | (cp & 0x3F));
    }
    return true;
  }

  // One well-formed UTF-8 sequence of two to four bytes (RFC 3629, as nlohmann checks it).
  bool utf8() {
    const auto b0 = static_cast<unsigned char>(*p_);
    unsigned char lo = 0x80, hi = 0xBF;
    int more;
    if (b0 >= 0xC2 && b0 <= 0xDF) {
      more = 1;
    } else if (b0 >= 0xE0 && b0 <= 0xEF) {
      more = 2;
      if (b0 == 0xE0) lo = 0xA0;
      if (b0 == 0xED) hi = 0x9F;
    } else if (b0 >= 0xF0 && b0 <= 0xF4) {
      more = 3;
      if (b0 == 0xF0) lo = 0x90;
      if (b0 == 0xF4) hi = 0x8F;
    } else {
      return false;
    }
    if (end_ - p_ <= more) return false;
    for (int i = 1; i <= more; ++i) {
      const auto b = static_cast<unsigned char>(p_[i]);
      if (b < (i == 1 ? lo : 0x80) || b > (i == 1 ? hi : 0xBF)) return false;
    }
    p_ += more + 1;
    return true;
  }

  static bool digit(char c) { return c >= '0' && c <= '9'; }

  // The JSON number grammar, then the conversions nlohmann's lexer makes: strtoull for a
  // non-negative integer, strtoll for a negative one, strtod for the rest and on overflow.
  bool number() {
    const char* start = p_;
    bool negative = false, integer = true;
    if (*p_ == '-') {
      negative = true;
      ++p_;
    }
    if (p_ == end_ || !digit(*p_)) return false;
    if (*p_ == '0') {
      ++p_;
    } else {
      while (p_ != end_ && digit(*p_)) ++p_;
    }
    if (p_ != end_ && *p_ == '.') {
      integer = false;
      ++p_;
      if (p_ == end_ || !digit(*p_)) return false;
      while (p_ != end_ && digit(*p_)) ++p_;
    }
    if (p_ != end_ && (*p_ == 'e' || *p_ == 'E')) {
      integer = false;
      ++p_;
      if (p_ != end_ && (*p_ == '+' || *p_ == '-')) ++p_;
      if (p_ == end_ || !digit(*p_)) return false;
      while (p_ != end_ && digit(*p_)) ++p_;
    }
    number_.assign(start, static_cast<size_t>(p_ - start));  // NUL-terminated for the C functions
    errno = 0;
    if (integer && !negative) {
      const unsigned long long x = std::strtoull(number_.c_str(), nullptr, 10);
      if (errno == 0) return out_.number_unsigned(static_cast<uint64_t>(x));
    } else if (integer) {
      const long long x = std::strtoll(number_.c_str(), nullptr, 10);
      if (errno == 0) return out_.number_integer(static_cast<int64_t>(x));
    }
    // An overflow to infinity is an error for nlohmann ("number overflow"): it gives the message.
    const double d = std::strtod(number_.c_str(), nullptr);
    return std::isfinite(d) && out_.number_float(d, number_);
  }

  const char* p_;
  const char* const end_;
  JsonDocBuilder& out_;
  std::string scratch_, number_;
};

}  // namespace

static_assert(sizeof(JsonDoc::Node) == 16);

JsonDoc JsonDoc::parse(std::string_view text, const std::string& what) {
  // 32-bit string offsets and 28-bit key indices (a key takes 4 bytes of text at least) hold
  // for any text up to 1 GiB; callers limit theirs to far less.
  if (text.size() > (1u << 30)) throw Error(what + ": larger than 1 GiB");
  const JsonTextStats stats = check_json_limits(text, what);
  // Sized once from the limit scan's counts: growing by doubling would copy and, for a moment,
  // hold up to three times the final size.
  auto sized = [&] {
    JsonDoc doc;
    doc.nodes_.reserve(stats.max_values);
    doc.chars_.reserve(stats.string_bytes);
    return doc;
  };
  {
    JsonDoc doc = sized();
    JsonDocBuilder builder(doc);
    if (FastParser(text, builder).run()) return doc;
  }
  JsonDoc doc = sized();
  JsonDocBuilder builder(doc);
  try {
    nlohmann::json::sax_parse(text, &builder);
  } catch (const nlohmann::json::exception& e) {
    throw json_parse_error(e, what);
  }
  return doc;
}

namespace {
using Type = JsonDoc::Type;
}  // namespace

#define KC_NODE (doc_->nodes_[index_])

bool JsonRef::is_null() const {
  return KC_NODE.type() == Type::kNull;
}
bool JsonRef::is_object() const {
  return KC_NODE.type() == Type::kObject;
}
bool JsonRef::is_array() const {
  return KC_NODE.type() == Type::kArray;
}
bool JsonRef::is_string() const {
  return KC_NODE.type() == Type::kString;
}
bool JsonRef::is_boolean() const {
  return KC_NODE.type() == Type::kBoolean;
}
bool JsonRef::is_number() const {
  return KC_NODE.type() >= Type::kInteger;
}
bool JsonRef::is_number_integer() const {
  return KC_NODE.type() == Type::kInteger || KC_NODE.type() == Type::kUnsigned;
}

const char* JsonRef::type_name() const {
  switch (KC_NODE.type()) {
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
    default:
      return "number";
  }
}

std::string_view JsonRef::str() const {
  const JsonDoc::Node& n = KC_NODE;
  return std::string_view(doc_->chars_).substr(n.s.offset, n.s.length);
}
int64_t JsonRef::integer() const {
  return KC_NODE.i;
}
double JsonRef::number() const {
  const JsonDoc::Node& n = KC_NODE;
  return n.type() == Type::kFloat      ? n.d
         : n.type() == Type::kUnsigned ? static_cast<double>(n.u)
                                       : static_cast<double>(n.i);
}
bool JsonRef::boolean() const {
  return KC_NODE.b;
}

size_t JsonRef::size() const {
  const JsonDoc::Node& n = KC_NODE;
  return n.type() == Type::kObject || n.type() == Type::kArray ? n.count : 0;
}

std::string_view JsonRef::key() const {
  const uint32_t key = KC_NODE.key();
  return key == JsonDoc::kNoKey ? std::string_view() : std::string_view(doc_->keys_[key]);
}

JsonRef::Children JsonRef::children() const {
  const JsonDoc::Node& n = KC_NODE;
  const bool container = n.type() == Type::kObject || n.type() == Type::kArray;
  return Children(doc_, index_ + 1, container ? index_ + n.span : index_ + 1);
}

JsonRef::Children::iterator& JsonRef::Children::iterator::operator++() {
  index_ += doc_->nodes_[index_].span;
  return *this;
}

bool JsonRef::contains_key(std::string_view key) const {
  const auto& keys = doc_->keys_;
  const auto id = std::find(keys.begin(), keys.end(), key);
  if (id == keys.end()) return false;
  const auto wanted = static_cast<uint32_t>(id - keys.begin());
  for (uint32_t c = index_ + 1; c < index_ + KC_NODE.span; ++c)
    if (doc_->nodes_[c].key() == wanted) return true;
  return false;
}

JsonRef JsonRef::find(std::string_view key) const {
  const JsonDoc::Node& n = KC_NODE;
  if (n.type() != Type::kObject) return {};
  JsonRef found;
  for (uint32_t c = index_ + 1; c < index_ + n.span; c += doc_->nodes_[c].span)
    if (doc_->keys_[doc_->nodes_[c].key()] == key) found = JsonRef(doc_, c);
  return found;
}

std::vector<std::pair<std::string_view, JsonRef>> JsonRef::items() const {
  std::vector<std::pair<std::string_view, JsonRef>> out;
  const JsonDoc::Node& n = KC_NODE;
  if (n.type() != Type::kObject) return out;
  out.reserve(n.count);
  for (uint32_t c = index_ + 1; c < index_ + n.span; c += doc_->nodes_[c].span)
    out.emplace_back(doc_->keys_[doc_->nodes_[c].key()], JsonRef(doc_, c));
  // Sorted and, among equal keys, the last in the document kept: what std::map gives
  // nlohmann::json.
  std::stable_sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
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
