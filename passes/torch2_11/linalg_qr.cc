// The QR family on the H200 over sizes and batches: geqrf, linalg_qr / qr (reduced, r, complete)
// and householder_product (ATen's cuda/linalg/BatchLinearAlgebraLib.cpp: geqrf by batched cuBLAS or
// cuSOLVER looped over the matrices, orgqr by cuSOLVER per matrix). Float32, as measured: the
// sweep's linalg_sizes family (m x n from 0 to 128 by batches (), 2, 3, 16; square n to 512).
#include "passes/torch2_11/linalg_matrix.h"

namespace kc::torch2_11 {
namespace {

using namespace linalg;

// geqrf_kernel's choice: cuBLAS's batched geqrf when the matrices have at most 256 rows and there
// are at least max(2, rows / 16) of them (the column-major copy, two pointer arrays by arange and
// one kernel; an empty batch launches nothing), else cuSOLVER's geqrf looped over the matrices
// (the infos filled, then per matrix two info copies and the panel: 3; empty, the info copies
// only: 2). cuSOLVER factors in one unblocked panel every tall or square shape measured of at most
// 32 columns and 1024 elements (the first blocked ones measured: 33 x 33 and 128 x 16); a wide
// matrix then updates its columns past the rows (larfb): 11 kernels for 2 to 8 rows and at most 16
// columns, 14 for 3 to 16 rows and 33 to 128 columns, one matrix. Other shapes (blocked panels,
// one wide row) stay unknown.
std::optional<Counts> geqrf_launches(const Value& a) {
  const Matrix m = *matrix(&a);
  const bool batched = m.rows <= 256 && m.batch >= std::max<int64_t>(2, m.rows / 16);
  if (a.numel() == 0) return batched ? Counts{} : Counts{static_cast<int>(1 + 2 * m.batch), 0, 0, 0};
  Counts c = column_major_copy(a);
  if (batched) {
    c += Counts{3, 0, 0, 0};
  } else if (m.rows >= m.cols && m.cols <= 32 && m.rows * m.cols <= 1024) {
    c += Counts{static_cast<int>(1 + 3 * m.batch), 0, 0, 0};
  } else if (m.batch == 1 && m.rows >= 2 && m.rows <= 8 && m.cols <= 16) {
    c += Counts{11, 0, 0, 0};
  } else if (m.batch == 1 && m.rows >= 3 && m.rows <= 16 && m.cols >= 33 && m.cols <= 128) {
    c += Counts{14, 0, 0, 0};
  } else {
    return std::nullopt;
  }
  return c;
}

// cuSOLVER's orgqr on one rows x k matrix of reflectors: an info copy, then the triangular factor
// and block reflector applied by kernels whose number cuSOLVER picks by the shape internally, the
// same for every batch measured. Measured per matrix: one reflector 11 (12 for a 1x1 matrix); 2 to
// 16 reflectors 9 up to 64 rows, 10 at 128; 17 to 48 reflectors up to 128 rows 12; larger square
// or tall shapes as listed (data, the library's choice not being readable off ATen).
struct OrgqrShape {
  int64_t rows, k;
  int kernels;
};
constexpr OrgqrShape kOrgqrMeasured[] = {{64, 64, 10},   {65, 65, 15},   {100, 100, 17}, {128, 64, 11},
                                         {128, 128, 11}, {256, 256, 26}, {512, 512, 56}};
std::optional<int> orgqr_kernels(int64_t rows, int64_t k) {
  if (k == 1) return rows == 1 ? 12 : 11;
  if (k <= 16) {
    if (rows <= 64) return 9;
    if (rows <= 128) return 10;
    return std::nullopt;
  }
  if (k <= 48 && rows <= 128) return 12;
  for (const OrgqrShape& s : kOrgqrMeasured)
    if (s.rows == rows && s.k == k) return s.kernels;
  return std::nullopt;
}

// orgqr on the m x m matrix of a tall matrix's complete Q (k = the columns reflected): the columns
// past k updated too, by kernels cuSOLVER picks by the shape. Measured per matrix: one reflector 14
// (16 for 2 rows); 2 to 16 reflectors 12 up to 16 rows, 15 from 33 to 64, 16 at 128; 64 reflectors
// of 128 rows 16, 33 of 64 rows 18 (data, as for orgqr_kernels).
std::optional<int> orgqr_square_kernels(int64_t rows, int64_t k) {
  if (k == 1) {
    if (rows == 2) return 16;
    if (rows >= 3 && rows <= 128) return 14;
    return std::nullopt;
  }
  if (k <= 16) {
    if (rows <= 16) return 12;
    if (rows >= 33 && rows <= 64) return 15;
    if (rows == 128) return 16;
    return std::nullopt;
  }
  if (rows == 128 && k == 64) return 16;
  if (rows == 64 && k == 33) return 18;
  return std::nullopt;
}

enum class QrMode { kReduced, kComplete, kR };
QrMode qr_mode(const OpFacts& f) {
  if (f.op->name == "aten::qr") return f.bool_arg("some", true) ? QrMode::kReduced : QrMode::kComplete;
  const std::string mode = f.text_arg("mode", "reduced");
  if (mode == "r") return QrMode::kR;
  return mode == "complete" ? QrMode::kComplete : QrMode::kReduced;
}
// linalg_qr(A, mode): geqrf, then R's triangle (triu); mode "r" stops there. Q: the orgqr infos
// filled and orgqr per matrix on the first min(m, n) columns; a wide matrix's Q, the factors' first
// m columns, is copied out (a memcpy for one matrix, a copy kernel for a batch). Complete Q of a
// wide or square matrix is the reduced one; of a tall one, orgqr on m x m (orgqr_square_kernels);
// of an empty one (rows, no columns) the identity (2 kernels). An empty batch: geqrf's infos filled,
// and for Q orgqr's (apply_orgqr fills its info before looping over no matrices) unless there are
// no reflectors (k = 0 fills an empty Q instead).
std::optional<Counts> qr_launches(const OpFacts& f) {
  const Value& a = *f.input(0);
  const Matrix m = *matrix(&a);
  const QrMode mode = qr_mode(f);
  auto c = geqrf_launches(a);
  if (!c) return std::nullopt;
  if (m.batch == 0) {
    if (mode != QrMode::kR && std::min(m.rows, m.cols) > 0) *c += Counts{1, 0, 0, 0};
    return c;
  }
  if (a.numel() == 0) {
    if (mode == QrMode::kComplete && m.rows > 0) *c += Counts{2, 0, 0, 0};
    return c;
  }
  if (mode == QrMode::kR) {
    *c += Counts{1, 0, 0, 0};
    return c;
  }
  if (mode == QrMode::kComplete && m.rows > m.cols) {
    // R's triangle, Q's zeros, the factors copied into its first columns (a memcpy for one matrix,
    // a strided copy kernel for a batch), the infos, orgqr on m x m per matrix.
    const auto per_matrix = orgqr_square_kernels(m.rows, m.cols);
    if (!per_matrix) return std::nullopt;
    *c += m.batch == 1 ? Counts{2, 1, 0, 0} : Counts{3, 0, 0, 0};
    *c += Counts{static_cast<int>(*per_matrix * m.batch), 0, 0, 0};
    return c;
  }
  const auto per_matrix = orgqr_kernels(m.rows, std::min(m.rows, m.cols));
  if (!per_matrix) return std::nullopt;
  *c += Counts{static_cast<int>(2 + *per_matrix * m.batch), 0, 0, 0};
  if (m.rows < m.cols) *c += m.batch == 1 ? Counts{0, 1, 0, 0} : Counts{1, 0, 0, 0};
  return c;
}
bool fp32_matrices(const Value* v) {
  const auto m = matrix(v);
  return m && v->dtype == DType::kFloat32 && m->batch >= 1;
}
bool qr_fits(const OpFacts& f) {
  const Value* a = f.input(0);
  if (!a || a->dtype != DType::kFloat32 || !matrix(a)) return false;
  if (f.op->name == "aten::geqrf") return geqrf_launches(*f.input(0)).has_value();
  return qr_launches(f).has_value();
}
Counts qr_counts(const OpFacts& f) {
  return f.op->name == "aten::geqrf" ? *geqrf_launches(*f.input(0)) : *qr_launches(f);
}

// linalg_householder_product(A, tau): empty A returns at once. With one reflector per column (tau
// of A's column count): A copied to column-major order, the infos filled, orgqr per matrix. With
// fewer reflectors k than columns n, cuSOLVER's orgqr also applies the block reflector to the
// columns past k (3 kernels more at 5 rows): the call a tall matrix's complete Q makes on a square
// one (orgqr_square_kernels), and with n < m rows the same 12 kernels measured for 2 to 16
// reflectors up to 16 rows (one 5 x 4 matrix, 3 reflectors). With no reflectors the result is the
// identity's first columns: A's copy, the zero fill and the diagonal's (2 kernels).
std::optional<int> orgqr_partial_kernels(int64_t rows, int64_t cols, int64_t k) {
  if (rows == cols) return orgqr_square_kernels(rows, k);
  if (rows <= 16 && k >= 2 && k <= 16) return 12;
  return std::nullopt;
}
std::optional<Counts> householder_launches(const Value& a, const Value& tau) {
  const Matrix m = *matrix(&a);
  if (a.numel() == 0) return Counts{};
  const int64_t k = tau.sizes.back();
  Counts c = column_major_copy(a);
  if (k == 0) {
    c += Counts{2, 0, 0, 0};
    return c;
  }
  const auto per_matrix = k == m.cols ? orgqr_kernels(m.rows, k) : orgqr_partial_kernels(m.rows, m.cols, k);
  if (!per_matrix) return std::nullopt;
  c += Counts{static_cast<int>(1 + *per_matrix * m.batch), 0, 0, 0};
  return c;
}
bool householder_fits(const OpFacts& f) {
  const Value* a = f.input(0);
  const Value* tau = f.input(1);
  if (!fp32_matrices(a) || !tau || tau->sizes.size() + 1 != a->sizes.size()) return false;
  if (!std::equal(tau->sizes.begin(), tau->sizes.end() - 1, a->sizes.begin())) return false;
  const auto m = matrix(a);
  return m->rows >= m->cols && tau->sizes.back() <= m->cols && householder_launches(*a, *tau).has_value();
}

}  // namespace

void add_linalg_qr_rules(std::vector<LaunchRule>& r) {
  r.push_back(
      rule("linalg.qr")
          .ops({"aten::linalg_qr", "aten::qr", "aten::geqrf"})
          .when("float32: geqrf (batched cuBLAS 4 where ATen takes it; cuSOLVER looped 2 + 3 per matrix "
                "on unblocked shapes, wide ones 12 or 15), then R's triangle and for Q the infos and "
                "orgqr per matrix (9 to 12 by shape, as measured; a tall matrix's complete Q on m x m, 12 to "
                "18); a wide Q copied out; mode r: geqrf + 1; an empty batch: the infos filled (1, Q's orgqr 1 more)",
                qr_fits)
          .compute(qr_counts)
          .evidence("sweep:linalg_sizes (geqrf, qr, qr_legacy, qr_r, qr_complete: m x n from 0 to 128 by "
                    "batches (), 2, 3, 16; square n to 512 by batches), opinfo:linalg_qr, qr, geqrf, "
                    "opinfo_heldout4: linalg_qr, qr, geqrf of [0, 5, 5] and [0, 5, 2] (FillFunctor<int>: 2, "
                    "2, 1)")
          .why("QR copies the matrices to column-major order and factors them with batched cuBLAS or "
               "cuSOLVER's geqrf; Q is then built by cuSOLVER's orgqr, one call per matrix."));
  r.push_back(rule("linalg.householder_product")
                  .ops({"aten::linalg_householder_product"})
                  .when("float32, tall or square: the copy, the infos filled, orgqr per matrix (one reflector per "
                        "column as for QR's Q; fewer: square as QR's complete Q, tall 12 up to 16 rows); no "
                        "reflectors: the copy and 2 fills; empty: nothing",
                        householder_fits)
                  .compute([](const OpFacts& f) { return *householder_launches(*f.input(0), *f.input(1)); })
                  .evidence("sweep:linalg_sizes (householder_product, householder_product_tau0: m x n from 0 to "
                            "128 by batches (), 2, 3, 16; qr_complete for orgqr on square matrices), "
                            "opinfo:linalg_householder_product, opinfo_heldout2/3:linalg_householder_product (5x5 "
                            "and 5x4 with 3 reflectors: 14)")
                  .why("The product of Householder reflectors copies the input, fills the infos and runs cuSOLVER's "
                       "orgqr once per matrix; with no reflectors it is the identity."));
}

}  // namespace kc::torch2_11
