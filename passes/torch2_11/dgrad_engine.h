// What cuDNN launches for an ungrouped transposed convolution on NCHW tensors (its data-gradient
// convolution), given the engine cuDNN's own heuristics pick for it: the engines whose launches
// follow from the engine and the channel counts alone.
#pragma once

#include <cstdint>
#include <optional>

#include "analyzer/dtype.h"
#include "passes/counts.h"
#include "passes/torch2_11/cudnn_heuristics.h"

namespace kc::torch2_11 {

// The data gradient as cuDNN sees it: dy (the transposed convolution's input, K channels) and
// dx (its output, C channels), a 1-d convolution viewed as 2-d.
struct DgradConv {
  DType dtype = DType::kFloat32;
  int64_t k_channels = 1;   // dy's
  int64_t c_channels = 1;   // dx's
  bool pointwise = false;   // a kernel of one pixel at stride 1
  bool unit_stride = true;  // stride 1 in every dim
  int64_t dx_elements = 0;  // N x C x the output pixels
  int64_t reduction = 0;    // K x the kernel's pixels: the implicit GEMM's depth
};

// The launches of the dgrad on engine `e`, without the bias add; nullopt where the sweeps saw
// them vary for that engine (or never measured it).
std::optional<Counts> dgrad_engine_launches(const DgradConv& c, const CudnnEngineChoice& e);

}  // namespace kc::torch2_11
