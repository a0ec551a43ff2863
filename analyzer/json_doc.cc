#include "analyzer/json_doc.h"

#include <algorithm>
#include <nlohmann/json.hpp>
#include <unordered_map>

#include "analyzer/error.h"
#include "analyzer/json_limits.h"

namespace kc {

// nlohmann::json's SAX events, stored as they come; containers get their span and count when
// they close.
class JsonDocBuilder {
 public:
  using Type = JsonDoc::Type;
  explicit JsonDocBuilder(JsonDoc& doc) : doc_(doc) {}

  bool null() { return add(Type::kNull), true; }
  bool boolean(bool v) { return add(Type::kBoolean).b = v, true; }
  bool number_integer(int64_t v) { return add(Type::kInteger).i = v, true; }
  bool number_unsigned(uint64_t v) { return add(Type::kUnsigned).u = v, true; }
  bool number_float(double v, const std::string&) { return add(Type::kFloat).d = v, true; }
  bool string(std::string& v) {
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
  bool key(std::string& k) {
    auto [it, added] = key_ids_.try_emplace(k, static_cast<uint32_t>(doc_.keys_.size()));
    if (added) doc_.keys_.push_back(k);
    key_ = it->second;
    return true;
  }
  bool parse_error(size_t, const std::string&, const nlohmann::json::exception& e) { throw e; }

 private:
  JsonDoc::Node& add(Type type) {
    if (!open_.empty()) ++doc_.nodes_[open_.back()].count;
    JsonDoc::Node& n = doc_.nodes_.emplace_back();
    n.type = type;
    n.key = key_;
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
  std::unordered_map<std::string, uint32_t> key_ids_;
};

JsonDoc JsonDoc::parse(std::string_view text, const std::string& what) {
  const JsonTextStats stats = check_json_limits(text, what);
  JsonDoc doc;
  // Sized once from the limit scan's counts: growing by doubling would copy and, for a moment,
  // hold up to three times the final size.
  doc.nodes_.reserve(stats.max_values);
  doc.chars_.reserve(stats.string_bytes);
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

bool JsonRef::is_null() const { return KC_NODE.type == Type::kNull; }
bool JsonRef::is_object() const { return KC_NODE.type == Type::kObject; }
bool JsonRef::is_array() const { return KC_NODE.type == Type::kArray; }
bool JsonRef::is_string() const { return KC_NODE.type == Type::kString; }
bool JsonRef::is_boolean() const { return KC_NODE.type == Type::kBoolean; }
bool JsonRef::is_number() const { return KC_NODE.type >= Type::kInteger; }
bool JsonRef::is_number_integer() const { return KC_NODE.type == Type::kInteger || KC_NODE.type == Type::kUnsigned; }

const char* JsonRef::type_name() const {
  switch (KC_NODE.type) {
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
int64_t JsonRef::integer() const { return KC_NODE.i; }
double JsonRef::number() const {
  const JsonDoc::Node& n = KC_NODE;
  return n.type == Type::kFloat ? n.d : n.type == Type::kUnsigned ? static_cast<double>(n.u) : static_cast<double>(n.i);
}
bool JsonRef::boolean() const { return KC_NODE.b; }

size_t JsonRef::size() const {
  const JsonDoc::Node& n = KC_NODE;
  return n.type == Type::kObject || n.type == Type::kArray ? n.count : 0;
}

std::vector<JsonRef> JsonRef::elements() const {
  std::vector<JsonRef> out;
  const JsonDoc::Node& n = KC_NODE;
  if (n.type != Type::kObject && n.type != Type::kArray) return out;
  out.reserve(n.count);
  for (uint32_t c = index_ + 1; c < index_ + n.span; c += doc_->nodes_[c].span) out.push_back(JsonRef(doc_, c));
  return out;
}

JsonRef JsonRef::find(std::string_view key) const {
  const JsonDoc::Node& n = KC_NODE;
  if (n.type != Type::kObject) return {};
  JsonRef found;
  for (uint32_t c = index_ + 1; c < index_ + n.span; c += doc_->nodes_[c].span)
    if (doc_->keys_[doc_->nodes_[c].key] == key) found = JsonRef(doc_, c);
  return found;
}

std::vector<std::pair<std::string_view, JsonRef>> JsonRef::items() const {
  std::vector<std::pair<std::string_view, JsonRef>> out;
  const JsonDoc::Node& n = KC_NODE;
  if (n.type != Type::kObject) return out;
  out.reserve(n.count);
  for (uint32_t c = index_ + 1; c < index_ + n.span; c += doc_->nodes_[c].span)
    out.emplace_back(doc_->keys_[doc_->nodes_[c].key], JsonRef(doc_, c));
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
