#include "passes/sdpa_path.h"

#include <algorithm>

#include "analyzer/tensor_geometry.h"

namespace kc {

bool last_dim_strided(const Value& t) {
  return !t.sizes.empty() && t.strides.size() == t.sizes.size() && t.sizes.back() > 1 && t.strides.back() != 1;
}

bool sdpa_runs_fused(const Value& q, const Value& k, const Value& v, const Value* mask) {
  const bool floats = q.dtype == DType::kFloat32 || q.dtype == DType::kBFloat16 || q.dtype == DType::kFloat16;
  if (!floats || q.sizes.size() != 4 || k.sizes.size() != 4 || v.sizes.size() != 4) return false;
  if (q.sizes[1] != k.sizes[1]) return false;  // no enable_gqa: check_batch_size_and_num_heads
  if (mask && last_dim_strided(*mask)) return false;
  if (last_dim_strided(q) || last_dim_strided(k) || last_dim_strided(v)) return false;
  // f32 has only the memory-efficient kernel, whose GEMMs need head dims that are a multiple
  // of 4 (minimum_gemm_alignment: 16 bytes) and equal for q and k. Half precision has flash
  // attention, which pads any head dim.
  if (q.dtype == DType::kFloat32) return q.sizes[3] % 4 == 0 && v.sizes[3] % 4 == 0 && q.sizes[3] == k.sizes[3];
  return true;
}

bool sdpa_math_batch_copied(const Value& t, bool densified) {
  if (t.sizes.size() != 4 || t.strides.size() != 4) return false;
  std::vector<int64_t> strides = t.strides;
  if (densified) {
    // Dims from the largest stride to the smallest, then dense strides in that order.
    std::vector<size_t> order{0, 1, 2, 3};
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return t.strides[a] > t.strides[b]; });
    int64_t step = 1;
    for (size_t i = order.size(); i-- > 0;) {
      strides[order[i]] = step;
      step *= t.sizes[order[i]];
    }
  }
  return t.sizes[0] > 1 && t.sizes[1] > 1 && strides[0] != strides[1] * t.sizes[1];
}

std::vector<int64_t> sdpa_fused_output_strides(const std::vector<int64_t>& s, const Value& q) {
  if (s.size() != 4) return {};
  const bool half = q.dtype == DType::kBFloat16 || q.dtype == DType::kFloat16;
  const int64_t d = half && s[3] % 8 != 0 ? (s[3] + 7) / 8 * 8 : s[3];
  const std::vector<int64_t> bshd{s[2] * s[1] * d, d, s[1] * d, 1};
  if (!half || d != s[3]) return bshd;
  // alloc_with_matching_layout (sdp_utils.h): an output shaped as the query is empty_like(q),
  // which keeps a dense query's strides (an MHA's [S, B, H, D] as much as a projection's
  // [B, S, H, D]).
  if (q.sizes == s && dense_in_stride_order(q.sizes, q.strides)) return q.strides;
  const bool q_bshd = q.strides.size() == 4 && q.sizes[1] > 1 && q.sizes[2] > 1 && q.strides[2] > q.strides[1];
  if (q_bshd) return bshd;
  return {s[1] * s[2] * s[3], s[2] * s[3], s[3], 1};
}

}  // namespace kc
