// The H200 rules for matrix factorizations and solves (passes/torch2_11/linalg.cc), checked
// against PyTorch's OpInfo samples as the H200 ran them (data/results/opinfo), and the shapes
// outside what was measured left unknown.
#include <algorithm>
#include <catch2/catch.hpp>
#include <limits>

#include "analyzer/error.h"
#include "passes/graph_builder.h"
#include "passes/target.h"

using kc::DType;
using kc::test::GraphBuilder;
using kc::test::rules_only;

namespace {

void check(const kc::Launch& l, int kernels, int memcpy, int memset, int syncs = -1) {
  REQUIRE(l.known);
  CHECK(l.counts.kernels == kernels);
  CHECK(l.counts.memcpy == memcpy);
  CHECK(l.counts.memset == memset);
  if (syncs >= 0) CHECK(l.counts.host_syncs == syncs);
}
kc::Launch one(const std::string& op, std::vector<int64_t> sizes) {
  GraphBuilder b;
  b.op(op, {b.input(sizes)});
  return rules_only(b);
}
// A column-major matrix, as geqrf and lu_factor return their factors.
int factor(GraphBuilder& b, int64_t rows, int64_t cols) {
  return b.strided({rows, cols}, {1, rows});
}

}  // namespace

TEST_CASE("linalg: QR is geqrf + orgqr on one small matrix; no columns: the infos only; larger: unknown") {
  check(one("aten::linalg_qr", {5, 5}), 16, 0, 0);
  check(one("aten::linalg_qr", {4, 2}), 16, 0, 0);
  check(one("aten::linalg_qr", {5, 0}), 3, 0, 0);
  check(one("aten::geqrf", {5, 2}), 5, 0, 0);
  check(one("aten::geqrf", {5, 0}), 3, 0, 0);
  check(one("aten::geqrf", {0, 5, 5}), 1, 0, 0);      // an empty batch: the infos filled
  check(one("aten::linalg_qr", {0, 5, 2}), 2, 0, 0);  // and orgqr's info
  GraphBuilder r;
  r.op("aten::linalg_qr", {r.input({0, 5, 5})});
  r.arg_text("mode", "r");
  check(rules_only(r), 1, 0, 0);
  CHECK_FALSE(one("aten::linalg_qr", {64, 64}).known);  // cuSOLVER's blocked path: not measured
  GraphBuilder b;
  b.op("aten::linalg_qr", {b.input({5, 3})});
  b.arg_text("mode", "complete");
  check(rules_only(b), 19, 1, 0);  // geqrf 5, R, Q's zeros, the factors' memcpy, the infos, orgqr on 5x5 (12)
  GraphBuilder odd;
  odd.op("aten::linalg_qr", {odd.input({24, 3})});
  odd.arg_text("mode", "complete");
  CHECK_FALSE(rules_only(odd).known);  // orgqr on 24 x 24: between the measured bins
}

TEST_CASE("linalg: a batch of QRs takes batched cuBLAS's geqrf, then orgqr per matrix; a wide one larfb") {
  check(one("aten::linalg_qr", {2, 3, 2}), 24, 0, 0);  // 4 + 2 + 9 per matrix
  check(one("aten::linalg_qr", {3, 3, 2}), 33, 0, 0);
  check(one("aten::geqrf", {2, 3, 2}), 4, 0, 0);
  check(one("aten::geqrf", {2, 5}), 12, 0, 0);  // geqr2 on the panel, larfb on the 3 other columns
  check(one("aten::linalg_qr", {2, 5}), 23, 1, 0);
  check(one("aten::linalg_qr", {2, 2, 5}), 25, 0, 0);  // a batch of wide ones: Q copied out by a kernel
  check(one("aten::linalg_qr", {2, 8, 8}), 24, 0, 0);
  check(one("aten::linalg_qr", {2, 64, 8}), 28, 0, 0);  // 64 rows in 2 matrices: cuSOLVER looped, 2 + 3 each
  CHECK_FALSE(one("aten::geqrf", {128, 16}).known);     // past the unblocked shapes measured
}

TEST_CASE("linalg: a batch of no matrices leaves only the info check and the determinant's pivots") {
  check(one("aten::linalg_solve_ex", {0, 5, 5}), 0, 0, 0);
  check(one("aten::cholesky_inverse", {0, 2, 2}), 0, 0, 0);
  check(one("aten::linalg_cholesky_ex", {0, 5, 5}), 0, 0, 0);
  check(one("aten::linalg_cholesky", {0, 5, 5}), 1, 1, 0, 1);
  check(one("aten::linalg_ldl_factor", {0, 2, 2}), 1, 1, 0, 1);
  check(one("aten::linalg_det", {0, 0, 0}), 0, 0, 0);
  check(one("aten::linalg_det", {0, 1, 1}), 1, 0, 0);
  check(one("aten::logdet", {0, 0, 0}), 1, 0, 0);
  check(one("aten::logdet", {0, 3, 3}), 2, 0, 0);
  check(one("aten::cholesky_inverse", {0, 0}), 2, 0, 0);        // one 0x0 matrix still has an info to fill
  check(one("aten::linalg_lu_factor_ex", {0, 3, 3}), 0, 0, 0);  // what linalg_solve_ex runs on an empty batch
  check(one("aten::linalg_lu_factor", {0, 3, 3}), 1, 1, 0, 1);
}

TEST_CASE("linalg: Householder products run orgqr once per matrix") {
  GraphBuilder b;
  b.op("aten::linalg_householder_product", {b.input({5, 5}), b.input({5})});
  check(rules_only(b), 11, 0, 0);
  GraphBuilder two;
  two.op("aten::linalg_householder_product", {two.input({2, 1, 5, 5}), two.input({2, 1, 5})});
  check(rules_only(two), 20, 0, 0);
}

TEST_CASE("linalg: Cholesky's kernels differ by triangle; the non-ex forms read the info back") {
  GraphBuilder upper;
  upper.op("aten::linalg_cholesky_ex", {upper.input({5, 5})});
  upper.arg_bool("upper", true);
  check(rules_only(upper), 5, 0, 0);
  check(one("aten::linalg_cholesky_ex", {5, 5}), 4, 0, 2);
  check(one("aten::linalg_cholesky", {5, 5}), 5, 2, 2, 1);
  check(one("aten::linalg_cholesky", {0, 0}), 2, 2, 0, 1);
  check(one("aten::cholesky", {0, 0}), 0, 0, 0);
  check(one("aten::linalg_cholesky", {6, 6}), 5, 2, 2, 1);
  check(one("aten::cholesky_inverse", {5, 5}), 8, 1, 0);  // a row-major factor: its copy is a kernel
  check(one("aten::cholesky_inverse", {0, 0}), 2, 0, 0);
}

TEST_CASE("linalg: the deprecated cholesky and an upper factor take the measured paths of their parts") {
  GraphBuilder batch;
  batch.op("aten::cholesky", {batch.input({2, 5, 5})});
  batch.arg_bool("upper", true);
  check(rules_only(batch), 9, 1, 0);  // copy, potrfBatched (1 + 3 + 2 upper), any() check, triu
  GraphBuilder solve;
  solve.op("aten::cholesky_solve", {solve.input({5, 5}), solve.input({5, 5})});
  solve.arg_bool("upper", true);
  check(rules_only(solve), 7, 0, 0);  // infos, B's and U's copies (kernels), potrs 4
  GraphBuilder inverse;
  inverse.op("aten::cholesky_inverse", {inverse.input({5, 5})});
  inverse.arg_bool("upper", true);
  check(rules_only(inverse), 8, 1, 0);
  GraphBuilder large;
  large.op("aten::cholesky_solve", {large.input({32, 32}), large.input({32, 32})});
  large.arg_bool("upper", true);
  CHECK_FALSE(rules_only(large).known);  // one upper factor past 8 rows: cuBLAS's trsm not measured
  GraphBuilder batched;
  batched.op("aten::cholesky_solve", {batched.input({2, 5, 5}), batched.input({2, 5, 5})});
  batched.arg_bool("upper", true);
  check(rules_only(batched), 4, 0, 0);  // both copies, MAGMA's two batched trsm
}

TEST_CASE("linalg: LU on cuSOLVER (square) or MAGMA (rectangular) costs the same when wide; the check adds a read") {
  check(one("aten::linalg_lu_factor_ex", {5, 5}), 7, 0, 1);
  check(one("aten::linalg_lu_factor_ex", {3, 5}), 7, 0, 1);
  check(one("aten::linalg_lu_factor_ex", {12, 12}), 7, 0, 1);
  check(one("aten::linalg_lu_factor", {4, 5}), 8, 2, 1, 1);
  check(one("aten::linalg_lu", {5, 5}), 15, 0, 1);
  check(one("aten::linalg_lu_factor_ex", {6, 7}), 7, 0, 1);       // MAGMA, at most 16 rows
  check(one("aten::linalg_lu_factor_ex", {3, 12, 12}), 3, 0, 0);  // batched cuBLAS
  GraphBuilder unpack;
  unpack.op("aten::lu_unpack", {factor(unpack, 3, 5), unpack.input({3}, DType::kInt32)});
  check(rules_only(unpack), 7, 0, 0);
}

TEST_CASE("linalg: a tall matrix's MAGMA LU has no columns past the panel to swap and solve") {
  check(one("aten::linalg_lu_factor_ex", {6, 5}), 5, 0, 1);
  check(one("aten::_lu_with_info", {7, 5}), 5, 0, 1);
  check(one("aten::linalg_lu_factor", {7, 5}), 6, 2, 1, 1);
  check(one("aten::linalg_lu", {6, 5}), 13, 0, 1);
  GraphBuilder unpack;
  unpack.op("aten::lu_unpack", {factor(unpack, 7, 5), unpack.input({5}, DType::kInt32)});
  check(rules_only(unpack), 7, 0, 0);
  check(one("aten::linalg_lu_factor_ex", {9, 5}), 5, 0, 1);  // MAGMA, at most 16 columns
}

TEST_CASE("linalg: lu_solve copies B to column-major (a memcpy when it already is) and picks its solver by n") {
  auto lu_solve = [](std::vector<int64_t> bsizes, int64_t n) {
    GraphBuilder b;
    int rhs = b.input(bsizes);
    b.op("aten::lu_solve", {rhs, factor(b, n, n), b.input({n}, DType::kInt32)});
    return rules_only(b);
  };
  check(lu_solve({3, 4}, 3), 6, 0, 0);
  check(lu_solve({3, 1}, 3), 5, 1, 0);
  check(lu_solve({3, 0}, 3), 0, 0, 0);
  check(lu_solve({12, 1}, 12), 7, 1, 0);  // looped cuSOLVER getrs between 8 and 32 rows
  check(lu_solve({12, 2}, 12), 8, 0, 0);  // B's copy kernel, the same getrs
  // A row-major LU was not measured (the factorization returns column-major factors).
  GraphBuilder row;
  row.op("aten::lu_solve", {row.input({3, 4}), row.input({3, 3}), row.input({3}, DType::kInt32)});
  CHECK_FALSE(rules_only(row).known);
}

TEST_CASE("linalg: solve is LU + B's copy + lu_solve; linalg_solve adds the info check") {
  auto solve = [](const char* op, std::vector<int64_t> a, std::vector<int64_t> bs) {
    GraphBuilder b;
    b.op(op, {b.input(a), b.input(bs)});
    return rules_only(b);
  };
  check(solve("aten::linalg_solve_ex", {5, 5}, {5}), 12, 2, 1);
  check(solve("aten::linalg_solve_ex", {5, 5}, {5, 1}), 12, 1, 1);
  check(solve("aten::linalg_solve_ex", {5, 5}, {5, 3}), 13, 0, 1);
  check(solve("aten::linalg_solve", {5, 5}, {5, 3}), 14, 2, 1, 1);
  check(solve("aten::linalg_solve", {12, 12}, {12}), 15, 4, 1);
  check(solve("aten::linalg_solve", {12, 12}, {12, 2}), 16, 2, 1, 1);
  check(solve("aten::linalg_solve", {2, 12, 12}, {2, 12, 2}), 18, 1, 0, 1);  // cuBLAS LU, getrs per matrix
  GraphBuilder t;
  t.op("aten::linalg_tensorsolve", {t.input({2, 3, 6}), t.input({2, 3})});
  check(rules_only(t), 13, 4, 1);
  t.arg_ints("dims", {0, 2});
  check(rules_only(t), 14, 4, 1);
}

TEST_CASE("linalg: inv solves against the identity; empty matrices and batches still touch the infos") {
  check(one("aten::linalg_inv_ex", {5, 5}), 14, 0, 1);
  check(one("aten::linalg_inv", {5, 5}), 15, 2, 1, 1);
  check(one("aten::linalg_inv", {0, 0}), 2, 2, 0);
  check(one("aten::linalg_inv", {0, 5, 5}), 1, 1, 0, 1);
  check(one("aten::linalg_inv_ex", {0, 5, 5}), 0, 0, 0);
  check(one("aten::linalg_inv", {16, 16}), 15, 2, 1, 1);  // cuSOLVER's LU, batched cuBLAS's solve up to 16
  check(one("aten::linalg_inv_ex", {24, 24}), 22, 1, 1);  // two triangular solves (batched trsm) from 17
  CHECK_FALSE(one("aten::linalg_inv", {64, 64}).known);   // cuBLAS's looped trsm: not resolved
  GraphBuilder t;
  t.op("aten::linalg_tensorinv", {t.input({4, 3, 6, 1, 2})});
  check(rules_only(t), 15, 2, 1);
}

TEST_CASE("linalg: determinants factor without a copy; 0x0 still runs the elementwise tail") {
  check(one("aten::linalg_det", {5, 5}), 15, 1, 1, 0);
  check(one("aten::linalg_det", {0, 0}), 7, 0, 0);
  check(one("aten::linalg_slogdet", {1, 1}), 19, 1, 1);
  check(one("aten::logdet", {5, 5}), 22, 1, 1);
  check(one("aten::linalg_det", {2, 5, 5}), 11, 1, 0);         // batched cuBLAS's LU: 2 in place of 6 + 1 memset
  check(one("aten::linalg_slogdet", {64, 33, 33}), 39, 1, 1);  // MAGMA's blocked LU, as measured
}

TEST_CASE("linalg: triangular solves below 64 rows build pointer arrays for batched trsm") {
  auto trsm = [](const char* op, std::vector<int64_t> a, std::vector<int64_t> bs) {
    GraphBuilder b;
    const bool legacy = std::string(op) == "aten::triangular_solve";
    int x = b.input(a);
    int y = b.input(bs);
    b.op(op, legacy ? std::vector<int>{y, x} : std::vector<int>{x, y});
    return rules_only(b);
  };
  check(trsm("aten::triangular_solve", {5, 5}, {5, 1}), 4, 1, 0);
  check(trsm("aten::triangular_solve", {5, 5}, {5, 3}), 5, 0, 0);
  check(trsm("aten::triangular_solve", {0, 5, 5}, {0, 5, 1}), 0, 0, 0);
  check(trsm("aten::linalg_solve_triangular", {3, 3}, {3, 1}), 3, 1, 0);
  // An empty B: A's pointer array alone (opinfo_heldout7); triangular_solve's measured nothing.
  check(trsm("aten::linalg_solve_triangular", {3, 3}, {3, 0}), 1, 0, 0);
  check(trsm("aten::linalg_solve_triangular", {2, 3, 3}, {2, 3, 0}), 1, 0, 0);
  check(trsm("aten::linalg_solve_triangular", {0, 3, 3}, {0, 3, 1}), 0, 0, 0);
  GraphBuilder half;  // unmeasured types keep the empty result's rule
  half.op("aten::linalg_solve_triangular", {half.input({3, 3}, DType::kBFloat16), half.input({3, 0}, DType::kBFloat16)},
          {}, {3, 0});
  CHECK(rules_only(half).rule == "empty");
  // From 64 rows one cuBLAS trsm per matrix, no pointer arrays (the older rule).
  check(trsm("aten::linalg_solve_triangular", {64, 64}, {64, 16}), 2, 0, 0);
}

TEST_CASE("linalg: SVD-based ops on small matrices; a batch drops the device-to-device copy") {
  check(one("aten::linalg_svdvals", {5, 5}), 6, 3, 0, 2);
  check(one("aten::linalg_svdvals", {5, 2}), 7, 3, 0);  // tall: a QR kernel first
  check(one("aten::linalg_svdvals", {5, 0}), 0, 0, 0);
  check(one("aten::linalg_svdvals", {0, 5, 2}), 0, 0, 0);  // an empty batch
  check(one("aten::linalg_svdvals", {2, 5}), 8, 3, 0);     // wide: transposed first
  check(one("aten::linalg_svd", {0, 0}), 0, 0, 0);
  check(one("aten::linalg_svd", {5, 5}), 6, 3, 0);           // full matrices: square, nothing to copy out
  check(one("aten::linalg_svd", {64, 32, 32}), 6, 2, 0);     // batched Jacobi up to 32 x 32, any batch
  check(one("aten::linalg_svd", {0, 4}), 2, 0, 0);           // full V of an empty matrix: the identity
  CHECK_FALSE(one("aten::linalg_svdvals", {33, 33}).known);  // gesvdj sweeps until the values converge
  auto reduced = [](std::vector<int64_t> sizes) {
    GraphBuilder b;
    b.op("aten::linalg_svd", {b.input(sizes)});
    b.arg_bool("full_matrices", false);
    return rules_only(b);
  };
  check(reduced({2, 4}), 8, 4, 0);
  check(reduced({2, 2, 3}), 9, 2, 0);  // a batch: V's strided copy and one reduction over the infos
  check(reduced({4, 2}), 7, 4, 0);     // tall: the QR kernel, U copied out
  check(one("aten::linalg_cond", {5, 5}), 7, 3, 0);
  check(one("aten::linalg_cond", {2, 5, 5}), 7, 2, 0);
  GraphBuilder nuc;
  nuc.op("aten::linalg_matrix_norm", {nuc.input({5, 5, 5})});
  nuc.g.ops.back().overload = "str_ord";
  nuc.arg_text("ord", "nuc");
  nuc.arg_ints("dim", {1, 2});
  check(rules_only(nuc), 7, 2, 0);
  check(one("aten::pinverse", {5, 5}), 16, 3, 0);
  check(one("aten::pinverse", {0, 0}), 2, 0, 0);
  GraphBuilder herm;
  herm.op("aten::linalg_pinv", {herm.input({5, 5})});
  herm.g.ops.back().overload = "atol_rtol_tensor";
  herm.arg_bool("hermitian", true);
  check(rules_only(herm), 28, 3, 1);
}

TEST_CASE("linalg: eigh is counted; ldl_factor and matrix_exp at their measured size only") {
  check(one("aten::linalg_eigh", {5, 5}), 16, 3, 1);  // the lower triangle (UPLO's default)
  check(one("aten::linalg_eigvalsh", {5, 5}), 13, 3, 1);
  check(one("aten::linalg_eigh", {64, 32, 32}), 30, 1, 2);  // batched syevj up to 32 rows
  CHECK_FALSE(one("aten::linalg_eigh", {32, 32}).known);    // one matrix past 24 rows iterates on the host
  GraphBuilder upper;
  upper.op("aten::linalg_eigh", {upper.input({5, 5})});
  upper.arg_text("UPLO", "U");
  check(rules_only(upper), 17, 3, 1);
  check(one("aten::linalg_eigh", {0, 5, 5}), 0, 0, 0);
  check(one("aten::linalg_eig", {0, 0}), 5, 4, 0);
  check(one("aten::linalg_eigvals", {0, 5, 5}), 4, 3, 0);
  check(one("aten::linalg_eig", {5, 5}), 98, 26, 3, 15);
  check(one("aten::linalg_eigvals", {5, 5}), 63, 19, 2, 10);
  // tril + per column a block-size decision and the update (2n + 2 a matrix), n reads; no swaps.
  check(one("aten::linalg_ldl_factor_ex", {5, 5}), 13, 5, 0, 5);
  check(one("aten::linalg_ldl_factor_ex", {2, 5, 5}), 25, 10, 0, 10);
  check(one("aten::linalg_ldl_factor", {5, 5}), 14, 7, 0, 6);       // + the check: a copy, 2 memcpy
  check(one("aten::linalg_ldl_factor", {2, 5, 5}), 26, 11, 0, 11);  // + the check: any, 1 memcpy
  CHECK_FALSE(one("aten::linalg_ldl_factor", {3, 5, 5}).known);
  check(one("aten::linalg_ldl_factor_ex", {0, 0}), 1, 0, 0);
  check(one("aten::matrix_exp", {5, 5}), 51, 15, 0, 3);
  CHECK_FALSE(one("aten::matrix_exp", {8, 8}).known);
}

TEST_CASE("linalg: ldl_solve runs sytrs once per matrix, 3n - 1 kernels (4n - 2 against one column)") {
  GraphBuilder b;
  int ld = factor(b, 5, 5);
  int piv = b.input({5}, DType::kInt32);
  int rhs = b.input({5, 5});
  b.op("aten::linalg_ldl_solve", {ld, piv, rhs}, {}, {5, 5});
  check(rules_only(b), 17, 1, 0, 1);
  GraphBuilder wide;
  int ld8 = factor(wide, 8, 8);
  wide.op("aten::linalg_ldl_solve", {ld8, wide.input({8}, DType::kInt32), wide.input({8, 2})}, {}, {8, 2});
  check(rules_only(wide), 26, 1, 0, 1);  // B's copy, pivots, infos, 23
  GraphBuilder column;
  int ld3 = factor(column, 3, 3);
  column.op("aten::linalg_ldl_solve", {ld3, column.input({3}, DType::kInt32), column.input({3, 1})}, {}, {3, 1});
  check(rules_only(column), 12, 2, 0, 1);  // B a memcpy, 2, 10
  GraphBuilder batch;
  int lds = batch.strided({2, 5, 5}, {25, 1, 5});
  batch.op("aten::linalg_ldl_solve", {lds, batch.input({2, 5}, DType::kInt32), batch.input({5, 5})}, {}, {2, 5, 5});
  check(rules_only(batch), 31, 2, 0, 2);  // B broadcast by a copy kernel; 14 per matrix
  GraphBuilder herm;
  herm.op("aten::linalg_ldl_solve", {factor(herm, 5, 5), herm.input({5}, DType::kInt32), herm.input({5, 5})}, {},
          {5, 5});
  herm.arg_bool("hermitian", true);
  CHECK_FALSE(rules_only(herm).known);
}

TEST_CASE("linalg: matrix_power multiplies by repeated squaring, each product counted as mm") {
  auto power = [](int64_t n) {
    GraphBuilder b;
    b.op("aten::linalg_matrix_power", {b.input({1, 1})});
    b.arg_int("n", n);
    return rules_only(b);
  };
  check(power(0), 2, 2, 0);
  // 1x1 float32 mm: a split-K GEMM and its reduction (2 kernels); n = 3: 2 products, 5: 3.
  check(power(3), 4, 0, 0);
  check(power(5), 6, 0, 0);
  check(power(8), 6, 0, 0);
  // n < 0: linalg_inv of the 1x1 matrix (its LU copy a memcpy: 14 kernels, 3 memcpy, 1 memset), then -n.
  check(power(-1), 14, 3, 1);
  check(power(-2), 16, 3, 1);
  check(power(-4), 18, 3, 1);
  CHECK_FALSE(power(1).known);
}

TEST_CASE("linalg: multi_dot of two matrices and vecdot of two vectors are one product") {
  auto multi_dot = [](std::vector<int64_t> a, std::vector<int64_t> c, DType dt) {
    GraphBuilder b;
    b.op("aten::linalg_multi_dot", {b.input(a, dt), b.input(c, dt)}, {}, {a[0], c[1]});
    return rules_only(b);
  };
  check(multi_dot({1, 2}, {2, 1}, DType::kFloat32), 2, 0, 0);
  check(multi_dot({1, 2}, {2, 1}, DType::kBFloat16), 2, 0, 0);
  check(multi_dot({2, 0}, {0, 2}, DType::kFloat32), 1, 0, 0);
  check(multi_dot({0, 2}, {2, 2}, DType::kFloat32), 0, 0, 0);
  auto vecdot = [](int64_t n) {
    GraphBuilder b;
    const int out = b.op("aten::linalg_vecdot", {b.input({n}), b.input({n})});
    b.g.values[out].sizes = {};  // a scalar
    b.g.values[out].strides = {};
    return rules_only(b);
  };
  check(vecdot(0), 0, 1, 0);  // the zero result copied from the host
  check(vecdot(1), 2, 0, 0);
}

TEST_CASE("linalg and fft rules: operands of any rank and size are predicted, left unknown or refused") {
  std::vector<std::string> names;
  for (const kc::LaunchRule& r : kc::default_target().rules)
    if (r.id.rfind("linalg.", 0) == 0 || r.id.rfind("fft.", 0) == 0)
      names.insert(names.end(), r.ops.begin(), r.ops.end());
  REQUIRE(names.size() > 40);
  for (const std::string& name : names)
    for (size_t inputs = 1; inputs <= 3; ++inputs)
      for (size_t rank = 0; rank <= 5; ++rank)
        for (int64_t size : {0, 1, 5}) {
          INFO(name << " with " << inputs << " inputs of rank " << rank << ", size " << size);
          GraphBuilder b;
          std::vector<int> ins;
          for (size_t i = 0; i < inputs; ++i) ins.push_back(b.input(std::vector<int64_t>(rank, size)));
          b.op(name, ins);
          try {
            kc::run_launches(b.g, kc::default_target(), {});
          } catch (const kc::OpError& e) {
            CHECK(e.op() == 0);
          }
        }
}

TEST_CASE("linalg: a batch of square matrices takes batched cuBLAS's LU; its info check is one reduction") {
  check(one("aten::linalg_inv_ex", {2, 5, 5}), 10, 0, 0);  // identity 2, copy + arange + getrf 3, solve 5
  check(one("aten::linalg_inv", {2, 5, 5}), 11, 1, 0, 1);
  check(one("aten::linalg_inv", {4, 3, 3}), 11, 1, 0, 1);
  check(one("aten::linalg_inv", {2, 8, 8}), 11, 1, 0, 1);
  check(one("aten::linalg_lu_factor_ex", {2, 5, 5}), 3, 0, 0);  // the copy, the pointer array, getrfBatched
  check(one("aten::linalg_lu_factor", {3, 4, 4}), 4, 1, 0, 1);
  check(one("aten::linalg_lu", {2, 5, 5}), 12, 0, 0);  // a batch's permutation made contiguous: + 1
}

TEST_CASE("linalg: triangular solves take any batch below 64 rows; a batched eigh is one cuSOLVER call") {
  GraphBuilder b;
  b.op("aten::triangular_solve", {b.input({2, 5, 1}), b.input({2, 5, 5})});
  check(rules_only(b), 4, 1, 0);  // A's copy, B a memcpy (one column), 2 pointer arrays, trsm
  GraphBuilder mixed;
  mixed.op("aten::triangular_solve", {mixed.input({2, 5, 1}), mixed.input({5, 5})});
  CHECK_FALSE(rules_only(mixed).known);  // a broadcast batch: not measured
  check(one("aten::linalg_eigh", {2, 5, 5}), 18, 1, 2);
  check(one("aten::linalg_eigvalsh", {3, 4, 4}), 15, 1, 2);
}

TEST_CASE("linalg: multi_dot of three or more matrices is one mm per product, in the cheapest order") {
  auto chain = [](std::vector<std::vector<int64_t>> shapes) {
    GraphBuilder b;
    std::vector<int> ins;
    for (const auto& s : shapes) ins.push_back(b.input(s));
    b.op("aten::linalg_multi_dot", ins, {}, {shapes.front()[0], shapes.back()[1]});
    return rules_only(b);
  };
  check(chain({{2, 2}, {2, 2}, {2, 2}}), 2, 0, 0);
  check(chain({{2, 3}, {3, 4}, {4, 5}}), 2, 0, 0);
  check(chain({{2, 3}, {3, 4}, {4, 5}, {5, 6}}), 3, 0, 0);
  check(chain({{2, 0}, {0, 4}, {4, 5}}), 1, 0, 0);  // B C is empty; A (B C) contracts nothing: a fill
  check(chain({{5, 4}, {4, 0}, {0, 2}}), 1, 0, 0);  // (A B) is empty, (A B) C a fill
  GraphBuilder v;
  v.op("aten::linalg_vander", {v.input({1})});
  v.arg_int("N", 6);
  check(rules_only(v), 5, 0, 0);  // one point: CUB's scan over its single row
}

TEST_CASE("linalg: solve_triangular with left=False takes the right-side trsm; empty Householder products nothing") {
  GraphBuilder b;
  b.op("aten::linalg_solve_triangular", {b.input({1, 1}), b.input({3, 1})});
  b.arg_bool("left", false);
  check(rules_only(b), 3, 1, 0);  // B (3x1, column-major already) a memcpy, 2 pointer arrays, trsm
  GraphBuilder wrong;
  wrong.op("aten::linalg_solve_triangular", {wrong.input({3, 3}), wrong.input({3, 1})});
  wrong.arg_bool("left", false);
  CHECK(rules_only(wrong).rule != "linalg.triangular_solve");  // B's columns must match A
  GraphBuilder h;
  h.op("aten::linalg_householder_product", {h.input({0, 0}), h.input({0})});
  check(rules_only(h), 0, 0, 0);
  GraphBuilder fewer;
  fewer.op("aten::linalg_householder_product", {fewer.input({5, 5}), fewer.input({3})});
  check(rules_only(fewer), 14, 0, 0);  // orgqr on 5x5 with 3 reflectors, as QR's complete Q
  GraphBuilder tall;
  tall.op("aten::linalg_householder_product", {tall.input({5, 4}), tall.input({3})});
  check(rules_only(tall), 14, 0, 0);
  GraphBuilder big;
  big.op("aten::linalg_householder_product", {big.input({64, 40}), big.input({20})});
  CHECK_FALSE(rules_only(big).known);
}

TEST_CASE("linalg: ormqr fills the info and makes one cuSOLVER call per matrix; no reflectors: the info copy") {
  auto ormqr = [](std::vector<int64_t> input, std::vector<int64_t> other) {
    GraphBuilder b;
    const int64_t k = std::min(input[input.size() - 2], input.back());
    std::vector<int64_t> tau(input.begin(), input.end() - 2);
    tau.push_back(k);
    std::vector<int64_t> strides(input.size(), 1);
    if (input.size() == 3) strides[0] = input[1] * input[2];
    strides[strides.size() - 1] = input[input.size() - 2];
    b.op("aten::ormqr", {b.strided(input, strides), b.input(tau), b.input(other)}, {}, other);
    return rules_only(b);
  };
  check(ormqr({5, 5}, {5, 5}), 4, 0, 0);
  check(ormqr({5, 0}, {5, 0}), 2, 0, 0);        // the info fill and cuSOLVER's info copy
  check(ormqr({2, 5, 2}, {2, 5, 2}), 6, 0, 0);  // other's copy, the fill, 2 per matrix
  check(ormqr({0, 5, 5}, {0, 5, 5}), 1, 0, 0);  // no matrix: the fill alone
  CHECK_FALSE(ormqr({8, 8}, {8, 8}).known);     // past the measured 5x5
}

TEST_CASE("linalg: pinv and matrix_rank of a batch: one reduction over the infos, or the batched syevd") {
  check(one("aten::pinverse", {2, 5, 5}), 16, 2, 0);
  GraphBuilder rank;
  rank.op("aten::linalg_matrix_rank", {rank.input({2, 5, 5})});
  rank.g.ops.back().overload = "atol_rtol_tensor";
  check(rules_only(rank), 13, 2, 0);
  GraphBuilder herm;
  herm.op("aten::linalg_pinv", {herm.input({2, 5, 5})});
  herm.g.ops.back().overload = "atol_rtol_tensor";
  herm.arg_bool("hermitian", true);
  check(rules_only(herm), 30, 1, 2);
}

TEST_CASE("linalg: pinv's and matrix_rank's tolerances cost a fill each unless given as tensors") {
  auto spectral = [](const std::string& op, std::vector<int64_t> sizes, const std::string& overload, bool rtol_tensor,
                     bool rtol_float) {
    GraphBuilder b;
    std::vector<int> ins = {b.input(sizes)};
    if (rtol_tensor) ins.push_back(b.input({}, DType::kFloat64));
    b.op(op, ins);
    if (rtol_tensor) b.name_arg(1, "rtol");
    b.g.ops.back().overload = overload;
    if (rtol_float) b.arg_float("rtol", 1.0);
    return rules_only(b);
  };
  check(spectral("aten::linalg_pinv", {0, 0}, "atol_rtol_tensor", true, false), 1, 0, 0);  // atol's zeros only
  check(spectral("aten::linalg_pinv", {0, 5, 5}, "atol_rtol_tensor", true, false), 1, 0, 0);
  check(spectral("aten::linalg_pinv", {5, 5}, "atol_rtol_tensor", true, false), 15, 3, 0);
  check(spectral("aten::linalg_pinv", {5, 5}, "atol_rtol_float", false, true), 16, 3, 0);
  check(spectral("aten::linalg_matrix_rank", {5, 5}, "atol_rtol_float", false, true), 13, 3, 0);
  check(spectral("aten::linalg_matrix_rank", {0, 0}, "atol_rtol_float", false, true), 3, 0, 0);
  check(spectral("aten::linalg_matrix_rank", {0, 5, 5}, "atol_rtol_float", false, true), 2, 0, 0);
  // An atol alone: the default rtol and a zero filled, where(atol > 0, ...) over atol's shape (a
  // comparison and a where, none over an empty atol).
  auto atol_only = [](std::vector<int64_t> sizes, std::vector<int64_t> atol_sizes) {
    GraphBuilder b;
    b.op("aten::linalg_matrix_rank", {b.input(sizes), b.input(atol_sizes)});
    b.name_arg(0, "input");
    b.name_arg(1, "atol");
    b.g.ops.back().overload = "atol_rtol_tensor";
    return rules_only(b);
  };
  check(atol_only({5, 5}, {}), 15, 3, 0);  // 4 + svdvals (6) + the threshold and count (5)
  check(atol_only({2, 5, 5}, {2}), 15, 2, 0);
  check(atol_only({0, 0}, {}), 5, 0, 0);  // 4 + the zero rank
  check(atol_only({0, 5, 5}, {0}), 2, 0, 0);
  check(atol_only({2, 0, 0}, {2}), 5, 0, 0);
}

TEST_CASE("linalg: matrix_norm of ord 1 or infinity is two reductions; ord 2 is not this rule") {
  auto norm = [](double ord) {
    GraphBuilder b;
    b.op("aten::linalg_matrix_norm", {b.input({2, 2}, DType::kBFloat16)}, {}, {1, 1}, DType::kBFloat16);
    b.arg_float("ord", ord);
    b.arg_ints("dim", {-2, -1});
    return rules_only(b);
  };
  check(norm(std::numeric_limits<double>::infinity()), 2, 0, 0);
  check(norm(-1.0), 2, 0, 0);
  CHECK(norm(2.0).rule != "linalg.matrix_norm_one_inf");
  GraphBuilder swapped;
  swapped.op("aten::linalg_matrix_norm", {swapped.input({2, 2}, DType::kBFloat16)}, {}, {1, 1}, DType::kBFloat16);
  swapped.arg_float("ord", std::numeric_limits<double>::infinity());
  swapped.arg_ints("dim", {-1, 0});
  check(rules_only(swapped), 2, 0, 0);  // the same two dims in the other order
  // Other dims than the last two: the same two reductions with other strides, counted when neither
  // splits; empty there was not measured.
  auto batch = [](std::vector<int64_t> sizes, double ord, bool keepdim) {
    GraphBuilder b;
    b.op("aten::linalg_matrix_norm", {b.input(sizes)}, {}, {sizes[1]});
    b.arg_float("ord", ord);
    b.arg_ints("dim", {-1, 0});
    b.arg_bool("keepdim", keepdim);
    return rules_only(b);
  };
  check(batch({2, 3, 2}, 1.0, false), 2, 0, 0);
  check(batch({2, 3, 2}, -std::numeric_limits<double>::infinity(), true), 2, 0, 0);
  CHECK(batch({2, 0, 2}, 1.0, false).rule != "linalg.matrix_norm_one_inf");
}

TEST_CASE("linalg: linalg_norm of a matrix is matrix_norm's; of an empty vector, one fill") {
  auto norm = [](std::vector<int64_t> sizes, double ord, DType dt = DType::kFloat32) {
    GraphBuilder b;
    b.op("aten::linalg_norm", {b.input(sizes, dt)}, {}, {1}, dt);
    b.arg_float("ord", ord);
    return rules_only(b);
  };
  const double inf = std::numeric_limits<double>::infinity();
  check(norm({5, 5}, 1.0, DType::kBFloat16), 2, 0, 0);  // the column sums, their max
  check(norm({5, 5}, -inf), 2, 0, 0);
  check(norm({0, 5}, inf), 1, 0, 0);  // no row sums to take the max of
  check(norm({5, 0}, inf), 2, 0, 0);  // the row sums filled, their max
  check(norm({5, 0}, 1.0), 1, 0, 0);
  check(norm({5, 5}, 2.0), 7, 3, 0);  // svdvals (6) + the max
  check(norm({5, 5}, -2.0), 7, 3, 0);
  check(norm({0, 5}, 2.0), 1, 0, 0);
  check(norm({0}, 3.5, DType::kBFloat16), 1, 0, 0);  // the norm kernel's fill
  check(norm({0}, 0.0), 1, 0, 0);
  CHECK_FALSE(norm({0}, -1.0).known);  // raises: no identity
  CHECK_FALSE(norm({0, 5}, -inf).known);
  auto text = [](std::vector<int64_t> sizes, const std::string& ord) {
    GraphBuilder b;
    b.op("aten::linalg_norm", {b.input(sizes)}, {}, {1});
    b.g.ops.back().overload = "ord_str";
    b.arg_text("ord", ord);
    b.arg_ints("dim", {0, 1});
    return rules_only(b);
  };
  check(text({5, 5}, "fro"), 1, 0, 0);
  check(text({0, 5}, "fro"), 1, 0, 0);
  check(text({5, 5}, "nuc"), 7, 3, 0);  // svdvals (6) + the sum
  check(text({5, 0}, "nuc"), 1, 0, 0);
  CHECK(text({5, 5, 5}, "nuc").rule == "linalg.svd_norms");  // dims (0, 1) of three: as matrix_norm's
}

TEST_CASE("linalg: svd is linalg_svd with full_matrices = !some; empty batches launch nothing") {
  auto svd = [](std::vector<int64_t> sizes, bool some) {
    GraphBuilder b;
    b.op("aten::svd", {b.input(sizes)});
    b.arg_bool("some", some);
    return rules_only(b);
  };
  check(svd({5, 5}, true), 6, 3, 0, 2);
  check(svd({3, 5}, true), 8, 4, 0);  // wide: transposed; reduced V copied out of the square workspace
  check(svd({3, 5}, false), 8, 3, 0);
  check(svd({3, 5, 3}, true), 8, 2, 0);  // a batch: U's strided copy
  check(svd({0, 3, 5}, false), 0, 0, 0);
  check(svd({0, 3}, false), 2, 0, 0);  // full V of an empty matrix: the identity
  check(one("aten::linalg_svd", {0, 5, 3}), 0, 0, 0);
  GraphBuilder no_uv;
  no_uv.op("aten::svd", {no_uv.input({5, 5})});
  no_uv.arg_bool("compute_uv", false);
  CHECK_FALSE(rules_only(no_uv).known);  // svdvals and zero U, V: not measured
}

TEST_CASE("linalg: vecdot of batches is a multiply and a sum over dim, even a dim of one") {
  auto vecdot = [](std::vector<int64_t> sizes, int64_t dim, DType dt) {
    GraphBuilder b;
    b.op("aten::linalg_vecdot", {b.input(sizes, dt), b.input(sizes, dt)}, {}, {sizes[dim == 0 ? 1 : 0]}, dt);
    b.arg_int("dim", dim);
    return rules_only(b);
  };
  check(vecdot({5, 3}, 1, DType::kFloat32), 2, 0, 0);
  check(vecdot({5, 1}, 1, DType::kBFloat16), 2, 0, 0);
  check(vecdot({1, 1}, 0, DType::kFloat32), 2, 0, 0);
  check(vecdot({0, 1}, 0, DType::kFloat32), 1, 0, 0);              // empty: the sum's zeros
  check(vecdot({1 << 12, 1 << 12}, 0, DType::kFloat32), 2, 0, 1);  // a long sum splits: its semaphores zeroed
}

TEST_CASE("linalg: lu_unpack and linalg_lu of an empty batch build only the identity permutation") {
  auto unpack = [](std::vector<int64_t> sizes, std::vector<int64_t> pivots) {
    GraphBuilder b;
    b.op("aten::lu_unpack", {b.input(sizes), b.input(pivots, DType::kInt32)});
    return rules_only(b);
  };
  check(unpack({0, 3, 5}, {0, 3}), 1, 0, 0);
  check(unpack({0, 7, 5}, {0, 5}), 1, 0, 0);
  check(unpack({0, 0, 5}, {0, 0}), 0, 0, 0);  // arange(0): nothing
  check(one("aten::linalg_lu", {0, 6, 5}), 1, 0, 0);
  check(one("aten::linalg_lu", {2, 0, 5}), 2, 0, 0);  // not an empty batch: the infos and the pivots' unpack
}

TEST_CASE("linalg: lu_factor's backend follows the size and batch; MAGMA's blocked panels are the measured shapes") {
  check(one("aten::linalg_lu_factor", {2, 3, 5}), 8, 1, 1, 1);       // MAGMA (rectangular), the batch's any()
  check(one("aten::linalg_lu_factor_ex", {64, 24, 24}), 3, 0, 0);    // MAGMA's small-square kernel
  check(one("aten::linalg_lu_factor", {16, 64, 33}), 28, 1, 1, 1);   // MAGMA's recursive panels, measured
  check(one("aten::linalg_lu_factor_ex", {512, 512}), 7, 0, 1);      // cuSOLVER for one matrix at any size
  check(one("aten::linalg_lu_factor_ex", {16, 0, 0}), 1, 0, 0);      // empty matrices: the infos filled
  CHECK_FALSE(one("aten::linalg_lu_factor_ex", {2, 40, 50}).known);  // a panel shape not measured
}

TEST_CASE("linalg: lu_solve's path by size, columns and batch; past 64 rows cuBLAS's own trsm stays unknown") {
  auto lu_solve = [](int64_t n, std::vector<int64_t> bs, bool adjoint) {
    GraphBuilder b;
    b.op("aten::linalg_lu_solve", {factor(b, n, n), b.input({n}, DType::kInt32), b.input(bs)});
    b.arg_bool("adjoint", adjoint);
    return rules_only(b);
  };
  check(lu_solve(24, {24, 24}, false), 14, 1, 0);       // two triangular solves (batched trsm)
  check(lu_solve(12, {12, 2}, true), 6, 0, 0);          // getrs transposed: 2 trsm, no inits
  CHECK_FALSE(lu_solve(128, {128, 128}, false).known);  // cuBLAS's looped trsm: not resolved
  GraphBuilder batched;
  batched.op("aten::linalg_lu_solve", {batched.strided({16, 100, 100}, {10000, 1, 100}),
                                       batched.input({16, 100}, DType::kInt32), batched.input({16, 100, 1})});
  check(rules_only(batched), 13, 1, 0);  // batched cuBLAS in two blocks of 64 rows: 3 + 2 x 5
  GraphBuilder u;
  u.op("aten::lu_unpack", {u.strided({2, 3, 4}, {12, 1, 3}), u.input({2, 3}, DType::kInt32)});
  check(rules_only(u), 8, 0, 0);
}

TEST_CASE("linalg: Cholesky blocks its panels by 32 columns (one upper matrix) or 16 (a batch)") {
  auto chol = [](std::vector<int64_t> sizes, bool upper) {
    GraphBuilder b;
    b.op("aten::linalg_cholesky_ex", {b.input(sizes)});
    b.arg_bool("upper", upper);
    return rules_only(b);
  };
  check(chol({512, 512}, false), 4, 0, 2);     // one lower matrix: one unblocked kernel at any n
  check(chol({65, 65}, true), 11, 0, 0);       // 3 panels of 32 columns: 9, the copy and triu
  check(chol({2, 33, 33}, false), 12, 0, 0);   // 3 panels of 16 columns + the pointer array
  check(chol({2, 33, 33}, true), 14, 0, 0);    // + the upper triangle turned and back
  CHECK_FALSE(chol({600, 600}, false).known);  // past the largest measured size
  GraphBuilder solve;
  solve.op("aten::cholesky_solve", {solve.input({3, 20, 1}), solve.strided({3, 20, 20}, {400, 1, 20})});
  check(rules_only(solve), 3, 2, 1);  // potrsBatched for one column: a memset, the pointers, 2 trsv
  GraphBuilder inv;
  inv.op("aten::cholesky_inverse", {factor(inv, 12, 12)});
  check(rules_only(inv), 6, 2, 0);  // the identity (3), potrs by cuBLAS's trsm (3)
}

TEST_CASE("linalg: matrix_power is one cuBLAS call per product; a negative power inverts first, even when empty") {
  auto power = [](std::vector<int64_t> sizes, int64_t n) {
    GraphBuilder b;
    b.op("aten::linalg_matrix_power", {b.input(sizes)});
    b.arg_int("n", n);
    return rules_only(b);
  };
  check(power({3, 5, 5}, 0), 3, 1, 0);    // a batch's identity: the clone, eye, the expanded copy
  check(power({2, 5, 5}, -2), 12, 1, 0);  // linalg_inv (11 + 1 memcpy), one bmm
  check(power({0, 0}, -2), 2, 2, 0);      // the inverse's info fill and check
  check(power({0, 2, 2}, -4), 1, 1, 0);   // an empty batch: any() of no infos, its flag read back
  check(power({0, 2, 2}, 0), 2, 0, 0);    // eye(2) built, copied into nothing
}

TEST_CASE("linalg: eig and eigvals up to 32 rows: 11 kernels a Hessenberg column, one balancing round a matrix") {
  // sweep:linalg_sizes, every matrix balanced in one round.
  check(one("aten::linalg_eig", {6, 6}), 109, 26, 3, 15);
  check(one("aten::linalg_eig", {16, 16}), 219, 26, 3);
  check(one("aten::linalg_eig", {32, 32}), 398, 26, 3);  // the eigenvectors in two blocks past 16: + 3
  check(one("aten::linalg_eigvals", {24, 24}), 272, 19, 2, 10);
  // A batch: geev per matrix; the infos reduced by any() (one memcpy fewer than one matrix's check).
  check(one("aten::linalg_eig", {2, 5, 5}), 183, 46, 6, 27);  // opinfo_heldout
  check(one("aten::linalg_eigvals", {2, 5, 5}), 120, 33, 4, 18);
  check(one("aten::linalg_eigvals", {64, 32, 32}), 22662, 963, 128);
  check(one("aten::linalg_eig", {16, 16, 16}), 3309, 340, 48);
  CHECK_FALSE(one("aten::linalg_eig", {33, 33}).known);  // blocked Hessenberg: not counted
  CHECK_FALSE(one("aten::linalg_eig", {1, 1}).known);    // nothing to reduce: not counted
}

TEST_CASE("linalg: pinv past 32 rows or columns counts gesvdj with the sweeps a random matrix took") {
  auto pinv = [](std::vector<int64_t> sizes) {
    GraphBuilder b;
    b.op("aten::linalg_pinv", {b.input(sizes)});
    b.g.ops.back().overload = "atol_rtol_tensor";
    return rules_only(b);
  };
  // sweep:linalg_sizes pinv: 6 sweeps of 3 rounds (14 kernels and a memcpy each) for 33 to 64 columns.
  check(pinv({64, 64}), 119, 15, 3, 11);      // syncs: the sweeps + 5, as opinfo_heldout4's [50, 50] ran
  check(pinv({64, 48, 48}), 6797, 770, 192);  // 22 a matrix, ATen's checks over the batch
  check(pinv({128, 128}), 275, 17, 3);        // 8 sweeps of 7 rounds
  // One side from 2 to 8: a QR first, one round a sweep (6 kernels): 4 sweeps at 5, 1 at 2.
  check(pinv({128, 5}), 71, 11, 0, 8);     // syncs: the sweeps + 4
  check(pinv({2, 128}), 48, 8, 0);         // wide: transposed first
  check(pinv({16, 33, 8}), 1037, 130, 0);  // each of the 16 took the 4 sweeps
  // Outside what the sweeps cover: a single row needs no sweep, other shapes more QR panels.
  CHECK_FALSE(pinv({33, 1}).known);
  CHECK_FALSE(pinv({128, 16}).known);
  CHECK_FALSE(pinv({1024, 1024}).known);
  // The sweeps are the values' to decide, and the rule says so.
  bool found = false;
  for (const kc::LaunchRule& r : kc::default_target().rules)
    if (r.id == "linalg.pinv_gesvdj") found = !r.data_dependent.empty();
  CHECK(found);
}
