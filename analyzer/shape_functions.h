// Shape inference for ops whose meta function exists only in Python (torch/_meta_registrations.py),
// which a C++ tool does not have: TorchScript's own shape functions, the ones symbolic shape
// analysis uses (torch/csrc/jit/runtime/symbolic_shape_registry.h), serve as their meta kernels.
#pragma once

#include <memory>

namespace torch {
class Library;
}

namespace kc {

// While it lives, every aten op that has a TorchScript shape function but neither a Meta
// kernel nor a composite kernel runs on meta tensors through that shape function, also when a
// composite op (layer_norm -> native_layer_norm -> native_batch_norm) calls it from inside.
// Ops with a real Meta kernel keep it. Outputs are contiguous, of the first tensor input's
// dtype (the promoted dtype for pointwise ops, the `dtype` argument where one is given).
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
