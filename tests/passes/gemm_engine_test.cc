// The GEMM tree as C++ walks it against the tree scikit-learn fitted (generators/fit_gemm.py):
// the same answer for every GEMM of tests/passes/gemm_tree_cases.inc, so the features are computed
// alike on both sides. How often those answers match the GPU is fit_gemm.txt's figure.
#include "passes/torch2_11/gemm_engine.h"

#include <catch2/catch.hpp>
#include <cstdint>

#include "passes/target.h"

namespace {

struct GemmTreeCase {
  int64_t call[9];
  int answer[3];
  int measured[3];
};

#include "tests/passes/gemm_tree_cases.inc"

}  // namespace

TEST_CASE("gemm engine: the C++ tree gives the fitted tree's answer for each sampled GEMM") {
  int same_as_gpu = 0;
  for (const GemmTreeCase& t : kGemmTreeCases) {
    kc::torch2_11::GemmCall c;
    c.half = t.call[0] != 0;
    c.bias = t.call[1] != 0;
    c.batched = t.call[2] != 0;
    c.ta = t.call[3] != 0;
    c.tb = t.call[4] != 0;
    c.b = t.call[5];
    c.m = t.call[6];
    c.k = t.call[7];
    c.n = t.call[8];
    const kc::Counts got = kc::torch2_11::cublas_launches(kc::default_target().tables.gemm, c);
    INFO("GEMM b=" << c.b << " m=" << c.m << " k=" << c.k << " n=" << c.n);
    CHECK(got.kernels == t.answer[0]);
    CHECK(got.memcpy == t.answer[1]);
    CHECK(got.memset == t.answer[2]);
    same_as_gpu += got.kernels == t.measured[0] && got.memcpy == t.measured[1] && got.memset == t.measured[2];
  }
  // These GEMMs were part of the shipped tree's fit: a sanity bound, not an accuracy figure.
  CHECK(same_as_gpu >= 450);
}
