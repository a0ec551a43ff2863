#include "passes/measured.h"

#include <unordered_map>

namespace kc {
namespace {

const MeasuredLaunch kH200[] = {
#include "passes/measured_h200.inc"
};

const std::unordered_map<std::string, const MeasuredLaunch*>& h200_index() {
  static const auto* index = [] {
    auto* m = new std::unordered_map<std::string, const MeasuredLaunch*>();
    for (const auto& e : kH200) m->emplace(e.key, &e);
    return m;
  }();
  return *index;
}

void append_value(std::string& out, const Graph& g, int v) {
  if (v < 0) {
    out += "None";
    return;
  }
  const Value& t = g.values[v];
  out += dtype_name(t.dtype);
  out += '[';
  for (size_t i = 0; i < t.sizes.size(); ++i) out += (i ? "," : "") + std::to_string(t.sizes[i]);
  out += t.contiguous() ? "]c" : "]n";
}

// Whether every model of a comma-separated list starts with one of the excluded names.
bool only_from(const char* models, const std::vector<std::string>& exclude) {
  std::string list = models;
  size_t start = 0;
  while (start <= list.size()) {
    size_t end = list.find(',', start);
    std::string m = list.substr(start, end == std::string::npos ? std::string::npos : end - start);
    bool excluded = false;
    for (const auto& e : exclude) excluded |= m.rfind(e, 0) == 0;
    if (!excluded) return false;
    if (end == std::string::npos) break;
    start = end + 1;
  }
  return true;
}

}  // namespace

std::string launch_key(const Graph& g, const Op& op) {
  std::string key = op.full_name();
  for (const Arg& a : op.args) {
    key += '|';
    key += a.name;
    key += '=';
    using K = Arg::Kind;
    switch (a.kind) {
      case K::kTensor: append_value(key, g, a.tensors[0]); break;
      case K::kTensorList:
        for (size_t i = 0; i < a.tensors.size(); ++i) {
          if (i) key += ';';
          append_value(key, g, a.tensors[i]);
        }
        break;
      case K::kNone: key += "None"; break;
      case K::kFloat:
      case K::kFloatList:
        for (size_t i = 0; i < a.floats.size(); ++i) key += (i ? "," : "") + std::to_string(a.floats[i]);
        break;
      case K::kScalarType: key += dtype_name(static_cast<DType>(a.ints[0])); break;
      case K::kString:
      case K::kLayout:
      case K::kDevice:
      case K::kMemoryFormat: key += a.text; break;
      default:
        for (size_t i = 0; i < a.ints.size(); ++i) key += (i ? "," : "") + std::to_string(a.ints[i]);
    }
  }
  return key;
}

const MeasuredLaunch* find_measured(const std::string& target, const std::string& key,
                                    const std::vector<std::string>& exclude) {
  if (target != "torch2.11-h200") return nullptr;
  const auto& index = h200_index();
  auto it = index.find(key);
  if (it == index.end()) return nullptr;
  if (!exclude.empty() && only_from(it->second->models, exclude)) return nullptr;
  return it->second;
}

size_t measured_count(const std::string& target) {
  return target == "torch2.11-h200" ? sizeof(kH200) / sizeof(kH200[0]) : 0;
}

}  // namespace kc
