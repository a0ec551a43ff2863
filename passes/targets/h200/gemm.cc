// GEMMs on the H200 (cuBLAS / cuBLASLt, aten/src/ATen/cuda/CUDABlas.cpp; aten::linear and matmul's
// folding in aten/src/ATen/native/Linear.cpp and LinearAlgebra.cpp).
#include <cctype>
#include <map>

#include "passes/targets/h200/rules.h"

namespace kc::h200 {
namespace {

bool has_layout(const Value* v) {
  return v && !v->sizes.empty() && v->strides.size() == v->sizes.size();
}

// cuBLAS reads a matrix whose last or second-to-last stride is 1 (row- or column-major);
// anything else is made contiguous first (prepare_matrix_for_cublas).
bool blas_readable(const Value& v) {
  const size_t n = v.sizes.size();
  if (n < 2) return true;
  return v.strides[n - 1] == 1 || v.strides[n - 2] == 1 || v.sizes[n - 1] == 1 || v.sizes[n - 2] == 1;
}

// Copy kernels a GEMM launches first: an operand whose batch dims cannot be folded into a
// view of [batch, rows, cols] with one unit stride is made contiguous (matmul's reshape).
int operand_copies(const Value* v) {
  if (!has_layout(v) || v->sizes.size() < 2) return 0;
  const auto& sz = v->sizes;
  const size_t n = sz.size();
  int64_t batch = 1;
  for (size_t d = 0; d + 2 < n; ++d) batch *= sz[d];
  const bool foldable = n <= 3 || view_is_possible(sz, v->strides, {batch, sz[n - 2], sz[n - 1]});
  return !foldable || !blas_readable(*v) ? 1 : 0;
}
int gemm_copies(const OpFacts& f) {
  const int first = f.op->name == "aten::addmm" || f.op->name == "aten::baddbmm" ? 1 : 0;
  return operand_copies(f.input(first)) + operand_copies(f.input(first + 1));
}

// aten::linear with a bias and a 2-D input, or a contiguous N-D one, is one addmm with the
// bias fused (at::native::linear); any other input runs matmul(input, weight.t()) and then
// a separate bias add.
bool linear_bias_fused(const OpFacts& f) {
  const Value* x = f.input(0);
  return f.input(2) && has_layout(x) && (x->sizes.size() == 2 || (x->sizes.size() >= 3 && x->contiguous()));
}
bool linear_bias_separate(const OpFacts& f) {
  return f.input(2) && !linear_bias_fused(f);
}

// matmul's should_fold: an N-D (N >= 3) left operand whose leading dims collapse into rows
// (stride[i] == stride[i+1] * size[i+1]) becomes one 2-D mm; else the bmm path.
bool matmul_folds(const Value& x) {
  const size_t n = x.sizes.size();
  for (size_t i = 0; i + 2 < n; ++i)
    if (x.strides[i] != x.strides[i + 1] * x.sizes[i + 1]) return false;
  return true;
}
// Copies before linear's GEMM: the left operand as addmm, mm (folded) or bmm reads it.
int linear_copies(const OpFacts& f) {
  const Value* x = f.input(0);
  if (!has_layout(x) || x->sizes.size() < 2) return 0;
  if (x->sizes.size() == 2 || linear_bias_fused(f) || matmul_folds(*x)) return blas_readable(*x) ? 0 : 1;
  const auto& sz = x->sizes;
  const size_t n = sz.size();
  int64_t batch = 1;
  for (size_t d = 0; d + 2 < n; ++d) batch *= sz[d];
  // The bmm path reshapes to [batch, rows, cols]: a copy when that is not a view, after which
  // the operand is contiguous.
  if (!view_is_possible(sz, x->strides, {batch, sz[n - 2], sz[n - 1]})) return 1;
  return blas_readable(*x) ? 0 : 1;
}

// M (rows), K and N of a linear/addmm/mm as cuBLAS sees it; all 0 when the shapes don't fit.
struct Mnk {
  int64_t m = 0, k = 0, n = 0;
};
Mnk gemm_mnk(const OpFacts& f) {
  const std::string& op = f.op->name;
  if (op == "aten::linear") {
    const Value* x = f.input(0);
    const Value* w = f.input(1);
    if (!x || !w || x->sizes.empty() || w->sizes.size() != 2 || x->sizes.back() != w->sizes[1]) return {};
    return {x->numel() / std::max<int64_t>(1, x->sizes.back()), x->sizes.back(), w->sizes[0]};
  }
  const int first = op == "aten::addmm" ? 1 : op == "aten::mm" ? 0 : -1;
  if (first < 0) return {};
  const Value* a = f.input(first);
  const Value* b = f.input(first + 1);
  if (!a || !b || a->sizes.size() != 2 || b->sizes.size() != 2 || a->sizes[1] != b->sizes[0]) return {};
  return {a->sizes[0], a->sizes[1], b->sizes[1]};
}

// bf16/fp16: nvjet's cooperative (stream-K) kernels zero a workspace first; cuBLASLt takes
// them for large outputs. Sweep: no memset up to M*N = 9.6M (6304x1000 ... 25088x384),
// a memset from 12.58M (4096x3072 -> 384 tiles of 256x128, ~2.9 waves of 132 SMs).
constexpr int64_t kHalfMemsetOutput = 12'000'000;
bool half_gemm_memset(const OpFacts& f) {
  const Mnk d = gemm_mnk(f);
  return is_half(f.dtype) && d.m > 1 && d.m * d.n >= kHalfMemsetOutput;
}

// f32 small-M GEMMs on few output tiles: cuBLAS splits K. With the bias in the epilogue
// (addmm) it runs scal_kernel (beta) + sgemm_largek + a cuBLASLt epilogue with a memset
// (3/0/1); without a bias, the GEMM + a split-K reduction (2 kernels). Bucket, not a
// threshold cuBLAS documents: 16 <= M < 512 rows and at most 8 output tiles of 128x128, and
// K >= 2N (bias) or K >= N with M <= 128 (bias), K >= N/2 (no bias).
bool fp32_small_tiles(const Mnk& d) {
  const int64_t tiles = ((d.m + 127) / 128) * ((d.n + 127) / 128);
  // Below 16 rows cuBLAS runs its small-M gemmSN kernels, one launch (sweep: lead=[7] 1 kernel).
  return d.m >= 16 && d.m < 512 && d.n > 0 && tiles <= 8;
}
bool fp32_splitk_bias_any(const OpFacts& f) {
  if (!fp32(f)) return false;
  const bool bias_in_gemm = f.op->name == "aten::addmm" || (f.op->name == "aten::linear" && linear_bias_fused(f));
  const Mnk d = gemm_mnk(f);
  return bias_in_gemm && fp32_small_tiles(d) && (d.k >= 2 * d.n || (d.k >= d.n && d.m <= 128));
}
// Within that bucket, M <= 128 with K < 2N and 128 < N < 384 (2-3 column tiles) takes the
// cutlass split-K kernel + splitKreduce instead (2 kernels, no memset): the corpus's
// [98-128 rows] x [256-320]^2 projections.
bool fp32_splitk_bias_reduce(const OpFacts& f) {
  const Mnk d = gemm_mnk(f);
  return fp32_splitk_bias_any(f) && d.k < 2 * d.n && d.n > 128 && d.n < 384;
}
bool fp32_splitk_bias(const OpFacts& f) {
  return fp32_splitk_bias_any(f) && !fp32_splitk_bias_reduce(f);
}
bool fp32_splitk_plain(const OpFacts& f) {
  if (!fp32(f)) return false;
  const Value* x = f.input(0);
  const bool linear_mm =
      f.op->name == "aten::linear" && !f.input(2) && has_layout(x) && (x->sizes.size() == 2 || matmul_folds(*x));
  const Mnk d = gemm_mnk(f);
  return (linear_mm || f.op->name == "aten::mm") && fp32_small_tiles(d) && 2 * d.k >= d.n;
}

// bf16/fp16 long-K GEMMs with a small output (M <= 128, M*N <= 128K, N <= 4096, K >= 3000):
// cuBLASLt splits K over nvjet + splitKreduce, 2 kernels, bias or not (sweep: M=1/7/64 with
// K=3072 N=768 -> 2, K=4096 N=11008 -> 1; corpus: classifier heads K >= 3024 with 2 rows,
// [98-100 rows] x K=3072/4096 MLP down-projections). The GEMM must be the one 2-D addmm/mm.
bool half_splitk(const OpFacts& f) {
  if (!is_half(f.dtype)) return false;
  const Value* x = f.input(0);
  const bool one_gemm = f.op->name != "aten::linear" || linear_bias_fused(f) ||
                        (!f.input(2) && has_layout(x) && (x->sizes.size() == 2 || matmul_folds(*x)));
  const Mnk d = gemm_mnk(f);
  return one_gemm && d.m >= 1 && d.m <= 128 && d.n > 1 && d.n <= 4096 && d.m * d.n <= 128 * 1024 && d.k >= 3000;
}

// GEMV: one row (M=1) runs gemv / gemvx, 1 kernel; no split-K and no workspace.
bool gemv(const OpFacts& f) {
  return gemm_mnk(f).m == 1;
}

// addmm with a 1-D self fuses it in the cuBLASLt epilogue; a 2-D self is first written into
// the result: a memcpy when it has the result's shape, a copy kernel when broadcast (sweep:
// addmm_b1 / addmm_beta0 1/1/0).
Counts addmm_self(const OpFacts& f) {
  const Value* self = f.input(0);
  const Value* out = f.output(0);
  if (f.op->name != "aten::addmm" || !self || !out || self->sizes.size() < 2) return {};
  if (self->sizes == out->sizes && self->contiguous()) return {0, 1, 0, 0};
  return {1, 0, 0, 0};
}
Counts linear_counts(const OpFacts& f) {
  const int copies = f.op->name == "aten::linear" ? linear_copies(f) : gemm_copies(f);
  const int bias_add = f.op->name == "aten::linear" && linear_bias_separate(f) ? 1 : 0;
  Counts c{1 + copies + bias_add, 0, half_gemm_memset(f) ? 1 : 0, 0};
  c += addmm_self(f);
  return c;
}
Counts splitk_bias_counts(const OpFacts& f) {
  return {3 + (f.op->name == "aten::linear" ? linear_copies(f) : gemm_copies(f)), 0, 1, 0};
}
Counts splitk_plain_counts(const OpFacts& f) {
  return {2 + (f.op->name == "aten::linear" ? linear_copies(f) : gemm_copies(f)), 0, 0, 0};
}
// matmul / bmm / baddbmm: one GEMM + operand copies. baddbmm (and addmm with a 2-D self) first
// writes self into the result: a device-to-device memcpy when self already has the result's
// shape, a copy kernel when it is broadcast (sweep: baddbmm 1/1/0 with a full self).
Counts gemm_counts(const OpFacts& f) {
  Counts c{1 + gemm_copies(f), 0, 0, 0};
  if (f.op->name == "aten::baddbmm") {
    const Value* self = f.input(0);
    const Value* out = f.output(0);
    if (self && out && self->sizes == out->sizes && self->contiguous())
      ++c.memcpy;
    else
      ++c.kernels;
  }
  return c;
}

// --- einsum: views + one bmm (at::einsum, aten/src/ATen/native/Linear.cpp) ---

// One einsum operand: its subscripts and the tensor.
struct EinsumTerm {
  std::string labels;
  const Value* v = nullptr;
};
// Parses "ab,bc->ac" for two operands whose labels are single letters with no ellipsis and
// no repeated letter inside an operand; false otherwise (the rule then does not match).
bool parse_einsum(const OpFacts& f, EinsumTerm& a, EinsumTerm& b, std::string& out) {
  const Arg* eq = f.arg("equation");
  const Arg* ts = f.arg("tensors");
  if (!eq || eq->kind != Arg::Kind::kString || !ts || ts->tensors.size() != 2) return false;
  std::string e;
  for (char c : eq->text)
    if (c != ' ') e += c;
  const size_t arrow = e.find("->");
  const size_t comma = e.find(',');
  if (arrow == std::string::npos || comma == std::string::npos || comma > arrow) return false;
  a.labels = e.substr(0, comma);
  b.labels = e.substr(comma + 1, arrow - comma - 1);
  out = e.substr(arrow + 2);
  for (const std::string* s : {&a.labels, &b.labels, &out}) {
    std::map<char, int> seen;
    for (char c : *s)
      if (!std::isalpha(static_cast<unsigned char>(c)) || seen[c]++) return false;
  }
  a.v = ts->tensors[0] >= 0 ? &f.graph->values[ts->tensors[0]] : nullptr;
  b.v = ts->tensors[1] >= 0 ? &f.graph->values[ts->tensors[1]] : nullptr;
  return has_layout(a.v) && has_layout(b.v) && a.v->sizes.size() == a.labels.size() &&
         b.v->sizes.size() == b.labels.size();
}
// True when the operand, permuted to the dims `order` (labels), can be viewed as
// [prod(group1), prod(group2), ...] for consecutive groups of the given sizes without a copy.
bool groups_are_view(const EinsumTerm& t, const std::string& order, const std::vector<size_t>& groups) {
  std::vector<int64_t> sizes, strides, folded;
  for (char c : order) {
    const size_t i = t.labels.find(c);
    sizes.push_back(t.v->sizes[i]);
    strides.push_back(t.v->strides[i]);
  }
  size_t at = 0;
  for (size_t g : groups) {
    int64_t p = 1;
    for (size_t j = 0; j < g; ++j) p *= sizes[at + j];
    folded.push_back(p);
    at += g;
  }
  return view_is_possible(sizes, strides, folded);
}
// The kernels of a two-operand contraction: labels in both operands and the output are the
// batch (b), in both but not the output are summed (k), the rest belong to one side
// (left l, right r). at::einsum permutes each operand to [b, l, k] / [b, k, r], reshapes
// (a copy when not a view) and runs one bmm, then views the result to the output order (a copy
// when the output's order is not [b, l, r]). Labels of one operand missing from the other and
// the output are summed first (one reduction each side).
Counts einsum_counts(const OpFacts& f) {
  EinsumTerm a, b;
  std::string out;
  if (!parse_einsum(f, a, b, out)) return {};
  std::string batch, left, right, sum;
  int reductions = 0;
  for (char c : a.labels) {
    const bool in_b = b.labels.find(c) != std::string::npos, in_out = out.find(c) != std::string::npos;
    if (in_b && in_out)
      batch += c;
    else if (in_b)
      sum += c;
    else if (in_out)
      left += c;
    else
      ++reductions;
  }
  for (char c : b.labels) {
    const bool in_a = a.labels.find(c) != std::string::npos, in_out = out.find(c) != std::string::npos;
    if (!in_a && in_out)
      right += c;
    else if (!in_a)
      ++reductions;
  }
  if (sum.empty()) return {};  // outer/elementwise products are not bmm; no rule
  int copies = 0;
  auto operand_copy = [&](const EinsumTerm& t, const std::string& rows, const std::string& cols) {
    std::vector<size_t> groups;
    if (!batch.empty()) groups.push_back(batch.size());
    if (!rows.empty()) groups.push_back(rows.size());
    if (!cols.empty()) groups.push_back(cols.size());
    const std::string order = batch + rows + cols;
    if (order.size() != t.labels.size()) return 0;
    if (!groups_are_view(t, order, groups)) return 1;
    // The viewed matrix needs a unit stride in one of its two trailing groups.
    const char last_rows = rows.empty() ? 0 : rows.back(), last_cols = cols.empty() ? 0 : cols.back();
    auto stride_of = [&](char c) { return c ? t.v->strides[t.labels.find(c)] : int64_t{1}; };
    auto size_of = [&](char c) { return c ? t.v->sizes[t.labels.find(c)] : int64_t{1}; };
    const bool ok =
        stride_of(last_cols) == 1 || stride_of(last_rows) == 1 || size_of(last_cols) == 1 || size_of(last_rows) == 1;
    return ok ? 0 : 1;
  };
  copies += operand_copy(a, left, sum);
  copies += operand_copy(b, sum, right);
  // The bmm result [batch, left, right] is permuted to the output order as a view: no copy.
  return {1 + copies + reductions, 0, 0, 0};
}
bool einsum_contraction(const OpFacts& f) {
  return einsum_counts(f).kernels > 0;
}

}  // namespace

void add_gemm_rules(std::vector<LaunchRule>& r) {
  const std::vector<std::string> gemm2d = ops({"aten::linear", "aten::addmm", "aten::mm"});
  r.push_back({"gemm.half.splitk",
               gemm2d,
               {},
               "bf16/fp16, M <= 128, M*N <= 128K, N <= 4096, K >= 3000: nvjet split-K + splitKreduce, 2 kernels "
               "(+ copies, + memset rule as below never applies at this size)",
               half_splitk,
               {},
               splitk_plain_counts,
               "sweep:gemm/linear bf16 lead=[1]/[7]/[64] kn=[3072,768], broad:vgg, broad:swin, broad:vit, "
               "broad:convnext, broad:alexnet",
               "cuBLAS splits the long inner dimension of this small bf16 GEMM across thread blocks: one kernel "
               "computes partial products, a second adds them up."});
  r.push_back(
      {"gemm.gemv",
       gemm2d,
       {},
       "one row (M = 1): gemv, 1 kernel (+ copies), no workspace",
       gemv,
       {},
       linear_counts,
       "sweep:gemm/linear lead=[1] (f32 gemv2T/gemvx, bf16 nvjet), broad:mobilenet, broad:resnet (classifier heads)",
       "With a single row the product is a matrix-vector multiply: one GEMV kernel (plus a copy of an operand cuBLAS "
       "cannot read as it is)."});
  r.push_back({"gemm.fp32.splitk_bias",
               gemm2d,
               {},
               "f32 with the bias in the GEMM (addmm, linear on a 2-D or contiguous input), 16 <= M < 512, "
               "<= 8 output tiles of 128x128, K >= 2N (or K >= N with M <= 128): split-K scal + sgemm_largek + "
               "epilogue, 3 kernels + a memset. cuBLAS heuristic: the most frequent behaviour of this bucket",
               fp32_splitk_bias,
               {},
               splitk_bias_counts,
               "sweep:gemm/linear f32 lead=[64] kn=[768,768] bias, sweep:gemm/linear f32 lead=[64] kn=[64,64] bias, "
               "broad:swin, broad:vit, broad:twins, broad:cait",
               "For this float32 shape cuBLAS picks a split-K GEMM: one kernel scales the output (beta), one computes "
               "partial products over slices of K, one epilogue adds them and the bias; the partial sums need a zeroed "
               "workspace (a memset)."});
  r.push_back(
      {"gemm.fp32.splitk_reduce_bias",
       gemm2d,
       {},
       "f32 bias-in-GEMM bucket above with M <= 128, K < 2N and 128 < N < 384: cutlass split-K + "
       "splitKreduce, 2 kernels, no memset (cuBLAS heuristic: the most frequent behaviour of this bucket)",
       fp32_splitk_bias_reduce,
       {},
       splitk_plain_counts,
       "sweep:gemm/addmm_b1 f32 mkn=[128,512,256], broad:mobilebert, broad:convbert, broad:mobilevit, broad:bart",
       "For this float32 shape cuBLAS picks a split-K GEMM whose partial products a second kernel reduces, with the "
       "bias."});
  r.push_back({"gemm.fp32.splitk",
               gemm2d,
               {},
               "f32 without a bias (linear as a folded mm, mm), 16 <= M < 512, <= 8 output tiles of 128x128, "
               "K >= N/2: GEMM + split-K reduction, 2 kernels. cuBLAS heuristic: the most frequent behaviour "
               "of this bucket",
               fp32_splitk_plain,
               {},
               splitk_plain_counts,
               "sweep:gemm/linear f32 lead=[64] kn=[768,768] nobias, broad:swin, broad:levit, broad:t5, broad:tnt",
               "For this float32 shape without a bias cuBLAS picks a split-K GEMM: partial products in one kernel, "
               "their sum in a second."});
  r.push_back({"gemm",
               gemm2d,
               {},
               "one GEMM (bias fused for a 2-D or contiguous input, else + a bias add); + a copy when the "
               "operand cuBLAS reads has no unit stride or matmul's reshape is not a view; bf16/fp16 + a "
               "memset when M*N >= 12M (nvjet stream-K workspace)",
               nullptr,
               {},
               linear_counts,
               "sweep:gemm/linear (contig and noncontig_in, bias and not, f32 and bf16), "
               "broad:vit, broad:swin, broad:bert, broad:llama",
               "A linear layer is one cuBLAS GEMM with the bias fused into it; an input cuBLAS cannot read as a matrix "
               "is copied first, and a large bf16 output zeroes a workspace for the cooperative kernel (a memset)."});
  r.push_back(
      {"gemm.einsum",
       ops({"aten::einsum"}),
       {},
       "two-operand contraction: one bmm + a copy per operand whose permutation to [batch, rows, "
       "inner] is not a view, + one reduction per label summed on one side only",
       einsum_contraction,
       {},
       einsum_counts,
       "sweep:gemm/einsum (bhqd,bkhd->bhqk 3, bhqk,bkhd->bqhd 2, bhwc,hkc->bhwk 2, bhwc,wkc->bhwk 1), "
       "broad:maxvit, broad:mvit, broad:mvitv2",
       "einsum becomes views plus one batched GEMM; each operand whose dimensions cannot be arranged as [batch, rows, "
       "inner] by a view is copied first, and a label summed on one side only is one reduction kernel."});
  r.push_back({"gemm.batched",
               ops({"aten::matmul", "aten::bmm", "aten::baddbmm"}),
               {},
               "one GEMM, + a copy per operand matmul cannot fold into a view; baddbmm + a memcpy of a full-shaped "
               "self, or + a copy kernel of a broadcast one",
               nullptr,
               {},
               gemm_counts,
               "sweep:gemm/matmul, sweep:gemm/bmm_or_matmul, sweep:gemm/matmul_t, sweep:gemm/baddbmm, "
               "broad:swin (attention matmuls on permuted operands), broad:bloom (baddbmm)",
               "A batched product is one cuBLAS batched GEMM, plus a copy of any operand whose batch dimensions cannot "
               "be folded by a view."});
}

}  // namespace kc::h200
