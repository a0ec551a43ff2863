// The SVD family on the H200 over sizes and batches: svdvals, svd, and what ATen builds on the
// singular values (pinv, matrix_rank, cond, the nuclear and spectral matrix norms). ATen's
// svd_cusolver (cuda/linalg/BatchLinearAlgebraLib.cpp) takes cuSOLVER's batched Jacobi SVD
// (gesvdjBatched) for matrices of at most 32 rows and columns, whatever the batch; larger ones go to
// the iterative gesvdj, whose sweeps run until the values converge: their launches depend on the
// values, and stay unknown. Float32, as measured: the sweep's linalg_sizes family.
#include <cmath>

#include "passes/torch2_11/linalg_matrix.h"

namespace kc::torch2_11 {
namespace {

using namespace linalg;

// gesvdjBatched of `a`'s matrices (at most 32 x 32): the infos filled, the column-major copy (a
// memcpy for one row or column), an info copy, the sweep's schedule (svd_music) and the Jacobi
// kernel, with a QR kernel first for a rectangular matrix and a transpose before it for a wide one;
// then the infos checked: one matrix's copied (a copy kernel, a device-to-device and a
// device-to-host copy), a batch's reduced by any() (a kernel and a device-to-host copy), after a
// device-to-host copy of the sweep's status. Reduced U and V of a rectangular matrix are copied out
// of the library's square workspace (a memcpy for one matrix, a strided copy kernel for a batch).
// Empty: nothing, except full U and V, which are identities (2 kernels).
std::optional<Counts> svd_launches(const Value& a, bool uv, bool full) {
  const Matrix m = *matrix(&a);
  if (a.numel() == 0) return uv && full && std::max(m.rows, m.cols) > 0 ? Counts{2, 0, 0, 0} : Counts{};
  if (m.rows > 32 || m.cols > 32) return std::nullopt;
  Counts c = column_major_copy(a);
  c += Counts{5 + (m.rows > m.cols ? 1 : 0) + (m.rows < m.cols ? 2 : 0), m.batch == 1 ? 3 : 2, 0, 2};
  if (uv && !full && m.rows != m.cols) c += m.batch == 1 ? Counts{0, 1, 0, 0} : Counts{1, 0, 0, 0};
  return c;
}
bool fp32_batch(const Value* v) {
  const auto m = matrix(v);
  return m && v->dtype == DType::kFloat32 && m->batch >= 1;
}
bool svd_fits(const OpFacts& f) {
  const Value* a = f.input(0);
  const auto m = matrix(a);
  // svdvals of an empty batch returns before any launch, as of any empty input (full U and V of
  // one, measured only with matrices, stay out).
  if (!m || a->dtype != DType::kFloat32 || (m->batch == 0 && f.op->name != "aten::linalg_svdvals")) return false;
  if (f.op->name == "aten::linalg_svdvals") return svd_launches(*a, false, false).has_value();
  if (f.op->name == "aten::svd") return a->numel() == 0 && f.bool_arg("compute_uv", true);  // measured empty only
  return f.text_arg("driver", "") == "" && svd_launches(*a, true, f.bool_arg("full_matrices", true)).has_value();
}
Counts svd_counts(const OpFacts& f) {
  // The legacy svd is linalg_svd with full_matrices = !some (V is Vh's conjugate transpose, a view).
  if (f.op->name == "aten::svd") return *svd_launches(*f.input(0), true, !f.bool_arg("some", true));
  if (f.op->name == "aten::linalg_svdvals") return *svd_launches(*f.input(0), false, false);
  return *svd_launches(*f.input(0), true, f.bool_arg("full_matrices", true));
}

bool arg_absent(const OpFacts& f, const char* name) {
  const Arg* a = f.arg(name);
  return !a || a->kind == Arg::Kind::kNone;
}

// linalg_pinv(A, atol, rtol) and pinverse (LinearAlgebra.cpp), not hermitian: the tolerances
// (tolerance_fills); an empty A returns then (its SVD and product are empty). Else the reduced SVD,
// the threshold max(atol, rtol * the largest value), the reciprocal of the values above it (7
// elementwise kernels), and V S^+ times U^H: one matrix product (factor_product_launches).
bool pinv_fits(const OpFacts& f) {
  const Value* a = f.input(0);
  const auto m = matrix(a);
  if (!m || a->dtype != DType::kFloat32 || f.bool_arg("hermitian", false) || !tolerance_fills(f)) return false;
  return a->numel() == 0 || (m->batch >= 1 && svd_launches(*a, true, false).has_value());
}
Counts pinv_counts(const OpFacts& f) {
  const Value& a = *f.input(0);
  Counts c{*tolerance_fills(f), 0, 0, 0};
  if (a.numel() == 0) return c;
  const Matrix m = *matrix(&a);
  c += *svd_launches(a, true, false);
  c += Counts{7, 0, 0, 0};
  const int64_t k = std::min(m.rows, m.cols);
  c += factor_product_launches(*f.target, m.batch, m.cols, k, m.rows);
  return c;
}

// linalg_matrix_rank(A, atol, rtol), not hermitian: the tolerances (tolerance_fills), the singular
// values, then the threshold and the count of values above it (5 kernels); empty: the tolerances
// and the zero rank filled (nothing to fill for an empty batch).
bool matrix_rank_fits(const OpFacts& f) {
  const Value* a = f.input(0);
  const auto m = matrix(a);
  if (!m || a->dtype != DType::kFloat32 || f.bool_arg("hermitian", false) || !tolerance_fills(f)) return false;
  return a->numel() == 0 || (m->batch >= 1 && svd_launches(*a, false, false).has_value());
}
Counts matrix_rank_counts(const OpFacts& f) {
  const Value& a = *f.input(0);
  Counts c{*tolerance_fills(f), 0, 0, 0};
  if (a.numel() == 0) {
    if (matrix(&a)->batch > 0) c += Counts{1, 0, 0, 0};
    return c;
  }
  c += *svd_launches(a, false, false);
  c += Counts{5, 0, 0, 0};
  return c;
}

// The matrices a 2-norm-like reduction sees: `dim`'s two dims moved to the end (a view; the
// column-major copy then reads its layout).
std::optional<Value> norm_matrices(const OpFacts& f) {
  const Value* a = f.input(0);
  const int64_t r = static_cast<int64_t>(a->sizes.size());
  const Arg* d = f.arg("dim");
  if (!d || d->ints.empty()) return *a;
  if (d->ints.size() != 2) return std::nullopt;
  const int64_t d0 = (d->ints[0] + r) % r, d1 = (d->ints[1] + r) % r;
  if (d0 == d1) return std::nullopt;
  Value v = *a;
  v.sizes.clear();
  v.strides.clear();
  for (int64_t i = 0; i < r; ++i) {
    if (i == d0 || i == d1) continue;
    v.sizes.push_back(a->sizes[i]);
    v.strides.push_back(a->strides[i]);
  }
  for (int64_t i : {d0, d1}) {
    v.sizes.push_back(a->sizes[i]);
    v.strides.push_back(a->strides[i]);
  }
  return v;
}
// cond(A) (p absent: the 2-norm) and matrix_norm(A, ord) with ord "nuc", 2 or -2: the singular
// values, then one kernel (the ratio, sum, max or min). An empty A: one fill (the 2-norm's minimum
// of nothing raises: refused).
bool svd_norm_fits(const OpFacts& f) {
  const Value* a = f.input(0);
  if (!fp32_batch(a)) return false;
  if (f.op->name == "aten::linalg_cond") {
    if (!arg_absent(f, "p")) return false;
  } else {
    if (f.op->overload == "str_ord") {
      if (f.text_arg("ord", "fro") != "nuc") return false;
    } else {
      const auto ord = numeric_ord(f);
      if (!ord || std::abs(*ord) != 2.0 || (*ord < 0 && a->numel() == 0)) return false;
    }
  }
  const auto v = norm_matrices(f);
  return v && (v->numel() == 0 || svd_launches(*v, false, false).has_value());
}
Counts svd_norm_counts(const OpFacts& f) {
  const Value v = *norm_matrices(f);
  if (v.numel() == 0) return {1, 0, 0, 0};
  Counts c = *svd_launches(v, false, false);
  c += Counts{1, 0, 0, 0};
  return c;
}

}  // namespace

void add_linalg_svd_rules(std::vector<LaunchRule>& r) {
  r.push_back(
      rule("linalg.svd")
          .ops({"aten::linalg_svd", "aten::linalg_svdvals", "aten::svd"})
          .when("float32 matrices up to 32x32, any batch: cuSOLVER's batched Jacobi SVD, 6 kernels (7 tall, "
                "8 wide) + 3 memcpy (2 for a batch), the copy a memcpy for one row or column; reduced U, V "
                "of a rectangular matrix + a memcpy (a kernel for a batch); empty: nothing (full U, V: 2, as svd's "
                "with some=False)",
                svd_fits)
          .compute(svd_counts)
          .evidence("sweep:linalg_sizes (svd, svd_full, svdvals: n 0 to 512 by batches (), 1, 2, 3, 2x3, 16, "
                    "64; m x n from 0 to 128), opinfo:linalg_svd, opinfo:linalg_svdvals, opinfo:svd (0x0), "
                    "opinfo_heldout4: linalg_svdvals of [0, 5, 5] and [0, 5, 2] (nothing), opinfo_heldout5: svd of "
                    "[0, 3], some=False (2)")
          .why("Up to 32 rows and columns ATen calls cuSOLVER's batched Jacobi SVD once for every matrix; "
               "past that the iterative gesvdj sweeps until the values converge, a count the values decide."));
  r.push_back(
      rule("linalg.pinv_svd")
          .ops({"aten::linalg_pinv", "aten::pinverse"})
          .when("float32 matrices up to 32x32, not hermitian: the tolerances (float ones and pinverse's rcond 2 "
                "fills; tensor ones 1 per tolerance missing, a given atol without rtol unknown), the reduced SVD, 7 "
                "elementwise kernels, one matrix product; empty: the tolerances",
                pinv_fits)
          .compute(pinv_counts)
          .evidence("sweep:linalg_sizes (pinv, pinv_atol_rtol: m x n from 0 to 128, n to 512 by batches), "
                    "opinfo:linalg_pinv (rtol absent, 1.0 and a tensor; 5x5, 0x0), opinfo:pinverse, "
                    "opinfo_heldout2/3:linalg_pinv (0x0 with an rtol tensor: the atol fill only)")
          .why("A pseudo-inverse puts its tolerances in tensors, takes the SVD, inverts the singular values above "
               "the tolerance and multiplies the factors back."));
  r.push_back(rule("linalg.matrix_rank_svd")
                  .ops({"aten::linalg_matrix_rank"})
                  .when("float32 matrices up to 32x32, not hermitian: the tolerances as for pinv, the singular "
                        "values, 5 kernels to threshold and count; empty: the tolerances + the zero rank (none for "
                        "an empty batch)",
                        matrix_rank_fits)
                  .compute(matrix_rank_counts)
                  .evidence("sweep:linalg_sizes (matrix_rank: m x n from 0 to 128, n to 512 by batches), "
                            "opinfo:linalg_matrix_rank, opinfo_heldout3:linalg_matrix_rank (rtol=1.0: the float "
                            "overload, 5x5)")
                  .why("The rank counts the singular values above a tolerance computed from the largest."));
  r.push_back(rule("linalg.svd_norms")
                  .ops({"aten::linalg_cond", "aten::linalg_matrix_norm"})
                  .when("float32 matrices up to 32x32 (the two dims of `dim`): cond (2-norm), the nuclear norm "
                        "and ord +-2, the singular values + 1 kernel; empty: 1 fill",
                        svd_norm_fits)
                  .compute(svd_norm_counts)
                  .evidence("sweep:linalg_sizes (cond, matrix_norm_nuc, matrix_norm_2, matrix_norm_-2, "
                            "matrix_norm_nuc_dims), opinfo:linalg_cond, opinfo:norm_nuc")
                  .why("The 2-norm condition number and the nuclear and spectral norms need the singular values, then "
                       "one ratio, sum, maximum or minimum."));
}

}  // namespace kc::torch2_11
