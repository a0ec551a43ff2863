// The matrix view of values that the linalg rules share (linalg.cc, linalg_lu.cc): a value's
// matrices, their layout, and the column-major copy and info check ATen wraps around every
// factorization (native/BatchLinearAlgebra.cpp).
#pragma once

#include <optional>

#include "analyzer/tensor_geometry.h"
#include "passes/torch2_11/gemm_engine.h"
#include "passes/torch2_11/rules.h"

namespace kc::torch2_11::linalg {

// A (batch of) matrices: the last two dims of a value of rank >= 2.
struct Matrix {
  int64_t rows = 0, cols = 0, batch = 1;
};
inline std::optional<Matrix> matrix(const Value* v) {
  if (!v || v->sizes.size() < 2 || v->strides.size() != v->sizes.size()) return std::nullopt;
  Matrix m;
  m.rows = v->sizes[v->sizes.size() - 2];
  m.cols = v->sizes.back();
  for (size_t i = 0; i + 2 < v->sizes.size(); ++i) m.batch *= v->sizes[i];
  return m;
}
// The layout and dtype the rules were measured with: float32, row-major (an empty tensor has no
// layout to speak of).
inline bool fp32_dense(const Value* v) {
  return v && v->dtype == DType::kFloat32 && (v->numel() == 0 || v->contiguous());
}
// Dense in the column-major order of its matrices (batch dims outermost): what LAPACK-style
// factorizations (geqrf, lu_factor) return. Size-1 dims are ignored.
inline bool column_major(const Value& v) {
  const size_t r = v.sizes.size();
  if (r < 2 || v.strides.size() != r) return false;
  std::vector<int> order = {static_cast<int>(r) - 2, static_cast<int>(r) - 1};  // innermost first
  for (int i = static_cast<int>(r) - 2; i-- > 0;) order.push_back(i);
  return dense_in_order(v.sizes, v.strides, order);
}
// A copy of v into a fresh column-major matrix (cloneBatchedColumnMajor, or the column-major
// result B is copied into): nothing when v is empty, a device-to-device memcpy when v is already
// laid out that way (a single row or column always is), else a copy kernel. Measured: lu_solve and
// triangular_solve with B [n, 1] (memcpy) and [n, 3] (kernel), linalg_lu_solve with left=False.
inline Counts column_major_copy(const Value& v) {
  if (v.numel() == 0) return {};
  if (column_major(v)) return {0, 1, 0, 0};
  return {1, 0, 0, 0};
}
// The transpose of a matrix value (its last two dims swapped).
inline Value transposed(const Value& v) {
  Value t = v;
  const size_t r = v.sizes.size();
  std::swap(t.sizes[r - 2], t.sizes[r - 1]);
  std::swap(t.strides[r - 2], t.strides[r - 1]);
  return t;
}

// The product X @ Y[k, n] that closes a pseudo-inverse, X[m, k] being a factor scaled column by
// column: X is the scaled column-major factor (a transposed view to cuBLAS), Y the conjugate
// transpose of a column-major factor (row-major): cuBLAS's "nt" GEMM, batched for a batch, as the
// GEMM rules count it.
inline Counts factor_product_launches(const Target& t, int64_t batch, int64_t m, int64_t k, int64_t n) {
  GemmCall call;
  call.ta = true;
  call.batched = batch > 1;
  call.b = batch;
  call.m = m;
  call.k = k;
  call.n = n;
  return cublas_launches(t.tables.gemm, call);
}

// matrix_norm's numeric ord (an int or a float scalar).
inline std::optional<double> numeric_ord(const OpFacts& f) {
  const Arg* ord = f.arg("ord");
  if (ord && ord->kind == Arg::Kind::kFloat && !ord->floats.empty()) return ord->floats[0];
  if (ord && ord->kind == Arg::Kind::kInt && !ord->ints.empty()) return static_cast<double>(ord->ints[0]);
  return std::nullopt;
}
// A matrix norm's string ord ("fro", "nuc"): matrix_norm's str_ord overload, linalg_norm's ord_str.
inline bool string_ord(const OpFacts& f) {
  return f.op->overload == "str_ord" || f.op->overload == "ord_str";
}
// Whether the op computes a matrix norm: linalg_matrix_norm always; linalg_norm (LinearAlgebra.cpp)
// when its ord is a string, or numeric over two dims (a `dim` of two, or none with a 2-D input),
// which it hands to linalg_matrix_norm with dim (0, 1) by default. Its other forms are vector norms.
inline bool matrix_norm_form(const OpFacts& f) {
  if (f.op->name == "aten::linalg_matrix_norm") return true;
  if (f.op->name != "aten::linalg_norm" || !f.input(0)) return false;
  if (string_ord(f)) return true;
  if (!numeric_ord(f)) return false;
  const Arg* d = f.arg("dim");
  if (d && !d->ints.empty()) return d->ints.size() == 2;
  return f.input(0)->sizes.size() == 2;
}

// The kernels get_atol_rtol (LinearAlgebra.cpp) launches before pinv or matrix_rank start: the float
// overloads (and pinverse's rcond) put both tolerances in tensors (at::full, 2 fills) whatever their
// values; the tensor overload fills a missing atol with zeros and a missing rtol with its default
// (1 fill each), nothing for a tolerance given. A given atol without an rtol still fills the default
// rtol and a zero, and picks between them with where(atol > 0, ...): a comparison and a where over
// atol's shape, which launch nothing when atol is empty.
inline std::optional<int> tolerance_kernels(const OpFacts& f) {
  const auto kind = [&](const char* name) {
    const Arg* a = f.arg(name);
    return a ? a->kind : Arg::Kind::kNone;
  };
  if (f.op->name == "aten::pinverse" || f.op->overload == "atol_rtol_float") return 2;
  if (f.op->overload != "atol_rtol_tensor") return std::nullopt;
  const bool atol = kind("atol") == Arg::Kind::kTensor, rtol = kind("rtol") == Arg::Kind::kTensor;
  if ((!atol && kind("atol") != Arg::Kind::kNone) || (!rtol && kind("rtol") != Arg::Kind::kNone)) return std::nullopt;
  if (atol && !rtol) {
    const Arg* a = f.arg("atol");
    if (a->tensors.empty() || a->tensors[0] < 0) return std::nullopt;
    return f.graph->values[a->tensors[0]].numel() > 0 ? 4 : 2;
  }
  return (atol ? 0 : 1) + (rtol ? 0 : 1);
}

// at::_linalg_check_errors on one matrix's info: a comparison kernel, the flag copied and read by
// the host, which waits. Measured as the difference of linalg_inv, linalg_solve, linalg_cholesky
// and linalg_lu_factor from their `_ex` forms: +1 kernel, +2 memcpy.
constexpr Counts kCheckErrors{1, 2, 0, 1};
// The info check of a batch of infos: any() over several infos is one reduction kernel, its flag
// read back (a memcpy); over one info (kCheckErrors) a copy and two memcpys.
constexpr Counts kCheckBatchedErrors{1, 1, 0, 1};
inline Counts check_errors(int64_t batch) {
  return batch == 1 ? kCheckErrors : kCheckBatchedErrors;
}

}  // namespace kc::torch2_11::linalg

namespace kc::torch2_11 {
// The LU family's rules (linalg_lu.cc): lu_factor, lu, lu_unpack, lu_solve and solve over sizes
// and batches; add_linalg_rules places them after its empty-batch rule.
void add_linalg_lu_rules(std::vector<LaunchRule>& r);
// The SVD family's rules (linalg_svd.cc): svd, svdvals, pinv, pinverse, matrix_rank, cond and the
// nuclear and spectral norms up to 32 x 32.
void add_linalg_svd_rules(std::vector<LaunchRule>& r);
// The Cholesky family's rules (linalg_cholesky.cc): linalg_cholesky(_ex), cholesky_solve and
// cholesky_inverse.
void add_linalg_cholesky_rules(std::vector<LaunchRule>& r);
// The QR family's rules (linalg_qr.cc): geqrf, linalg_qr / qr and householder_product.
void add_linalg_qr_rules(std::vector<LaunchRule>& r);
// Symmetric eigendecompositions (linalg_eigh.cc): eigh, eigvalsh and the hermitian pinv and matrix_rank.
void add_linalg_eigh_rules(std::vector<LaunchRule>& r);
}  // namespace kc::torch2_11
