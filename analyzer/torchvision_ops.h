// torchvision's detection ops for the TorchScript loader: a traced detector calls
// torchvision::nms and friends, which LibTorch alone does not know, so torch::jit cannot import
// the file. This registers their schemas (as torchvision 0.26 declares them) and meta kernels that
// give each output's shape, never a value. The .pt2 loader needs neither: an archive records
// every output.
#pragma once

#include <ATen/core/function_schema.h>
#include <ATen/core/stack.h>

namespace kc {

// Registers the schemas and meta kernels once per process; does nothing for an op the dispatcher
// already knows (torchvision itself loaded in the process). Thread-safe.
void register_torchvision_ops();

// Runs the op on the stack (its arguments, replaced by its results) through the meta kernel
// above when it is one of torchvision's ops listed here; false, touching nothing, otherwise.
// The loader calls it before the dispatcher: in a process that imported torchvision (the Python
// package's), the dispatcher holds torchvision's own kernels, whose nms refuses meta tensors
// and whose _cuda_version is the real one, and a model's shapes must not depend on that.
bool run_torchvision_meta(const c10::FunctionSchema& schema, torch::jit::Stack& stack);

}  // namespace kc
