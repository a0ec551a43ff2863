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
  if (overload == "out")
    overload.clear();
  else if (overload.size() > 4 && overload.compare(overload.size() - 4, 4, "_out") == 0)
    overload.resize(overload.size() - 4);
  else
    return std::nullopt;
  return c10::Dispatcher::singleton().findSchema({out_variant.name(), overload});
}

bool writes_out(const c10::FunctionSchema& schema) {
  for (const auto& a : schema.arguments())
    if (a.is_out()) return true;
  return false;
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
    for (size_t i = 0; i < n; ++i) (schema.arguments()[i].is_out() ? (void)0 : inputs.push_back(args[i]));
    auto shapes = functional ? shapes_from_shape_function(functional->schema(), inputs) : std::nullopt;
    TORCH_CHECK(shapes, schema.operator_name(), ": no shape function for these inputs");
    size_t k = 0;
    for (size_t i = 0; i < n; ++i) {
      if (!schema.arguments()[i].is_out()) continue;
      TORCH_CHECK(k < shapes->size() && args[i].isTensor(), schema.operator_name(), ": unexpected out= arguments");
      outs.push_back(args[i].toTensor().resize_((*shapes)[k++]));
    }
  } else {
    auto made = outputs_from_shape_function(schema, args, op.hasTag(at::Tag::pointwise));
    TORCH_CHECK(made, schema.operator_name(), ": its shape function did not run for these inputs");
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

std::optional<std::vector<at::Tensor>> outputs_from_shape_function(const c10::FunctionSchema& schema,
                                                                   const std::vector<c10::IValue>& args,
                                                                   bool pointwise) {
  auto shapes = shapes_from_shape_function(schema, args);
  if (!shapes) return std::nullopt;
  // In place: the result is the written input itself.
  if (schema.is_mutable() && !args.empty() && args[0].isTensor() && shapes->size() == 1)
    return std::vector<at::Tensor>{args[0].toTensor()};
  // An explicit dtype argument decides; otherwise promotion (pointwise) or the first input.
  std::optional<c10::ScalarType> dtype;
  for (const c10::IValue& v : args) {
    if (!v.isTensor()) continue;
    c10::ScalarType t = v.toTensor().scalar_type();
    if (!dtype || pointwise) dtype = dtype ? c10::promoteTypes(*dtype, t) : t;
  }
  if (auto idx = schema.argumentIndexWithName("dtype"); idx && static_cast<size_t>(*idx) < args.size() && args[*idx].isInt())
    dtype = static_cast<c10::ScalarType>(args[*idx].toInt());
  if (!dtype) return std::nullopt;
  std::vector<at::Tensor> outs;
  for (const auto& sizes : *shapes)
    outs.push_back(at::empty(sizes, at::TensorOptions().dtype(*dtype).device(at::kMeta)));
  return outs;
}

ShapeFunctionKernels::ShapeFunctionKernels()
    : library_(std::make_unique<torch::Library>(torch::Library::IMPL, "aten", c10::DispatchKey::Meta,
                                                __FILE__, __LINE__)) {
  auto& dispatcher = c10::Dispatcher::singleton();
  for (const c10::FunctionSchema* schema : jit::RegisteredShapeComputeSchemas()) {
    if (schema->name().rfind("aten::", 0) != 0 || writes_out(*schema)) continue;
    // The op itself, and its out= variant (composite kernels call where.self_out and the like).
    const std::string out_overload = schema->overload_name().empty() ? "out" : schema->overload_name() + "_out";
    for (const std::string& overload : {schema->overload_name(), out_overload}) {
      auto op = dispatcher.findSchema({schema->name(), overload});
      if (!op || !needs_shape_function(*op)) continue;
      library_->impl(qualified(op->schema()).c_str(), torch::CppFunction::makeFromBoxedFunction<&run_shape_function>());
    }
  }
}

ShapeFunctionKernels::~ShapeFunctionKernels() = default;

}  // namespace kc
