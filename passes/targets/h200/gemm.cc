// GEMMs on the H200 (cuBLAS / cuBLASLt, aten/src/ATen/cuda/CUDABlas.cpp; aten::linear and matmul's
// folding in aten/src/ATen/native/Linear.cpp and LinearAlgebra.cpp).
#include <algorithm>
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

// matmul's should_fold: an N-D (N >= 3) left operand whose leading dims collapse into rows
// (stride[i] == stride[i+1] * size[i+1]) becomes one 2-D mm; else the bmm path.
bool matmul_folds(const Value& x) {
  const size_t n = x.sizes.size();
  for (size_t i = 0; i + 2 < n; ++i)
    if (x.strides[i] != x.strides[i + 1] * x.sizes[i + 1]) return false;
  return true;
}
// should_fold folds whenever the 2-D right operand requires grad (to keep its gradient small),
// also where the left operand's rows are no view. Only TorchScript parameters (and views of
// them) require grad as the model runs: torch.jit.load leaves them so.
bool folds_for_grad(const Value& left, const Value* right) {
  return right && right->requires_grad && right->sizes.size() <= 2 && left.sizes.size() >= 3;
}
// Copies of a left operand folded for grad: its reshape to [rows, K] copies when that is no view.
int fold_copies(const Value& x) {
  int64_t rows = 1;
  for (size_t d = 0; d + 1 < x.sizes.size(); ++d) rows *= x.sizes[d];
  if (!view_is_possible(x.sizes, x.strides, {rows, x.sizes.back()})) return 1;
  return blas_readable(x) ? 0 : 1;
}
// The left operand of linear/matmul becomes the rows of one 2-D GEMM.
bool one_2d_gemm(const Value& x, const Value* right) {
  return x.sizes.size() == 2 || matmul_folds(x) || folds_for_grad(x, right);
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
// matmul of two operands of 3 or more dims broadcasts their batch dims: each is expanded to the
// common batch shape (stride 0 on a broadcast dim) and reshaped to [batch, rows, cols], a copy
// when that is not a view (sweep:matmul_bcast: a [B, 1, K, N] operand against [B, H, M, K]).
int broadcast_operand_copies(const Value* v, const std::vector<int64_t>& batch) {
  const size_t n = v->sizes.size(), nb = batch.size();
  std::vector<int64_t> sizes = batch, strides(nb, 0);
  for (size_t i = 0; i < nb; ++i) {
    const size_t from_end = nb - i;  // the operand's batch dim aligned to batch[i], if it has one
    if (from_end <= n - 2 && v->sizes[n - 2 - from_end] == batch[i]) strides[i] = v->strides[n - 2 - from_end];
  }
  for (size_t d = n - 2; d < n; ++d) {
    sizes.push_back(v->sizes[d]);
    strides.push_back(v->strides[d]);
  }
  int64_t b = 1;
  for (int64_t s : batch) b *= s;
  const bool foldable = view_is_possible(sizes, strides, {b, v->sizes[n - 2], v->sizes[n - 1]});
  return !foldable || !blas_readable(*v) ? 1 : 0;
}
int gemm_copies(const OpFacts& f) {
  const int first = f.op->name == "aten::addmm" || f.op->name == "aten::baddbmm" ? 1 : 0;
  const Value* a = f.input(first);
  const Value* b = f.input(first + 1);
  if (f.op->name == "aten::matmul" && has_layout(a) && has_layout(b) && a->sizes.size() >= 3 && b->sizes.size() >= 3) {
    const size_t na = a->sizes.size() - 2, nb = b->sizes.size() - 2, n = std::max(na, nb);
    std::vector<int64_t> batch(n, 1);
    for (size_t i = 0; i < n; ++i) {
      const int64_t da = i + na >= n ? a->sizes[i + na - n] : 1;
      const int64_t db = i + nb >= n ? b->sizes[i + nb - n] : 1;
      batch[i] = std::max(da, db);
    }
    return broadcast_operand_copies(a, batch) + broadcast_operand_copies(b, batch);
  }
  if (f.op->name == "aten::matmul" && has_layout(a) && folds_for_grad(*a, b))
    return fold_copies(*a) + operand_copies(b);
  return operand_copies(a) + operand_copies(b);
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

// Copies before linear's GEMM: the left operand as addmm, mm (folded) or bmm reads it.
int linear_copies(const OpFacts& f) {
  const Value* x = f.input(0);
  if (!has_layout(x) || x->sizes.size() < 2) return 0;
  if (x->sizes.size() == 2 || linear_bias_fused(f) || matmul_folds(*x)) return blas_readable(*x) ? 0 : 1;
  if (folds_for_grad(*x, f.input(1))) return fold_copies(*x);
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
  if (op == "aten::matmul") {
    // An N-D left operand folded into the rows of one 2-D mm against a 2-D right operand (not
    // the batched path): the 2-D GEMM's choices apply.
    const Value* a = f.input(0);
    const Value* b = f.input(1);
    if (!has_layout(a) || !b || a->sizes.size() < 2 || b->sizes.size() != 2 || a->sizes.back() != b->sizes[0] ||
        !one_2d_gemm(*a, b))
      return {};
    return {a->numel() / std::max<int64_t>(1, a->sizes.back()), a->sizes.back(), b->sizes[1]};
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
bool half_memset_shape(const Mnk& d) {
  return d.m > 1 && d.m * d.n >= kHalfMemsetOutput;
}
bool half_gemm_memset(const OpFacts& f) {
  return is_half(f.dtype) && half_memset_shape(gemm_mnk(f));
}

// f32 (no TF32) GEMMs: which cuBLAS/cuBLASLt path runs is cuBLAS's heuristic, keyed on the
// problem's size. Thresholds fitted on the gemm_f32 sweep (validate/sweeps: 4000 M x K x N
// shapes of linear with and without a bias and addmm, 90-93% exact per op there) and
// checked against the corpus's f32 GEMMs (97% exact, 93% with the buckets they replace).
// The features: output tiles of 32x32 against the H200's 132 SMs, K per tile, problem size.
// The layout matters: linear multiplies by the transposed weight ('tn' in cuBLAS's terms),
// addmm by a row-major [K, N] matrix ('nn'), and the two take different paths.
enum class Fp32Path {
  kPlain,        // one GEMM kernel (gemmSN for small M, xmma, cutlass)
  kLargeK,       // scal_kernel (beta) + sgemm_largek split-K + cuBLASLt epilogue, 1 memset: 3/0/1
  kSplitReduce,  // split-K GEMM + splitKreduce: 2/0/0
  kMemsetOne,    // one split-K GEMM writing into a zeroed workspace: 1/0/1
};
int64_t cdiv(int64_t a, int64_t b) {
  return (a + b - 1) / b;
}
Fp32Path fp32_path(const Mnk& d, bool bias, bool weight_transposed) {
  if (d.n <= 0 || d.k <= 0) return Fp32Path::kPlain;
  if (d.m <= 16) {
    // 2-16 rows without a bias on a transposed weight (linear, mm of x and w.t()): cuBLASLt splits
    // K (+ splitKreduce) from K > 80 unless the output is wide (N > 884) and has at most 10 rows
    // (gemm_small sweep: 222 of 261 shapes). Otherwise gemmSN / gemv / one GEMM: one launch.
    const bool split = !bias && weight_transposed && d.m >= 2 && d.k > 80 && (d.n <= 884 || d.m > 10);
    return split ? Fp32Path::kSplitReduce : Fp32Path::kPlain;
  }
  const int64_t tiles32 = cdiv(d.m, 32) * cdiv(d.n, 32);
  const double k_per_tile = static_cast<double>(d.k) / static_cast<double>(tiles32);
  const int64_t mnk = d.m * d.n * d.k;
  if (bias && weight_transposed) {
    if (mnk < (int64_t{1} << 21)) return k_per_tile >= 0.125 ? Fp32Path::kLargeK : Fp32Path::kPlain;
    if (k_per_tile < 8) return Fp32Path::kPlain;
    if (tiles32 <= 41) return d.k < 2560 ? Fp32Path::kSplitReduce : Fp32Path::kMemsetOne;
    return tiles32 <= 132 ? Fp32Path::kLargeK : Fp32Path::kPlain;  // under one wave of 132 SMs
  }
  if (bias) {
    if (d.k <= 320) return Fp32Path::kPlain;
    if (d.m * d.n <= 48 * 1024) return d.k < 2560 ? Fp32Path::kSplitReduce : Fp32Path::kMemsetOne;
    return k_per_tile >= 4 ? Fp32Path::kMemsetOne : Fp32Path::kPlain;
  }
  const int64_t tiles64 = cdiv(d.m, 64) * cdiv(d.n, 64);
  if (d.k > 216 && tiles64 <= 224 && (2 * d.k * d.k > d.m * d.n || (d.n > 160 && d.k > 320)))
    return Fp32Path::kSplitReduce;
  if (d.k <= 216 && d.n <= 160 && mnk < (int64_t{1} << 21)) return Fp32Path::kSplitReduce;
  return Fp32Path::kPlain;
}
// The f32 GEMMs this applies to: one 2-D cuBLAS call. linear with its bias fused or, without a
// bias, on a 2-D or foldable input; addmm with a 1-D bias; mm. The weight is transposed for
// linear, and for addmm/mm when the right operand is not row-major.
bool fp32_one_gemm(const OpFacts& f, bool& bias, bool& weight_transposed) {
  if (!fp32(f)) return false;
  const std::string& op = f.op->name;
  const Value* x = f.input(0);
  if (op == "aten::linear") {
    bias = linear_bias_fused(f);
    weight_transposed = true;
    // Unfused, the bias is added after a GEMM without one (linear's add_).
    return bias || (has_layout(x) && one_2d_gemm(*x, f.input(1)));
  }
  const Value* b = f.input(op == "aten::addmm" ? 2 : 1);
  if (op == "aten::addmm") {
    const Value* self = f.input(0);
    if (!self || self->sizes.size() > 1) return false;
    bias = true;
  } else if (op == "aten::mm" || (op == "aten::matmul" && gemm_mnk(f).m > 0)) {
    bias = false;
  } else {
    return false;
  }
  weight_transposed = !(has_layout(b) && b->sizes.size() == 2 && b->strides[1] == 1 && b->sizes[1] > 1);
  return true;
}
Fp32Path fp32_gemm_path(const OpFacts& f) {
  bool bias = false, transposed = true;
  if (!fp32_one_gemm(f, bias, transposed)) return Fp32Path::kPlain;
  return fp32_path(gemm_mnk(f), bias, transposed);
}
bool fp32_large_k(const OpFacts& f) {
  return fp32_gemm_path(f) == Fp32Path::kLargeK;
}
bool fp32_split_reduce(const OpFacts& f) {
  return fp32_gemm_path(f) == Fp32Path::kSplitReduce;
}
bool fp32_memset_one(const OpFacts& f) {
  return fp32_gemm_path(f) == Fp32Path::kMemsetOne;
}

// bf16/fp16 long-K GEMMs with a small output (M <= 128, M*N <= 128K, N <= 4096, K >= 3000):
// cuBLASLt splits K over nvjet + splitKreduce, 2 kernels, bias or not (sweep: M=1/7/64 with
// K=3072 N=768 -> 2, K=4096 N=11008 -> 1; corpus: classifier heads K >= 3024 with 2 rows,
// [98-100 rows] x K=3072/4096 MLP down-projections). The GEMM must be the one 2-D addmm/mm.
bool half_splitk_shape(const Mnk& d) {
  return d.m >= 1 && d.m <= 128 && d.n > 1 && d.n <= 4096 && d.m * d.n <= 128 * 1024 && d.k >= 3000;
}
bool half_splitk(const OpFacts& f) {
  if (!is_half(f.dtype)) return false;
  const Value* x = f.input(0);
  const bool one_gemm =
      f.op->name != "aten::linear" || linear_bias_fused(f) || (has_layout(x) && one_2d_gemm(*x, f.input(1)));
  return one_gemm && half_splitk_shape(gemm_mnk(f));
}

// GEMV: one row (M=1), or one output column (N=1) of many rows, is a matrix-vector product:
// gemv / gemvx, 1 kernel; no split-K and no workspace.
bool gemv_shape(const Mnk& d) {
  // One output column takes gemv from 256 rows (sweep: 256-6304 rows at K = 2048); below, f32
  // runs a dot product and a reduction (7 and 64 rows: 2 kernels), left to the other rules.
  return d.m == 1 || (d.n == 1 && d.m >= 256);
}
bool gemv(const OpFacts& f) {
  return gemv_shape(gemm_mnk(f));
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
// Copies before a split GEMM, and linear's bias add after one that does not fuse it.
int around_gemm(const OpFacts& f) {
  if (f.op->name != "aten::linear") return gemm_copies(f);
  return linear_copies(f) + (linear_bias_separate(f) ? 1 : 0);
}
Counts splitk_bias_counts(const OpFacts& f) {
  return {3 + around_gemm(f), 0, 1, 0};
}
Counts memset_one_counts(const OpFacts& f) {
  return {1 + around_gemm(f), 0, 1, 0};
}
Counts splitk_plain_counts(const OpFacts& f) {
  return {2 + around_gemm(f), 0, 0, 0};
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
// One operand whose output subscripts are a permutation of its own (no repeated label, none
// summed): at::einsum returns a permuted view, no kernel.
bool einsum_permutation(const OpFacts& f) {
  const std::string eq = f.text_arg("equation", "");
  const Arg* t = f.arg("tensors");
  const size_t arrow = eq.find("->");
  if (!t || t->tensors.size() != 1 || arrow == std::string::npos) return false;
  std::string in, out;
  for (char c : eq.substr(0, arrow))
    if (std::isalpha(static_cast<unsigned char>(c))) in += c;
  for (char c : eq.substr(arrow + 2))
    if (std::isalpha(static_cast<unsigned char>(c))) out += c;
  std::string a = in, b = out;
  std::sort(a.begin(), a.end());
  std::sort(b.begin(), b.end());
  return !in.empty() && a == b && std::adjacent_find(a.begin(), a.end()) == a.end();
}

// --- tensordot: permute + reshape each operand to a matrix, one mm (aten/src/ATen/native/Linear.cpp) ---

// A GEMM's own launches from M, K and N, as the linear/mm rules above count them: GEMV for one
// row or column; f32 split-K (GEMM + reduce) on few output tiles; bf16/fp16 split-K for long K and a
// small output; bf16/fp16 stream-K's zeroed workspace for a large output.
Counts mm_counts(const Mnk& d, DType dt) {
  if (gemv_shape(d)) return {1, 0, 0, 0};
  if (dt == DType::kFloat32) {
    const Fp32Path path = fp32_path(d, false, true);
    return path == Fp32Path::kSplitReduce ? Counts{2, 0, 0, 0} : Counts{1, 0, 0, 0};
  }
  if (is_half(dt) && half_splitk_shape(d)) return {2, 0, 0, 0};
  return {1, 0, is_half(dt) && half_memset_shape(d) ? 1 : 0, 0};
}
}  // namespace

Counts mm_launches(int64_t m, int64_t k, int64_t n, DType dt) {
  return mm_counts({m, k, n}, dt);
}

namespace {

struct TensordotPlan {
  Mnk d;
  int copies = 0;
  bool ok = false;
};
// Operand `v` permuted to (first dims, then second dims) and reshaped to [rows, cols]: a copy
// unless that is a view cuBLAS can read.
int tensordot_operand_copy(const Value& v, const std::vector<int64_t>& first, const std::vector<int64_t>& second,
                           int64_t rows, int64_t cols) {
  std::vector<int64_t> sz, st;
  for (const auto* dims : {&first, &second})
    for (int64_t d : *dims) {
      sz.push_back(v.sizes[d]);
      st.push_back(v.strides[d]);
    }
  Value m;
  m.sizes = {rows, cols};
  if (!view_is_possible(sz, st, m.sizes)) return 1;
  // The view's strides are those of each group's innermost dim.
  m.strides = {first.empty() ? cols : v.strides[first.back()], second.empty() ? 1 : v.strides[second.back()]};
  return blas_readable(m) ? 0 : 1;
}
TensordotPlan tensordot_plan(const OpFacts& f) {
  TensordotPlan p;
  const Value* a = f.input(0);
  const Value* b = f.input(1);
  const Arg* da = f.arg("dims_self");
  const Arg* db = f.arg("dims_other");
  if (!has_layout(a) || !has_layout(b) || !da || !db || da->ints.size() != db->ints.size()) return p;
  auto split = [](const Value& v, const std::vector<int64_t>& dims, std::vector<int64_t>& summed,
                  std::vector<int64_t>& free) {
    const int64_t r = static_cast<int64_t>(v.sizes.size());
    std::vector<bool> used(r, false);
    for (int64_t d : dims) {
      const int64_t x = d < 0 ? d + r : d;
      if (x < 0 || x >= r || used[x]) return false;
      used[x] = true;
      summed.push_back(x);
    }
    for (int64_t i = 0; i < r; ++i)
      if (!used[i]) free.push_back(i);
    return true;
  };
  std::vector<int64_t> sa, fa, sb, fb;
  if (!split(*a, da->ints, sa, fa) || !split(*b, db->ints, sb, fb)) return p;
  auto prod = [](const Value& v, const std::vector<int64_t>& dims) {
    int64_t n = 1;
    for (int64_t d : dims) n *= v.sizes[d];
    return n;
  };
  p.d = {prod(*a, fa), prod(*a, sa), prod(*b, fb)};
  if (p.d.k != prod(*b, sb)) return p;
  p.copies = tensordot_operand_copy(*a, fa, sa, p.d.m, p.d.k) + tensordot_operand_copy(*b, sb, fb, p.d.k, p.d.n);
  p.ok = true;
  return p;
}
bool tensordot_known(const OpFacts& f) {
  return (fp32(f) || is_half(f.dtype)) && tensordot_plan(f).ok;
}
Counts tensordot_counts(const OpFacts& f) {
  const TensordotPlan p = tensordot_plan(f);
  Counts c = mm_counts(p.d, f.dtype);
  c.kernels += p.copies;
  return c;
}

}  // namespace

void add_gemm_rules(std::vector<LaunchRule>& r) {
  const std::vector<std::string> gemm2d = ops({"aten::linear", "aten::addmm", "aten::mm"});
  // matmul folded into one 2-D mm (an N-D left operand against a 2-D right one) makes the same
  // split-K choices; unfolded it is the batched rule's.
  const std::vector<std::string> split2d = ops({"aten::linear", "aten::addmm", "aten::mm", "aten::matmul"});
  r.push_back({"gemm.half.splitk",
               split2d,
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
       "one row, or one output column of >= 256 rows (M = 1, or N = 1 and M >= 256): gemv, 1 kernel (+ copies, "
       "+ linear's bias add when unfused), no workspace",
       gemv,
       {},
       linear_counts,
       "sweep:gemm/linear lead=[1] (f32 gemv2T/gemvx, bf16 nvjet), sweep:gemm/linear kn=[2048,1], broad:mobilenet, "
       "broad:resnet (classifier heads)",
       "With a single row or a single output column the product is a matrix-vector multiply: one GEMV kernel (plus "
       "a copy of an operand cuBLAS cannot read as it is)."});
  const char* const fp32_evidence =
      "sweep:gemm_f32 (4000 shapes: M 16-1024, K 2-4096, N 10-1536; linear with and without bias, addmm), "
      "broad:swin, broad:vit, broad:twins, broad:mlp-mixer, broad:hubert, broad:convbert, broad:gpt2 (addmm)";
  r.push_back({"gemm.fp32.splitk_largek",
               split2d,
               {},
               "f32, bias in the GEMM, transposed weight (linear): K per 32x32 output tile >= 8 on 42-132 tiles "
               "(under one wave of 132 SMs), or any tiny problem (M*N*K < 2M): scal + sgemm_largek + epilogue, 3 "
               "kernels + a memset. Fitted thresholds of cuBLAS's heuristic",
               fp32_large_k,
               {},
               splitk_bias_counts,
               fp32_evidence,
               "For this float32 shape cuBLAS picks a split-K GEMM: one kernel scales the output (beta), one computes "
               "partial products over slices of K, one epilogue adds them and the bias; the partial sums need a zeroed "
               "workspace (a memset)."});
  r.push_back({"gemm.fp32.splitk_reduce",
               split2d,
               {},
               "f32 with few output tiles and a long K (linear with bias: K per 32x32 tile >= 8 on <= 41 tiles, K < "
               "2560; addmm: K > 320 and M*N <= 48K, K < 2560; no bias: K > 216 with K^2 > M*N/2 or N > 160 and K > "
               "320 on <= 224 tiles of 64x64, or a small problem with K <= 216 and N <= 160; 2-16 rows: no bias, a "
               "transposed weight, K > 80, and N <= 884 or M > 10): split-K GEMM + splitKreduce, 2 kernels. Fitted "
               "thresholds of cuBLAS's heuristic",
               fp32_split_reduce,
               {},
               splitk_plain_counts,
               fp32_evidence,
               "For this float32 shape cuBLAS splits the inner dimension: one kernel computes partial products, a "
               "second adds them up."});
  r.push_back({"gemm.fp32.splitk_memset",
               split2d,
               {},
               "f32 split-K written into a zeroed workspace: K >= 2560 where the bucket above would reduce, or addmm "
               "with K > 320, M*N > 48K and K per 32x32 tile >= 4: 1 kernel + a memset. Fitted thresholds of cuBLAS's "
               "heuristic",
               fp32_memset_one,
               {},
               memset_one_counts,
               fp32_evidence,
               "For this float32 shape cuBLAS splits the inner dimension inside one kernel that accumulates into a "
               "zeroed workspace (a memset)."});
  r.push_back({"gemm",
               gemm2d,
               {},
               "one GEMM (bias fused for a 2-D or contiguous input, else + a bias add); + a copy when the "
               "operand cuBLAS reads has no unit stride or matmul's reshape is not a view (a weight that "
               "requires grad folds it by a copy); bf16/fp16 + a memset when M*N >= 12M (nvjet stream-K "
               "workspace)",
               nullptr,
               {},
               linear_counts,
               "sweep:gemm/linear (contig and noncontig_in, bias and not, f32 and bf16), sweep:grad_fold (weights "
               "that require grad), broad:vit, broad:swin, broad:bert, broad:llama, torchscript:mlp-mixer",
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
  r.push_back({"gemm.einsum.view",
               ops({"aten::einsum"}),
               {},
               "one operand whose output subscripts permute its own (none repeated or summed): a view, no kernel",
               einsum_permutation,
               {0, 0, 0, 0},
               nullptr,
               "fresh:xlnet (ijbn->bnij: 0 kernels, f32 and bf16)",
               "This einsum only reorders the dimensions of one tensor, which a view does: no kernel."});
  r.push_back(
      {"gemm.tensordot",
       ops({"aten::tensordot"}),
       {},
       "each operand permuted and reshaped to a matrix (a copy kernel when that is no readable view), then "
       "one mm counted as the mm rules count it (f32 split-K on few output tiles: 2; bf16 split-K for long K: "
       "2; else 1, + bf16 stream-K memset for a large output)",
       tensordot_known,
       {},
       tensordot_counts,
       "opset:tensordot (f32 split-K 2, bf16 1), opset:tensordot_perm (2 copies + GEMM: f32 4, bf16 3), "
       "opset:tensordot_large (1)",
       "tensordot reshapes each operand into a matrix, copying one whose permuted dimensions cannot be viewed as "
       "a matrix, and multiplies the two with one matrix multiply (two kernels where cuBLAS splits the inner "
       "dimension)."});
  r.push_back({"gemm.grouped",
               ops({"aten::_grouped_mm"}),
               {},
               "bf16 on the H200: prepare_grouped_gemm_data + one cutlass grouped GEMM = 2 kernels",
               [](const OpFacts& f) { return f.dtype == DType::kBFloat16; },
               {2, 0, 0, 0},
               nullptr,
               "fresh:mixtral, fresh:olmoe, fresh:qwen2-moe (bf16, 4 experts: 2 kernels each)",
               "A grouped matrix multiply (mixture-of-experts layers) first writes each group's problem description, "
               "then runs all groups in one cutlass kernel."});
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
