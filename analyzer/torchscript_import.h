// torch::jit::load without its backward-compatibility pass for quantized convolutions.
#pragma once

#include <caffe2/serialize/read_adapter_interface.h>
#include <torch/csrc/jit/api/module.h>

#include <memory>

namespace kc {

// The module of a TorchScript archive, its tensors on the host, as torch::jit::load(reader,
// kCPU, load_debug_files=false) returns it, less the rewrite of pre-1.6 quantized
// convolutions that load runs on every submodule: it parses eight IR patterns a submodule
// (about a tenth of a second of a traced EfficientNetV2-S's load, with its 700), and a count
// of CUDA launches never runs a quantized kernel. Source ranges are the code records' own (SourceLocator reads the
// .debug_pkl tables). A class with __setstate__, whose state load restores through checks this
// import does not repeat, is loaded by torch::jit::load itself. Throws what jit::load throws.
torch::jit::Module import_torchscript(std::shared_ptr<caffe2::serialize::ReadAdapterInterface> reader);

}  // namespace kc
