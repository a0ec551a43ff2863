#include "analyzer/shape_functions.h"

#include <ATen/ATen.h>
#include <torch/csrc/jit/passes/symbolic_shape_analysis.h>
#include <torch/csrc/jit/runtime/symbolic_shape_registry.h>
#include <torch/library.h>

#include <string>
#include <vector>

namespace kc {
namespace {

namespace jit = torch::jit;

std::optional<std::vector<int64_t>> concrete(const c10::SymbolicShape& shape) {
  auto dims = shape.sizes();
  if (!dims) return std::nullopt;
  std::vector<int64_t> out;
  for (const auto& d : *dims) {
    if (!d.is_static()) return std::nullopt;
    out.push_back(d.static_size());
  }
  return out;
}

// The functional op an out= variant computes ("where.self_out" -> "where.self").
std::optional<c10::OperatorHandle> functional_of(const c10::FunctionSchema& out_variant) {
  std::string overload = out_variant.overload_name();
  bool found = false;
  for (const std::string suffix : {"out", "values"}) {
    if (overload == suffix) {
      overload.clear();
      found = true;
    } else if (overload.size() > suffix.size() + 1 &&
               overload.compare(overload.size() - suffix.size() - 1, std::string::npos, "_" + suffix) == 0) {
      overload.resize(overload.size() - suffix.size() - 1);
      found = true;
    }
    if (found) break;
  }
  if (!found) return std::nullopt;
  return c10::Dispatcher::singleton().findSchema({out_variant.name(), overload});
}

bool writes_out(const c10::FunctionSchema& schema) {
  for (const auto& a : schema.arguments())
    if (a.is_out()) return true;
  return false;
}

// One output as a rule gives it: sizes, and a dtype where the rule fixes one (indices are
// int64); otherwise the dtype follows the inputs.
struct OutSpec {
  std::vector<int64_t> sizes;
  std::optional<c10::ScalarType> dtype;
};

// Ops that have neither a C++ meta kernel nor a TorchScript shape function, by the way their
// outputs follow from their arguments. Checked one by one against the ops of traced models
// (each has its meta function in torch/_meta_registrations.py or torch/_refs).
enum class Family {
  kLikeSelf,      // roll, flip: self's sizes; a second output (log_sigmoid's buffer) is empty
  kReduceDims,    // var/std.correction(self, dim: int[]?, *, correction, keepdim)
  kReduceDim,     // kthvalue, median.dim, mode (self, ..., dim, keepdim) -> (values, int64 indices)
  kReduceAll,     // median(), min(), max(): a 0-dim result
  kIndexOfValue,  // bucketize.Tensor, searchsorted.Tensor: the sizes of `self`, int64 or int32
  kPairwise,      // _cdist_forward(x1, x2): x1's sizes with the last one x2.size(-2)
  // _native_multi_head_attention(query [B, T, D], key [B, S, D], ...): the output has query's
  // sizes; the weights are [B, T, S] averaged over heads, [B, num_head, T, S] not averaged,
  // and an empty tensor when need_weights is false (the CUDA kernel returns none).
  kMultiHeadAttention,
};
struct FamilyRule {
  const char* name;
  const char* overload;
  Family family;
};
constexpr FamilyRule kFamilies[] = {
    {"aten::roll", "", Family::kLikeSelf},
    {"aten::flip", "", Family::kLikeSelf},
    {"aten::log_sigmoid_forward", "", Family::kLikeSelf},
    {"aten::var", "correction", Family::kReduceDims},
    {"aten::std", "correction", Family::kReduceDims},
    {"aten::kthvalue", "", Family::kReduceDim},
    {"aten::median", "dim", Family::kReduceDim},
    {"aten::mode", "", Family::kReduceDim},
    {"aten::median", "", Family::kReduceAll},
    {"aten::min", "", Family::kReduceAll},
    {"aten::max", "", Family::kReduceAll},
    {"aten::bucketize", "Tensor", Family::kIndexOfValue},
    {"aten::searchsorted", "Tensor", Family::kIndexOfValue},
    {"aten::_cdist_forward", "", Family::kPairwise},
    {"aten::_native_multi_head_attention", "", Family::kMultiHeadAttention},
};

const c10::IValue* arg_named(const c10::FunctionSchema& schema, const std::vector<c10::IValue>& args,
                             const char* name) {
  auto idx = schema.argumentIndexWithName(name);
  return idx && static_cast<size_t>(*idx) < args.size() ? &args[*idx] : nullptr;
}

std::optional<std::vector<OutSpec>> family_specs(const c10::FunctionSchema& schema,
                                                 const std::vector<c10::IValue>& args) {
  const FamilyRule* rule = nullptr;
  for (const FamilyRule& r : kFamilies)
    if (schema.name() == r.name && schema.overload_name() == r.overload) rule = &r;
  if (!rule) return std::nullopt;
  const char* first = rule->family == Family::kPairwise             ? "x1"
                      : rule->family == Family::kMultiHeadAttention ? "query"
                                                                    : "self";
  const c10::IValue* self = arg_named(schema, args, first);
  if (!self || !self->isTensor()) return std::nullopt;
  const std::vector<int64_t> sizes = self->toTensor().sizes().vec();
  const int64_t rank = static_cast<int64_t>(sizes.size());
  auto reduced = [&](std::vector<int64_t> dims) {
    const c10::IValue* keep = arg_named(schema, args, "keepdim");
    const bool keepdim = keep && keep->isBool() && keep->toBool();
    std::vector<bool> drop(sizes.size(), false);
    for (int64_t d : dims) drop.at(static_cast<size_t>(rank == 0 ? 0 : (d % rank + rank) % rank)) = rank > 0;
    std::vector<int64_t> out;
    for (size_t i = 0; i < sizes.size(); ++i) {
      if (!drop[i])
        out.push_back(sizes[i]);
      else if (keepdim)
        out.push_back(1);
    }
    return out;
  };
  switch (rule->family) {
    case Family::kLikeSelf: {
      std::vector<OutSpec> outs{{sizes, std::nullopt}};
      while (outs.size() < schema.returns().size()) outs.push_back({{0}, std::nullopt});
      return outs;
    }
    case Family::kReduceDims: {
      const c10::IValue* dim = arg_named(schema, args, "dim");
      std::vector<int64_t> dims;
      if (dim && dim->isIntList()) dims = dim->toIntVector();
      if (dims.empty())
        for (int64_t d = 0; d < rank; ++d) dims.push_back(d);
      return std::vector<OutSpec>{{reduced(dims), std::nullopt}};
    }
    case Family::kReduceDim: {
      const c10::IValue* dim = arg_named(schema, args, "dim");
      if (!dim || !dim->isInt()) return std::nullopt;
      auto out = reduced({dim->toInt()});
      return std::vector<OutSpec>{{out, std::nullopt}, {out, c10::kLong}};
    }
    case Family::kReduceAll:
      return std::vector<OutSpec>{{{}, std::nullopt}};
    case Family::kIndexOfValue: {
      const c10::IValue* int32 = arg_named(schema, args, "out_int32");
      return std::vector<OutSpec>{{sizes, int32 && int32->isBool() && int32->toBool() ? c10::kInt : c10::kLong}};
    }
    case Family::kPairwise: {
      const c10::IValue* x2 = arg_named(schema, args, "x2");
      if (!x2 || !x2->isTensor() || rank < 2 || x2->toTensor().dim() < 2) return std::nullopt;
      std::vector<int64_t> out = sizes;
      out.back() = x2->toTensor().size(-2);
      return std::vector<OutSpec>{{out, std::nullopt}};
    }
    case Family::kMultiHeadAttention: {
      const c10::IValue* key = arg_named(schema, args, "key");
      const c10::IValue* heads = arg_named(schema, args, "num_head");
      const c10::IValue* need = arg_named(schema, args, "need_weights");
      const c10::IValue* average = arg_named(schema, args, "average_attn_weights");
      if (rank != 3 || !key || !key->isTensor() || key->toTensor().dim() != 3 || !heads || !heads->isInt())
        return std::nullopt;
      const int64_t b = sizes[0], t = sizes[1], s = key->toTensor().size(1);
      std::vector<int64_t> weights{0};
      if (need && need->isBool() && need->toBool())
        weights = average && average->isBool() && average->toBool() ? std::vector<int64_t>{b, t, s}
                                                                    : std::vector<int64_t>{b, heads->toInt(), t, s};
      return std::vector<OutSpec>{{sizes, std::nullopt}, {weights, std::nullopt}};
    }
  }
  return std::nullopt;
}

// The outputs of an op from TorchScript's shape function, else from its family's rule.
std::optional<std::vector<OutSpec>> output_specs(const c10::FunctionSchema& schema,
                                                 const std::vector<c10::IValue>& args) {
  if (auto shapes = shapes_from_shape_function(schema, args)) {
    std::vector<OutSpec> specs;
    for (auto& s : *shapes) specs.push_back({std::move(s), std::nullopt});
    return specs;
  }
  return family_specs(schema, args);
}

// The boxed Meta kernel: arguments in, one meta tensor per returned shape out (an out=
// variant resizes its out tensors instead). Errors are c10::Errors, as from any kernel.
void run_shape_function(const c10::OperatorHandle& op, jit::Stack* stack) {
  const c10::FunctionSchema& schema = op.schema();
  const size_t n = schema.arguments().size();
  std::vector<c10::IValue> args(stack->end() - n, stack->end());
  std::vector<at::Tensor> outs;
  if (writes_out(schema)) {
    auto functional = functional_of(schema);
    std::vector<c10::IValue> inputs;
    for (size_t i = 0; i < n; ++i)
      if (!schema.arguments()[i].is_out()) inputs.push_back(args[i]);
    auto specs = functional ? output_specs(functional->schema(), inputs) : std::nullopt;
    TORCH_CHECK(specs, schema.operator_name(), ": no shape function for these inputs");
    size_t k = 0;
    for (size_t i = 0; i < n; ++i) {
      if (!schema.arguments()[i].is_out()) continue;
      TORCH_CHECK(k < specs->size() && args[i].isTensor(), schema.operator_name(), ": unexpected out= arguments");
      outs.push_back(args[i].toTensor().resize_((*specs)[k++].sizes));
    }
  } else {
    auto made = shape_only_outputs(schema, args, op.hasTag(at::Tag::pointwise));
    TORCH_CHECK(made, schema.operator_name(), ": neither its shape function nor its family's rule covers these inputs");
    outs = std::move(*made);
  }
  jit::drop(*stack, n);
  for (auto& t : outs) stack->emplace_back(std::move(t));
}

bool needs_shape_function(const c10::OperatorHandle& op) {
  using K = c10::DispatchKey;
  for (K k : {K::Meta, K::CompositeImplicitAutograd, K::CompositeExplicitAutograd,
              K::CompositeExplicitAutogradNonFunctional, K::CompositeImplicitAutogradNestedTensor})
    if (op.hasKernelForDispatchKey(k)) return false;
  const c10::FunctionSchema& schema = op.schema();
  for (const auto& r : schema.returns())
    if (!r.type()->castRaw<c10::TensorType>()) return false;  // lists, scalars: not shapes
  return !schema.is_mutable() || writes_out(schema) || schema.returns().size() == 1;
}

std::string qualified(const c10::FunctionSchema& s) {
  return s.overload_name().empty() ? s.name() : s.name() + "." + s.overload_name();
}

}  // namespace

std::optional<std::vector<std::vector<int64_t>>> shapes_from_shape_function(const c10::FunctionSchema& schema,
                                                                            const std::vector<c10::IValue>& args) {
  if (!jit::shapeComputeGraphForSchema(schema)) return std::nullopt;
  std::vector<jit::SSAInput> inputs;
  for (const c10::IValue& v : args) {
    if (v.isTensor())
      inputs.emplace_back(c10::SymbolicShape(v.toTensor().sizes()));
    else
      inputs.emplace_back(v);
  }
  std::optional<std::vector<c10::SymbolicShape>> shapes;
  try {
    shapes = jit::calculateSymbolicShapesOnOp(&schema, inputs);
  } catch (const std::exception&) {
    return std::nullopt;  // the shape function rejects these inputs, as the op would
  }
  if (!shapes || shapes->size() != schema.returns().size()) return std::nullopt;
  std::vector<std::vector<int64_t>> out;
  for (const auto& s : *shapes) {
    auto sizes = concrete(s);
    if (!sizes) return std::nullopt;
    out.push_back(std::move(*sizes));
  }
  return out;
}

std::optional<std::vector<at::Tensor>> shape_only_outputs(const c10::FunctionSchema& schema,
                                                          const std::vector<c10::IValue>& args, bool pointwise) {
  auto specs = output_specs(schema, args);
  if (!specs) return std::nullopt;
  // In place: the result is the written input itself.
  if (schema.is_mutable() && !args.empty() && args[0].isTensor() && specs->size() == 1)
    return std::vector<at::Tensor>{args[0].toTensor()};
  // An explicit dtype argument decides; otherwise promotion (pointwise) or the first input.
  std::optional<c10::ScalarType> dtype;
  for (const c10::IValue& v : args) {
    if (!v.isTensor()) continue;
    c10::ScalarType t = v.toTensor().scalar_type();
    if (!dtype || pointwise) dtype = dtype ? c10::promoteTypes(*dtype, t) : t;
  }
  if (const c10::IValue* d = arg_named(schema, args, "dtype"); d && d->isInt())
    dtype = static_cast<c10::ScalarType>(d->toInt());
  if (!dtype) return std::nullopt;
  std::vector<at::Tensor> outs;
  for (const auto& spec : *specs)
    outs.push_back(at::empty(spec.sizes, at::TensorOptions().dtype(spec.dtype.value_or(*dtype)).device(at::kMeta)));
  return outs;
}

ShapeFunctionKernels::ShapeFunctionKernels()
    : library_(
          std::make_unique<torch::Library>(torch::Library::IMPL, "aten", c10::DispatchKey::Meta, __FILE__, __LINE__)) {
  auto& dispatcher = c10::Dispatcher::singleton();
  std::vector<c10::OperatorName> functional;
  for (const c10::FunctionSchema* schema : jit::RegisteredShapeComputeSchemas())
    if (schema->name().rfind("aten::", 0) == 0 && !writes_out(*schema)) functional.push_back(schema->operator_name());
  for (const FamilyRule& r : kFamilies) functional.push_back({r.name, r.overload});
  for (const c10::OperatorName& name : functional) {
    // The op itself, and its out= variants (composite kernels call where.self_out, kthvalue.values).
    const std::string& o = name.overload_name;
    for (const std::string& overload : {o, o.empty() ? "out" : o + "_out", o.empty() ? "values" : o + "_values"}) {
      auto op = dispatcher.findSchema({name.name, overload});
      if (!op || !needs_shape_function(*op)) continue;
      if (writes_out(op->schema()) && !functional_of(op->schema())) continue;
      library_->impl(qualified(op->schema()).c_str(), torch::CppFunction::makeFromBoxedFunction<&run_shape_function>());
    }
  }
}

ShapeFunctionKernels::~ShapeFunctionKernels() = default;

}  // namespace kc
