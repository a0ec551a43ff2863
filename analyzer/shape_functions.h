// Shape inference for ops whose meta function exists only in Python (torch/_meta_registrations.py),
// which a C++ tool does not have: TorchScript's own shape functions, the ones symbolic shape
// analysis uses (torch/csrc/jit/runtime/symbolic_shape_registry.h), serve as their meta kernels.
#pragma once

#include <ATen/core/Tensor.h>
#include <ATen/core/function_schema.h>
#include <ATen/core/ivalue.h>

#include <memory>
#include <optional>
#include <vector>

namespace torch {
class Library;
}

namespace kc {

// The output sizes of an op from its TorchScript shape function, given its arguments (tensors
// stand for their sizes); nullopt when it has none, or it rejects these arguments, or a size
// depends on data. The registry knows schemas by address: pass the dispatcher's own (or a
// node's), not a copy.
std::optional<std::vector<std::vector<int64_t>>> shapes_from_shape_function(const c10::FunctionSchema& schema,
                                                                            const std::vector<c10::IValue>& args);
// Meta tensors for an op's outputs from its TorchScript shape function, else from a rule for its
// family (roll, var.correction, kthvalue, bucketize, ... which have neither a meta kernel nor a
// shape function); nullopt when neither covers the op or these arguments. Outputs are
// contiguous, of the first tensor input's dtype (the promoted dtype when pointwise, the `dtype`
// argument where one is given, int64 for indices); an in-place op returns the tensor it writes.
std::optional<std::vector<at::Tensor>> shape_only_outputs(const c10::FunctionSchema& schema,
                                                          const std::vector<c10::IValue>& args, bool pointwise);

// True when shape_only_outputs has a rule of its own for the op (no shape function needed).
bool has_family_rule(const c10::FunctionSchema& schema);

// The strides TensorIterator gives the output of an elementwise op over `inputs` broadcast to
// `shape` (TensorIteratorBase::reorder_dimensions): dense, its dimensions in the order the
// inputs' strides put them, so a permuted input keeps its layout.
std::vector<int64_t> tensor_iterator_strides(const std::vector<int64_t>& shape, const std::vector<at::Tensor>& inputs);

// While it lives, every aten op that shape_only_outputs covers but that has neither a Meta
// kernel nor a composite kernel runs on meta tensors through that shape function, also when a
// composite op (layer_norm -> native_layer_norm -> native_batch_norm) calls it from inside.
// Out= variants of those ops resize their out tensors. Ops with a real Meta kernel keep it.
// The registrations are undone when it is destroyed.
class ShapeFunctionKernels {
 public:
  ShapeFunctionKernels();
  ~ShapeFunctionKernels();
  ShapeFunctionKernels(const ShapeFunctionKernels&) = delete;
  ShapeFunctionKernels& operator=(const ShapeFunctionKernels&) = delete;

 private:
  std::unique_ptr<torch::Library> library_;
};

}  // namespace kc
