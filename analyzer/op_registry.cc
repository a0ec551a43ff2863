#include "analyzer/op_registry.h"

#include <ATen/core/dispatch/Dispatcher.h>
#include <ATen/core/enum_tag.h>
#include <torch/headeronly/version.h>

#include <map>
#include <mutex>

#include "analyzer/error.h"

namespace kc {
namespace {

OpSchema describe(const c10::OperatorHandle& h) {
  OpSchema out = describe_schema(h.schema());
  out.traits.pointwise = h.hasTag(at::Tag::pointwise);
  out.traits.reduction = h.hasTag(at::Tag::reduction);
  return out;
}

}  // namespace

OpSchema describe_schema(const c10::FunctionSchema& s) {
  OpSchema out;
  out.name = s.name();
  out.overload = s.overload_name();
  for (size_t i = 0; i < s.arguments().size(); ++i) {
    const c10::Argument& a = s.arguments()[i];
    out.args.push_back({a.name(), a.type()->str(), a.kwarg_only(), a.default_value().has_value()});
    const c10::AliasInfo* alias = a.alias_info();
    if (alias && alias->isWrite()) {
      out.traits.mutated_args.push_back(static_cast<int>(i));
      if (a.is_out())
        out.traits.out_variant = true;
      else
        out.traits.inplace = true;
    }
  }
  for (const c10::Argument& r : s.returns()) {
    out.returns.push_back(r.type()->str());
    const c10::AliasInfo* alias = r.alias_info();
    // A return aliasing an input that the op does not write is a view of that input.
    if (alias && !alias->isWrite()) out.traits.view = true;
  }
  return out;
}

std::string libtorch_version() {
  return std::to_string(TORCH_VERSION_MAJOR) + "." + std::to_string(TORCH_VERSION_MINOR) + "." +
         std::to_string(TORCH_VERSION_PATCH);
}

const OpSchema& lookup_op(const std::string& name, const std::string& overload) {
  static std::mutex mu;
  static std::map<std::string, OpSchema> cache;
  const std::string ov = overload == "default" ? "" : overload;
  const std::string key = name + "." + ov;
  std::lock_guard<std::mutex> lock(mu);
  auto it = cache.find(key);
  if (it != cache.end()) return it->second;
  auto handle = c10::Dispatcher::singleton().findSchema(c10::OperatorName(name, ov));
  if (handle && !handle->hasTag(at::Tag::pointwise) && name.size() > 1 && name.back() == '_') {
    // In-place variants (hardtanh_, hardswish_) often lack the tag their functional form has.
    auto functional = c10::Dispatcher::singleton().findSchema(c10::OperatorName(name.substr(0, name.size() - 1), ov));
    if (functional && functional->hasTag(at::Tag::pointwise)) {
      OpSchema described = describe(*handle);
      described.traits.pointwise = true;
      return cache.emplace(key, std::move(described)).first->second;
    }
  }
  if (!handle)
    throw Error("unknown op " + name + (ov.empty() ? "" : "." + ov) + ": libtorch " + libtorch_version() +
                " has no such operator");
  return cache.emplace(key, describe(*handle)).first->second;
}

}  // namespace kc
