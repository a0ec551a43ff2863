// cuDNN's engine choice for ungrouped 1-2 d convolutions on the H200, fitted on the shape
// sweeps (validate/sweeps/fit_conv.py writes conv_engine_trees.inc).
#pragma once

#include <cstdint>

#include "passes/counts.h"

namespace kc::h200 {

// The problem as cuDNN's heuristics see it; a 1-d convolution has height 1.
struct ConvProblem {
  int64_t kernel = 1;  // the larger of the kernel's height and width
  int64_t stride = 1;
  int64_t dilation = 1;
  int64_t batch = 1;
  int64_t height = 1;
  int64_t width = 1;
  int64_t c_in = 1;
  int64_t c_out = 1;
  int64_t out_pixels = 1;
  int64_t gemm_m = 1;  // batch x output pixels
  int64_t gemm_k = 1;  // c_in x kernel area
};

// What cuDNN launches for the convolution itself (no bias add, no ATen layout copies): kernels
// and zeroed workspaces, for half precision or f32, NCHW or channels-last tensors.
Counts cudnn_ungrouped_conv(bool half, bool channels_last, const ConvProblem& p);

}  // namespace kc::h200
