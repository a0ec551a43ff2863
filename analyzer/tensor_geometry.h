// Tensor geometry that both the loaders and the passes compute: dense strides, broadcast
// shapes and the dimension order ATen's TensorIterator gives its operands. Plain sizes and
// strides in, no graph and no LibTorch.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace kc {

// Row-major strides of a dense tensor of `sizes` (a size-0 dimension steps as size 1).
std::vector<int64_t> contiguous_strides(const std::vector<int64_t>& sizes);

// Dense strides of `sizes` laid out in `order`, fastest dimension first (order[0] gets stride 1).
std::vector<int64_t> strides_in_order(const std::vector<int64_t>& sizes, const std::vector<int>& order);

// A tensor's dimensions in channels-last order, fastest first: C, then the spatial dimensions
// from the last, then N (c10/core/MemoryFormat.h). Rank 2 or more.
std::vector<int> channels_last_order(size_t rank);

// Whether `strides` are dense over `sizes` laid out in `order` (fastest first), size-1
// dimensions ignored: each stride is the product of the sizes before it. False when the ranks
// differ.
bool dense_in_order(const std::vector<int64_t>& sizes, const std::vector<int64_t>& strides,
                    const std::vector<int>& order);

// Dense in the order its strides give the dimensions (TensorIterator's): ATen's
// is_non_overlapping_and_dense. False when the ranks differ.
bool dense_in_stride_order(const std::vector<int64_t>& sizes, const std::vector<int64_t>& strides);

// dense_in_order in row-major order: what Tensor::is_contiguous() answers.
bool row_major_dense(const std::vector<int64_t>& sizes, const std::vector<int64_t>& strides);

// The shape two operands broadcast to: aligned at the last dimension, a size-1 (or missing)
// dimension takes the other's size. Does not check that the sizes are compatible.
std::vector<int64_t> broadcast_shape(const std::vector<int64_t>& a, const std::vector<int64_t>& b);

// TensorIterator's dimension order (aten/src/ATen/TensorIterator.cpp, reorder_dimensions): the
// dimensions of `sizes`, fastest-varying first, sorted by the first operand whose strides tell two
// apart (a stride 0, broadcast, tells nothing; equal strides are broken by size). Each entry of
// `operand_strides` is one operand's strides over the dimensions of `sizes`, broadcast ones 0.
// With `reduction`, operand 0 is the output and its reduced (stride-0) dimensions come first.
std::vector<int> tensor_iterator_order(const std::vector<int64_t>& sizes,
                                       const std::vector<std::vector<int64_t>>& operand_strides,
                                       bool reduction = false);

}  // namespace kc
