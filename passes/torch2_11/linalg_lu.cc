// The LU family on the H200: lu_factor, lu, lu_unpack, lu_solve and solve over sizes and batches
// (ATen's cuda/linalg/BatchLinearAlgebra.cpp picks the library per call; native/BatchLinearAlgebra.cpp
// wraps it). Float32 only, as measured: the sweep's linalg_sizes family (n from 0 to 512, batches
// (), 1, 2, 3, 2x3, 16, 64; rectangular m x n from 0 to 128).
#include "passes/torch2_11/gemm_engine.h"
#include "passes/torch2_11/linalg_matrix.h"

namespace kc::torch2_11 {
namespace {

using namespace linalg;

// --- the factorization (lu_factor in cuda/linalg/BatchLinearAlgebra.cpp) ---

// MAGMA's batched getrf past 16 columns and rows factors in recursive panels whose widths MAGMA
// picks internally (sgetf2_fused_batched_kernel<nb>, trsm and GEMM updates per panel): its kernel
// count is not a formula of the shape we can read off ATen, so these are the counts measured per
// (rows, cols), identical for every batch measured (2 to 64), after the column-major copy. Outside
// these shapes the count stays unknown.
struct MagmaGetrf {
  int64_t rows, cols;
  int kernels;
};
constexpr MagmaGetrf kMagmaBlockedGetrf[] = {
    {33, 33, 26},    {48, 48, 39}, {64, 64, 39},  {65, 65, 50}, {100, 100, 106}, {128, 128, 97}, {256, 256, 229},
    {512, 512, 493}, {33, 64, 38}, {33, 128, 38}, {64, 33, 26}, {128, 33, 26},   {64, 128, 53},  {128, 64, 39},
};

// lu_factor's backend (default preference, MAGMA built in): square matrices go to cuSOLVER when
// there is one, when they have at most 16 rows, or at most 128 rows in at most 16 matrices; all
// else (every rectangular matrix, larger batches) to MAGMA's batched getrf. Inside the cuSOLVER
// branch one matrix takes cuSOLVER's getrf, a batch cuBLAS's batched getrf.
// The factorization's own launches after the column-major copy:
// - cuSOLVER getrf (one matrix): the info set, a memset, the pivoted panel and the pivots'
//   conversions: 6 kernels + 1 memset, for every n measured (1 to 512).
// - cuBLAS batched getrf: the pointer array (arange) and one getrf kernel: 2.
// - MAGMA, square up to 32 rows: the infos filled and one small-square kernel: 2.
// - MAGMA, at most 16 columns (tall) or rows (wide): infos filled, a memset, the pointer array, the
//   fused panel and the pivots' setup (4 kernels); a wide matrix's columns past its rows then take
//   a row swap and a triangular solve (6).
// - MAGMA, larger: kMagmaBlockedGetrf.
std::optional<Counts> getrf_launches(int64_t rows, int64_t cols, int64_t batch) {
  const bool square = rows == cols;
  if (square && (batch == 1 || rows <= 16 || (rows <= 128 && batch <= 16)))
    return batch == 1 ? Counts{6, 0, 1, 0} : Counts{2, 0, 0, 0};
  if (square && rows <= 32) return Counts{2, 0, 0, 0};
  if (std::min(rows, cols) <= 16) return rows > cols ? Counts{4, 0, 1, 0} : Counts{6, 0, 1, 0};
  for (const MagmaGetrf& g : kMagmaBlockedGetrf)
    if (g.rows == rows && g.cols == cols) return Counts{g.kernels, 0, 1, 0};
  return std::nullopt;
}
// linalg_lu_factor_ex(A): an empty matrix only fills its infos (one kernel; a batch of none is the
// empty-batch rule's), else A's column-major copy and the factorization.
std::optional<Counts> lu_factor_ex_launches(const Value& a) {
  const Matrix m = *matrix(&a);
  if (a.numel() == 0) return Counts{1, 0, 0, 0};
  const auto lib = getrf_launches(m.rows, m.cols, m.batch);
  if (!lib) return std::nullopt;
  Counts c = column_major_copy(a);
  c += *lib;
  return c;
}
bool fp32_matrices(const Value* v) {
  const auto m = matrix(v);
  return m && v->dtype == DType::kFloat32 && m->batch >= 1;
}
bool lu_factor_fits(const OpFacts& f) {
  const Value* a = f.input(0);
  if (!fp32_matrices(a) || !f.bool_arg("pivot", true) || !lu_factor_ex_launches(*a)) return false;
  return f.op->name != "aten::_lu_with_info" || !f.bool_arg("check_errors", false);
}
Counts lu_factor_counts(const OpFacts& f) {
  Counts c = *lu_factor_ex_launches(*f.input(0));
  if (f.op->name == "aten::linalg_lu_factor") c += check_errors(matrix(f.input(0))->batch);
  return c;
}

// --- unpacking (lu_unpack, linalg_lu) ---

// lu_unpack(LU, pivots): L's and U's triangles cut out (triu/tril), L's unit diagonal, the pivots
// turned into a permutation (arange, unpack kernel; a batch's permutation made contiguous: one
// copy more) and scattered into P: 7 kernels, 8 for a batch. No rows: only P's fill; no columns:
// the permutation and P (4, 5 for a batch).
Counts lu_unpack_launches(const Matrix& m) {
  const int batch_copy = m.batch > 1 ? 1 : 0;
  if (m.rows == 0) return {1, 0, 0, 0};
  if (m.cols == 0) return {4 + batch_copy, 0, 0, 0};
  return {7 + batch_copy, 0, 0, 0};
}
bool lu_unpack_fits(const OpFacts& f) {
  const Value* lu = f.input(0);
  return fp32_matrices(lu) && (lu->numel() == 0 || column_major(*lu)) && f.bool_arg("unpack_data", true) &&
         f.bool_arg("unpack_pivots", true);
}
// An empty batch ([0, m, n]): linalg_lu's lu_factor_ex returns at once (its infos are empty) and
// lu_unpack's triangles, diagonal, pivot unpacking (its iteration over the batch is empty) and P
// launch nothing; only the identity permutation, arange(m), is built before it is expanded to the
// empty batch (one kernel; none without rows), as the determinants build their pivots' arange.
bool lu_empty_batch(const OpFacts& f) {
  const Value* a = f.input(0);
  const auto m = matrix(a);
  if (!m || a->dtype != DType::kFloat32 || a->sizes.size() < 3 || m->batch != 0) return false;
  if (f.op->name == "aten::linalg_lu") return f.bool_arg("pivot", true);
  return f.bool_arg("unpack_data", true) && f.bool_arg("unpack_pivots", true);
}
// linalg_lu(A): lu_factor_ex, then the unpacking, with the factors copied once more into the L or
// U that does not share LU's storage (a memcpy when the matrix is one row or one column, nothing
// for 1x1).
bool linalg_lu_fits(const OpFacts& f) {
  const Value* a = f.input(0);
  return fp32_matrices(a) && f.bool_arg("pivot", true) && lu_factor_ex_launches(*a);
}
Counts linalg_lu_counts(const OpFacts& f) {
  const Value& a = *f.input(0);
  const Matrix m = *matrix(&a);
  Counts c = *lu_factor_ex_launches(a);
  c += lu_unpack_launches(m);
  if (a.numel() == 0 || (m.rows == 1 && m.cols == 1)) return c;
  c += (m.rows == 1 || m.cols == 1) ? Counts{0, 1, 0, 0} : Counts{1, 0, 0, 0};
  return c;
}

// --- solving from the factors (lu_solve_kernel) ---

enum class LuSolvePath { kBatchedCublas, kLoopedCusolver, kTriangular };
// lu_solve_kernel's heuristic for n x n factors, k right-hand sides and `batch` matrices.
LuSolvePath lu_solve_path(int64_t n, int64_t k, int64_t batch, bool adjoint) {
  if (n == k) return n <= 16 ? LuSolvePath::kBatchedCublas : LuSolvePath::kTriangular;
  if (n <= 8) return LuSolvePath::kBatchedCublas;
  if (n <= 64) {
    if (batch <= 2 && (k <= 64 || adjoint || n <= 32)) return LuSolvePath::kLoopedCusolver;
    return k <= 8 ? LuSolvePath::kBatchedCublas : LuSolvePath::kTriangular;
  }
  if (n <= 128 && k <= 2) return batch <= 2 ? LuSolvePath::kLoopedCusolver : LuSolvePath::kBatchedCublas;
  return LuSolvePath::kTriangular;
}
// cuBLAS's batched trsm works in blocks of 64 rows: one trsm kernel for the first block, then per
// further block an offset of the pointer arrays, the update of the rows below (GEMV or GEMM, with
// pointer offsets) and the next block's trsm: 1 + 4 per block after the first. Measured up to 4
// blocks (256 rows).
int64_t ceil_div(int64_t a, int64_t b) {
  return (a + b - 1) / b;
}
std::optional<int> trsm_batched_kernels(int64_t n) {
  const int64_t blocks = ceil_div(n, 64);
  if (blocks > 4) return std::nullopt;
  return static_cast<int>(1 + 4 * (blocks - 1));
}
// One linalg_solve_triangular on operands already in column-major order: triangular_solve_kernel
// takes cuBLAS's batched trsm (the two pointer arrays by arange, then the trsm) unless there are at
// most 8 matrices of 64 rows or more; cuBLAS then loops its own blocked trsm, whose kernels (trsm
// and GEMM per block, by cuBLAS's own choice) were not resolved: unknown.
std::optional<Counts> batched_trsm_launches(int64_t n, int64_t batch) {
  if (batch <= 8 && n >= 64) return std::nullopt;
  const auto trsm = trsm_batched_kernels(n);
  if (!trsm) return std::nullopt;
  return Counts{2 + *trsm, 0, 0, 0};
}
// The solve's launches after B's column-major copy:
// - batched cuBLAS (lu_solve_batched_cublas): the pointer arrays (2 aranges), laswp, two batched
//   trsm: 5 up to 64 rows, 13 up to 128 (two blocks each).
// - looped cuSOLVER getrs: the infos filled, then per matrix an info copy, laswp and the two
//   triangular solves (an init kernel and an exec kernel each): 6; transposed with several
//   right-hand sides, 2 trsm kernels without inits: 4 (measured up to 64 rows).
// - triangular (lu_solve_triangular): the permutation (arange, unpack; made contiguous for a
//   batch), then either its inverse by a scatter onto an arange (a memcpy of the permutation),
//   B permuted out of place (a copy and a scatter; for one column both copies are memcpys) and
//   copied into the result before the two triangular solves; or, transposed, the two solves and B
//   permuted back (a memcpy clone, a scatter).
std::optional<Counts> lu_solve_kernel_launches(int64_t n, int64_t k, int64_t batch, bool adjoint) {
  switch (lu_solve_path(n, k, batch, adjoint)) {
    case LuSolvePath::kBatchedCublas: {
      const auto trsm = trsm_batched_kernels(n);
      if (!trsm) return std::nullopt;
      return Counts{3 + 2 * *trsm, 0, 0, 0};
    }
    case LuSolvePath::kLoopedCusolver: {
      const bool trsm = adjoint && k > 1;
      if (trsm && n > 64) return std::nullopt;
      return Counts{static_cast<int>(1 + (trsm ? 4 : 6) * batch), 0, 0, 0};
    }
    case LuSolvePath::kTriangular: {
      const auto t = batched_trsm_launches(n, batch);
      if (!t) return std::nullopt;
      Counts c = adjoint ? Counts{3, 1, 0, 0} : k == 1 ? Counts{5, 3, 0, 0} : Counts{7, 1, 0, 0};
      if (batch > 1) c += Counts{1, 0, 0, 0};
      c += *t;
      c += *t;
      return c;
    }
  }
  return std::nullopt;
}

// lu_solve(B, LU, pivots) and linalg_lu_solve(LU, pivots, B, left, adjoint): B (its transpose for
// left=False, which also flips adjoint) copied into the column-major result, then the solve. LU in
// column-major order as lu_factor returns it, with B's batch dims (no broadcasting).
struct LuSolveArgs {
  const Value* lu = nullptr;
  const Value* b = nullptr;
  bool left = true, adjoint = false;
};
LuSolveArgs lu_solve_args(const OpFacts& f) {
  if (f.op->name == "aten::lu_solve") return {f.input(1), f.input(0), true, false};
  return {f.input(0), f.input(2), f.bool_arg("left", true), f.bool_arg("adjoint", false)};
}
bool same_batch(const Value& a, const Value& b) {
  return a.sizes.size() == b.sizes.size() && std::equal(a.sizes.begin(), a.sizes.end() - 2, b.sizes.begin());
}
std::optional<Counts> lu_solve_launches(const LuSolveArgs& a) {
  const Matrix lu = *matrix(a.lu);
  const Matrix b = *matrix(a.b);
  if (a.b->numel() == 0) return Counts{};
  const int64_t k = a.left ? b.cols : b.rows;
  const auto solve = lu_solve_kernel_launches(lu.rows, k, b.batch, a.left ? a.adjoint : !a.adjoint);
  if (!solve) return std::nullopt;
  Counts c = column_major_copy(a.left ? *a.b : transposed(*a.b));
  c += *solve;
  return c;
}
bool lu_solve_fits(const OpFacts& f) {
  const LuSolveArgs a = lu_solve_args(f);
  const auto lu = matrix(a.lu);
  const auto b = matrix(a.b);
  if (!lu || !b || a.lu->dtype != DType::kFloat32 || a.b->dtype != DType::kFloat32) return false;
  if (lu->rows != lu->cols || b->batch < 1 || !same_batch(*a.lu, *a.b)) return false;
  if (a.lu->numel() != 0 && !column_major(*a.lu)) return false;
  return (a.left ? b->rows : b->cols) == lu->rows && lu_solve_launches(a);
}
Counts lu_solve_counts(const OpFacts& f) {
  return *lu_solve_launches(lu_solve_args(f));
}

// linalg_solve(A, B, left) / linalg_solve_ex: lu_factor_ex of A (linalg_solve checks its infos
// right after), then linalg_lu_solve. A vector B (B of A's shape less its last dim) is solved as
// one column: its copy a memcpy, and the solution copied back into the vector result (a memcpy
// for one matrix or 1-vectors, a copy kernel for a batch; nothing for one 1x1 system). An empty A
// only fills the infos (and checks them).
struct SolveArgs {
  const Value* a = nullptr;
  const Value* b = nullptr;
  bool vector = false;
};
SolveArgs solve_args(const OpFacts& f) {
  SolveArgs s{f.input(0), f.input(1), false};
  if (s.a && s.b && s.b->sizes.size() + 1 == s.a->sizes.size())
    s.vector = s.b->sizes.size() == 1 || std::equal(s.b->sizes.begin(), s.b->sizes.end(), s.a->sizes.begin());
  return s;
}
std::optional<Counts> solve_launches(const OpFacts& f) {
  const SolveArgs s = solve_args(f);
  const Matrix m = *matrix(s.a);
  const bool left = f.bool_arg("left", true);
  Counts c;
  if (m.rows == 0) {
    c = Counts{1, 0, 0, 0};
  } else {
    const auto factor = lu_factor_ex_launches(*s.a);
    if (!factor) return std::nullopt;
    c = *factor;
  }
  if (f.op->name == "aten::linalg_solve") c += check_errors(m.batch);
  if (m.rows == 0) return c;
  const Matrix b = s.vector ? Matrix{m.rows, 1, m.batch} : *matrix(s.b);
  const int64_t k = s.vector ? 1 : (left ? b.cols : b.rows);
  const auto solve = lu_solve_kernel_launches(m.rows, k, m.batch, !left);
  if (!solve) return std::nullopt;
  if (s.vector) {
    c += Counts{0, 1, 0, 0};
  } else {
    c += column_major_copy(left ? *s.b : transposed(*s.b));
  }
  c += *solve;
  if (s.vector && !(m.batch == 1 && m.rows == 1))
    c += m.batch == 1 || m.rows == 1 ? Counts{0, 1, 0, 0} : Counts{1, 0, 0, 0};
  return c;
}
bool solve_fits(const OpFacts& f) {
  const SolveArgs s = solve_args(f);
  const auto m = matrix(s.a);
  if (!m || !s.b || !fp32_dense(s.a) || !fp32_dense(s.b) || m->rows != m->cols || m->batch < 1) return false;
  if (!s.vector) {
    const auto b = matrix(s.b);
    if (!b || !same_batch(*s.a, *s.b) || (f.bool_arg("left", true) ? b->rows : b->cols) != m->rows) return false;
  }
  return solve_launches(f).has_value();
}
Counts solve_counts(const OpFacts& f) {
  return *solve_launches(f);
}

// --- inverses and determinants, built on the factorization ---

// linalg_inv_ex(A): the identity built (zeros and its diagonal), lu_factor_ex of A, then lu_solve's
// path against the identity (n columns, already column-major: no copy); an empty matrix fills its
// infos only. linalg_inv then checks them.
std::optional<Counts> inv_launches(const Value& a, bool check) {
  const Matrix m = *matrix(&a);
  // A batch of no matrices has no infos to fill; the check reduces none and reads its flag.
  if (m.batch == 0) return check ? kCheckBatchedErrors : Counts{};
  Counts c;
  if (a.numel() == 0) {
    c = Counts{1, 0, 0, 0};
  } else {
    const auto factor = lu_factor_ex_launches(a);
    const auto solve = lu_solve_kernel_launches(m.rows, m.rows, m.batch, false);
    if (!factor || !solve) return std::nullopt;
    c = Counts{2, 0, 0, 0};
    c += *factor;
    c += *solve;
  }
  if (check) c += check_errors(m.batch);
  return c;
}
bool inv_fits(const OpFacts& f) {
  const Value* a = f.input(0);
  const auto m = matrix(a);
  return m && a->dtype == DType::kFloat32 && m->rows == m->cols &&
         inv_launches(*a, f.op->name == "aten::linalg_inv").has_value();
}

// matrix_power(A, n): n = 0 the identity (one matrix: 2 kernels and 2 memcpys; a batch: 3 and 1);
// n = 2, 3 one and two matmuls; above, binary powering: a squaring per bit after the first and a
// product per further set bit; n < 0 linalg_inv (with its check) first, then the same for -n. Each
// product is one cuBLAS call on row-major operands (mm, or bmm for a batch) as the GEMM rules
// count it. An empty matrix: nothing past the inverse's info handling (an empty batch's: any() of
// no infos, a fill, and its flag read back).
int matmuls_for_power(int64_t n) {
  if (n == 2) return 1;
  if (n == 3) return 2;
  int squarings = 0, products = 0;
  bool have_result = false;
  for (int64_t e = n; e > 0; e /= 2) {
    if (e != n) ++squarings;
    if (e % 2 == 1) {
      if (have_result) ++products;
      have_result = true;
    }
  }
  return squarings + products;
}
std::optional<Counts> matrix_power_launches(const OpFacts& f) {
  const Value& a = *f.input(0);
  const Matrix m = *matrix(&a);
  const int64_t n = f.int_arg("n", 1);
  if (n == 1) return std::nullopt;  // a copy, not measured
  if (n == 0) {
    // eye(n) is built before it is copied into the result, even into an empty batch.
    if (a.numel() == 0) return m.rows > 0 ? Counts{2, 0, 0, 0} : Counts{};
    return m.batch == 1 ? Counts{2, 2, 0, 0} : Counts{3, 1, 0, 0};
  }
  Counts c;
  if (n < 0) {
    const auto inv = inv_launches(a, true);
    if (!inv) return std::nullopt;
    c += *inv;
  }
  if (a.numel() == 0) return c;
  GemmCall square;  // A @ A, both row-major
  square.m = square.k = square.n = m.rows;
  square.batched = m.batch > 1;
  square.b = m.batch;
  const Counts one = cublas_launches(f.target->tables.gemm, square);
  for (int i = 0; i < matmuls_for_power(n < 0 ? -n : n); ++i) c += one;
  return c;
}
bool matrix_power_fits(const OpFacts& f) {
  const Value* a = f.input(0);
  const auto m = matrix(a);
  return m && fp32_dense(a) && m->rows == m->cols && matrix_power_launches(f).has_value();
}

// det / slogdet / logdet (linalg_lu_factor_ex on A's transpose): the factors copied (a memcpy when
// A is row-major, its transpose being column-major already), the factorization's own launches,
// then the diagonal's product (det) or log-sum and the sign from the pivots, built on an arange of
// the pivots: 9 kernels for det, 13 for slogdet, 16 for logdet (its NaN for negative signs). An
// empty matrix still runs the sign and product kernels on empty operands: 7, 8, 11.
std::optional<Counts> det_launches(const OpFacts& f) {
  const Value& a = *f.input(0);
  const Matrix m = *matrix(&a);
  const std::string& op = f.op->name;
  const bool det = op == "aten::linalg_det", slogdet = op == "aten::linalg_slogdet";
  if (a.numel() == 0) return Counts{det ? 7 : slogdet ? 8 : 11, 0, 0, 0};
  const int tail = det ? 9 : slogdet ? 13 : 16;
  const auto lib = getrf_launches(m.rows, m.cols, m.batch);
  if (!lib) return std::nullopt;
  Counts c = column_major_copy(transposed(a));
  c += *lib;
  c += Counts{tail, 0, 0, 0};
  return c;
}
bool det_fits(const OpFacts& f) {
  const auto m = matrix(f.input(0));
  return fp32_matrices(f.input(0)) && m->rows == m->cols && det_launches(f).has_value();
}

}  // namespace

void add_linalg_lu_rules(std::vector<LaunchRule>& r) {
  r.push_back(
      rule("linalg.lu_factor")
          .ops({"aten::linalg_lu_factor_ex", "aten::_lu_with_info", "aten::linalg_lu_factor"})
          .when("float32, pivoting: the column-major copy (a memcpy for one row or column) and the backend ATen "
                "picks: one square matrix cuSOLVER getrf (6 + 1 memset); a batch of square ones up to 16 rows, "
                "or up to 128 in at most 16 matrices, cuBLAS's batched getrf (2); else MAGMA's batched getrf "
                "(square up to 32 rows 2; at most 16 columns 4 + 1 memset, 16 rows 6 + 1 memset; larger the "
                "measured shapes); empty: the infos filled (1); linalg_lu_factor + the info check",
                lu_factor_fits)
          .compute(lu_factor_counts)
          .evidence("sweep:linalg_sizes (lu_factor, lu_factor_ex: n 0 to 512 by batches (), 1, 2, 3, 2x3, 16, 64; "
                    "m x n from 0 to 128 by batches (), 2, 3, 16), opinfo:linalg_lu_factor, linalg_lu_factor_ex")
          .why("LU copies the matrices to column-major order and factors them with cuSOLVER (one), batched cuBLAS "
               "(small batches) or MAGMA (rectangular, large batches), whose panel count grows with the size."));
  r.push_back(rule("linalg.lu_empty_batch")
                  .ops({"aten::lu_unpack", "aten::linalg_lu"})
                  .when("float32, a batch of no matrices, pivoting: the identity permutation's arange (1 kernel; "
                        "none with no rows)",
                        lu_empty_batch)
                  .compute([](const OpFacts& f) {
                    return matrix(f.input(0))->rows > 0 ? Counts{1, 0, 0, 0} : Counts{};
                  })
                  .evidence("sweep:linalg_sizes (lu_unpack: [2, 0, 3]: only the pivots' unpack kernel, one per "
                            "matrix; [3, 64, 0]: arange among 5), opinfo_heldout:linalg_det (0x1x1: the pivots' "
                            "arange alone); opinfo samples 15+ (unmeasured): lu_unpack and linalg_lu of [0, 3, 5] to "
                            "[0, 7, 5], BatchLinearAlgebra.cpp's lu_unpack_out over no matrices")
                  .why("With no matrices nothing is factored or unpacked; lu_unpack still builds the identity "
                       "permutation it would scatter into P before expanding it to the (empty) batch."));
  r.push_back(rule("linalg.lu_unpack")
                  .ops({"aten::lu_unpack"})
                  .when("float32 column-major factors (as lu_factor returns them): 7 kernels, 8 for a batch; no "
                        "rows 1, no columns 4 (5 for a batch)",
                        lu_unpack_fits)
                  .compute([](const OpFacts& f) { return lu_unpack_launches(*matrix(f.input(0))); })
                  .evidence("sweep:linalg_sizes (lu_unpack: m x n from 0 to 128 by batches (), 2, 3, 16), "
                            "opinfo:lu_unpack")
                  .why("lu_unpack cuts L and U out of the factors, sets L's unit diagonal and turns the pivots into "
                       "a permutation matrix."));
  r.push_back(rule("linalg.lu")
                  .ops({"aten::linalg_lu"})
                  .when("float32, pivoting: as lu_factor_ex, then lu_unpack and one copy of the factors (a memcpy "
                        "for one row or column, none for 1x1)",
                        linalg_lu_fits)
                  .compute(linalg_lu_counts)
                  .evidence("sweep:linalg_sizes (lu: n 0 to 256 by batches (), 1, 2, 3, 2x3, 16, 64; m x n from 0 "
                            "to 128), opinfo:linalg_lu")
                  .why("linalg_lu factors the matrix and unpacks the factors into P, L and U."));
  r.push_back(rule("linalg.lu_solve")
                  .ops({"aten::linalg_lu_solve", "aten::lu_solve"})
                  .when("float32 column-major factors with B's batch: B's column-major copy, then the solve "
                        "lu_solve_kernel picks: batched cuBLAS (5; 13 past 64 rows), looped cuSOLVER getrs (1 + 6 "
                        "per matrix; 4 transposed with several columns) or two triangular solves (10 + 1 memcpy, 6 "
                        "+ 1 transposed; + 1 for a batch) while their trsm is cuBLAS's batched one (+ 4 per 64 "
                        "rows past the first, to 256)",
                        lu_solve_fits)
                  .compute(lu_solve_counts)
                  .evidence("sweep:linalg_sizes (lu_solve with adjoint False and True, lu_solve_legacy: n 0 to 512 "
                            "by batches (), 1, 2, 3, 2x3, 16, 64 with B of 1, 2 and n columns), "
                            "opinfo:linalg_lu_solve, lu_solve")
                  .why("Solving from an LU factorization copies B to column-major order, applies the row swaps and "
                       "solves the two triangles, with the library ATen picks by size, batch and columns."));
  r.push_back(rule("linalg.solve")
                  .ops({"aten::linalg_solve_ex", "aten::linalg_solve"})
                  .when("float32 square A, B of A's batch (a matrix, or a vector): lu_factor_ex of A, the info "
                        "check (linalg_solve), B's copy and the solve as lu_solve counts it (left=False: "
                        "transposed); a vector's solution copied back; empty A: the infos filled (and checked)",
                        solve_fits)
                  .compute(solve_counts)
                  .evidence("sweep:linalg_sizes (solve, solve_ex, solve_left_false: n 0 to 512 by batches (), 1, "
                            "2, 3, 2x3, 16, 64 with B of 1, 2 and n columns and vectors), opinfo:linalg_solve, "
                            "linalg_solve_ex")
                  .why("A linear solve factors A with LU, copies B to column-major order and solves the two "
                       "triangles; linalg_solve reads the info back to raise on a singular matrix."));
  r.push_back(
      rule("linalg.inv_sizes")
          .ops({"aten::linalg_inv_ex", "aten::linalg_inv"})
          .when("float32 square matrices: the identity (2), lu_factor_ex as counted above, lu_solve's path "
                "against the identity (no copy); empty: the info fill; linalg_inv + the info check (a batch of "
                "none: the check only)",
                inv_fits)
          .compute([](const OpFacts& f) { return *inv_launches(*f.input(0), f.op->name == "aten::linalg_inv"); })
          .evidence("sweep:linalg_sizes (inv, inv_ex: n 0 to 512 by batches (), 1, 2, 3, 2x3, 16, 64), "
                    "opinfo:linalg_inv, linalg_inv_ex")
          .why("An inverse solves A X = I: it builds the identity, factors A with LU and solves the two "
               "triangles with the library lu_solve picks."));
  r.push_back(rule("linalg.matrix_power")
                  .ops({"aten::linalg_matrix_power"})
                  .when("float32 square matrices: n = 0 the identity (2 + 2 memcpy; a batch 3 + 1); n >= 2 one "
                        "matmul per squaring and per further set bit of n (mm or bmm as the GEMM rules count it); "
                        "n < 0 linalg_inv first (an empty batch: its check only, 1 + 1 memcpy)",
                        matrix_power_fits)
                  .compute([](const OpFacts& f) { return *matrix_power_launches(f); })
                  .evidence("sweep:linalg_sizes (matrix_power_0, matrix_power_3, matrix_power_-2: n 0 to 512 by "
                            "batches (), 1, 2, 3, 2x3, 16, 64), opinfo:linalg_matrix_power, opinfo_heldout4: "
                            "linalg_matrix_power of [0, 2, 2], n = -2 and -4 (FillFunctor<bool> + a device-to-host "
                            "copy)")
                  .why("A matrix power multiplies by repeated squaring: one matrix product per bit of the exponent and "
                       "per further set bit; a negative power inverts first."));
  r.push_back(rule("linalg.det_sizes")
                  .ops({"aten::linalg_det", "aten::linalg_slogdet", "aten::logdet"})
                  .when("float32 square matrices: the factors' copy (a memcpy for row-major A), the "
                        "factorization lu_factor picks, then det 9, slogdet 13, logdet 16 kernels; empty: 7, 8, 11",
                        det_fits)
                  .compute([](const OpFacts& f) { return *det_launches(f); })
                  .evidence("sweep:linalg_sizes (det, slogdet, logdet: n 0 to 512 by batches (), 1, 2, 3, 2x3, "
                            "16, 64), opinfo:linalg_det, linalg_slogdet, logdet")
                  .why("A determinant factors the matrix's transpose with LU and multiplies the diagonal, with the "
                       "sign from the pivots; the log forms take logs and signs elementwise."));
}

}  // namespace kc::torch2_11
