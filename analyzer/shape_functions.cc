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

std::vector<int64_t> concrete(const c10::SymbolicShape& shape, const c10::FunctionSchema& schema) {
  auto dims = shape.sizes();
  TORCH_CHECK(dims, schema.operator_name(), ": its shape function gives no rank for these inputs");
  std::vector<int64_t> out;
  for (const auto& d : *dims) {
    TORCH_CHECK(d.is_static(), schema.operator_name(), ": its shape function gives a size that depends on data");
    out.push_back(d.static_size());
  }
  return out;
}

// The boxed Meta kernel: arguments in, one meta tensor per returned shape out. Errors are
// c10::Errors, as from any kernel; the loader turns them into a line naming the op.
void run_shape_function(const c10::OperatorHandle& op, jit::Stack* stack) {
  const c10::FunctionSchema& schema = op.schema();
  const size_t n = schema.arguments().size();
  auto args = jit::last(*stack, n);
  std::vector<jit::SSAInput> inputs;
  std::optional<c10::ScalarType> dtype, first_tensor;
  for (size_t i = 0; i < n; ++i) {
    const c10::IValue& v = args[i];
    if (v.isTensor()) {
      const at::Tensor& t = v.toTensor();
      inputs.emplace_back(c10::SymbolicShape(t.sizes()));
      if (!first_tensor) first_tensor = t.scalar_type();
      if (op.hasTag(at::Tag::pointwise)) dtype = dtype ? c10::promoteTypes(*dtype, t.scalar_type()) : t.scalar_type();
    } else {
      inputs.emplace_back(v);
    }
  }
  // An explicit dtype argument decides; otherwise promotion (pointwise) or the first input.
  if (auto idx = schema.argumentIndexWithName("dtype"); idx && args[*idx].isInt())
    dtype = static_cast<c10::ScalarType>(args[*idx].toInt());
  if (!dtype) dtype = first_tensor;
  TORCH_CHECK(dtype, schema.operator_name(), ": no tensor input to take the dtype from");
  const bool in_place = schema.is_mutable() && n > 0 && args[0].isTensor();
  c10::IValue self = n ? args[0] : c10::IValue();
  auto shapes = jit::calculateSymbolicShapesOnOp(&schema, inputs);
  TORCH_CHECK(shapes && shapes->size() == schema.returns().size(), schema.operator_name(),
              ": its shape function did not run for these inputs");
  jit::drop(*stack, n);
  if (in_place) {  // in place: the result is the written input itself
    stack->push_back(self);
    return;
  }
  for (const auto& shape : *shapes)
    stack->emplace_back(at::empty(concrete(shape, schema), at::TensorOptions().dtype(*dtype).device(at::kMeta)));
}

bool needs_shape_function(const c10::OperatorHandle& op) {
  using K = c10::DispatchKey;
  for (K k : {K::Meta, K::CompositeImplicitAutograd, K::CompositeExplicitAutograd,
              K::CompositeExplicitAutogradNonFunctional, K::CompositeImplicitAutogradNestedTensor})
    if (op.hasKernelForDispatchKey(k)) return false;
  const c10::FunctionSchema& schema = op.schema();
  for (const auto& r : schema.returns())
    if (!r.type()->castRaw<c10::TensorType>()) return false;  // lists, scalars: not shapes
  return !schema.is_mutable() || schema.returns().size() == 1;
}

}  // namespace

ShapeFunctionKernels::ShapeFunctionKernels()
    : library_(std::make_unique<torch::Library>(torch::Library::IMPL, "aten", c10::DispatchKey::Meta,
                                                __FILE__, __LINE__)) {
  for (const c10::FunctionSchema* schema : jit::RegisteredShapeComputeSchemas()) {
    if (schema->name().rfind("aten::", 0) != 0) continue;
    bool writes_out = false;
    for (const auto& a : schema->arguments()) writes_out = writes_out || a.is_out();
    if (writes_out) continue;
    auto op = c10::Dispatcher::singleton().findSchema({schema->name(), schema->overload_name()});
    if (!op || !needs_shape_function(*op)) continue;
    std::string name = schema->name();
    if (!schema->overload_name().empty()) name += "." + schema->overload_name();
    library_->impl(name.c_str(), torch::CppFunction::makeFromBoxedFunction<&run_shape_function>());
  }
}

ShapeFunctionKernels::~ShapeFunctionKernels() = default;

}  // namespace kc
