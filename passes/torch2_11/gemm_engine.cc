// Why a tree: which kernels one GEMM launches (one GEMM kernel; split-K with a reduction kernel;
// sgemm_largek with a scaling kernel, an epilogue and a zeroed workspace; stream-K with a zeroed
// workspace; a GEMV; a dot product and a reduction) is the answer of cuBLAS's heuristic inside the
// library, which no call gives without a GPU. What the heuristic reads is the problem's shape:
// output tiles against the SMs, K per tile, the alignment of the leading dimensions, the
// dtype, transposes, a fused bias. A target's tree (its folder's gemm_tree.inc) reproduces the
// choice its GPU made for random GEMMs over those features: the H200's, 500,000 of them
// (data/sweeps/gemm_random*.csv.gz; no shape from a model);
// generators/fit_gemm.txt says how often it is right on GEMMs it never saw.
#include "passes/torch2_11/gemm_engine.h"

#include <cmath>
#include <iterator>

#include "analyzer/error.h"

namespace kc::torch2_11 {
namespace {

constexpr size_t kFeatures = 28;

int64_t cdiv(int64_t a, int64_t b) {
  return (a + b - 1) / b;
}

// fit_gemm.py's features(), in its order. Each is rounded to float as scikit-learn stores them,
// so that a value compares with a threshold as it did in the fit.
void features(const GemmCall& c, double (&x)[kFeatures]) {
  const double m = static_cast<double>(c.m), k = static_cast<double>(c.k), n = static_cast<double>(c.n);
  const double b = static_cast<double>(c.b);
  const double t32 = static_cast<double>(cdiv(c.m, 32) * cdiv(c.n, 32));
  const double t64 = static_cast<double>(cdiv(c.m, 64) * cdiv(c.n, 64));
  const double t128 = static_cast<double>(cdiv(c.m, 128) * cdiv(c.n, 128));
  const double v[kFeatures] = {c.half ? 1.0 : 0.0,
                               c.bias ? 1.0 : 0.0,
                               c.batched ? 1.0 : 0.0,
                               c.ta ? 1.0 : 0.0,
                               c.tb ? 1.0 : 0.0,
                               b,
                               m,
                               k,
                               n,
                               std::log2(b) + std::log2(m) + std::log2(k) + std::log2(n),
                               m * n,
                               t32,
                               t64,
                               t128,
                               k / t32,
                               k / t64,
                               k / t128,
                               b * t64,
                               b * t128,
                               c.m % 4 == 0 ? 1.0 : 0.0,
                               c.k % 4 == 0 ? 1.0 : 0.0,
                               c.n % 4 == 0 ? 1.0 : 0.0,
                               c.m % 8 == 0 ? 1.0 : 0.0,
                               c.k % 8 == 0 ? 1.0 : 0.0,
                               c.n % 8 == 0 ? 1.0 : 0.0,
                               c.m % 2 == 0 ? 1.0 : 0.0,
                               c.k % 2 == 0 ? 1.0 : 0.0,
                               c.n % 2 == 0 ? 1.0 : 0.0};
  for (size_t i = 0; i < kFeatures; ++i) x[i] = static_cast<double>(static_cast<float>(v[i]));
}

}  // namespace

Counts cublas_launches(const Table<GemmTreeNode>& tree, const GemmCall& call) {
  if (call.m <= 0 || call.k <= 0 || call.n <= 0 || call.b <= 0) return {1, 0, 0, 0};
  check(tree.size > 0, "a target without a GEMM tree");
  double x[kFeatures];
  features(call, x);
  size_t i = 0;
  for (size_t steps = 0; steps < tree.size && tree.nodes[i].feature >= 0; ++steps) {
    const GemmTreeNode& node = tree.nodes[i];
    i = static_cast<size_t>(x[node.feature] <= node.threshold ? node.left : node.right);
  }
  const GemmTreeNode& leaf = tree.nodes[i];
  return {leaf.kernels, leaf.memcpy, leaf.memset, 0};
}

}  // namespace kc::torch2_11
