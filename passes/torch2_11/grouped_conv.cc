#include "passes/torch2_11/grouped_conv.h"

namespace kc::torch2_11 {

// Grouped convolutions on channels-last tensors (sweeps gconv, gconv_wide: 1,153 grouped
// channels-last conv2d calls). cuDNN either runs one grouped call (a direct kernel, or the
// implicit GEMM, whose weight transform for a channel multiplier of 2 adds 2 kernels and 2
// zeroed buffers, and which pads channels per group that are no power of two: 3 transforms
// and 2 zeroed buffers around it), or runs an engine without group support once per group: one
// launch per group (engine 28), or three (engines 27 and 45 in half precision: GEMM and two
// channel slices) or four (engines 35, 46 and 70 in f32). Which engine, cuDNN's own heuristics
// say (`engine`, asked as ATen asks): read so, the kernels of 542 of the 569 bf16 and 548 of
// the 584 f32 calls (not depthwise), and of 201 of 202 depthwise ones. Without them, the most
// frequent behaviour per bucket of channels per group, kernel size and dtype (411 of the 569
// bf16 and 290 of the 584 f32 calls).
Counts grouped_channels_last(const GroupedConv& c, int extra, const CudnnEngineChoice* engine) {
  const int64_t cin = c.c_in;
  const int64_t cpg = cin / c.groups;
  const int64_t mult = c.c_out % cin == 0 ? c.c_out / cin : 0;
  const bool k1 = c.kernel_1x1;
  const int g = static_cast<int>(c.groups);
  const bool half = c.half;
  enum { kDirect, kGemm, kLoop1, kLoop3, kLoop4, kBucket } path = kBucket;
  if (engine && engine->engine >= 0) {
    const int64_t e = engine->engine;
    if (e == 0)
      path = kDirect;
    else if (e == 28)
      path = kLoop1;
    else if (half && (e == 27 || e == 45))
      path = kLoop3;
    else if (!half && (e == 35 || e == 46 || e == 70))
      path = kLoop4;
    else if (half ? (e == 22 || e == 62) : e == 67)
      path = kGemm;
  }
  if (path == kBucket) {
    if (half) {
      if (cpg == 1)
        path = mult >= 2 ? kLoop1 : kDirect;
      else if (cpg == 2)
        path = kLoop1;
      else if (cpg <= 8)
        path = kGemm;
      else if (cpg < 32)
        path = k1 ? kLoop3 : kGemm;
      else
        path = kLoop3;
    } else {
      if (c.groups <= 2)
        path = kLoop1;
      else if (cpg == 1)
        path = kDirect;
      else
        path = k1 ? kLoop1 : kGemm;
    }
  }
  switch (path) {
    case kDirect:
      return {1 + extra, 0, 0, 0};
    case kLoop1:
      return {g + extra, 0, 0, 0};
    case kLoop3:
      return {3 * g + extra, 0, 0, 0};
    case kLoop4:
      return {4 * g + extra, 0, 0, 0};
    default:
      break;
  }
  if (mult >= 2) return {3 + extra, 0, 2, 0};
  // The grouped implicit GEMM packs groups of a power of two channels (at least 16 bytes of
  // them in f32, 2 channels in half precision) into its tiles; other counts are padded by
  // transforms into zeroed buffers.
  const bool packed = (cpg & (cpg - 1)) == 0 && cpg >= (half ? 2 : 4);
  if (engine && engine->engine >= 0) return packed ? Counts{1 + extra, 0, 0, 0} : Counts{4 + extra, 0, 2, 0};
  const int memsets = cpg >= 24 && cpg % 32 != 0 ? 2 : 0;
  return {1 + extra, 0, memsets, 0};
}

}  // namespace kc::torch2_11
