// torchvision's detection ops for the TorchScript loader: a traced detector calls
// torchvision::nms and friends, which LibTorch alone does not know, so torch::jit cannot import
// the file. This registers their schemas (as torchvision 0.26 declares them) and meta kernels that
// give each output's shape, never a value. The .pt2 loader needs neither: an archive records
// every output.
#pragma once

namespace kc {

// Registers the schemas and meta kernels once per process; does nothing for an op the dispatcher
// already knows (torchvision itself loaded in the process). Thread-safe.
void register_torchvision_ops();

}  // namespace kc
