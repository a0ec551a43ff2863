// Why a port rather than a threshold: whether a reduction zeroes a semaphore buffer depends on
// the layout it reads (a mean over H and W of a channels-last tensor splits its input across
// blocks where the same mean of an NCHW one does not), and ATen decides it with a few lines of
// integer arithmetic over the iterator's shape and the device's SM count (the target's
// device.json). Checked against every reduction of the `reduction` sweep on the H200
// (tests/passes/reduce_config_test.cc).
#include "passes/torch2_11/reduce_config.h"

#include <algorithm>
#include <numeric>
#include <utility>

#include "analyzer/tensor_geometry.h"

namespace kc::torch2_11 {
namespace {

constexpr int64_t kMaxThreads = 512;  // mnt_wrapper<T>::MAX_NUM_THREADS (256 for complex double only)
constexpr int64_t kMinValuesPerThread = 16;
constexpr int64_t kMaxValuesPerThread = 256;

int64_t div_up(int64_t a, int64_t b) {
  return (a + b - 1) / b;
}

// floor to a power of two, at least 1 (Reduce.cuh's last_pow2)
int64_t last_pow2(int64_t n) {
  int64_t p = 1;
  while (p * 2 <= n) p *= 2;
  return p;
}

// TensorIterator's view of a reduction (TensorIterator.cpp: reorder_dimensions,
// coalesce_dimensions): operand 0 is the output, dense over the kept dimensions with stride 0
// on the reduced ones; operand 1 the input.
struct ReduceIter {
  std::vector<int64_t> shape, out, in;
  int reduce_dims = 0;
};

ReduceIter reduce_iter(const std::vector<int64_t>& sizes, const std::vector<int64_t>& strides,
                       const std::vector<bool>& reduced) {
  const size_t n = sizes.size();
  std::vector<int64_t> out(n, 0);
  int64_t acc = 1;
  for (size_t d = n; d-- > 0;) {
    if (reduced[d]) continue;
    out[d] = acc;
    acc *= sizes[d];
  }
  // ATen's order for a reduction: reduced dimensions first, then by stride (the output's, then
  // the input's), equal strides by size.
  const std::vector<int> perm = tensor_iterator_order(sizes, {out, strides}, /*reduction=*/true);
  ReduceIter it;
  for (int p : perm) {
    it.shape.push_back(sizes[p]);
    it.out.push_back(out[p]);
    it.in.push_back(strides[p]);
  }
  // Coalesce: adjacent dimensions merge when either has size 1 or both operands step evenly.
  size_t prev = 0;
  for (size_t d = 1; d < n; ++d) {
    const int64_t s0 = it.shape[prev], s1 = it.shape[d];
    const bool even = s0 * it.out[prev] == it.out[d] && s0 * it.in[prev] == it.in[d];
    if (s0 == 1 || s1 == 1 || even) {
      if (s0 == 1) {
        it.out[prev] = it.out[d];
        it.in[prev] = it.in[d];
      }
      it.shape[prev] *= s1;
    } else {
      ++prev;
      it.shape[prev] = s1;
      it.out[prev] = it.out[d];
      it.in[prev] = it.in[d];
    }
  }
  const size_t kept = n == 0 ? 0 : prev + 1;
  it.shape.resize(kept);
  it.out.resize(kept);
  it.in.resize(kept);
  it.reduce_dims = static_cast<int>(std::count(it.out.begin(), it.out.end(), 0));
  return it;
}

}  // namespace

bool reduce_splits_across_blocks(const Device& device, const std::vector<int64_t>& sizes,
                                 const std::vector<int64_t>& strides, const std::vector<int64_t>& dims) {
  const size_t n = sizes.size();
  if (strides.size() != n) return false;
  int64_t numel = 1;
  for (int64_t s : sizes) {
    if (s <= 0) return false;  // nothing to reduce: the output is filled instead
    numel *= s;
  }
  std::vector<bool> reduced(n, dims.empty());
  for (int64_t d : dims) {
    const int64_t i = d < 0 ? d + static_cast<int64_t>(n) : d;
    if (i >= 0 && i < static_cast<int64_t>(n)) reduced[static_cast<size_t>(i)] = true;
  }
  const ReduceIter it = reduce_iter(sizes, strides, reduced);
  const size_t ndim = it.shape.size();
  const size_t nred = static_cast<size_t>(it.reduce_dims);
  int64_t num_outputs = 1;
  for (size_t d = 0; d < ndim; ++d)
    if (it.out[d] != 0) num_outputs *= it.shape[d];
  const int64_t inputs_per_output = numel / num_outputs;

  // setReduceConfig: block.x along the fastest-moving dimension, reduced or not.
  bool fastest = true;
  int64_t dim0 = 1, dim1 = 1, fastest_stride = 1;
  if (ndim > 0) {
    fastest = nred == ndim || it.in[0] < it.in[nred];
    dim0 = fastest ? inputs_per_output : num_outputs;
    dim1 = fastest ? num_outputs : inputs_per_output;
    fastest_stride = fastest ? it.in[0] : it.in[nred];
  }
  int64_t output_vec = 1;
  if (fastest_stride == 1) {
    if (fastest && dim0 >= 128 && nred == 1) {
      dim0 /= 4;  // vectorised along the input (input_vec_size 4 or 8; either gives the same split)
    } else if (!fastest) {
      // get_output_vec_size: 4, halved until it divides the first kept extent and the input's
      // other strides (the data pointer taken as aligned, as the caching allocator gives it)
      auto fit = [&output_vec](int64_t v) {
        while (v % output_vec != 0) output_vec /= 2;
      };
      output_vec = 4;
      fit(it.shape[nred]);
      for (size_t d = 0; d < ndim; ++d)
        if (d != nred) fit(it.in[d]);
      dim0 /= output_vec;
    }
  }
  const int64_t max_threads = kMaxThreads / output_vec;
  const int64_t dim0_pow2 = dim0 < max_threads ? last_pow2(dim0) : max_threads;
  const int64_t dim1_pow2 = dim1 < max_threads ? last_pow2(dim1) : max_threads;
  int64_t block_width = std::min(dim0_pow2, device.warp_size);
  const int64_t block_height = std::min(dim1_pow2, max_threads / block_width);
  block_width = std::min(dim0_pow2, max_threads / block_height);
  const int64_t num_threads = block_width * block_height;

  int64_t step_input = 1, step_output = 1;
  if (ndim == 0 || fastest)
    step_input *= block_width;
  else
    step_output *= block_width;
  auto values_per_thread = [&] { return div_up(inputs_per_output, step_input); };
  bool split_across_warps = values_per_thread() >= std::min(block_height * 16, kMaxValuesPerThread);
  if (split_across_warps)
    step_input *= block_height;
  else
    step_output *= block_height;
  const int64_t target_grid = device.sms * (device.max_threads_per_sm / num_threads);
  const int64_t grid = div_up(num_outputs / output_vec, step_output);
  if (!split_across_warps || values_per_thread() < kMaxValuesPerThread || grid > target_grid) return false;
  const int64_t ctas = std::max(std::min(div_up(target_grid, grid), div_up(values_per_thread(), kMinValuesPerThread)),
                                div_up(values_per_thread(), kMaxValuesPerThread));
  return ctas > 1;
}

}  // namespace kc::torch2_11
