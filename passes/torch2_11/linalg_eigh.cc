// Symmetric eigendecompositions on the H200 over sizes and batches: linalg_eigh, linalg_eigvalsh
// and the hermitian pinv and matrix_rank built on them (ATen's linalg_eigh_cusolver: syevd for one matrix, the
// batched syevj for several). Float32, as measured: the sweep's linalg_sizes family (n from 0 to
// 512, batches (), 1, 2, 3, 2x3, 16, 64).
#include <iterator>

#include "passes/torch2_11/linalg_matrix.h"

namespace kc::torch2_11 {
namespace {

using namespace linalg;

// The library's launches per call, including ATen's copy to column-major order, its info fill and
// check. cuSOLVER picks its kernels by the matrix size in bins that ATen does not expose, so these
// are the measured counts over the size ranges whose both ends were measured with the same count
// (data). One matrix past 24 rows iterates on the host (one matrix of 32 rows read 9 values back),
// and a batch past 32 rows loops its Jacobi sweeps until they converge: the values decide, unknown.
struct EighBin {
  int64_t lo, hi;  // matrix rows
  Counts vectors;  // eigh
  Counts values;   // eigvalsh
};
constexpr EighBin kEighOne[] = {
    {1, 1, {4, 3, 0, 1}, {4, 3, 0, 1}},
    {2, 8, {16, 3, 1, 2}, {13, 3, 1, 2}},
    {10, 16, {23, 3, 1, 2}, {19, 3, 1, 2}},
    {24, 24, {28, 3, 1, 2}, {24, 3, 1, 2}},
};
constexpr EighBin kEighBatch[] = {
    {1, 1, {4, 2, 1, 1}, {4, 2, 1, 1}},
    {2, 8, {18, 1, 2, 1}, {15, 1, 2, 1}},
    {10, 16, {25, 1, 2, 1}, {21, 1, 2, 1}},
    {24, 32, {30, 1, 2, 1}, {26, 1, 2, 1}},
};
// The bins were measured on the lower triangle (UPLO "L", the default). The upper one was measured
// on 5x5 matrices only: one matrix runs one kernel more, a batch the same.
std::optional<Counts> eigh_launches(const Value& a, bool vectors, bool upper) {
  const Matrix m = *matrix(&a);
  if (a.numel() == 0) return Counts{};
  if (upper) {
    if (m.rows < 2 || m.rows > 5) return std::nullopt;
    auto c = eigh_launches(a, vectors, false);
    if (c && m.batch == 1) *c += Counts{1, 0, 0, 0};
    return c;
  }
  const EighBin* first = m.batch == 1 ? std::begin(kEighOne) : std::begin(kEighBatch);
  const EighBin* last = m.batch == 1 ? std::end(kEighOne) : std::end(kEighBatch);
  for (const EighBin* bin = first; bin != last; ++bin)
    if (m.rows >= bin->lo && m.rows <= bin->hi) return vectors ? bin->vectors : bin->values;
  return std::nullopt;
}
bool fp32_square(const Value* v) {
  const auto m = matrix(v);
  return m && v->dtype == DType::kFloat32 && (v->numel() == 0 || v->contiguous()) && m->rows == m->cols;
}
bool upper(const OpFacts& f) {
  return f.text_arg("UPLO", "L") == "U";
}
bool eigh_fits(const OpFacts& f) {
  return fp32_square(f.input(0)) && eigh_launches(*f.input(0), f.op->name == "aten::linalg_eigh", upper(f)).has_value();
}

// linalg_pinv(A, hermitian=True): the tolerances (tolerance_kernels), eigh, then the threshold, the
// reciprocal of the values above it and U S^+ (9 elementwise kernels) times U^H: one matrix product
// (factor_product_launches). Empty: the tolerances.
bool hermitian_spectral(const OpFacts& f) {
  return f.bool_arg("hermitian", false) && tolerance_kernels(f).has_value() && fp32_square(f.input(0));
}
bool pinv_hermitian_fits(const OpFacts& f) {
  return hermitian_spectral(f) && eigh_launches(*f.input(0), true, false).has_value();
}
Counts pinv_hermitian_counts(const OpFacts& f) {
  const Value& a = *f.input(0);
  Counts c{*tolerance_kernels(f), 0, 0, 0};
  if (a.numel() == 0) return c;
  const Matrix m = *matrix(&a);
  c += *eigh_launches(a, true, false);
  c += Counts{9, 0, 0, 0};
  c += factor_product_launches(*f.target, m.batch, m.rows, m.rows, m.rows);
  return c;
}

// linalg_matrix_rank(A, hermitian=True): the tolerances, eigvalsh, then the magnitudes, their
// largest, the threshold and the count above it (7 kernels). Empty: the tolerances and the zero
// rank filled (nothing to fill for an empty batch).
bool matrix_rank_hermitian_fits(const OpFacts& f) {
  return hermitian_spectral(f) && eigh_launches(*f.input(0), false, false).has_value();
}
Counts matrix_rank_hermitian_counts(const OpFacts& f) {
  const Value& a = *f.input(0);
  Counts c{*tolerance_kernels(f), 0, 0, 0};
  if (a.numel() == 0) {
    if (matrix(&a)->batch > 0) c += Counts{1, 0, 0, 0};
    return c;
  }
  c += *eigh_launches(a, false, false);
  c += Counts{7, 0, 0, 0};
  return c;
}

}  // namespace

void add_linalg_eigh_rules(std::vector<LaunchRule>& r) {
  r.push_back(
      rule("linalg.eigh")
          .ops({"aten::linalg_eigh", "aten::linalg_eigvalsh"})
          .when("float32 symmetric matrices: one up to 24 rows (syevd) or a batch up to 32 (batched syevj), "
                "the counts measured per size range (eigh 16 / 23 / 28 + 3 memcpy + 1 memset for one; 18 / "
                "25 / 30 + 1 memcpy + 2 memsets for a batch; eigvalsh 3 to 4 fewer); UPLO U up to 5 rows (one "
                "matrix + 1); empty: nothing",
                eigh_fits)
          .compute(
              [](const OpFacts& f) { return *eigh_launches(*f.input(0), f.op->name == "aten::linalg_eigh", upper(f)); })
          .evidence("sweep:linalg_sizes (eigh, eigvalsh: n 0 to 512 by batches (), 1, 2, 3, 2x3, 16, 64), "
                    "opinfo:linalg_eigh, linalg_eigvalsh (UPLO U: 5x5, 0x0), opinfo_heldout: the same (2 x 5x5)")
          .why("A symmetric eigendecomposition is cuSOLVER's syevd for one matrix and its batched Jacobi "
               "solver for several; past the sizes listed the iterations the values need decide the "
               "launches."));
  r.push_back(rule("linalg.pinv_hermitian")
                  .ops({"aten::linalg_pinv"})
                  .when("float32, hermitian: the tolerances (as for the SVD's pinv), eigh as counted above, 9 "
                        "elementwise kernels and one matrix product; empty: the tolerances",
                        pinv_hermitian_fits)
                  .compute(pinv_hermitian_counts)
                  .evidence("sweep:linalg_sizes (pinv_hermitian: n 0 to 512 by batches), "
                            "opinfo:linalg_pinv_hermitian (5x5, 0x0, 0x5x5), opinfo_heldout:linalg_pinv_hermitian "
                            "(2 x 5x5)")
                  .why("A hermitian pseudo-inverse takes the eigendecomposition, inverts the eigenvalues above the "
                       "tolerance and multiplies the factors back."));
  r.push_back(rule("linalg.matrix_rank_hermitian")
                  .ops({"aten::linalg_matrix_rank"})
                  .when("float32, hermitian: the tolerances (as for the SVD's rank), eigvalsh as counted above, 7 "
                        "kernels to threshold and count; empty: the tolerances + the zero rank (none for an empty "
                        "batch)",
                        matrix_rank_hermitian_fits)
                  .compute(matrix_rank_hermitian_counts)
                  .evidence("opinfo:linalg_matrix_rank_hermitian (5x5, 0x0, 0x5x5), opinfo_heldout: the same "
                            "(2 x 5x5, 1x1x5x5), with eigvalsh as sweep:linalg_sizes measured it")
                  .why("The rank of a hermitian matrix counts the eigenvalues whose magnitude is above a tolerance "
                       "computed from the largest."));
}

}  // namespace kc::torch2_11
