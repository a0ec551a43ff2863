// What cuDNN launches for a grouped 2-d convolution on channels-last tensors (not depthwise
// NCHW, which ATen runs itself): one grouped call, or an engine without group support run once
// per group, as cuDNN's own engine choice says, else as the sweeps' buckets say.
#pragma once

#include <cstdint>

#include "passes/counts.h"
#include "passes/torch2_11/cudnn_heuristics.h"

namespace kc::torch2_11 {

// The convolution as the rule sees it: dtype class, channels in and out, groups, kernel size.
struct GroupedConv {
  bool half = false;  // bfloat16 or float16 (else float32)
  int64_t c_in = 1;
  int64_t c_out = 1;
  int64_t groups = 1;
  bool kernel_1x1 = false;
};

// The convolution's own launches (cuDNN's kernels and zeroed buffers) plus `extra` kernels
// (bias add, layout copies). `engine`: cuDNN's heuristic choice for it, or nullptr where none
// is had (the buckets then decide).
Counts grouped_channels_last(const GroupedConv& c, int extra, const CudnnEngineChoice* engine);

}  // namespace kc::torch2_11
