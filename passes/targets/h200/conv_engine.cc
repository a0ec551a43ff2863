// Why trees: cuDNN picks an engine (implicit GEMM on NHWC with layout transforms, an NCHW-native
// kernel, split-K with a zeroed workspace and a reduction, FFT) with a learned heuristic inside
// the library; no rule readable from ATen's call site decides it. The trees reproduce the
// measured choice over the shape features the heuristic is given, and cross-validation on the
// sweeps says how often they are right on shapes they were not fitted to
// (validate/sweeps/fit_conv.py prints it; docs/rules.md lists it).
#include "passes/targets/h200/conv_engine.h"

#include <numeric>

namespace kc::h200 {
namespace {

struct ConvTreeNode {
  int feature;  // index into the feature array below; -1 for a leaf
  double threshold;
  int left, right;
  int kernels, memset;
};

#include "passes/targets/h200/conv_engine_trees.inc"

template <size_t N>
Counts walk(const ConvTreeNode (&tree)[N], const int64_t (&f)[13]) {
  size_t i = 0;
  for (size_t steps = 0; steps < N && tree[i].feature >= 0; ++steps) {
    const ConvTreeNode& n = tree[i];
    i = static_cast<size_t>(static_cast<double>(f[n.feature]) <= n.threshold ? n.left : n.right);
  }
  return {tree[i].kernels, 0, tree[i].memset, 0};
}

}  // namespace

Counts cudnn_ungrouped_conv(bool half, bool channels_last, const ConvProblem& p) {
  // The order of validate/sweeps/fit_conv.py's FEATURES.
  const int64_t f[13] = {p.kernel,
                         p.stride,
                         p.dilation,
                         p.batch,
                         p.height,
                         p.width,
                         p.c_in,
                         p.c_out,
                         p.out_pixels,
                         p.gemm_m,
                         p.gemm_k,
                         std::gcd(p.c_in, int64_t{8}),
                         std::gcd(p.c_out, int64_t{8})};
  if (half) return channels_last ? walk(kConvTree_half_nhwc, f) : walk(kConvTree_half_nchw, f);
  return channels_last ? walk(kConvTree_f32_nhwc, f) : walk(kConvTree_f32_nchw, f);
}

}  // namespace kc::h200
