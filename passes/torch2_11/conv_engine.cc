// Why trees: cuDNN picks an engine (implicit GEMM on NHWC with layout transforms, an NCHW-native
// kernel, split-K with a zeroed workspace and a reduction, FFT, a loop over the groups of a
// grouped convolution) with a learned heuristic inside the library; no rule readable from ATen's
// call site decides it. The trees reproduce the measured choice over the shape features the
// heuristic is given, and cross-validation on the sweeps, and each model family left out of the
// fit in turn, say how often they are right on shapes they were not fitted to
// (generators/fit_conv.py prints both; docs/rules.md lists them). Where cuDNN itself can be
// asked (cudnn_heuristics.h), a second set of trees also reads the engine configuration its
// heuristics pick: the same engine can still launch different kernels (a GEMM for a 1x1
// convolution or an implicit GEMM with layout transforms, a split-K or not), so the measured
// launches are still learned, but the engine settles most of the shape's ambiguity.
#include "passes/torch2_11/conv_engine.h"

#include <algorithm>
#include <cmath>
#include <iterator>
#include <limits>
#include <numeric>
#include <string>

#include "analyzer/error.h"

namespace kc::torch2_11 {
namespace {

constexpr size_t kShapeFeatures = 18;
constexpr size_t kFeatures = kShapeFeatures + 4 + kCudnnKnobs.size();

constexpr size_t kGpuGemmShapeFeatures = 17;              // the shape features but one_d
constexpr size_t kEngineAnswer = 3 + kCudnnKnobs.size();  // engine, knobs, workspace, next engine

// Asked without a GPU, cuDNN never offers engine 58, a GEMM through cuBLASLt (which cannot rank
// itself without a device); on the H200 it wins for most 1x1 convolutions at stride 1, and the
// GEMM launches differ from the implicit-GEMM engines'. Fitted on the GPU's own answers for
// random such shapes (generators/fit_conv.py's gpu_gemm).
bool gpu_takes_gemm(const Table<GpuGemmNode>& tree, const double (&f)[kFeatures], bool half, bool channels_last) {
  // The classifier's features: the shape's but one_d, half precision, channels last, then cuDNN's
  // answer without a GPU (the best other engine, which the GEMM has to beat).
  double x[kGpuGemmShapeFeatures + 2 + kEngineAnswer];
  std::copy(f, f + kGpuGemmShapeFeatures, x);
  x[kGpuGemmShapeFeatures] = half ? 1.0 : 0.0;
  x[kGpuGemmShapeFeatures + 1] = channels_last ? 1.0 : 0.0;
  std::copy(f + kShapeFeatures, f + kShapeFeatures + kEngineAnswer, x + kGpuGemmShapeFeatures + 2);
  if (tree.size == 0) return false;
  size_t i = 0;
  for (size_t steps = 0; steps < tree.size && tree.nodes[i].feature >= 0; ++steps) {
    const GpuGemmNode& node = tree.nodes[i];
    i = static_cast<size_t>(x[node.feature] <= node.threshold ? node.left : node.right);
  }
  return tree.nodes[i].picks != 0;
}

Counts walk(const Table<ConvTreeNode>& tree, const double (&f)[kFeatures], int64_t groups) {
  check(tree.size > 0, "a target without a convolution tree");
  size_t i = 0;
  for (size_t steps = 0; steps < tree.size && tree.nodes[i].feature >= 0; ++steps) {
    const ConvTreeNode& n = tree.nodes[i];
    i = static_cast<size_t>(f[n.feature] <= n.threshold ? n.left : n.right);
  }
  const ConvTreeNode& leaf = tree.nodes[i];
  const int64_t times = leaf.per_group ? groups : 1;
  // Leaf counts are < 100 and groups <= 2^40 (checked), so the products fit 64 bits.
  const int64_t kernels = leaf.kernels * times;
  const int64_t memsets = leaf.memset * times;
  if (std::max(kernels, memsets) > std::numeric_limits<int>::max())
    throw Error("a convolution of " + std::to_string(groups) + " groups loops over more launches than can be counted");
  return {static_cast<int>(kernels), 0, static_cast<int>(memsets), 0};
}

}  // namespace

Counts cudnn_conv(const ConvTrees& trees, bool half, bool channels_last, const ConvProblem& p,
                  const CudnnEngineChoice* engine) {
  // The order of generators/fit_conv.py's FEATURES, then its ENGINE_FEATURES (read only by
  // the kConvTreeCudnn_* trees).
  double f[kFeatures] = {static_cast<double>(p.kernel),
                         static_cast<double>(p.stride),
                         static_cast<double>(p.dilation),
                         static_cast<double>(p.batch),
                         static_cast<double>(p.height),
                         static_cast<double>(p.width),
                         static_cast<double>(p.c_in),
                         static_cast<double>(p.c_out),
                         static_cast<double>(p.out_pixels),
                         static_cast<double>(p.gemm_m),
                         static_cast<double>(p.gemm_k),
                         static_cast<double>(std::gcd(p.c_in, int64_t{8})),
                         static_cast<double>(std::gcd(p.c_out, int64_t{8})),
                         static_cast<double>(p.groups),
                         static_cast<double>(p.depth),
                         static_cast<double>(p.kernel_t),
                         static_cast<double>(p.stride_t),
                         p.one_d ? 1.0 : 0.0};
  if (engine) {
    size_t i = kShapeFeatures;
    f[i++] = static_cast<double>(engine->engine);
    for (int64_t k : engine->knobs) f[i++] = static_cast<double>(k);
    f[i++] = std::log2(static_cast<double>(engine->workspace) + 1);
    f[i++] = static_cast<double>(engine->next_engine);
    f[i++] = p.gemm_shaped && gpu_takes_gemm(trees.gpu_gemm, f, half, channels_last) ? 1.0 : 0.0;
  }
  const int64_t g = p.groups;
  if (g < 1 || g > (int64_t{1} << 40)) throw Error("a convolution of " + std::to_string(g) + " groups");
  ConvKind kind;
  if (g > 1)
    kind = half ? kHalfGrouped : kF32Grouped;
  else if (p.three_d)
    kind = half ? (channels_last ? kHalfNdhwc : kHalfNcdhw) : (channels_last ? kF32Ndhwc : kF32Ncdhw);
  else
    kind = half ? (channels_last ? kHalfNhwc : kHalfNchw) : (channels_last ? kF32Nhwc : kF32Nchw);
  return walk(engine ? trees.cudnn[kind] : trees.shape[kind], f, g);
}

}  // namespace kc::torch2_11
