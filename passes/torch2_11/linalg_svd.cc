// The SVD family on the H200 over sizes and batches: svdvals, svd, and what ATen builds on the
// singular values (pinv, matrix_rank, cond, the nuclear and spectral matrix norms). ATen's
// svd_cusolver (cuda/linalg/BatchLinearAlgebraLib.cpp) takes cuSOLVER's batched Jacobi SVD
// (gesvdjBatched) for matrices of at most 32 rows and columns, whatever the batch; larger ones go to
// the iterative gesvdj, whose sweeps run until the values converge: their launches depend on the
// values, so the pseudo-inverse's rule past 32 counts the sweeps a random matrix of its order
// needed (and says so); the others stay unknown there. Float32, as measured: the sweep's
// linalg_sizes family.
#include <cmath>
#include <limits>
#include <utility>

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
// Empty: nothing, except a full U or V that has elements (one side of a matrix with no rows or no
// columns), made an identity: zeroed and its diagonal filled (2 kernels); an empty batch's U and V
// have none (_linalg_svd_out skips both fills).
std::optional<Counts> svd_launches(const Value& a, bool uv, bool full) {
  const Matrix m = *matrix(&a);
  if (a.numel() == 0) return uv && full && m.batch > 0 && std::max(m.rows, m.cols) > 0 ? Counts{2, 0, 0, 0} : Counts{};
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
// The legacy svd(A, some, compute_uv) with compute_uv is linalg_svd(A, full_matrices = !some), V
// the conjugate transpose of Vh (a view): the same launches. Without compute_uv it fills zero U
// and V besides svdvals: not measured, unknown.
bool svd_fits(const OpFacts& f) {
  const Value* a = f.input(0);
  const auto m = matrix(a);
  if (!m || a->dtype != DType::kFloat32) return false;
  if (f.op->name == "aten::linalg_svdvals") return svd_launches(*a, false, false).has_value();
  if (f.op->name == "aten::svd")
    return f.bool_arg("compute_uv", true) && svd_launches(*a, true, !f.bool_arg("some", true)).has_value();
  return f.text_arg("driver", "") == "" && svd_launches(*a, true, f.bool_arg("full_matrices", true)).has_value();
}
Counts svd_counts(const OpFacts& f) {
  if (f.op->name == "aten::svd") return *svd_launches(*f.input(0), true, !f.bool_arg("some", true));
  if (f.op->name == "aten::linalg_svdvals") return *svd_launches(*f.input(0), false, false);
  return *svd_launches(*f.input(0), true, f.bool_arg("full_matrices", true));
}

bool arg_absent(const OpFacts& f, const char* name) {
  const Arg* a = f.arg(name);
  return !a || a->kind == Arg::Kind::kNone;
}

// linalg_pinv(A, atol, rtol) and pinverse (LinearAlgebra.cpp), not hermitian: the tolerances
// (tolerance_kernels); an empty A returns then (its SVD and product are empty). Else the reduced SVD,
// the threshold max(atol, rtol * the largest value), the reciprocal of the values above it (7
// elementwise kernels), and V S^+ times U^H: one matrix product (factor_product_launches).
bool pinv_fits(const OpFacts& f) {
  const Value* a = f.input(0);
  const auto m = matrix(a);
  if (!m || a->dtype != DType::kFloat32 || f.bool_arg("hermitian", false) || !tolerance_kernels(f)) return false;
  return a->numel() == 0 || (m->batch >= 1 && svd_launches(*a, true, false).has_value());
}
Counts pinv_counts(const OpFacts& f) {
  const Value& a = *f.input(0);
  Counts c{*tolerance_kernels(f), 0, 0, 0};
  if (a.numel() == 0) return c;
  const Matrix m = *matrix(&a);
  c += *svd_launches(a, true, false);
  c += Counts{7, 0, 0, 0};
  const int64_t k = std::min(m.rows, m.cols);
  c += factor_product_launches(*f.target, m.batch, m.cols, k, m.rows);
  return c;
}

// gesvdj's Jacobi sweeps until the off-diagonal norm falls below the tolerance: how many the values
// decide. The typical count is the median over the random (randn) matrices of sweep:linalg_sizes
// (svd, svdvals, pinv, pinv_atol_rtol, matrix_rank, cond and the norms past 32), by the order k of
// the matrix the sweeps work on (min(m, n)), rounded: {order, sweeps}, an order between two measured
// ones taking the next measured one's. Past 512 nothing was measured.
constexpr std::pair<int64_t, int> kTypicalSweeps[] = {{2, 1},   {3, 3},   {4, 3},   {5, 4},   {8, 4},
                                                      {16, 5},  {33, 6},  {48, 6},  {64, 6},  {65, 6},
                                                      {100, 7}, {128, 8}, {256, 9}, {512, 10}};
std::optional<int> typical_sweeps(int64_t k) {
  for (const auto& [order, sweeps] : kTypicalSweeps)
    if (k <= order) return sweeps;
  return std::nullopt;
}
// The matrices gesvdj's rule counts: square past 32 (its sort of the values is cuSOLVER's radix
// sort, 6 kernels and 3 memsets a matrix), or one side past 32 and the other from 2 to 8 (a QR of
// one panel first, the values sorted by one warp). A single row or column needs no sweep, and
// other shapes run more QR panels: not measured enough, unknown.
bool gesvdj_shape(const Matrix& m) {
  const int64_t k = std::min(m.rows, m.cols);
  if (std::max(m.rows, m.cols) <= 32 || m.batch < 1) return false;
  return (m.rows == m.cols && typical_sweeps(k)) || (k >= 2 && k <= 8);
}
// gesvdj (cuSOLVER) of each matrix of `a`, with U and V, reduced, run typical_sweeps times: a
// rectangular matrix is transposed when wide (1 kernel), QR-factored (geqr2, its Q formed by a
// gemv and a rank-1 update per reflector: 2k) and the sweeps run on its R; then the Frobenius norm
// read back (2 kernels, a copy the host waits for), the scaling, the parallel order and the
// identities U and V start from, the first off-diagonal norm (2 kernels, read back); each sweep
// rotates each pair of 16-column blocks in a round (gesvdbj, 2 column and 1 row rotations: 4
// kernels; k/16 blocks, rounded up, make that many rounds when odd, one fewer when even) and reads
// the off-diagonal norm back (2 kernels, a copy); then the diagonal, the scaling back, the sort and
// the permutation of U and V (and U = Q U_R). Per matrix: 22 kernels, 6 copies (3 read by the
// host) and 3 memsets square, 24 + 2k kernels and 4 copies (2 read) rectangular, besides the sweeps;
// the host syncs as the real runs of opinfo_heldout*:linalg_pinv_singular counted them (one matrix:
// the sweeps + 5 square, + 4 rectangular). ATen copies the matrices column-major first, checks
// the infos for convergence (a copy read by the host), then _linalg_svd_out checks them
// (check_errors).
Counts gesvdj_launches(const Value& a) {
  const Matrix m = *matrix(&a);
  const int64_t k = std::min(m.rows, m.cols);
  const int64_t blocks = (k + 15) / 16;
  const int64_t rounds = blocks % 2 ? blocks : blocks - 1;
  const int64_t sweeps = mul_checked(m.batch, *typical_sweeps(k), "sweeps");
  const bool square = m.rows == m.cols;
  const int64_t per_kernels = square ? 22 : 24 + 2 * k + (m.rows < m.cols ? 1 : 0);
  // Counts hold ints: a batch whose launches do not fit one is refused as too large to count.
  const auto count = [](int64_t v) {
    if (v > std::numeric_limits<int>::max()) throw Error("gesvdj's launches overflow the counts");
    return static_cast<int>(v);
  };
  Counts c = column_major_copy(a);
  c += Counts{count(add_checked(mul_checked(per_kernels, m.batch, "kernels"),
                                mul_checked(sweeps, 4 * rounds + 2, "kernels"), "kernels")),
              count(add_checked(mul_checked(square ? 6 : 4, m.batch, "memcpy"), sweeps, "memcpy")),
              count(mul_checked(square ? 3 : 0, m.batch, "memset")),
              count(add_checked(mul_checked(square ? 3 : 2, m.batch, "host syncs"), sweeps, "host syncs"))};
  c += Counts{1, 1, 0, 1};  // the infos filled; the convergence check's copy to the host
  c += check_errors(m.batch);
  return c;
}

// linalg_pinv past 32 rows or columns, not hermitian (LinearAlgebra.cpp): the tolerances, the
// reduced SVD by gesvdj (gesvdj_launches), then as up to 32 the threshold, the reciprocals (7
// elementwise kernels) and V S^+ U^H.
bool pinv_gesvdj_fits(const OpFacts& f) {
  const Value* a = f.input(0);
  const auto m = matrix(a);
  return m && fp32_dense(a) && a->numel() > 0 && !f.bool_arg("hermitian", false) && tolerance_kernels(f) &&
         gesvdj_shape(*m);
}
Counts pinv_gesvdj_counts(const OpFacts& f) {
  const Value& a = *f.input(0);
  const Matrix m = *matrix(&a);
  Counts c{*tolerance_kernels(f), 0, 0, 0};
  c += gesvdj_launches(a);
  c += Counts{7, 0, 0, 0};
  c += factor_product_launches(*f.target, m.batch, m.cols, std::min(m.rows, m.cols), m.rows);
  return c;
}

// linalg_matrix_rank(A, atol, rtol), not hermitian: the tolerances (tolerance_kernels), the singular
// values, then the threshold and the count of values above it (5 kernels); empty: the tolerances
// and the zero rank filled (nothing to fill for an empty batch).
bool matrix_rank_fits(const OpFacts& f) {
  const Value* a = f.input(0);
  const auto m = matrix(a);
  if (!m || a->dtype != DType::kFloat32 || f.bool_arg("hermitian", false) || !tolerance_kernels(f)) return false;
  return a->numel() == 0 || (m->batch >= 1 && svd_launches(*a, false, false).has_value());
}
Counts matrix_rank_counts(const OpFacts& f) {
  const Value& a = *f.input(0);
  Counts c{*tolerance_kernels(f), 0, 0, 0};
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
// cond(A) (p absent: the 2-norm) and matrix_norm(A, ord) with ord "nuc", 2 or -2 (linalg_norm's
// matrix forms among them): the singular values, then one kernel (the ratio, sum, max or min). An
// empty A: one fill (the 2-norm's minimum of nothing raises: refused).
bool svd_norm_fits(const OpFacts& f) {
  const Value* a = f.input(0);
  if (!fp32_batch(a)) return false;
  if (f.op->name == "aten::linalg_cond") {
    if (!arg_absent(f, "p")) return false;
  } else {
    if (!matrix_norm_form(f)) return false;
    if (string_ord(f)) {
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
                "of a rectangular matrix + a memcpy (a kernel for a batch); empty: nothing (a full U or V with "
                "elements: 2, as svd's with some=False; an empty batch: nothing); svd with compute_uv as linalg_svd "
                "with full_matrices = !some",
                svd_fits)
          .compute(svd_counts)
          .evidence("sweep:linalg_sizes (svd, svd_full, svdvals: n 0 to 512 by batches (), 1, 2, 3, 2x3, 16, "
                    "64; m x n from 0 to 128), opinfo:linalg_svd, opinfo:linalg_svdvals, opinfo:svd (0x0), "
                    "opinfo_heldout4: linalg_svdvals of [0, 5, 5] and [0, 5, 2] (nothing), opinfo_heldout5: svd of "
                    "[0, 3], some=False (2, as linalg_svd's full); opinfo samples 15+ (unmeasured): svd of 3x3 to "
                    "5x5 matrices and batches of 3, and svd and linalg_svd of empty batches ([0, 3, 5], ...), "
                    "ATen's path composed of the measured linalg_svd (svd calls it; _linalg_svd_out fills only "
                    "a U or Vh that has elements)")
          .why("Up to 32 rows and columns ATen calls cuSOLVER's batched Jacobi SVD once for every matrix; "
               "past that the iterative gesvdj sweeps until the values converge, a count the values decide."));
  r.push_back(
      rule("linalg.pinv_svd")
          .ops({"aten::linalg_pinv", "aten::pinverse"})
          .when("float32 matrices up to 32x32, not hermitian: the tolerances (float ones and pinverse's rcond 2 "
                "fills; tensor ones 1 fill per tolerance missing, a given atol alone 2 fills + a comparison and a "
                "where unless atol is empty), the reduced SVD, 7 elementwise kernels, one matrix product; empty: the "
                "tolerances",
                pinv_fits)
          .compute(pinv_counts)
          .evidence("sweep:linalg_sizes (pinv, pinv_atol_rtol: m x n from 0 to 128, n to 512 by batches), "
                    "opinfo:linalg_pinv (rtol absent, 1.0 and a tensor; 5x5, 0x0), opinfo:pinverse, "
                    "opinfo_heldout2/3:linalg_pinv (0x0 with an rtol tensor: the atol fill only); an atol tensor "
                    "alone (unmeasured): get_atol_rtol's path as linalg.matrix_rank_svd counts it")
          .why("A pseudo-inverse puts its tolerances in tensors, takes the SVD, inverts the singular values above "
               "the tolerance and multiplies the factors back."));
  r.push_back(
      rule("linalg.pinv_gesvdj")
          .ops({"aten::linalg_pinv", "aten::pinverse"})
          .when("float32 row-major matrices past 32 rows or columns, square or with 2 to 8 of the other, not "
                "hermitian: the tolerances as up to 32, cuSOLVER's gesvdj per matrix (square 22 kernels + 6 memcpy "
                "+ 3 memset, else 24 + 2 per smaller dim, + 1 wide, and 4 memcpy), each Jacobi sweep 4 kernels per "
                "round of 16-column blocks + 2 and a memcpy the host waits for, run the typical number of sweeps, "
                "ATen's copy and checks (3 kernels + 2 memcpy, 3 for one matrix), 7 elementwise kernels, one "
                "matrix product",
                pinv_gesvdj_fits)
          .compute(pinv_gesvdj_counts)
          .data_dependent("gesvdj sweeps until the values converge: counted, the sweeps a random matrix of that "
                          "order took (median of sweep:linalg_sizes: 1 at order 2, 3 at 3-4, 4 at 5-8, 6 at 33-65, "
                          "7 at 100, 8 at 128, 9 at 256, 10 at 512); each sweep more or fewer is 4 kernels per "
                          "round + 2 and a memcpy; a zero matrix skips the scaling and every sweep (2 kernels "
                          "fewer); a sweep that does not converge falls back to gesvd")
          .evidence("sweep:linalg_sizes (pinv, pinv_atol_rtol past 32: n 33 to 512 by batches (), 1, 2, 16, 64, "
                    "2x3; m x n to 128 x 2 - 8), opinfo_heldout*:linalg_pinv_singular ([3, 50], [50, 3], [50, 50] of "
                    "rank 0-2: 0 to 10 sweeps)")
          .why("Past 32 rows or columns ATen calls cuSOLVER's iterative Jacobi SVD, which sweeps over the "
               "matrix until its values converge, reading a norm back after each sweep; then the pseudo-inverse "
               "inverts the values and multiplies the factors back."));
  r.push_back(rule("linalg.matrix_rank_svd")
                  .ops({"aten::linalg_matrix_rank"})
                  .when("float32 matrices up to 32x32, not hermitian: the tolerances as for pinv, the singular "
                        "values, 5 kernels to threshold and count; empty: the tolerances + the zero rank (none for "
                        "an empty batch)",
                        matrix_rank_fits)
                  .compute(matrix_rank_counts)
                  .evidence("sweep:linalg_sizes (matrix_rank: m x n from 0 to 128, n to 512 by batches), "
                            "opinfo:linalg_matrix_rank, opinfo_heldout3:linalg_matrix_rank (rtol=1.0: the float "
                            "overload, 5x5); opinfo samples 15+ (unmeasured): an atol tensor alone ([], [2], [1, 1] "
                            "and empty [0]), ATen's get_atol_rtol (the default rtol and a zero filled, "
                            "where(atol > 0, ...)) before the measured path")
                  .why("The rank counts the singular values above a tolerance computed from the largest."));
  r.push_back(rule("linalg.svd_norms")
                  .ops({"aten::linalg_cond", "aten::linalg_matrix_norm", "aten::linalg_norm"})
                  .when("float32 matrices up to 32x32 (the two dims of `dim`): cond (2-norm), the nuclear norm "
                        "and ord +-2 (of matrix_norm, or of linalg_norm over two dims), the singular values + 1 "
                        "kernel; empty: 1 fill",
                        svd_norm_fits)
                  .compute(svd_norm_counts)
                  .evidence("sweep:linalg_sizes (cond, matrix_norm_nuc, matrix_norm_2, matrix_norm_-2, "
                            "matrix_norm_nuc_dims), opinfo:linalg_cond, opinfo:norm_nuc; opinfo samples 15+ "
                            "(unmeasured): linalg_norm of 5x5, 0x5, 5x0 and 0x0 matrices with ord nuc, 2, -2, which "
                            "LinearAlgebra.cpp's linalg_norm hands to linalg_matrix_norm with dim (0, 1)")
                  .why("The 2-norm condition number and the nuclear and spectral norms need the singular values, then "
                       "one ratio, sum, maximum or minimum."));
}

}  // namespace kc::torch2_11
