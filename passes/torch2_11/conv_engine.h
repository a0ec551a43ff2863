// cuDNN's engine choice for convolutions on the target's GPU, fitted on its shape sweeps and
// measured corpora (generators/fit_conv.py writes its folder's conv_engine_trees.inc).
#pragma once

#include <cstdint>

#include "passes/counts.h"
#include "passes/torch2_11/cudnn_heuristics.h"
#include "passes/torch2_11/tables.h"

namespace kc::torch2_11 {

// The problem as cuDNN's heuristics see it; a 1-d convolution has height 1, a 1-2 d one depth 1.
// For a grouped convolution the channels and the GEMM's K are one group's.
struct ConvProblem {
  int64_t kernel = 1;  // the larger of the kernel's height and width
  int64_t stride = 1;  // the larger of the height and width strides
  int64_t dilation = 1;
  int64_t batch = 1;
  int64_t height = 1;
  int64_t width = 1;
  int64_t c_in = 1;
  int64_t c_out = 1;
  int64_t out_pixels = 1;  // output pixels (voxels for 3-d)
  int64_t gemm_m = 1;      // batch x output pixels
  int64_t gemm_k = 1;      // c_in x kernel volume
  int64_t groups = 1;
  int64_t depth = 1;     // 3-d: input depth (time)
  int64_t kernel_t = 1;  // 3-d: the kernel's depth
  int64_t stride_t = 1;  // 3-d: the depth stride
  bool one_d = false;
  bool three_d = false;
  // A 1x1(x1) kernel at stride 1 without padding, ungrouped: on a GPU, cuDNN can run it as one
  // cuBLASLt GEMM (an engine it cannot offer when asked without a GPU).
  bool gemm_shaped = false;
};

// What cuDNN launches for the convolution itself (no bias add, no ATen layout copies): kernels
// and zeroed workspaces, for half precision or f32, NCHW or channels-last tensors. Ungrouped 1-3 d
// in either layout; grouped (groups > 1, not depthwise) NCHW only, where cuDNN runs one call or
// loops over the groups. With engine (cuDNN's own heuristic choice for the convolution), the
// trees that read it too; without, the trees of the shape alone. `trees`: the target's
// (Target::tables.conv).
Counts cudnn_conv(const ConvTrees& trees, bool half, bool channels_last, const ConvProblem& p,
                  const CudnnEngineChoice* engine);

}  // namespace kc::torch2_11
