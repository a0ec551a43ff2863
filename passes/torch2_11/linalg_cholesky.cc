// The Cholesky family on the H200 over sizes and batches: linalg_cholesky(_ex), the deprecated
// cholesky, cholesky_solve and cholesky_inverse (ATen's cuda/linalg/BatchLinearAlgebraLib.cpp:
// cuSOLVER's potrf and potrs for one matrix; potrfBatched and MAGMA's potrs_batched for several).
// Float32, as measured: the sweep's linalg_sizes family (n from 0 to 512, batches (), 1, 2, 3, 2x3,
// 16, 64; right-hand sides of 1, 2 and n columns).
#include "passes/torch2_11/linalg_matrix.h"

namespace kc::torch2_11 {
namespace {

using namespace linalg;

int64_t ceil_div(int64_t a, int64_t b) {
  return (a + b - 1) / b;
}

// linalg_cholesky_ex(A, upper): an empty matrix fills its info only; else the column-major copy,
// potrf and the triangle cut out (triu/tril). One matrix: cuSOLVER's potrf, for the lower triangle
// the info set and one unblocked kernel after 2 memsets at every n measured (1 to 512); for the
// upper one an info set, reset and panel per 32 columns, with a trsm and a syrk before each panel
// after the first: 3 per 32 columns. A batch: potrfBatched, the pointer array (arange), then the
// same 3 kernels per 16 columns; the upper triangle is turned into the lower one and back (2). Up
// to 512 rows, the largest measured.
std::optional<Counts> cholesky_ex_launches(const Value& a, bool upper) {
  const Matrix m = *matrix(&a);
  if (a.numel() == 0) return Counts{1, 0, 0, 0};
  if (m.rows > 512) return std::nullopt;
  Counts c = column_major_copy(a);
  if (m.batch == 1) {
    c += upper ? Counts{static_cast<int>(3 * ceil_div(m.rows, 32)), 0, 0, 0} : Counts{2, 0, 2, 0};
  } else {
    c += Counts{static_cast<int>(1 + 3 * ceil_div(m.rows, 16) + (upper ? 2 : 0)), 0, 0, 0};
  }
  c += Counts{1, 0, 0, 0};
  return c;
}
bool cholesky_fits(const OpFacts& f) {
  const Value* a = f.input(0);
  const auto m = matrix(a);
  return m && a->dtype == DType::kFloat32 && m->rows == m->cols && m->batch >= 1 &&
         cholesky_ex_launches(*a, f.bool_arg("upper", false)).has_value();
}
// linalg_cholesky checks the infos after cholesky_ex. The deprecated cholesky (BatchLinearAlgebra.cpp)
// returns at once on an empty matrix; else the same column-major copy, cholesky_stub, check and
// triangle, the check before the triangle.
Counts cholesky_counts(const OpFacts& f) {
  const Value& a = *f.input(0);
  if (f.op->name == "aten::cholesky" && a.numel() == 0) return {};
  Counts c = *cholesky_ex_launches(a, f.bool_arg("upper", false));
  if (f.op->name != "aten::linalg_cholesky_ex") c += check_errors(matrix(&a)->batch);
  return c;
}

// potrs on n x n factors against k columns, after B's and the factor's column-major copies. One
// matrix: cuSOLVER's potrs, an info copy then the two triangular solves, by trsv for one column
// (an init and an exec kernel each: 5 with the info copy) or by cuBLAS's trsm, whose kernels (an
// init kernel and 2 trsm, or 2 trsm) cuBLAS picks by n and k: the measured ones are up to 8 rows
// (4), and up to 64 rows 2 columns (4) or n columns (3). A batch: MAGMA's potrs_batched
// (_cholesky_solve_helper_cuda takes MAGMA past one matrix), for one column a memset, the pointer
// array and two batched trsv at every n measured (to 512), for several two batched trsm up to 16
// rows (past 16 MAGMA's blocked trsm, unresolved). An upper factor U solves U^T then U where a
// lower one solves L then L^T: the same two solves, the transposed one first. MAGMA's potrs_batched
// calls the same routines for both triangles; cuBLAS's kernels for one matrix mirror each other
// (a 5x5 upper factor against 5 columns ran the lower one's 4), measured up to 8 rows with several
// columns only.
std::optional<Counts> potrs_launches(int64_t n, int64_t k, int64_t batch, bool upper) {
  if (batch == 1) {
    if (upper && (n > 8 || k == 1)) return std::nullopt;
    if (k == 1) return Counts{5, 0, 0, 0};
    if (n <= 8 || (n <= 64 && k == 2)) return Counts{4, 0, 0, 0};
    if (n <= 64 && k == n) return Counts{3, 0, 0, 0};
    return std::nullopt;
  }
  if (k == 1) return Counts{3, 0, 1, 0};
  if (n <= 16) return Counts{2, 0, 0, 0};
  return std::nullopt;
}
// A float32 factor of square matrices, in any layout (column_major_copy counts its copy).
bool square_factor(const Value* l) {
  const auto m = matrix(l);
  return m && l->dtype == DType::kFloat32 && m->rows == m->cols && m->batch >= 1;
}

// cholesky_solve(B, L): one matrix fills its infos first (an empty one then copies them: 2); then
// B's and L's column-major copies and potrs. A batch of empty matrices launches nothing.
std::optional<Counts> cholesky_solve_launches(const OpFacts& f) {
  const Value& b = *f.input(0);
  const Matrix l = *matrix(f.input(1));
  const Matrix bm = *matrix(&b);
  if (l.rows == 0) return l.batch == 1 ? Counts{2, 0, 0, 0} : Counts{};
  if (bm.cols == 0) return std::nullopt;
  const auto solve = potrs_launches(l.rows, bm.cols, l.batch, f.bool_arg("upper", false));
  if (!solve) return std::nullopt;
  Counts c = l.batch == 1 ? Counts{1, 0, 0, 0} : Counts{};
  c += column_major_copy(b);
  c += column_major_copy(*f.input(1));
  c += *solve;
  return c;
}
bool cholesky_solve_fits(const OpFacts& f) {
  const Value* b = f.input(0);
  const Value* l = f.input(1);
  const auto bm = matrix(b);
  if (!bm || !square_factor(l) || b->dtype != DType::kFloat32) return false;
  if (b->sizes.size() != l->sizes.size() || !std::equal(b->sizes.begin(), b->sizes.end() - 2, l->sizes.begin()))
    return false;
  return bm->rows == matrix(l)->rows && cholesky_solve_launches(f).has_value();
}

// cholesky_inverse(L): L copied into the column-major result (a memcpy when L already is, else a
// kernel) and the result cloned (a memcpy), the identity built in the result (one matrix: the
// infos filled too: 3 kernels; a batch 2), then potrs against it (k = n).
std::optional<Counts> cholesky_inverse_launches(const Value& l, bool upper) {
  const Matrix m = *matrix(&l);
  if (m.rows == 0) return m.batch == 1 ? Counts{2, 0, 0, 0} : Counts{};
  const auto solve = potrs_launches(m.rows, m.rows, m.batch, upper);
  if (!solve) return std::nullopt;
  Counts c = column_major_copy(l);
  c += m.batch == 1 ? Counts{3, 1, 0, 0} : Counts{2, 1, 0, 0};
  c += *solve;
  return c;
}
bool cholesky_inverse_fits(const OpFacts& f) {
  return square_factor(f.input(0)) && cholesky_inverse_launches(*f.input(0), f.bool_arg("upper", false)).has_value();
}

}  // namespace

void add_linalg_cholesky_rules(std::vector<LaunchRule>& r) {
  r.push_back(rule("linalg.cholesky_sizes")
                  .ops({"aten::linalg_cholesky_ex", "aten::linalg_cholesky", "aten::cholesky"})
                  .when("float32, up to 512 rows: the copy, potrf (one lower: 2 + 2 memsets; one upper: 3 per 32 "
                        "columns; a batch: 1 + 3 per 16 columns, + 2 upper) and the triangle; empty: the info "
                        "fill; linalg_cholesky and the deprecated cholesky + the info check (cholesky: nothing when "
                        "empty)",
                        cholesky_fits)
                  .compute(cholesky_counts)
                  .evidence("sweep:linalg_sizes (cholesky, cholesky_ex, cholesky_upper: n 0 to 512 by batches (), "
                            "1, 2, 3, 2x3, 16, 64), opinfo:linalg_cholesky, linalg_cholesky_ex, cholesky (5x5 upper "
                            "and lower, 0x0), opinfo_heldout3:cholesky (2 x 5x5 upper: potrfBatched)")
                  .why("Cholesky copies the matrices to column-major order and runs cuSOLVER's potrf, blocked in "
                       "panels of 32 columns (one upper matrix) or 16 (a batch), then cuts out the triangle."));
  r.push_back(rule("linalg.cholesky_solve")
                  .ops({"aten::cholesky_solve"})
                  .when("float32, a factor of B's batch: one matrix the infos filled, B's and the factor's "
                        "column-major copies, potrs (one column: trsv, 5; several: cuBLAS's trsm up to 64 rows as "
                        "measured; an upper factor up to 8 rows, several columns); a batch MAGMA's potrs_batched "
                        "(one column: 3 + 1 memset; several up to 16 rows: 2), either triangle",
                        cholesky_solve_fits)
                  .compute([](const OpFacts& f) { return *cholesky_solve_launches(f); })
                  .evidence("sweep:linalg_sizes (cholesky_solve: n 0 to 512 by batches with B of 1, 2 and n "
                            "columns), opinfo:cholesky_solve, opinfo_heldout3:cholesky_solve (5x5 upper, row-major: "
                            "the factor's copy a kernel)")
                  .why("Solving from a Cholesky factor copies both operands to column-major order and solves the two "
                       "triangles with cuSOLVER's potrs, batched for several matrices."));
  r.push_back(
      rule("linalg.cholesky_inverse")
          .ops({"aten::cholesky_inverse"})
          .when("float32: the factor copied (a memcpy when column-major, else a kernel) and cloned (a "
                "memcpy), the identity (3 kernels, 2 for a batch), potrs against it as cholesky_solve counts "
                "it",
                cholesky_inverse_fits)
          .compute([](const OpFacts& f) { return *cholesky_inverse_launches(*f.input(0), f.bool_arg("upper", false)); })
          .evidence("sweep:linalg_sizes (cholesky_inverse: n 0 to 512 by batches), opinfo:cholesky_inverse, "
                    "opinfo_heldout3:cholesky_inverse (5x5 upper, row-major)")
          .why("The inverse from a Cholesky factor solves against the identity with potrs."));
}

}  // namespace kc::torch2_11
