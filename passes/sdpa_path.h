// Which implementation scaled_dot_product_attention runs on CUDA, from the shapes and run-time
// strides alone (aten/src/ATen/native/transformers/cuda/sdp_utils.cpp): the launch rules count
// its kernels by it and the layout pass gives its output the strides that implementation writes.
#pragma once

#include "analyzer/graph.h"

namespace kc {

// True when a fused kernel (flash, memory-efficient or cuDNN attention) can take the call: 4-D
// q, k and v of f32/bf16/fp16, as many key as query heads, unit-strided head dims (in f32 a
// multiple of 4) and a mask (if any) whose last dim is unit-strided. Otherwise the math path runs.
bool sdpa_runs_fused(const Value& q, const Value& k, const Value& v, const Value* mask);

// The math path reshapes each 4-D operand's [B, H] into one batch dim for its bmm: true when
// that is no view of `t`, so matmul copies it first. With `densified`, `t` is read as an
// elementwise op writes it (the scale multiply, the upcast): dense, in its own dim order.
bool sdpa_math_batch_copied(const Value& t, bool densified);

// A tensor whose last dim is not unit-strided (a size-1 last dim may have any stride).
bool last_dim_strided(const Value& t);

// Output strides of a fused call. f32 runs the memory-efficient kernel, which writes
// [B, S, H, D] and returns it as [B, H, S, D]. bf16/fp16 run cuDNN attention, which allocates
// the output like the query: a dense query's own strides (heads of a [B, S, H*D] projection,
// of an MHA's [S, B, H*D], or contiguous), else its dim order; or flash attention on heads
// padded to a multiple of 8, whose [B, S, H, D_padded] output is sliced back to D.
std::vector<int64_t> sdpa_fused_output_strides(const std::vector<int64_t>& out_sizes, const Value& q);

}  // namespace kc
