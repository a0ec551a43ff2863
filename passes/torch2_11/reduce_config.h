// ATen's launch configuration for its reduce kernel on the target's GPU: whether a reduction
// splits its input across thread blocks, which zeroes a semaphore buffer with a memset first.
#pragma once

#include <cstdint>
#include <vector>

#include "passes/device.h"

namespace kc::torch2_11 {

// sizes and strides (in elements) of the reduced tensor as it is at run time; dims: the reduced
// dimensions (negative ones count from the end; empty: all of them). True when
// at::native::gpu_reduce_kernel (aten/src/ATen/native/cuda/Reduce.cuh) takes a global reduction:
// TensorIterator's reduce geometry (reduced dimensions first, each group ordered by strides, then
// coalesced), then setReduceConfig's block shape and its split of the input over blocks, which
// aims at filling the device's SMs (`device`: the target's).
bool reduce_splits_across_blocks(const Device& device, const std::vector<int64_t>& sizes,
                                 const std::vector<int64_t>& strides, const std::vector<int64_t>& dims);

}  // namespace kc::torch2_11
