// The tables a target of PyTorch 2.11 brings in its folder (passes/targets/<folder>/): the trees
// fitted on its GPU's sweeps and the cuDNN answers asked with its device properties. The
// mechanisms (gemm_engine.h, conv_engine.h, cudnn_table.h) read them through the target; each
// folder's target.cc includes target_tables.inc to fill them.
#pragma once

#include <cstddef>
#include <string_view>

namespace kc::torch2_11 {

// A generated array of nodes, with its length.
template <class Node>
struct Table {
  const Node* nodes = nullptr;
  size_t size = 0;
  template <size_t N>
  static Table of(const Node (&a)[N]) {
    return {a, N};
  }
};

// A node of the GEMM tree (generators/fit_gemm.py writes gemm_tree.inc).
struct GemmTreeNode {
  int feature;  // index into gemm_engine.cc's features; -1 for a leaf
  double threshold;
  int left, right;
  int kernels, memcpy, memset;  // a leaf's launches
};

// A node of the tree saying whether Inductor's pad_mm pads a GEMM on the target's GPU
// (generators/fit_pad_mm.py writes pad_mm_tree.inc).
struct PadMmNode {
  int feature;  // index into inductor_pad_mm.cc's features; -1 for a leaf
  double threshold;
  int left, right;
  int pads;  // a leaf's answer
};

// A node of a convolution tree (generators/fit_conv.py writes conv_engine_trees.inc).
struct ConvTreeNode {
  int feature;  // index into conv_engine.cc's features; -1 for a leaf
  double threshold;
  int left, right;
  int kernels, memset;
  int per_group;  // a leaf's counts are once per group (cuDNN loops over the groups)
};

// A node of the classifier saying whether cuDNN on the GPU itself takes its cuBLASLt GEMM engine.
struct GpuGemmNode {
  int feature;  // see conv_engine.cc's gpu_takes_gemm
  double threshold;
  int left, right;
  int picks;  // a leaf's answer
};

// The convolution trees by problem kind, in this order (fit_conv.py's tree names).
enum ConvKind {
  kF32Nchw,
  kF32Nhwc,
  kHalfNchw,
  kHalfNhwc,
  kF32Ncdhw,
  kF32Ndhwc,
  kHalfNcdhw,
  kHalfNdhwc,
  kF32Grouped,
  kHalfGrouped,
  kConvKinds
};

struct ConvTrees {
  Table<GpuGemmNode> gpu_gemm;
  Table<ConvTreeNode> shape[kConvKinds];  // kConvTree_*: the shape alone
  Table<ConvTreeNode> cudnn[kConvKinds];  // kConvTreeCudnn_*: the shape and cuDNN's own choice
};

struct Tables {
  Table<GemmTreeNode> gemm;
  Table<PadMmNode> pad_mm;  // empty: the target's pad_mm choices were never measured (nothing padded)
  ConvTrees conv;
  std::string_view cudnn_answers;  // cudnn_answers.txt as committed, linked in (empty: no answers kept)
};

}  // namespace kc::torch2_11
