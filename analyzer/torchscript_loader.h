// Loader for TorchScript archives (torch.jit.script / torch.jit.trace). Shapes come from the
// user's --input specs and flow through the graph by running each op on meta tensors.
#pragma once

#include <string>

#include "analyzer/load.h"

namespace caffe2::serialize {
class PyTorchStreamReader;
}

namespace kc {

// Loads an opened archive saved on any device, with every tensor mapped to the host and the
// weights' bytes never read; inlines every call and runs forward() on meta tensors, recording
// each aten op that touches a tensor. Shapes come from meta kernels, else TorchScript's shape
// functions. Branches whose condition is known are taken and loops unrolled; a branch or loop
// that depends on tensor data, or an op no shape inference covers, is an Error naming the op
// and the user's line. Values live on the device the model was saved on when that is a GPU.
Graph load_torchscript(caffe2::serialize::PyTorchStreamReader& archive, const std::string& path,
                       const LoadOptions& options);

// The same from the file at path, which load_model has already found to be a TorchScript
// archive; LibTorch's own errors become one-line Errors naming the file. A TorchScriptLoader.
Graph load_torchscript_file(const std::string& path, const LoadOptions& options);

}  // namespace kc
