// GEMMs on the H200 (cuBLAS / cuBLASLt, aten/src/ATen/cuda/CUDABlas.cpp; aten::linear and matmul's
// folding in aten/src/ATen/native/Linear.cpp and LinearAlgebra.cpp).
#include <algorithm>
#include <cctype>
#include <map>
#include <optional>

#include "analyzer/tensor_geometry.h"
#include "passes/torch2_11/gemm_engine.h"
#include "passes/torch2_11/rules.h"

namespace kc::torch2_11 {
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
// also where the left operand's rows are no view, with grad mode off too. Parameters (and views
// of them) require grad as the model runs: torch.jit.load leaves them so, and ep.module() keeps
// a .pt2's parameters as exported (a frozen model exports them without).
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
// A contiguous input of any other rank, 1-d included, is flattened to [rows, K] first
// (_flatten_nd_linear): a 1-d input is one row (opinfo: linear of a [3] input with a bias, one
// gemv kernel).
bool linear_bias_fused(const OpFacts& f) {
  const Value* x = f.input(0);
  return f.input(2) && has_layout(x) &&
         (x->sizes.size() == 2 || ((x->sizes.size() >= 3 || x->sizes.size() == 1) && x->contiguous()));
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

// --- The one cuBLAS call of a GEMM op, and what it launches (gemm_engine.h) ---

// An operand cuBLAS reads in place as a transposed row-major matrix: unit stride on its rows. An
// operand ATen copies first (not readable, or matmul's reshape is no view) is then contiguous.
bool reads_transposed(const Value* v, bool copied) {
  if (copied || !has_layout(v) || v->sizes.size() < 2) return false;
  const size_t n = v->sizes.size();
  return v->strides[n - 1] != 1 && v->strides[n - 2] == 1;
}
bool copied(const Value* v) {
  return operand_copies(v) > 0;
}
// A 1-D bias that addmm fuses into the call (cuBLASLt's epilogue, Blas.cpp's useLtInterface: a
// contiguous self of one row of the result's width, beta 1); any other self is written into the
// result before a call without one (opinfo: addmm with self [1] into [2, 3]: copy + GEMM).
// A number argument (beta, alpha) as written: absent means `fallback`; nothing when it is not a
// literal number (a symbol).
std::optional<double> number_arg(const OpFacts& f, const char* name, double fallback) {
  const Arg* a = f.arg(name);
  if (!a) return fallback;
  if (a->kind == Arg::Kind::kFloat && !a->floats.empty()) return a->floats[0];
  if (a->kind == Arg::Kind::kInt && !a->ints.empty()) return static_cast<double>(a->ints[0]);
  return std::nullopt;
}
bool beta_is_zero(const OpFacts& f) {
  const std::optional<double> beta = number_arg(f, "beta", 1.0);
  return beta && *beta == 0.0;
}
bool addmm_fuses_bias(const OpFacts& f) {
  const Value* self = f.input(0);
  const Value* out = f.output(0);
  if (f.op->name != "aten::addmm" || !self || !out || self->sizes.size() != 1 || out->sizes.size() != 2) return false;
  const std::optional<double> beta = number_arg(f, "beta", 1.0);
  return self->sizes[0] == out->sizes[1] && (!beta || *beta == 1.0);
}
// The batched call of matmul/bmm/baddbmm (and linear's unfused path): [batch..., M, K] x [batch...,
// K, N], batch dims broadcast.
std::optional<GemmCall> batched_call(const Value* a, const Value* b, bool b_transposed_weight) {
  if (!has_layout(a) || !has_layout(b) || a->sizes.size() < 2 || b->sizes.size() < 2) return std::nullopt;
  const size_t na = a->sizes.size(), nb = b->sizes.size();
  GemmCall c;
  c.batched = true;
  c.m = a->sizes[na - 2];
  c.k = a->sizes[na - 1];
  c.n = b_transposed_weight ? b->sizes[0] : b->sizes[nb - 1];
  const size_t batch_dims = std::max(na, nb) - 2;
  for (size_t i = 0; i < batch_dims; ++i) {
    const int64_t da = i + na >= batch_dims + 2 ? a->sizes[i + na - 2 - batch_dims] : 1;
    const int64_t db = !b_transposed_weight && i + nb >= batch_dims + 2 ? b->sizes[i + nb - 2 - batch_dims] : 1;
    c.b *= std::max(da, db);
  }
  c.ta = reads_transposed(a, copied(a));
  c.tb = b_transposed_weight || reads_transposed(b, copied(b));
  return c;
}
std::optional<GemmCall> gemm_call(const OpFacts& f) {
  const std::string& op = f.op->name;
  const Mnk d = gemm_mnk(f);
  std::optional<GemmCall> c;
  if (op == "aten::bmm" || op == "aten::baddbmm") {
    const int first = op == "aten::baddbmm" ? 1 : 0;
    c = batched_call(f.input(first), f.input(first + 1), false);
  } else if (op == "aten::linear" && !linear_bias_fused(f) && has_layout(f.input(0)) &&
             !one_2d_gemm(*f.input(0), f.input(1))) {
    c = batched_call(f.input(0), f.input(1), true);  // matmul(input, weight.t()) on the bmm path
    if (c) c->ta = c->ta && linear_copies(f) == 0;
  } else if (op == "aten::matmul" && d.m == 0) {
    c = batched_call(f.input(0), f.input(1), false);
  } else {
    if (d.m == 0 && d.k == 0 && d.n == 0) return std::nullopt;
    c = GemmCall{};
    c->m = d.m;
    c->k = d.k;
    c->n = d.n;
    const Value* x = f.input(op == "aten::addmm" ? 1 : 0);
    const bool two_d = has_layout(x) && x->sizes.size() == 2;
    if (op == "aten::linear") {
      c->bias = linear_bias_fused(f);
      c->ta = two_d && reads_transposed(x, linear_copies(f) > 0);
      c->tb = true;
    } else {
      const Value* w = f.input(op == "aten::addmm" ? 2 : 1);
      c->bias = addmm_fuses_bias(f);
      c->ta = two_d && reads_transposed(x, copied(x));
      c->tb = reads_transposed(w, copied(w));
    }
  }
  if (c) c->half = is_half(f.dtype);
  return c;
}
// The call's own launches: the tree's answer; an op this cannot describe as one call is one GEMM.
Counts call_launches(const OpFacts& f) {
  if (!fp32(f) && !is_half(f.dtype)) return {1, 0, 0, 0};  // no sweep measured other dtypes
  const std::optional<GemmCall> c = gemm_call(f);
  return c ? cublas_launches(f.target->tables.gemm, *c) : Counts{1, 0, 0, 0};
}
template <int Kernels, int Memcpy, int Memset>
bool launches_are(const OpFacts& f) {
  const Counts c = call_launches(f);
  return c.kernels == Kernels && c.memcpy == Memcpy && c.memset == Memset;
}

// addmm with a 2-D self first writes it into the result: a memcpy when it has the result's shape,
// a copy kernel when broadcast (sweep: addmm_b1 / addmm_beta0 1/1/0); baddbmm likewise (sweep:
// baddbmm 1/1/0 with a full self). addmm with beta 0 ignores self and copies nothing
// (addmm_out_cuda_impl copies self only for a nonzero beta).
Counts self_copy(const Value* self, const Value* out) {
  if (self->sizes == out->sizes && self->contiguous()) return {0, 1, 0, 0};
  return {1, 0, 0, 0};
}
Counts self_into_result(const OpFacts& f) {
  const std::string& op = f.op->name;
  const Value* self = f.input(0);
  const Value* out = f.output(0);
  if ((op != "aten::addmm" && op != "aten::baddbmm") || addmm_fuses_bias(f) || !self || !out) return {};
  if (op == "aten::addmm" && beta_is_zero(f)) return {};
  return self_copy(self, out);
}
// addmm with an empty inner dim (K = 0) calls no GEMM: with beta 0 it zeroes the result (a fill);
// otherwise it writes self into the result (a memcpy, or a copy kernel when broadcast) and scales
// it by beta in place (one multiply, beta 1 included).
bool addmm_empty_k(const OpFacts& f) {
  const Value* a = f.input(1);
  const Value* self = f.input(0);
  const Value* out = f.output(0);
  return f.op->name == "aten::addmm" && self && a && out && a->sizes.size() == 2 && a->sizes[1] == 0 &&
         out->numel() > 0 && number_arg(f, "beta", 1.0).has_value();
}
Counts addmm_empty_k_counts(const OpFacts& f) {
  if (beta_is_zero(f)) return {1, 0, 0, 0};
  Counts c = self_copy(f.input(0), f.output(0));
  c += Counts{1, 0, 0, 0};
  return c;
}
// Around the call: copies of operands cuBLAS cannot read, linear's separate bias add, a 2-D self.
Counts around_call(const OpFacts& f) {
  Counts c = self_into_result(f);
  if (f.op->name == "aten::linear")
    c.kernels += linear_copies(f) + (linear_bias_separate(f) ? 1 : 0);
  else
    c.kernels += gemm_copies(f);
  return c;
}
Counts gemm_launches(const OpFacts& f) {
  Counts c = call_launches(f);
  c += around_call(f);
  return c;
}

// --- einsum: at::einsum (aten/src/ATen/native/Linear.cpp) followed on shapes and strides ---

// An einsum operand aligned to the permuted order (output labels as written, then the summed
// labels in subscript order, A-Z before a-z): a label the operand lacks is a size-1 dim.
struct EinsumOperand {
  std::vector<int64_t> sizes, strides;
};
// An ellipsis stands for dims with no label: they get the digits '0', '1', ... (one per dim the
// widest ellipsis covers), right-aligned in each operand as at::einsum broadcasts them.
constexpr int kMaxEllipsisDims = 10;
bool is_einsum_label(char c) {
  return std::isalpha(static_cast<unsigned char>(c)) || std::isdigit(static_cast<unsigned char>(c));
}
// "a...b" with the ellipsis as the last `dims` of `ell_num_dim` digits; the term as it is without one.
std::string expand_ellipsis(const std::string& term, int dims, int ell_num_dim) {
  const size_t dots = term.find("...");
  if (dots == std::string::npos) return term;
  std::string digits;
  for (int j = ell_num_dim - dims; j < ell_num_dim; ++j) digits += static_cast<char>('0' + j);
  return term.substr(0, dots) + digits + term.substr(dots + 3);
}
// The labels of "ab,bc->ac" per operand and of the output, ellipses spelled out as digits; false
// for an implicit output, a repeated label inside a term or a term whose rank is not its tensor's.
bool parse_einsum(const OpFacts& f, std::vector<std::string>& terms, std::string& out,
                  std::vector<const Value*>& values) {
  const Arg* eq = f.arg("equation");
  const Arg* ts = f.arg("tensors");
  if (!eq || eq->kind != Arg::Kind::kString || !ts || ts->tensors.empty()) return false;
  std::string e;
  for (char c : eq->text.str())
    if (c != ' ') e += c;
  const size_t arrow = e.find("->");
  if (arrow == std::string::npos) return false;
  out = e.substr(arrow + 2);
  terms.clear();
  std::string lhs = e.substr(0, arrow) + ",";
  for (size_t from = 0, comma; (comma = lhs.find(',', from)) != std::string::npos; from = comma + 1)
    terms.push_back(lhs.substr(from, comma - from));
  if (terms.size() != ts->tensors.size()) return false;
  values.clear();
  std::vector<int> ell_dims(terms.size(), 0);
  int ell_num_dim = 0;
  for (size_t i = 0; i < terms.size(); ++i) {
    const int id = ts->tensors[i];
    const Value* v = id >= 0 ? &f.graph->values[id] : nullptr;
    if (!has_layout(v)) return false;
    values.push_back(v);
    if (terms[i].find("...") != std::string::npos) {
      ell_dims[i] = static_cast<int>(v->sizes.size()) - static_cast<int>(terms[i].size() - 3);
      if (ell_dims[i] < 0) return false;
      ell_num_dim = std::max(ell_num_dim, ell_dims[i]);
    }
  }
  if (ell_num_dim > kMaxEllipsisDims) return false;
  for (size_t i = 0; i < terms.size(); ++i) terms[i] = expand_ellipsis(terms[i], ell_dims[i], ell_num_dim);
  out = expand_ellipsis(out, ell_num_dim, ell_num_dim);
  for (size_t i = 0; i <= terms.size(); ++i) {
    const std::string& t = i < terms.size() ? terms[i] : out;
    std::map<char, int> seen;
    for (char c : t)
      if (!is_einsum_label(c) || seen[c]++) return false;
    if (i < terms.size() && values[i]->sizes.size() != t.size()) return false;
  }
  return true;
}
// at::einsum's order for the dims: the output's labels as written, then the summed ones: the
// ellipsis's dims (digits) when the output has none, then the labels by subscript (A-Z, a-z).
std::string einsum_order(const std::vector<std::string>& terms, const std::string& out) {
  std::string summed;
  for (const std::string& t : terms)
    for (char c : t)
      if (out.find(c) == std::string::npos && summed.find(c) == std::string::npos) summed += c;
  auto rank = [](char c) {
    return std::isdigit(static_cast<unsigned char>(c)) ? 0 : std::isupper(static_cast<unsigned char>(c)) ? 1 : 2;
  };
  std::sort(summed.begin(), summed.end(),
            [&](char x, char y) { return rank(x) != rank(y) ? rank(x) < rank(y) : x < y; });
  return out + summed;
}
// ATen's reshape of a permuted operand into [d0, d1, d2] groups: the view's strides, or a copy
// (a contiguous tensor) when no view fits.
EinsumOperand folded(const EinsumOperand& t, const std::vector<int64_t>& perm, const std::vector<int64_t>& groups,
                     bool& copied) {
  std::vector<int64_t> sizes, strides;
  for (int64_t d : perm) {
    sizes.push_back(t.sizes[d]);
    strides.push_back(t.strides[d]);
  }
  EinsumOperand r;
  r.sizes = groups;
  if (auto s = view_strides(sizes, strides, groups)) {
    r.strides = *s;
  } else {
    copied = true;
    r.strides = {groups[1] * groups[2], groups[2], 1};
  }
  return r;
}
}  // namespace

// A two-operand einsum step by step as at::einsum runs it: a sum of the labels only one operand
// has and the output lacks (one kernel per operand), then sumproduct_pair: a multiply when
// nothing is contracted, else each operand permuted and reshaped to [batch, rows, inner] /
// [batch, inner, cols] (a copy kernel when no view fits), bmm (its own copy of an operand cuBLAS
// cannot read, and the GEMM's launches from the tree), and views back.
std::optional<EinsumSteps> einsum_steps(const OpFacts& f) {
  std::vector<std::string> terms;
  std::string out;
  std::vector<const Value*> vals;
  if (!parse_einsum(f, terms, out, vals) || terms.size() != 2) return std::nullopt;
  const std::string order = einsum_order(terms, out);
  const size_t n = order.size(), n_out = out.size();
  std::vector<EinsumOperand> t(2);
  for (int i = 0; i < 2; ++i)
    for (char c : order) {
      const size_t at = terms[i].find(c);
      t[i].sizes.push_back(at == std::string::npos ? 1 : vals[i]->sizes[at]);
      t[i].strides.push_back(at == std::string::npos ? 0 : vals[i]->strides[at]);
    }
  EinsumSteps steps;
  // Summed labels: contracted when both operands have them, else summed on their side first.
  for (int i = 0; i < 2; ++i) {
    bool sums = false;
    for (size_t d = n_out; d < n; ++d)
      if (t[i].sizes[d] != 1 && t[1 - i].sizes[d] == 1) {
        sums = true;
        t[i].sizes[d] = 1;
      }
    steps.sums += sums ? 1 : 0;
    if (sums) {  // the sum's result is a new contiguous tensor
      int64_t st = 1;
      for (size_t d = n; d-- > 0;) {
        t[i].strides[d] = st;
        st *= t[i].sizes[d];
      }
    }
  }
  std::vector<int64_t> lro, lo, ro, sum;
  int64_t lro_size = 1, lo_size = 1, ro_size = 1, sum_size = 1;
  for (size_t d = 0; d < n; ++d) {
    const bool sl = t[0].sizes[d] != 1, sr = t[1].sizes[d] != 1;
    if (d >= n_out) {
      if (sl && sr) {
        sum.push_back(static_cast<int64_t>(d));
        sum_size *= t[0].sizes[d];
      }
    } else if (sl && sr) {
      lro.push_back(static_cast<int64_t>(d));
      lro_size *= t[0].sizes[d];
    } else if (sl) {
      lo.push_back(static_cast<int64_t>(d));
      lo_size *= t[0].sizes[d];
    } else {
      ro.push_back(static_cast<int64_t>(d));
      ro_size *= t[1].sizes[d];
    }
  }
  if (sum.empty()) {  // sumproduct_pair without contraction is at::mul
    steps.product.kernels = 1;
    return steps;
  }
  steps.contracts = true;
  // Dims summed on one side are size 1 now: they ride along in the permutation as ATen's do.
  std::vector<int64_t> rest;
  for (size_t d = n_out; d < n; ++d)
    if (std::find(sum.begin(), sum.end(), static_cast<int64_t>(d)) == sum.end())
      rest.push_back(static_cast<int64_t>(d));
  auto cat = [](std::initializer_list<const std::vector<int64_t>*> parts) {
    std::vector<int64_t> v;
    for (const auto* p : parts) v.insert(v.end(), p->begin(), p->end());
    return v;
  };
  const EinsumOperand left =
      folded(t[0], cat({&lro, &lo, &sum, &ro, &rest}), {lro_size, lo_size, sum_size}, steps.copied[0]);
  const EinsumOperand right =
      folded(t[1], cat({&lro, &sum, &ro, &lo, &rest}), {lro_size, sum_size, ro_size}, steps.copied[1]);
  Value a, b;
  a.sizes = left.sizes;
  a.strides = left.strides;
  b.sizes = right.sizes;
  b.strides = right.strides;
  a.dtype = b.dtype = vals[0]->dtype;
  // A view cuBLAS cannot read is copied by bmm itself; either way the GEMM then reads it dense.
  const bool bmm_copies_a = copied(&a), bmm_copies_b = copied(&b);
  steps.copied[0] = steps.copied[0] || bmm_copies_a;
  steps.copied[1] = steps.copied[1] || bmm_copies_b;
  if (!fp32(f) && !is_half(f.dtype)) {
    steps.product.kernels = 1;  // no sweep measured the GEMM of other dtypes: one kernel
    return steps;
  }
  GemmCall call;
  call.batched = true;
  call.half = is_half(f.dtype);
  call.b = lro_size;
  call.m = lo_size;
  call.k = sum_size;
  call.n = ro_size;
  call.ta = reads_transposed(&a, bmm_copies_a);
  call.tb = reads_transposed(&b, bmm_copies_b);
  steps.product = cublas_launches(f.target->tables.gemm, call);
  return steps;
}

namespace {

Counts einsum_counts(const OpFacts& f) {
  const std::optional<EinsumSteps> s = einsum_steps(f);
  if (!s) return Counts{};
  Counts c = s->product;
  c.kernels += s->sums + (s->copied[0] ? 1 : 0) + (s->copied[1] ? 1 : 0);
  return c;
}
bool einsum_contraction(const OpFacts& f) {
  return einsum_steps(f).has_value();
}
// One operand with labels the output lacks: at::einsum takes diagonals of repeated labels (views)
// and sums the rest away in one reduce kernel.
bool einsum_single_sum(const OpFacts& f) {
  const Arg* ts = f.arg("tensors");
  const std::string eq = f.text_arg("equation", "");
  const size_t arrow = eq.find("->");
  if (!ts || ts->tensors.size() != 1 || arrow == std::string::npos) return false;
  const std::string out = eq.substr(arrow + 2);
  for (char c : eq.substr(0, arrow))
    if (std::isalpha(static_cast<unsigned char>(c)) && out.find(c) == std::string::npos) return true;
  return false;
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

// The launches of one cuBLAS call [M, K] x [K, N] (`batch` of them when batched), in dtype `dt`:
// the tree's answer for f32 and half precision, one kernel for other dtypes (no sweep measured
// them).
Counts call_counts(const Target& t, const Mnk& d, DType dt, bool b_transposed, bool bias = false, int64_t batch = 0) {
  if (dt != DType::kFloat32 && !is_half(dt)) return {1, 0, 0, 0};
  GemmCall c;
  c.half = is_half(dt);
  c.batched = batch > 0;
  c.b = std::max<int64_t>(batch, 1);
  c.m = d.m;
  c.k = d.k;
  c.n = d.n;
  c.tb = b_transposed;
  c.bias = bias;
  return cublas_launches(t.tables.gemm, c);
}
}  // namespace

// A recurrent cell's x @ w.t(): the weight is read transposed.
Counts mm_launches(const Target& t, int64_t m, int64_t k, int64_t n, DType dt) {
  return call_counts(t, {m, k, n}, dt, true);
}

Counts bmm_launches(const Target& t, int64_t batch, int64_t m, int64_t k, int64_t n, DType dt) {
  return call_counts(t, {m, k, n}, dt, true, false, std::max<int64_t>(batch, 1));  // a batch of one is still batched
}

Counts linear_launches(const Target& t, int64_t m, int64_t k, int64_t n, DType dt) {
  return call_counts(t, {m, k, n}, dt, true, true);
}

namespace {

struct TensordotPlan {
  Mnk d;
  int copies = 0;
  bool b_transposed = false;  // the right operand's matrix is a view with unit stride on its rows
  bool ok = false;
};
// Operand `v` permuted to (first dims, then second dims) and reshaped to [rows, cols]: a copy
// unless that is a view cuBLAS can read.
int tensordot_operand_copy(const Value& v, const std::vector<int64_t>& first, const std::vector<int64_t>& second,
                           int64_t rows, int64_t cols, bool* transposed = nullptr) {
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
  if (!blas_readable(m)) return 1;
  if (transposed) *transposed = reads_transposed(&m, false);
  return 0;
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
  // A contracted dim of size 1 on one side is summed away on the other first (keepdim: one
  // reduction kernel each, its result a fresh row-major tensor with that dim 1).
  Value ta = *a, tb = *b;
  int sums = 0;
  auto summed = [&](Value& v, int64_t d) {
    v.sizes[d] = 1;
    v.strides = contiguous_strides(v.sizes);
    ++sums;
  };
  for (size_t i = 0; i < sa.size(); ++i) {
    if (b->sizes[sb[i]] == 1)
      summed(ta, sa[i]);
    else if (a->sizes[sa[i]] == 1)
      summed(tb, sb[i]);
  }
  auto prod = [](const Value& v, const std::vector<int64_t>& dims) {
    int64_t n = 1;
    for (int64_t d : dims) n *= v.sizes[d];
    return n;
  };
  p.d = {prod(ta, fa), prod(ta, sa), prod(tb, fb)};
  if (p.d.k != prod(tb, sb)) return p;
  p.copies = sums + tensordot_operand_copy(ta, fa, sa, p.d.m, p.d.k) +
             tensordot_operand_copy(tb, sb, fb, p.d.k, p.d.n, &p.b_transposed);
  p.ok = true;
  return p;
}
bool tensordot_known(const OpFacts& f) {
  return (fp32(f) || is_half(f.dtype)) && tensordot_plan(f).ok;
}
Counts tensordot_counts(const OpFacts& f) {
  const TensordotPlan p = tensordot_plan(f);
  Counts c = call_counts(*f.target, p.d, f.dtype, p.b_transposed);
  c.kernels += p.copies;
  return c;
}

// transformers' grouped_mm_fallback (integrations/moe.py, a custom op for the dtypes
// torch._grouped_mm refuses): input [S, K], weight [E, K, N], offs [E]. It zeroes its [S, N]
// result, reads the offsets to the host (offs.tolist(): a copy and a wait) and runs one
// torch.mm(out=) per expert on that expert's rows. The rows per expert are data-dependent: the
// split is taken as even, every expert holding S / E rows (rounded up).
bool grouped_fallback_known(const OpFacts& f) {
  const Value* a = f.input(0);
  const Value* w = f.input(1);
  return (fp32(f) || is_half(f.dtype)) && a && w && a->sizes.size() == 2 && w->sizes.size() == 3 && w->sizes[0] > 0 &&
         a->sizes[0] > 0;
}
Counts grouped_fallback_counts(const OpFacts& f) {
  const Value& a = *f.input(0);
  const Value& w = *f.input(1);
  const int64_t experts = w.sizes[0];
  const int64_t rows = (a.sizes[0] + experts - 1) / experts;
  // weight[i] is [K, N]: read transposed when its rows are the unit-strided dim.
  const bool b_transposed = w.strides.size() == 3 && w.strides[1] == 1 && w.sizes[2] > 1;
  const Counts one = call_counts(*f.target, {rows, w.sizes[1], w.sizes[2]}, f.dtype, b_transposed);
  Counts c{1, 1, 0, 1};  // the zeroed result; offs.tolist()
  const int64_t calls = std::min(experts, a.sizes[0]);
  c.kernels += static_cast<int>(calls * one.kernels);
  c.memset += static_cast<int>(calls * one.memset);
  return c;
}

}  // namespace

void add_gemm_rules(std::vector<LaunchRule>& r) {
  r.push_back(rule("gemm.matmul.dot")
                  .ops({"aten::matmul"})
                  .when("two 1-D operands: at::dot, cuBLAS's dot kernel + a one-block reduction",
                        [](const OpFacts& f) {
                          const Value* a = f.input(0);
                          const Value* b = f.input(1);
                          return a && b && a->sizes.size() == 1 && b->sizes.size() == 1 && a->sizes[0] > 0;
                        })
                  .counts({2, 0, 0, 0})
                  .evidence("opinfo: matmul and __rmatmul__ of two vectors of 20 (2 kernels, f32 and bf16), opset:dot")
                  .why("matmul of two vectors is a dot product: cuBLAS's dot kernel and a one-block reduction of its "
                       "partial sums."));
  const std::vector<std::string> gemm2d = ops({"aten::linear", "aten::addmm", "aten::mm"});
  // Every op that is one cuBLAS call: what the call launches is cuBLAS's heuristic's answer,
  // learned from the GPU (gemm_engine.h); the rule ids name the launch patterns it picks between.
  const std::vector<std::string> calls =
      ops({"aten::linear", "aten::addmm", "aten::mm", "aten::matmul", "aten::bmm", "aten::baddbmm"});
  const char* const evidence =
      "sweep:gemm_random (500,000 random GEMMs on the H200: linear with and without a bias, addmm, mm, bmm with "
      "transposed operands, f32 and bf16; generators/fit_gemm.txt), sweep:gemm_f32, sweep:gemm_half, "
      "sweep:gemm_small, sweep:gemm_align (model-shaped, checked, not fitted)";
  const char* const around =
      " (+ copies of operands cuBLAS cannot read, linear's unfused bias add, addmm's 2-D self unless beta is 0)";
  r.push_back(rule("gemm.addmm.empty_k")
                  .ops({"aten::addmm"})
                  .when("K = 0, a result with elements: no GEMM; beta 0: one fill; else self written into the result "
                        "(a memcpy, a copy kernel when broadcast) and one multiply by beta",
                        addmm_empty_k)
                  .compute(addmm_empty_k_counts)
                  .evidence("sweep:opinfo_edges (addmm with K = 0, M 5 and 64, N 1 and 10, a [N] or [M, N] self, "
                            "beta 1, 0.2 and 0, alpha 1 and 0.6, f32 and bf16)")
                  .why("A product over an empty inner dimension is zero: ATen skips cuBLAS, zeroes the result when "
                       "beta is 0, and otherwise copies self into it and scales it by beta."));
  r.push_back(
      rule("gemm.splitk_largek")
          .ops(calls)
          .when(std::string("cuBLAS picks sgemm_largek (its choice learned from random GEMMs run on the H200): a "
                            "scaling kernel, the split-K GEMM and an epilogue, 3 kernels + a zeroed workspace") +
                    around,
                launches_are<3, 0, 1>)
          .compute(gemm_launches)
          .evidence(evidence)
          .why("For this float32 shape cuBLAS picks a split-K GEMM: one kernel scales the output (beta), one computes "
               "partial products over slices of K, one epilogue adds them and the bias; the partial sums need a zeroed "
               "workspace (a memset)."));
  r.push_back(rule("gemm.splitk_reduce")
                  .ops(calls)
                  .when(std::string("cuBLAS splits K (its choice learned from random GEMMs run on the H200): the GEMM "
                                    "(or a dot product, for one output column) and a reduction kernel, 2 kernels") +
                            around,
                        launches_are<2, 0, 0>)
                  .compute(gemm_launches)
                  .evidence(evidence)
                  .why("For this shape cuBLAS splits the inner dimension: one kernel computes partial products, a "
                       "second adds them up."));
  r.push_back(
      rule("gemm.workspace")
          .ops(calls)
          .when(std::string("cuBLAS picks a kernel that accumulates into a zeroed workspace, split-K or stream-K (its "
                            "choice learned from random GEMMs run on the H200): 1 kernel + a memset") +
                    around,
                launches_are<1, 0, 1>)
          .compute(gemm_launches)
          .evidence(evidence)
          .why("For this shape cuBLAS picks a kernel whose thread blocks share the work of each output tile and "
               "accumulate into a workspace zeroed first (a memset)."));
  r.push_back(
      rule("gemm")
          .ops(gemm2d)
          .when(
              std::string(
                  "one cuBLAS call, as cuBLAS picks it for the shape (learned from random GEMMs run on the H200): one "
                  "GEMM or GEMV kernel; a bias cuBLASLt's epilogue does not take is first written into the result") +
              around)
          .compute(gemm_launches)
          .evidence(evidence)
          .why("A linear layer is one cuBLAS GEMM with the bias fused into it; an input cuBLAS cannot read as a matrix "
               "is copied first."));
  r.push_back(
      rule("gemm.einsum")
          .ops({"aten::einsum"})
          .when("two operands (an ellipsis's dims as unnamed labels, summed first when the output lacks it): a sum "
                "per operand of the labels only it has (and the output lacks); then, with labels to contract, each "
                "operand permuted to [batch, rows, inner] (output labels in order, contracted ones A-Z then a-z; a "
                "copy when that is not a view, or not one cuBLAS reads) and one batched GEMM (the GEMM "
                "tree's launches), else one multiply",
                einsum_contraction)
          .compute(einsum_counts)
          .evidence(
              "sweep:gemm/einsum (bhqd,bkhd->bhqk 3, bhqk,bkhd->bqhd 2, bhwc,hkc->bhwk 2, bhwc,wkc->bhwk 1), "
              "broad:maxvit, broad:mvit, broad:mvitv2, opset:einsum_dispatch (nec,nd->ecd: split-K GEMM, 2), "
              "opset:einsum_combine (nec,ecd->nd: 2 copies and a split-K GEMM, 4), opset:einsum_outer (i,j->ij: 1), "
              "opinfo_heldout4: einsum (...ik,...j->ij of [1, 2, 3] and [3]: a sum and a mul, 2)")
          .why(
              "einsum becomes views plus one batched GEMM; each operand whose dimensions cannot be arranged as [batch, "
              "rows, inner] by a view is copied first, and labels summed on one side only are one reduction kernel."));
  r.push_back(rule("gemm.einsum.sum")
                  .ops({"aten::einsum"})
                  .when("one operand with labels the output lacks: diagonals (views), then one reduce kernel",
                        einsum_single_sum)
                  .counts({1, 0, 0, 0})
                  .evidence("opset:einsum_trace_sum (bii->b: 1 kernel)")
                  .why("A single operand's einsum that sums labels away is a diagonal view and one reduction."));
  r.push_back(
      rule("gemm.einsum.view")
          .ops({"aten::einsum"})
          .when("one operand whose output subscripts permute its own (none repeated or summed): a view, no kernel",
                einsum_permutation)
          .counts({0, 0, 0, 0})
          .evidence("fresh:xlnet (ijbn->bnij: 0 kernels, f32 and bf16)")
          .why("This einsum only reorders the dimensions of one tensor, which a view does: no kernel."));
  r.push_back(
      rule("gemm.tensordot")
          .ops({"aten::tensordot"})
          .when("a contracted dim of size 1 on one side summed away on the other (a reduction each), each "
                "operand permuted and reshaped to a matrix (a copy kernel when that is no readable view), "
                "then one mm counted as the mm rules count it (f32 split-K on few output tiles: 2; bf16 "
                "split-K for long K: 2; else 1, + bf16 stream-K memset for a large output)",
                tensordot_known)
          .compute(tensordot_counts)
          .evidence("opset:tensordot (f32 split-K 2, bf16 1), opset:tensordot_perm (2 copies + GEMM: f32 4, "
                    "bf16 3), opset:tensordot_large (1), opinfo:tensordot ([1, 1, 1] by [2, 1, 2]: 2 sums + a 1x1x1 "
                    "GEMM, cuBLAS's dot and reduction)")
          .why("tensordot reshapes each operand into a matrix, copying one whose permuted dimensions cannot be "
               "viewed as a matrix, and multiplies the two with one matrix multiply (two kernels where cuBLAS "
               "splits the inner dimension)."));
  r.push_back(rule("gemm.grouped")
                  .ops({"aten::_grouped_mm"})
                  .when("bf16 on the H200: prepare_grouped_gemm_data + one cutlass grouped GEMM = 2 kernels",
                        [](const OpFacts& f) { return f.dtype == DType::kBFloat16; })
                  .counts({2, 0, 0, 0})
                  .evidence("fresh:mixtral, fresh:olmoe, fresh:qwen2-moe (bf16, 4 experts: 2 kernels each)")
                  .why("A grouped matrix multiply (mixture-of-experts layers) first writes each group's problem "
                       "description, then runs all groups in one cutlass kernel."));
  r.push_back(rule("gemm.grouped_fallback")
                  .ops({"transformers::grouped_mm_fallback"})
                  .when("transformers' fallback for dtypes _grouped_mm refuses: a zero fill, offs copied to the host "
                        "(a memcpy and a sync), then one mm per expert on S / E rows (the GEMM tree's launches each)",
                        grouped_fallback_known)
                  .compute(grouped_fallback_counts)
                  .evidence("fresh:qwen2-moe (f32, 4 experts of 128 rows: a fill, a memcpy, 4 split-K GEMMs of 2 "
                            "kernels each per call)")
                  .why("The fallback zeroes its result, reads the group offsets on the host, and multiplies each "
                       "expert's rows by its weight with one cuBLAS call per expert."));
  r.push_back(rule("gemm.batched")
                  .ops({"aten::matmul", "aten::bmm", "aten::baddbmm"})
                  .when("one batched cuBLAS call, as cuBLAS picks it for the shape (learned from random GEMMs run on "
                        "the H200), + a copy per operand matmul cannot fold into a view; baddbmm + a memcpy of a "
                        "full-shaped self, or + a copy kernel of a broadcast one")
                  .compute(gemm_launches)
                  .evidence("sweep:gemm/matmul, sweep:gemm/bmm_or_matmul, sweep:gemm/matmul_t, sweep:gemm/baddbmm, "
                            "broad:swin (attention matmuls on permuted operands), broad:bloom (baddbmm)")
                  .why("A batched product is one cuBLAS batched GEMM, plus a copy of any operand whose batch "
                       "dimensions cannot be folded by a view."));
}

}  // namespace kc::torch2_11
