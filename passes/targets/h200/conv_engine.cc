// Why trees: cuDNN picks an engine (implicit GEMM on NHWC with layout transforms, an NCHW-native
// kernel, split-K with a zeroed workspace and a reduction, FFT, a loop over the groups of a
// grouped convolution) with a learned heuristic inside the library; no rule readable from ATen's
// call site decides it. The trees reproduce the measured choice over the shape features the
// heuristic is given, and cross-validation on the sweeps, and each model family left out of the
// fit in turn, say how often they are right on shapes they were not fitted to
// (validate/sweeps/fit_conv.py prints both; docs/rules.md lists them).
#include "passes/targets/h200/conv_engine.h"

#include <algorithm>
#include <limits>
#include <numeric>
#include <string>

namespace kc::h200 {
namespace {

constexpr size_t kFeatures = 18;

struct ConvTreeNode {
  int feature;  // index into the feature array below; -1 for a leaf
  double threshold;
  int left, right;
  int kernels, memset;
  int per_group;  // a leaf's counts are once per group (cuDNN loops over the groups)
};

#include "passes/targets/h200/conv_engine_trees.inc"

template <size_t N>
Counts walk(const ConvTreeNode (&tree)[N], const int64_t (&f)[kFeatures], int64_t groups) {
  size_t i = 0;
  for (size_t steps = 0; steps < N && tree[i].feature >= 0; ++steps) {
    const ConvTreeNode& n = tree[i];
    i = static_cast<size_t>(static_cast<double>(f[n.feature]) <= n.threshold ? n.left : n.right);
  }
  const int64_t times = tree[i].per_group ? groups : 1;
  // Leaf counts are < 100 and groups <= 2^40 (checked), so the products fit 64 bits.
  const int64_t kernels = tree[i].kernels * times;
  const int64_t memsets = tree[i].memset * times;
  if (std::max(kernels, memsets) > std::numeric_limits<int>::max())
    throw Error("a convolution of " + std::to_string(groups) + " groups loops over more launches than can be counted");
  return {static_cast<int>(kernels), 0, static_cast<int>(memsets), 0};
}

}  // namespace

Counts cudnn_conv(bool half, bool channels_last, const ConvProblem& p) {
  // The order of validate/sweeps/fit_conv.py's FEATURES.
  const int64_t f[kFeatures] = {p.kernel,
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
                                std::gcd(p.c_out, int64_t{8}),
                                p.groups,
                                p.depth,
                                p.kernel_t,
                                p.stride_t,
                                p.one_d ? 1 : 0};
  const int64_t g = p.groups;
  if (g < 1 || g > (int64_t{1} << 40)) throw Error("a convolution of " + std::to_string(g) + " groups");
  if (g > 1) return half ? walk(kConvTree_half_grouped, f, g) : walk(kConvTree_f32_grouped, f, g);
  if (p.three_d) {
    if (half) return channels_last ? walk(kConvTree_half_ndhwc, f, g) : walk(kConvTree_half_ncdhw, f, g);
    return channels_last ? walk(kConvTree_f32_ndhwc, f, g) : walk(kConvTree_f32_ncdhw, f, g);
  }
  if (half) return channels_last ? walk(kConvTree_half_nhwc, f, g) : walk(kConvTree_half_nchw, f, g);
  return channels_last ? walk(kConvTree_f32_nhwc, f, g) : walk(kConvTree_f32_nchw, f, g);
}

}  // namespace kc::h200
