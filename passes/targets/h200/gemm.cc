// GEMMs on the H200 (cuBLAS / cuBLASLt, aten/src/ATen/cuda/CUDABlas.cpp).
#include "passes/targets/h200/rules.h"

namespace kc::h200 {
namespace {

// Copy kernels a GEMM launches first: an operand whose batch dims cannot be folded into a
// view of [batch, rows, cols] with one unit stride is made contiguous (matmul's reshape).
int gemm_copies(const OpFacts& f) {
  int copies = 0;
  const bool linear = f.op->name == "aten::linear";
  for (int i = 0; i < 2; ++i) {
    const Value* v = f.input(i);
    if (!v || v->sizes.size() < 2 || (linear && i == 1)) continue;
    const auto& sz = v->sizes;
    const size_t n = sz.size();
    int64_t batch = 1;
    for (size_t d = 0; d + 2 < n; ++d) batch *= sz[d];
    std::vector<int64_t> folded = linear ? std::vector<int64_t>{batch * sz[n - 2], sz[n - 1]}
                                         : std::vector<int64_t>{batch, sz[n - 2], sz[n - 1]};
    // cuBLAS reads a matrix with either of its last two strides 1 (row- or column-major).
    const bool foldable = n == folded.size() || view_is_possible(sz, v->strides, folded);
    if (!foldable || (v->strides[n - 1] != 1 && v->strides[n - 2] != 1)) ++copies;
  }
  return copies;
}
// Rows of the GEMM's left operand: everything but the last dim of the input.
int64_t gemm_rows(const OpFacts& f) {
  const Value* a = f.input(0);
  if (!a || a->sizes.empty()) return 0;
  return a->numel() / std::max<int64_t>(1, a->sizes.back());
}
// bf16 nvjet GEMMs that widen (more output features than input ones) zero a workspace first.
bool linear_half_widening(const OpFacts& f) {
  const Value* w = f.input(1);
  if (!is_half(f.dtype) || gemm_rows(f) <= 1 || !w || w->sizes.size() != 2) return false;
  return f.op->name == "aten::linear" ? w->sizes[0] > w->sizes[1] : w->sizes[1] > w->sizes[0];
}
Counts gemm_counts(const OpFacts& f) { return {1 + gemm_copies(f), 0, 0, 0}; }
Counts gemm_half_counts(const OpFacts& f) { return {1 + gemm_copies(f), 0, 1, 0}; }

}  // namespace

void add_gemm_rules(std::vector<LaunchRule>& r) {
  // GEMMs (cuBLAS / cuBLASLt). bf16 linear runs nvjet kernels that zero a workspace first.
  r.push_back({"gemm.linear.half", ops({"aten::linear", "aten::addmm"}), {},
               "bf16/fp16, more than one row, more output than input features: nvjet with a zeroed "
               "workspace; + a copy per operand matmul cannot fold into a view",
               linear_half_widening, {}, gemm_half_counts,
               "truth:linear_bias_3d_bfloat16, truth:linear_bias_2d_bfloat16, truth:linear_nobias_bfloat16, "
               "corpus:vit_b_16, corpus:swin_t, corpus:gpt2, corpus:llama",
               "This bf16/fp16 GEMM runs cuBLASLt's nvjet kernel, which first zeroes a workspace (one memset), then computes the product with the bias in one kernel."});
  r.push_back({"gemm", ops({"aten::linear", "aten::addmm", "aten::mm", "aten::matmul", "aten::bmm", "aten::baddbmm"}), {}, "one GEMM, + a copy per operand matmul cannot fold into a view", nullptr, {}, gemm_counts,
               "truth:linear_bias_3d_float32, truth:linear_bias_small_*, truth:matmul_2d_*, truth:bmm_*, "
               "truth:matmul_transposed_k_*, corpus:swin_t (attention matmuls on permuted operands)",
               "A matrix multiply is one cuBLAS GEMM kernel (with the bias folded in); an operand that cannot be passed as a strided view is copied first."});
}

}  // namespace kc::h200
