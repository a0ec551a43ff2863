// Matrix factorizations, solves and decompositions on the H200 (ATen's
// native/cuda/linalg/BatchLinearAlgebra.cpp and BatchLinearAlgebraLib.cpp, native/BatchLinearAlgebra.cpp,
// native/LinearAlgebra.cpp). ATen copies each matrix to column-major order for the library
// (cloneBatchedColumnMajor), zeroes the infos, calls cuSOLVER, MAGMA or batched cuBLAS, and for the
// non-`_ex` ops reads the infos back to check them (the host waits). The families measured over
// sizes and batches (the sweep's linalg_sizes family) have their own files: LU, solves, inverses
// and determinants (linalg_lu.cc), SVD and the norms on it (linalg_svd.cc), Cholesky
// (linalg_cholesky.cc), QR (linalg_qr.cc), symmetric eigendecompositions (linalg_eigh.cc); this
// file keeps the rest and the rules' order. Their counts here were measured on single float32
// matrices of up to 12 rows (PyTorch's OpInfo samples, data/results/opinfo: `opinfo:<op>` names
// the sample set) unless the evidence names the sweep; a shape, batch or dtype outside what a
// rule names was not measured and stays unknown. Where the launches depend on the values (geev's
// Schur iterations, Bunch-Kaufman pivoting, matrix_exp's degree), the rule counts the measured
// sample's path at its one measured size, and says which.
#include <cmath>
#include <limits>

#include "passes/torch2_11/linalg_matrix.h"
#include "passes/torch2_11/reduce_config.h"

namespace kc::torch2_11 {
namespace {

using namespace linalg;

bool arg_none(const OpFacts& f, const char* name) {
  const Arg* a = f.arg(name);
  return !a || a->kind == Arg::Kind::kNone;
}

constexpr Counts kLuFactor{7, 0, 1, 0};
// lu_factor's backend for square matrices (get_lu_factor_solver_backend): one matrix goes to
// cuSOLVER's looped getrf; a batch goes to cuBLAS's batched getrf while n * n stays under 8400 *
// batch (2 matrices; 18600 * batch for more), which every measured batch did: the column-major
// copy, the pointer array (arange) and one getrfBatched kernel, no memset. Measured 2 x 5x5.
bool lu_batched_cublas(const Matrix& m) {
  if (m.rows != m.cols || m.batch < 2) return false;
  const int64_t threshold = (m.batch == 2 ? 8400 : 18600) * m.batch;
  return m.rows * m.rows <= threshold;
}
constexpr Counts kLuBatchedCublas{3, 0, 0, 0};
// lu_solve_kernel's choice for n x n factors and k right-hand sides (batch 1): batched cuBLAS (the
// pivots unpacked by 2 kernels, laswp, two trsm) up to n = 8 and for square B up to 16; looped
// cuSOLVER getrs between 8 and 32 rows (infos set up by 2 kernels, laswp, 4 trsv kernels for one
// right-hand side). Measured: n = 3, 5, 6 (batched cuBLAS, k = 1, 3, 4, 5), n = 12 with k = 12
// (batched cuBLAS) and k = 1 (cuSOLVER); other k between 9 and 32 rows stay unknown.
std::optional<Counts> lu_solve_launches(int64_t n, int64_t k) {
  if (n <= 8 || (n == k && n <= 16)) return Counts{5, 0, 0, 0};
  if (n <= 12 && k == 1) return Counts{7, 0, 0, 0};
  return std::nullopt;
}

// --- QR: ormqr (geqrf, QR and householder_product are in linalg_qr.cc) ---

// ormqr (BatchLinearAlgebra.cpp's ormqr_out_helper, apply_ormqr in BatchLinearAlgebraLib.cpp): the
// reflectors copied to column-major order unless they are, tau to contiguous unless it is, the other
// matrix copied into the column-major result (a memcpy when it already is); the info filled, then
// cuSOLVER's ormqr per matrix: an info copy and one kernel applying the reflectors (measured on
// other matrices up to 5x5); with no reflectors or an empty other matrix, the info copy alone.
std::optional<Counts> ormqr_launches(const OpFacts& f) {
  const Value* input = f.input(0);
  const Value* tau = f.input(1);
  const Value* other = f.input(2);
  const auto m = matrix(input);
  const auto om = matrix(other);
  if (!m || !om || !tau || input->dtype != DType::kFloat32 || other->dtype != DType::kFloat32 || tau->sizes.empty())
    return std::nullopt;
  const bool work = other->numel() > 0 && tau->sizes.back() > 0;
  if (work && (om->rows > 5 || om->cols > 5)) return std::nullopt;
  Counts c{input->numel() > 0 && !column_major(*input) ? 1 : 0, 0, 0, 0};
  if (tau->numel() > 0 && !tau->contiguous()) c += Counts{1, 0, 0, 0};
  c += column_major_copy(*other);
  c += Counts{static_cast<int>(1 + m->batch * (work ? 2 : 1)), 0, 0, 0};
  return c;
}

// --- LU family (the rules over sizes and batches are in linalg_lu.cc) ---

// linalg_solve of one n x n float32 matrix against b, as tensorsolve calls it: LU, B's copy (a
// vector: 2 memcpys), lu_solve; the info check when `check`.
Counts solve_launches(int64_t n, const Value& b, bool check) {
  Counts c = kLuFactor;
  if (b.sizes.size() == 1) {
    c += Counts{0, 2, 0, 0};
    c += *lu_solve_launches(n, 1);
  } else {
    c += column_major_copy(b);
    c += *lu_solve_launches(n, matrix(&b)->cols);
  }
  if (check) c += kCheckErrors;
  return c;
}
// linalg_tensorsolve(A, B, dims): A reshaped to [B.numel(), rest] and solved against B flattened
// to a vector (linalg_solve); `dims` first moves those dims of A to the end, so the reshape copies.
bool tensorsolve_fits(const OpFacts& f) {
  const Value* a = f.input(0);
  const Value* b = f.input(1);
  if (!fp32_dense(a) || !fp32_dense(b) || b->sizes.empty()) return false;
  const int64_t n = b->numel();
  return n >= 1 && n <= 12 && a->numel() == n * n && lu_solve_launches(n, 1).has_value();
}
Counts tensorsolve_counts(const OpFacts& f) {
  const int64_t n = f.input(1)->numel();
  Value vector;
  vector.sizes = {n};
  vector.strides = {1};
  Counts c = solve_launches(n, vector, true);
  if (!arg_none(f, "dims")) c += Counts{1, 0, 0, 0};
  return c;
}

// linalg_inv_ex(A): the identity built (zeros + diagonal), LU of A, lu_solve against it; an empty
// matrix fills its info only, an empty batch launches nothing. linalg_inv then checks the infos
// (with an empty batch: one kernel and the read of the flag).
int64_t tensorinv_n(const OpFacts& f) {
  const Value* a = f.input(0);
  const int64_t ind = f.int_arg("ind", 2);
  if (!a || ind < 1 || ind >= static_cast<int64_t>(a->sizes.size())) return -1;
  int64_t rows = 1, cols = 1;
  for (size_t i = 0; i < a->sizes.size(); ++i) (static_cast<int64_t>(i) < ind ? rows : cols) *= a->sizes[i];
  return rows == cols ? rows : -1;
}
bool inv_fits(const OpFacts& f) {
  const Value* a = f.input(0);
  if (f.op->name == "aten::linalg_tensorinv") {
    const int64_t n = tensorinv_n(f);
    return fp32_dense(a) && n >= 1 && n <= 12;
  }
  const auto m = matrix(a);
  if (!m || !fp32_dense(a) || m->rows != m->cols) return false;
  if (a->numel() == 0) return true;
  // A batch: batched cuBLAS's LU and solve, measured on 2 x 5x5.
  if (m->batch > 1) return lu_batched_cublas(*m) && m->rows <= 5;
  return m->batch == 1 && m->rows <= 12;
}
Counts inv_counts(const OpFacts& f) {
  const bool check = f.op->name != "aten::linalg_inv_ex";  // linalg_inv, tensorinv, matrix_power
  const Value* a = f.input(0);
  if (a->numel() == 0) {
    const auto m = matrix(a);
    if (m->batch == 0) return check ? Counts{1, 1, 0, 1} : Counts{};
    Counts c{1, 0, 0, 0};
    if (check) c += kCheckErrors;
    return c;
  }
  const int64_t n = f.op->name == "aten::linalg_tensorinv" ? tensorinv_n(f) : matrix(a)->rows;
  const bool batched = f.op->name != "aten::linalg_tensorinv" && matrix(a)->batch > 1;
  Counts c{2, 0, 0, 0};
  c += batched ? kLuBatchedCublas : kLuFactor;
  // LU's column-major copy of A is a memcpy when A already is (a 1x1 matrix).
  if (!batched && f.op->name != "aten::linalg_tensorinv" && column_major(*a)) c += Counts{-1, 1, 0, 0};
  c += *lu_solve_launches(n, n);
  if (check) c += batched ? kCheckBatchedErrors : kCheckErrors;
  return c;
}

// --- triangular solves (batched cuBLAS trsm below 64 rows) ---

// triangular_solve(B, A): A and B copied to column-major, the pointer arrays built (2 kernels),
// one batched trsm. linalg_solve_triangular(A, B) passes a row-major A as its transpose (no copy).
bool trsm_fits(const OpFacts& f) {
  const bool legacy = f.op->name == "aten::triangular_solve";
  const Value* a = f.input(legacy ? 1 : 0);
  const Value* b = f.input(legacy ? 0 : 1);
  const auto am = matrix(a);
  const auto bm = matrix(b);
  if (!am || !bm || !fp32_dense(a) || !fp32_dense(b) || am->rows != am->cols || am->rows >= 64) return false;
  // Measured: triangular_solve of an empty batch launches nothing; linalg_solve_triangular with
  // an empty B but a non-empty A still builds A's pointer array (below).
  if (a->numel() == 0) return legacy;
  if (b->numel() == 0) return true;
  // left=False solves X A = B with cuBLAS's right-side trsm: the same copies and pointer arrays.
  if (legacy && (f.bool_arg("transpose", false))) return false;
  // triangular_solve_kernel loops over the matrices only from 64 rows on; below, one batched trsm
  // takes any batch (measured 1 and 2), here with A and B of the same batch dims.
  const std::vector<int64_t> a_batch(a->sizes.begin(), a->sizes.end() - 2);
  const std::vector<int64_t> b_batch(b->sizes.begin(), b->sizes.end() - 2);
  const int64_t b_side = legacy || f.bool_arg("left", true) ? bm->rows : bm->cols;
  return a_batch == b_batch && b_side == am->rows;
}
Counts trsm_counts(const OpFacts& f) {
  const bool legacy = f.op->name == "aten::triangular_solve";
  const Value* a = f.input(legacy ? 1 : 0);
  const Value* b = f.input(legacy ? 0 : 1);
  if (a->numel() == 0) return {};
  // get_device_pointers is an arange over the batch's matrices: of none for an empty B (no
  // kernel), of A's for A (one); cuBLAS's trsm of no column returns without a launch.
  if (b->numel() == 0) return legacy ? Counts{} : Counts{1, 0, 0, 0};
  Counts c = legacy ? column_major_copy(*a) : Counts{};
  c += column_major_copy(*b);
  c += Counts{3, 0, 0, 0};
  return c;
}

// --- matrix norms (the SVD-based ones are in linalg_svd.cc) ---

// The Frobenius norm (of matrix_norm, or of linalg_norm's string ord) is one reduction over both
// dims (linalg_vector_norm); over an empty input, a fill of the result (nothing when the result is
// empty too).
bool fro_fits(const OpFacts& f) {
  const Value* a = f.input(0);
  return a && a->sizes.size() >= 2 && string_ord(f) && matrix_norm_form(f) && f.text_arg("ord", "fro") == "fro" &&
         (a->numel() == 0 || !reduction_splits(f));
}
Counts fro_counts(const OpFacts& f) {
  if (f.input(0)->numel() > 0) return {1, 0, 0, 0};
  for (int id : f.op->outputs)
    if (id >= 0 && f.graph->values[id].numel() == 0) return {};
  return {1, 0, 0, 0};
}

// matrix_norm with a numeric ord of 1 or infinity (either sign) over two dims, in either order (and
// linalg_norm's matrix form, which calls it): LinearAlgebra.cpp's linalg_matrix_norm takes the
// 1-norm along dim[0] (dim[1] for infinity, whose dims it swaps: a vector_norm, one reduce kernel)
// and the max or min along the other (one more). Each reduce kernel would zero its semaphores first
// where it splits across blocks, which no measured size did (up to 128 rows and columns, 262144
// elements, the last two dims). Empty: no element to sum gives a fill of the sums, then the
// reduction (2); nothing left to take the max of, one kernel; the min of nothing raises (refused).
// Two dims other than the last two (a batch dim among them) reduce with other strides: counted
// when neither reduction splits (reduce_config) and the input is not empty (measured only over the
// last two). ord 2 goes through the singular values (linalg_svd.cc).
struct OneInfNorm {
  int64_t summed = 0, reduced = 0;  // the dim the 1-norm runs along, the dim the max/min runs along
  bool min = false;
};
// Whether either of the two reductions of a one/infinity norm over dims d0 (summed) and d1 (max or
// min) of `a` splits across blocks: the 1-norm over `a` as it is laid out, the max over the
// contiguous sums (d0 kept as a size-1 dim or dropped).
bool one_inf_splits(const Device& device, const Value& a, int64_t d0, int64_t d1, bool keepdim) {
  if (reduce_splits_across_blocks(device, a.sizes, a.strides, {d0})) return true;
  std::vector<int64_t> sizes = a.sizes;
  int64_t reduced = d1;
  if (keepdim) {
    sizes[d0] = 1;
  } else {
    sizes.erase(sizes.begin() + d0);
    if (d0 < d1) --reduced;
  }
  std::vector<int64_t> strides(sizes.size(), 1);
  for (size_t i = sizes.size(); i-- > 1;) strides[i - 1] = strides[i] * std::max<int64_t>(sizes[i], 1);
  return reduce_splits_across_blocks(device, sizes, strides, {reduced});
}
std::optional<OneInfNorm> one_inf_norm(const OpFacts& f) {
  const Value* a = f.input(0);
  if (!a || a->sizes.size() < 2 || string_ord(f) || !matrix_norm_form(f)) return std::nullopt;
  const auto o = numeric_ord(f);
  if (!o || !(std::abs(*o) == 1.0 || std::isinf(*o))) return std::nullopt;
  const Arg* d = f.arg("dim");
  const int64_t r = static_cast<int64_t>(a->sizes.size());
  int64_t d0 = r - 2, d1 = r - 1;
  if (d && !d->ints.empty()) {
    if (d->ints.size() != 2) return std::nullopt;
    d0 = (d->ints[0] % r + r) % r;
    d1 = (d->ints[1] % r + r) % r;
  }
  if (d0 == d1) return std::nullopt;
  if (a->sizes[d0] > 128 || a->sizes[d1] > 128 || a->numel() > 262144) return std::nullopt;
  if (std::isinf(*o)) std::swap(d0, d1);
  if (std::min(d0, d1) != r - 2 || std::max(d0, d1) != r - 1) {
    if (a->numel() == 0 || one_inf_splits(f.target->device, *a, d0, d1, f.bool_arg("keepdim", false)))
      return std::nullopt;
  }
  OneInfNorm n;
  n.summed = a->sizes[d0];
  n.reduced = a->sizes[d1];
  n.min = *o < 0;
  if (n.reduced == 0 && n.min) return std::nullopt;
  return n;
}
Counts one_inf_norm_counts(const OpFacts& f) {
  return one_inf_norm(f)->reduced == 0 ? Counts{1, 0, 0, 0} : Counts{2, 0, 0, 0};
}

// --- eigen decompositions ---

// geev's launches depend on how many iterations the values need: only the empty case, where the
// complex results are still allocated, filled and converted.
bool empty_square(const OpFacts& f) {
  const Value* a = f.input(0);
  const auto m = matrix(a);
  return m && a->dtype == DType::kFloat32 && m->rows == m->cols && a->numel() == 0;
}

// geev (cuSOLVER's Xgeev, linalg_eig_cusolver_xgeev) of float32 n x n matrices, one call per
// matrix: the permutations of the balancing found and read back (2 fills + 2 kernels, 2 copies), the
// balancing itself (3 kernels) with a NaN check (1) read back, the Hessenberg reduction (a Householder
// reflector per column: larfg, the gemvs and trmvs of its update, 11 kernels a column with the
// blocked reflectors' last product), the Schur form iterated on the host (the matrix copied back and
// forth), and for eig the eigenvectors (trevc's blocked triangular solves, normalised); ATen first
// checks the input is finite (eig only) and afterwards whether every eigenvalue is real (each read
// by the host), then builds the complex results. Over sweep:linalg_sizes (n 2 to 32 by batches):
// eigvals 11n + 2 kernels a matrix + 6, 15 copies a matrix + 3 (+ 1 for one matrix), 2 memsets a
// matrix; eig 11n + 30 kernels a matrix (+ 3 past 16, the eigenvectors in two blocks) + 13, 21
// copies a matrix + 4 (+ 1), 3 memsets. The balancing repeats its scaling until it settles: each
// further round (+6 kernels, +2 copies the host waits for) the values decide; most matrices took one
// (a second in 6 of the 48 single matrices measured).
bool eig_small(const OpFacts& f) {
  const Value* a = f.input(0);
  const auto m = matrix(a);
  return m && fp32_dense(a) && m->rows == m->cols && m->rows >= 2 && m->rows <= 32 && m->batch >= 1 &&
         m->batch <= 1'000'000;
}
Counts eig_counts(const OpFacts& f) {
  const Matrix m = *matrix(f.input(0));
  const int b = static_cast<int>(m.batch), n = static_cast<int>(m.rows);
  const int one = b == 1 ? 1 : 0;  // one matrix's infos are checked by a copy, not a reduction
  // Host syncs: the device-to-host copies (15 and 10 of one matrix's 26 and 19).
  if (f.op->name == "aten::linalg_eigvals") return {6 + b * (11 * n + 2), 3 + 15 * b + one, 2 * b, 2 + 8 * b};
  return {13 + b * (11 * n + 30 + (n > 16 ? 3 : 0)), 4 + 21 * b + one, 3 * b, 3 + 12 * b};
}

// LDL^T with Bunch-Kaufman pivoting (cuSOLVER's sytrf, one call per matrix) of n x n float32
// matrices, measured at n = 5 for one and two matrices: the lower triangle copied (tril), then per
// column a block-size decision read back by the host (a kernel and a device-to-host copy) and the
// column's update, then the pivots adjusted and the info set: 2n + 2 kernels and n copies a
// matrix. A row interchange adds a swap decision (a kernel and a copy) at its column: it depends on
// the values, so the count is that of a matrix that needs none (the measured batch of two; the
// single 5x5 sample swapped twice). linalg_ldl_factor then checks the infos (one matrix: a copy
// kernel, 2 copies; a batch: an any-reduction and a copy).
bool ldl_factor_fits(const OpFacts& f) {
  const Value* a = f.input(0);
  const auto m = matrix(a);
  return m && fp32_dense(a) && m->rows == 5 && m->cols == 5 && m->batch >= 1 && m->batch <= 2 &&
         !f.bool_arg("hermitian", false);
}
Counts ldl_factor_counts(const OpFacts& f) {
  const auto m = matrix(f.input(0));
  const int b = static_cast<int>(m->batch), n = static_cast<int>(m->rows);
  Counts c{1 + b * (2 * n + 2), b * n, 0, b * n};
  if (f.op->name == "aten::linalg_ldl_factor") c += b == 1 ? Counts{1, 2, 0, 1} : Counts{1, 1, 0, 1};
  return c;
}

// ldl_solve (BatchLinearAlgebra.cpp's linalg_ldl_solve_out, cuSOLVER's sytrs in BatchLinearAlgebraLib.cpp):
// the factor cloned to column-major order unless it is (a kernel), B copied into the column-major
// result (a memcpy when B already is and has the result's batch, else a kernel), the pivots
// converted to int64 and the info filled (2 kernels); then sytrs once per matrix: an info copy, per
// column of an n x n factor with 1x1 pivots a rank-1 update (n - 1) and the pivot's inverse (n),
// then the back substitution, one GEMM and n - 2 GEMVs against several columns (3n - 1 in all), a
// GEMV and its split-K reduction per step against one column (4n - 2); one device-to-host copy the
// host waits for. 2x2 pivots would run other kernels: the counts are the 1x1 path every measured
// factorization took (the sweep's SPD matrices, OpInfo's samples), a path the values decide.
struct LdlSolve {
  int64_t n = 0, k = 0, batch = 1;
  bool batch_broadcast = false;  // B lacks the batch dims of the factor
};
std::optional<LdlSolve> ldl_solve_shape(const OpFacts& f) {
  const Value* ld = f.input(0);
  const Value* piv = f.input(1);
  const Value* b = f.input(2);
  const auto m = matrix(ld);
  const auto bm = matrix(b);
  if (!m || !bm || !piv || ld->dtype != DType::kFloat32 || b->dtype != DType::kFloat32 || !piv->contiguous() ||
      f.bool_arg("hermitian", false))
    return std::nullopt;
  if (m->rows != m->cols || m->rows < 1 || bm->rows != m->rows || bm->cols < 1) return std::nullopt;
  const size_t lr = ld->sizes.size(), br = b->sizes.size();
  const bool same = lr == br && std::equal(ld->sizes.begin(), ld->sizes.end() - 2, b->sizes.begin());
  if (!same && br != 2 && lr != 2) return std::nullopt;
  LdlSolve s;
  s.n = m->rows;
  s.k = bm->cols;
  s.batch = std::max(m->batch, bm->batch);
  s.batch_broadcast = !same && br == 2;
  return s;
}
Counts ldl_solve_counts(const OpFacts& f) {
  const LdlSolve s = *ldl_solve_shape(f);
  Counts c{column_major(*f.input(0)) ? 0 : 1, 0, 0, 0};
  c += s.batch_broadcast ? Counts{1, 0, 0, 0} : column_major_copy(*f.input(2));
  c += Counts{2, 0, 0, 0};
  const int per_matrix = static_cast<int>(s.k == 1 ? 4 * s.n - 2 : 3 * s.n - 1);
  const int b = static_cast<int>(s.batch);
  c += Counts{per_matrix * b, b, 0, b};
  return c;
}

// matrix_exp (mexp_impl): the 1-norm of each matrix read by the host picks the Taylor degree; above
// the largest theta, the degree-18 polynomial of the matrix scaled by 2^-s (3 GEMMs for A^2, A^3,
// A^6, the linear combinations, 2 more GEMMs) is squared s times, s = ceil(log2(norm / theta_18)).
// A batch is grouped by degree first (a sort and a unique_consecutive of the degrees). The norms are
// the values': the counts are those of the measured samples (5x5 entries in [-9, 9], norms near
// 30: degree 18 with 4 squarings in float32, 5 in bfloat16 whose theta is double precision's).
bool matrix_exp_fits(const OpFacts& f) {
  const Value* a = f.input(0);
  const auto m = matrix(a);
  return m && a->contiguous() && (a->dtype == DType::kFloat32 || a->dtype == DType::kBFloat16) &&
         a->sizes.size() <= 3 && m->rows == 5 && m->cols == 5 && (m->batch == 1 || m->batch == 5);
}
Counts matrix_exp_counts(const OpFacts& f) {
  const bool one = matrix(f.input(0))->batch == 1;
  if (f.dtype == DType::kFloat32) return one ? Counts{51, 15, 0, 3} : Counts{49, 12, 0, 2};
  return one ? Counts{52, 15, 0, 3} : Counts{52, 11, 0, 2};
}

// --- products ---

// multi_dot (LinearAlgebra.cpp multi_dot_impl): two matrices are one mm; three are two mms in the
// cheaper order (A(BC) when (a c)(b + d) > (b d)(a + c) for a x b, b x c, c x d, else (AB)C); more
// follow matrix_chain_order's dynamic programme, one mm per product. Every intermediate is a fresh
// contiguous matrix.
bool multi_dot_fits(const OpFacts& f) {
  if (f.inputs.size() < 2) return false;
  const Value* first = f.input(0);
  if (!first) return false;
  for (size_t i = 0; i < f.inputs.size(); ++i) {
    const Value* v = f.input(static_cast<int>(i));
    if (!v || v->sizes.size() != 2 || v->dtype != first->dtype || (v->numel() != 0 && !v->contiguous())) return false;
    if (i > 0 && f.input(static_cast<int>(i) - 1)->sizes[1] != v->sizes[0]) return false;
  }
  return first->dtype == DType::kFloat32 || is_half(first->dtype);
}
// The mms of the product of matrices i..j (dims p[i] x p[i + 1] ... p[j] x p[j + 1]) split as
// `split` says.
Counts chain_launches(const OpFacts& f, const std::vector<int64_t>& p, const std::vector<std::vector<size_t>>& split,
                      size_t i, size_t j) {
  if (i == j) return {};
  const size_t k = split[i][j];
  Counts c = chain_launches(f, p, split, i, k);
  c += chain_launches(f, p, split, k + 1, j);
  // An empty product launches nothing; an empty contraction zero-fills its result.
  if (p[i] == 0 || p[j + 1] == 0) return c;
  c += p[k + 1] == 0 ? Counts{1, 0, 0, 0} : mm_launches(*f.target, p[i], p[k + 1], p[j + 1], f.input(0)->dtype);
  return c;
}
Counts multi_dot_counts(const OpFacts& f) {
  const Value* a = f.input(0);
  const Value* b = f.input(1);
  const size_t n = f.inputs.size();
  if (n == 2) {
    if (a->sizes[0] == 0 || b->sizes[1] == 0) return {};
    if (a->sizes[1] == 0) return {1, 0, 0, 0};  // the result zero-filled
    return mm_launches(*f.target, a->sizes[0], a->sizes[1], b->sizes[1], a->dtype);
  }
  std::vector<int64_t> p = {a->sizes[0]};
  for (size_t i = 0; i < n; ++i) p.push_back(f.input(static_cast<int>(i))->sizes[1]);
  std::vector<std::vector<size_t>> split(n, std::vector<size_t>(n, 0));
  if (n == 3) {
    const int64_t cost_1 = (p[0] * p[2]) * (p[1] + p[3]), cost_2 = (p[1] * p[3]) * (p[0] + p[2]);
    split[0][2] = cost_1 > cost_2 ? 0 : 1;
    split[1][2] = 1;
    split[0][1] = 0;
  } else {
    std::vector<std::vector<int64_t>> cost(n, std::vector<int64_t>(n, 0));
    for (size_t len = 1; len < n; ++len) {
      for (size_t i = 0; i + len < n; ++i) {
        const size_t j = i + len;
        cost[i][j] = std::numeric_limits<int64_t>::max();
        for (size_t k = i; k < j; ++k) {
          const int64_t q = cost[i][k] + cost[k + 1][j] + p[i] * p[k + 1] * p[j + 1];
          if (q < cost[i][j]) {
            cost[i][j] = q;
            split[i][j] = k;
          }
        }
      }
    }
  }
  return chain_launches(f, p, split, 0, n - 1);
}
// vecdot of two real vectors is a dot product: cuBLAS's dot kernel and a one-block reduction; of
// empty vectors, the zero result copied from the host.
bool vecdot_fits(const OpFacts& f) {
  const Value* x = f.input(0);
  const Value* y = f.input(1);
  return x && y && x->sizes.size() == 1 && y->sizes == x->sizes && x->dtype == y->dtype &&
         (x->dtype == DType::kFloat32 || is_half(x->dtype));
}
Counts vecdot_counts(const OpFacts& f) {
  return f.input(0)->numel() == 0 ? Counts{0, 1, 0, 0} : Counts{2, 0, 0, 0};
}
// vecdot of batches (rank 2 or more, x and y of one shape) is x.conj() * y summed over dim (conj is
// a view of a real tensor). Empty inputs are measured: the multiply launches nothing over no
// elements and the sum fills a non-empty result with zeros. Non-empty: the multiply (one
// elementwise kernel into a fresh contiguous product) and the sum over dim (one reduce kernel, even
// over a dim of size 1, as sum of a single element is; its semaphore memset where it splits).
bool batched_vecdot(const OpFacts& f) {
  const Value* x = f.input(0);
  const Value* y = f.input(1);
  return x && y && f.output(0) && x->sizes.size() >= 2 && y->sizes == x->sizes && x->dtype == y->dtype &&
         (x->dtype == DType::kFloat32 || is_half(x->dtype)) &&
         (x->numel() == 0 || (x->contiguous() && y->contiguous()));
}
Counts batched_vecdot_counts(const OpFacts& f) {
  const Value& x = *f.input(0);
  if (x.numel() == 0) return f.output(0)->numel() > 0 ? Counts{1, 0, 0, 0} : Counts{};
  const bool splits = reduce_splits_across_blocks(f.target->device, x.sizes, x.strides, {f.int_arg("dim", -1)});
  return {2, 0, splits ? 1 : 0, 0};
}
// A vector norm (linalg_norm with a numeric ord over one dim or a 1-D input: linalg_vector_norm):
// one reduce kernel; over an empty input the norm kernel fills the result instead (0, the sum of
// nothing), also one kernel. An infinite or negative ord over nothing raises (refused).
bool vector_norm_fits(const OpFacts& f) {
  const Value* x = f.input(0);
  const auto o = numeric_ord(f);
  if (!x || x->sizes.size() != 1 || !o) return false;
  if (x->numel() == 0) return *o >= 0 && !std::isinf(*o);
  return !reduction_splits(f);
}
// vander(x, N): x's points repeated N - 1 times (a copy kernel), their cumulative product along
// the powers (one scan kernel over several rows; CUB's device scan, 2 kernels, over the one row of
// a single point), then the column of ones filled and concatenated (2): 4 kernels, 5 for a single
// point; one point and N = 2 scans a single element (4). Empty x: nothing. Measured up to 100
// points and N = 100; several points with N = 2 were not.
std::optional<Counts> vander_launches(const OpFacts& f) {
  const Value* x = f.input(0);
  if (!x || x->dtype != DType::kFloat32) return std::nullopt;
  const int64_t points = x->numel();
  const int64_t n = f.int_arg("N", x->sizes.empty() ? 1 : x->sizes.back());
  if (n < 2 || n > 100 || points > 100) return std::nullopt;
  if (points == 0) return Counts{};
  if (points == 1) return n == 2 ? Counts{4, 0, 0, 0} : Counts{5, 0, 0, 0};
  if (n == 2) return std::nullopt;
  return Counts{4, 0, 0, 0};
}

// A batch of no matrices (a batch dim of 0): the factorization and the library call are skipped,
// and the infos, one per matrix, are empty, so filling them launches nothing (a single 0x0
// matrix still has one info to fill). What is left: the non-`_ex` forms' info check, which on
// an empty info reduces nothing (any() fills its false result) and reads one flag back; the
// determinants' pivots, arange(1, n + 1) built before the empty copy (nothing when n = 0);
// logdet's NaN for negative signs, a filled scalar.
bool empty_batch(const OpFacts& f) {
  const Value* a = f.input(0);
  const auto m = matrix(a);
  return m && a->sizes.size() >= 3 && m->batch == 0 && a->dtype == DType::kFloat32;
}
constexpr Counts kCheckEmptyInfos{1, 1, 0, 1};
Counts empty_batch_counts(const OpFacts& f) {
  const std::string& n = f.op->name;
  if (n == "aten::linalg_cholesky" || n == "aten::linalg_solve" || n == "aten::linalg_ldl_factor" ||
      n == "aten::linalg_lu_factor")
    return kCheckEmptyInfos;
  Counts c;
  if (n == "aten::linalg_det" || n == "aten::linalg_slogdet" || n == "aten::logdet") {
    if (matrix(f.input(0))->rows > 0) c += Counts{1, 0, 0, 0};
    if (n == "aten::logdet") c += Counts{1, 0, 0, 0};
  }
  return c;
}

}  // namespace

void add_linalg_rules(std::vector<LaunchRule>& r) {
  r.push_back(
      rule("linalg.empty_batch")
          .ops({"aten::cholesky", "aten::cholesky_inverse", "aten::cholesky_solve", "aten::linalg_cholesky_ex",
                "aten::linalg_cholesky", "aten::linalg_solve_ex", "aten::linalg_solve", "aten::lu_solve",
                "aten::linalg_lu_solve", "aten::linalg_lu_factor_ex", "aten::_lu_with_info", "aten::linalg_lu_factor",
                "aten::linalg_ldl_factor_ex", "aten::linalg_ldl_factor", "aten::linalg_det", "aten::linalg_slogdet",
                "aten::logdet"})
          .when("float32, a batch of no matrices: nothing; the info check of linalg_cholesky, linalg_solve, "
                "linalg_lu_factor and linalg_ldl_factor 1 kernel + 1 memcpy; det, slogdet: the pivots' arange (none "
                "for 0x0); logdet "
                "+ 1 fill",
                empty_batch)
          .compute(empty_batch_counts)
          .evidence("opinfo_heldout:cholesky, cholesky_inverse, cholesky_solve, linalg_cholesky(_ex), "
                    "linalg_solve(_ex), lu_solve, linalg_ldl_factor(_ex) (0x2x2 to 0x5x5), linalg_det, "
                    "linalg_slogdet, logdet (0x0x0, 0x1x1); the LU factor and solve ops, not measured empty, "
                    "take the same path as linalg_solve(_ex), which calls them")
          .why("A batch of no matrices skips the factorization, and its infos are empty: only the error check's "
               "read-back and the determinant's pivots are left."));
  add_linalg_lu_rules(r);
  add_linalg_svd_rules(r);
  add_linalg_cholesky_rules(r);
  add_linalg_qr_rules(r);
  add_linalg_eigh_rules(r);
  r.push_back(rule("linalg.ormqr")
                  .ops({"aten::ormqr"})
                  .when("float32: the copies to column-major order (a row-major other matrix: 1), the info fill, "
                        "per matrix cuSOLVER's info copy and one kernel (other matrices up to 5x5), the info copy "
                        "alone with no reflectors or an empty other matrix",
                        [](const OpFacts& f) { return ormqr_launches(f).has_value(); })
                  .compute([](const OpFacts& f) { return *ormqr_launches(f); })
                  .evidence("opinfo:ormqr (5x5 reflectors as geqrf returns them, row-major 5x5 other; left/right, "
                            "transposed or not), opinfo_heldout:ormqr (5x2 reflectors), opinfo_heldout3:ormqr (5x0 "
                            "reflectors, no reflectors: the info fill and copy)")
                  .why("ormqr copies the other matrix to column-major order, fills the infos and applies the "
                       "reflectors with one cuSOLVER call per matrix."));
  r.push_back(
      rule("linalg.tensorsolve")
          .ops({"aten::linalg_tensorsolve"})
          .when("float32, B of at most 12 elements: linalg_solve of the reshaped A against B as a vector, + a copy "
                "when dims is given",
                tensorsolve_fits)
          .compute(tensorsolve_counts)
          .evidence("opinfo:linalg_tensorsolve ([2, 3, 6] with and without dims, [3, 4, 4, 3])")
          .why(
              "tensorsolve reshapes A into a square matrix (copying it when dims moves axes) and calls linalg_solve."));
  r.push_back(
      rule("linalg.tensorinv")
          .ops({"aten::linalg_tensorinv"})
          .when("float32, up to 12x12 once reshaped: as linalg_inv, the identity (2), LU (7 + 1 memset), lu_solve "
                "(5) and the info check",
                inv_fits)
          .compute(inv_counts)
          .evidence("opinfo:linalg_inv, opinfo:linalg_inv_ex (5x5, 0x0, 0x5x5), opinfo:linalg_tensorinv (12x12), "
                    "opinfo_heldout:linalg_inv, linalg_inv_ex (2 x 5x5: getrf_semiwarp)")
          .why("An inverse solves A X = I: it builds the identity, factors A with LU and solves the two triangles; "
               "linalg_inv reads the info back to raise on a singular matrix."));
  r.push_back(rule("linalg.triangular_solve")
                  .ops({"aten::triangular_solve", "aten::linalg_solve_triangular"})
                  .when("float32 matrices below 64 rows, A and B of the same batch: A's (triangular_solve) and B's "
                        "column-major copies, the pointer arrays (2) and one batched trsm; an empty batch: nothing; "
                        "linalg_solve_triangular with an empty B: A's pointer array (1)",
                        trsm_fits)
                  .compute(trsm_counts)
                  .evidence("opinfo:triangular_solve (5x5 with B 5x1 and 5x3, empty batch), "
                            "opinfo:linalg_solve_triangular (3x3 with B 3x1), opinfo_heldout:triangular_solve (2 x 5x5 "
                            "with B 2 x 5x1), opinfo_heldout:linalg_solve_triangular (left=False: 1x1 with B 3x1, "
                            "trsm_batch_right_upper), opinfo_heldout7:linalg_solve_triangular (3x3 with B 3x0, 1x1 "
                            "with B 0x1 and left=False, 2 x 3x3 with B 2 x 3x0: one arange, 3 of 3)")
                  .why("Below 64 rows ATen solves triangles with cuBLAS's batched trsm: it copies the operands to "
                       "column-major order and builds the arrays of matrix pointers first."));
  r.push_back(rule("linalg.matrix_norm_one_inf")
                  .ops({"aten::linalg_matrix_norm", "aten::linalg_norm"})
                  .when("a numeric ord of 1 or infinity over two dims (either order; linalg_norm's over a matrix), "
                        "up to 128 rows and columns: the 1-norm along one dim, the max or min along the other, 2 "
                        "reduce kernels; empty: 2 (the sums filled), 1 with nothing to take the max of; dims other "
                        "than the last two: non-empty, neither reduction split",
                        [](const OpFacts& f) { return one_inf_norm(f).has_value(); })
                  .compute(one_inf_norm_counts)
                  .evidence("sweep:linalg_sizes (matrix_norm_1, matrix_norm_-1, matrix_norm_inf, matrix_norm_-inf: "
                            "m x n from 0 to 128 by batches (), 2, 3, 16), opinfo_heldout:linalg_matrix_norm "
                            "(bfloat16 [2, 2], ord inf, keepdim: NormOneOps + MaxOps reduce kernels), "
                            "opinfo_heldout3:linalg_matrix_norm (the same, dims (-1, 0)); opinfo samples 15+ "
                            "(unmeasured): matrix_norm of [2, 3, 2] over dims (-1, 0), and linalg_norm of 5x5, 0x5, "
                            "5x0 and 0x0 matrices with ord +-1, +-inf, LinearAlgebra.cpp's path (linalg_norm hands "
                            "a matrix to linalg_matrix_norm with dim (0, 1)) composed of the measured reductions")
                  .why("The 1- and infinity-norms of a matrix are the largest column or row sum of magnitudes: one "
                       "reduction for the sums, one for the largest."));
  r.push_back(rule("linalg.matrix_norm_fro")
                  .ops({"aten::linalg_matrix_norm", "aten::linalg_norm"})
                  .when("Frobenius norm (matrix_norm's, linalg_norm's ord 'fro'), one reduce kernel; empty: one "
                        "fill (none for an empty result)",
                        fro_fits)
                  .compute(fro_counts)
                  .evidence("sweep:linalg_sizes (matrix_norm_fro, matrix_norm_fro_dims: m x n from 0 to 128 by "
                            "batches), opinfo:linalg_matrix_norm (2x2, fro, dims (-2, -1) and (-1, 0)); opinfo "
                            "samples 15+ (unmeasured): linalg_norm 'fro' of 5x5, 0x5, 5x0 and 0x0 matrices, dim "
                            "None or (0, 1), float32 and bfloat16, which linalg_norm hands to linalg_matrix_norm")
                  .why("The Frobenius norm is one reduction over the two matrix dims."));
  r.push_back(rule("linalg.eig_empty")
                  .ops({"aten::linalg_eig", "aten::linalg_eigvals"})
                  .when("empty float32 matrices only (eig 5 kernels + 4 memcpy, eigvals 4 + 3; a batch of "
                        "several: 1 memcpy fewer, the infos reduced by any()): geev's launches on values depend on "
                        "its iterations",
                        empty_square)
                  .compute([](const OpFacts& f) {
                    Counts c = f.op->name == "aten::linalg_eig" ? Counts{5, 4, 0, 3} : Counts{4, 3, 0, 2};
                    if (matrix(f.input(0))->batch > 1) c.memcpy -= 1;
                    return c;
                  })
                  .evidence("sweep:linalg_sizes (eig, eigvals: 0x0 by batches (), 1, 2, 3, 2x3, 16, 64), "
                            "opinfo:linalg_eig, opinfo:linalg_eigvals (0x0, 0x5x5)")
                  .why("On empty matrices eig only allocates and fills its complex results and checks the infos."));
  r.push_back(rule("linalg.ldl_factor_empty")
                  .ops({"aten::linalg_ldl_factor", "aten::linalg_ldl_factor_ex"})
                  .when("empty float32 matrices only (ex 1 kernel; with the check 2 + 2 memcpy, 2 + 1 for a batch "
                        "of several): the pivoting decides the launches on values",
                        empty_square)
                  .compute([](const OpFacts& f) {
                    Counts c{1, 0, 0, 0};
                    if (f.op->name == "aten::linalg_ldl_factor") c += check_errors(matrix(f.input(0))->batch);
                    return c;
                  })
                  .evidence("sweep:linalg_sizes (ldl_factor, ldl_factor_ex: 0x0 by batches), "
                            "opinfo:linalg_ldl_factor, opinfo:linalg_ldl_factor_ex (0x0)")
                  .why("On an empty matrix the LDL factorization only fills its info (and checks it)."));
  r.push_back(rule("linalg.eig")
                  .ops({"aten::linalg_eig", "aten::linalg_eigvals"})
                  .when("float32 row-major n x n matrices, n from 2 to 32, any batch: cuSOLVER's geev per matrix, "
                        "its Schur iterations on the host; eigvals 11n + 2 kernels + 15 memcpy + 2 memset a matrix, "
                        "+ 6 kernels + 3 memcpy (4 for one matrix); eig 11n + 30 kernels (33 past 16) + 21 memcpy + 3 "
                        "memset a matrix, + 13 kernels + 4 memcpy (5)",
                        eig_small)
                  .compute(eig_counts)
                  .data_dependent("geev's balancing repeats its scaling until it settles: counted, one round a "
                                  "matrix (as most random matrices of sweep:linalg_sizes took); each further round "
                                  "is 6 kernels and 2 memcpy the host waits for")
                  .evidence("sweep:linalg_sizes (eig, eigvals: n 1 to 512 by batches (), 1, 2, 3, 2x3, 16, 64; n 2 "
                            "to 32: a further balancing round in 6 of 48 single matrices, 0.17 a matrix over all "
                            "2,232), opinfo:linalg_eig, opinfo:linalg_eigvals (5x5), "
                            "opinfo_heldout: linalg_eig, linalg_eigvals (2x5x5)")
                  .why("A general eigendecomposition balances the matrix, reduces it to Hessenberg form column by "
                       "column on the GPU and iterates the Schur form on the host, copying the matrix back and forth; "
                       "ATen then checks whether the eigenvalues are real and builds the complex results."));
  r.push_back(rule("linalg.ldl_factor")
                  .ops({"aten::linalg_ldl_factor", "aten::linalg_ldl_factor_ex"})
                  .when("float32 5x5 matrices, one or two, not hermitian: tril + per matrix 2n + 2 kernels and n "
                        "memcpy read by the host (no row interchange); linalg_ldl_factor + the info check",
                        ldl_factor_fits)
                  .compute(ldl_factor_counts)
                  .evidence("opinfo:linalg_ldl_factor, opinfo:linalg_ldl_factor_ex (5x5 with 2 interchanges: 2 "
                            "kernels and 2 memcpy more; 2x5x5 with none)")
                  .why("cuSOLVER's LDL factorization decides each column's pivot block on the GPU and reads the "
                       "decision back on the host before updating the column: a kernel pair and a host wait per "
                       "column."));
  r.push_back(
      rule("linalg.ldl_solve_empty")
          .ops({"aten::linalg_ldl_solve"})
          .when("an empty float32 factorization (0x0 matrices or an empty batch): nothing",
                [](const OpFacts& f) {
                  const Value* ld = f.input(0);
                  const auto m = matrix(ld);
                  return m && ld->dtype == DType::kFloat32 && ld->numel() == 0;
                })
          .counts({0, 0, 0, 0})
          .evidence("sweep:linalg_sizes (ldl_solve: n = 0 by batches, B of 1, 2 and 0 columns), opinfo_heldout5: "
                    "ldl_solve of a [0, 2, 2] factorization (nothing)")
          .why("Solving with no unknowns returns before any launch."));
  r.push_back(rule("linalg.ldl_solve")
                  .ops({"aten::linalg_ldl_solve"})
                  .when("float32 n x n factorizations, not hermitian, 1x1 pivots: the copies, the pivots' "
                        "conversion and the info fill, then per matrix 3n - 1 kernels (4n - 2 against one column) "
                        "and a device-to-host copy",
                        [](const OpFacts& f) { return ldl_solve_shape(f).has_value(); })
                  .compute(ldl_solve_counts)
                  .evidence("sweep:linalg_sizes (ldl_solve: n 0 to 512 by batches (), 1, 2, 3, 2x3, 16, 64, B of 1, "
                            "2 and n columns: 408 of 415 exact; 7 runs of over 2,000 kernels measured 1 or 2 kernels "
                            "fewer), opinfo:linalg_ldl_solve (5x5), opinfo_heldout:linalg_ldl_solve (2 x 5x5 "
                            "with B 5x5 and 2 x 5x5: 31 + 2 memcpy)")
                  .why("Solving from an LDL factorization copies B to column-major order, then per matrix applies "
                       "each column's rank-1 update and pivot inverse and back-substitutes with matrix-vector "
                       "products; the pivots' kind (1x1 or 2x2, the values decide) picks the kernels."));
  r.push_back(rule("linalg.matrix_exp")
                  .ops({"aten::matrix_exp"})
                  .when("float32 or bfloat16 5x5 matrices, one or a batch of 5, the measured samples' path (norms near "
                        "30: degree 18, 4 squarings in float32, 5 in bfloat16): 51 / 49 kernels (float32), 52 "
                        "(bfloat16), 11 to 15 memcpy; other norms take other degrees and squarings",
                        matrix_exp_fits)
                  .compute(matrix_exp_counts)
                  .evidence("opinfo:matrix_exp ([5, 5] and [5, 5, 5], float32 and bfloat16)")
                  .why("A matrix exponential reads each matrix's norm on the host to pick a Taylor degree, evaluates "
                       "the polynomial with a few matrix products, then squares the result once per halving of the "
                       "scaled norm."));
  r.push_back(rule("linalg.multi_dot")
                  .ops({"aten::linalg_multi_dot"})
                  .when("one mm per product in the cheapest order (as the mm rules count it); nothing for an empty "
                        "product, a fill for an empty contraction",
                        multi_dot_fits)
                  .compute(multi_dot_counts)
                  .evidence("sweep:linalg_sizes (multi_dot: chains [5, 4, 2], [5, 4, 0, 2], [5, 0, 2], [0, 4, 2], "
                            "[3, 4, 5, 6], [8, 8, 8, 8, 8], ...; float32 and bfloat16), "
                            "opinfo:linalg_multi_dot (1x2 by 2x1, 2x0 by 0x2, 0x2 by 2x2; float32 and bfloat16), "
                            "opinfo_heldout:linalg_multi_dot (three 2x2; 2x3, 3x4, 4x5: 2 GEMM kernels)")
                  .why("multi_dot multiplies the matrices pairwise in the order that costs the fewest "
                       "multiplications, one matrix product each."));
  r.push_back(
      rule("linalg.vecdot")
          .ops({"aten::linalg_vecdot"})
          .when("two real vectors: cuBLAS's dot kernel + a one-block reduction; empty: the zero copied from the host",
                vecdot_fits)
          .compute(vecdot_counts)
          .evidence("opinfo:linalg_vecdot (length 0 and 1, float32 and bfloat16), opset:dot")
          .why("The dot product of real vectors is cuBLAS's dot kernel and a reduction of its partial sums."));
  r.push_back(rule("linalg.vecdot.batched")
                  .ops({"aten::linalg_vecdot"})
                  .when("real contiguous batches of one shape (rank 2+): the multiply and the sum over dim (2 "
                        "kernels, + the sum's memset where it splits); empty: the sum's fill of zeros where the "
                        "result has elements, else nothing",
                        batched_vecdot)
                  .compute(batched_vecdot_counts)
                  .evidence("opinfo_heldout5: linalg_vecdot of [0, 1] along dim 0 (1 fill, float32 and bfloat16); "
                            "opinfo samples 15+ (unmeasured): [1, 1] to [5, 5] along dims 0, 1 and -1, float32 and "
                            "bfloat16, ATen's x.conj().mul(y).sum(dim) composed of the measured elementwise mul and "
                            "sum (opinfo:sum of a 0-d tensor: one reduce_kernel over a single element)")
                  .why("Past one dimension vecdot is an elementwise multiply and a sum over the dimension; over no "
                       "elements the multiply launches nothing and the sum fills the result with zeros."));
  r.push_back(rule("linalg.vander")
                  .ops({"aten::linalg_vander"})
                  .when("float32, up to 100 points and powers: 4 kernels (5 for one point and N > 2); empty: "
                        "nothing",
                        [](const OpFacts& f) { return vander_launches(f).has_value(); })
                  .compute([](const OpFacts& f) { return *vander_launches(f); })
                  .evidence("sweep:linalg_sizes (vander: x [5], [2, 5], [3, 2, 4], [1], [0], [100] with N absent, "
                            "3, 6), opinfo:linalg_vander (0-d and [1] with N = 2, [5])")
                  .why("A Vandermonde matrix is a cumulative product of the repeated points and a column of ones "
                       "concatenated to it."));
  r.push_back(rule("linalg.norm_vector_ord")
                  .ops({"aten::linalg_norm"})
                  .when("a vector with a numeric ord: one reduce kernel; empty (ord finite and >= 0): one fill",
                        vector_norm_fits)
                  .counts({1, 0, 0, 0})
                  .evidence("opinfo:linalg_norm, opinfo:linalg_norm_subgradients_at_zero (length 5, ord 0 and 0.5); "
                            "opinfo samples 15+ (unmeasured): length 0 with ord 0, 0.5, 1, 2, 3.5, float32 and "
                            "bfloat16, the norm kernel's fill as sweep:linalg_sizes measured it under matrix_norm_fro "
                            "of empty matrices (1 fill)")
                  .why("A vector norm of any order is one reduction kernel; over no elements the kernel's place is "
                       "taken by a fill of the result."));
}

}  // namespace kc::torch2_11
