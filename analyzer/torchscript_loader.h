// Loader for TorchScript archives (torch.jit.script / torch.jit.trace). Shapes come from the
// user's --input specs and flow through the graph by running each op on meta tensors.
#pragma once

#include <string>

#include "analyzer/load.h"

namespace kc {

// Loads, inlines every call, and runs forward() on meta tensors, recording each aten op that
// touches a tensor. Branches whose condition is known are taken and loops unrolled; a branch
// or loop that depends on tensor data is an Error.
Graph load_torchscript(const std::string& path, const LoadOptions& options);

}  // namespace kc
