// Pass "layout": the strides eager PyTorch really gives each value on the GPU.
//
// A .pt2 records the strides of export-time fake tensors. They diverge from what eager CUDA
// PyTorch produces at one source: convolutions. cuDNN returns its output in the memory format
// `cudnn_conv_suggest_memory_format(input, weight)` picks (aten/src/ATen/native/ConvUtils.h):
// channels_last when the input or the weight is channels_last-strided, while the export
// records a contiguous output. ConvNeXt/Twins/PVT-style blocks (a conv reading the permute of
// an NHWC tensor) therefore run channels_last at run time, and everything computed from that
// output (views, permutes, pointwise ops) has other strides than recorded. This pass re-derives
// them with ATen's own rules (view stride arithmetic, TensorIterator's output permutation,
// suggest_memory_format-preserving ops, contiguous outputs of GEMMs/norms/softmax); the launch
// rules read these run-time strides, the IR keeps the recorded ones for display.
#pragma once

#include <cstdint>
#include <unordered_map>
#include <vector>

#include "analyzer/graph.h"

namespace kc {

// A view ATen cannot take at run time: its input's run-time strides admit no view to the new
// sizes (computeStride, aten/src/ATen/TensorUtils.cpp), where the strides the export recorded did.
// Eager PyTorch raises at the op ("view size is not compatible with input tensor's size and
// stride"), and torch.compile while tracing it ("Cannot view a tensor with shape ..."): the program
// does not run on the GPU as exported. The CPU's attention, for one, returns a layout whose permute
// a later view may merge; the GPU's fused attention does not.
struct FailingView {
  int op = -1;
  std::vector<int64_t> sizes, strides;  // the input's sizes and run-time strides
};

struct Layout {
  std::vector<bool> diverges;  // per value: run-time strides differ from the recorded ones
  int diverging = 0;           // how many values diverge
  // The run-time strides of the values that diverge, by value index; every other value runs
  // with the strides the file records.
  std::unordered_map<int, std::vector<int64_t>> runtime;

  // Value v's run-time strides.
  const std::vector<int64_t>& strides(const Graph& g, int v) const {
    return diverges[v] ? runtime.at(v) : g.values[v].strides;
  }
  std::vector<FailingView> failing_views;  // in op order
};

Layout run_layout(const Graph& g);

// A copy of g whose values carry the run-time strides (what the launch rules read).
Graph with_runtime_strides(const Graph& g, const Layout& layout);

// ATen's is_channels_last_strides_2d / _3d (c10/core/MemoryFormat.h): true when
// suggest_memory_format() is ChannelsLast (4-D) or ChannelsLast3d (5-D).
bool channels_last_strides(const std::vector<int64_t>& sizes, const std::vector<int64_t>& strides);

}  // namespace kc
