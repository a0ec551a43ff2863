// Pass "fusion": a greedy elementwise-fusion plan, as torch.compile (Inductor) builds for
// pointwise chains.
#pragma once

#include <vector>

#include "analyzer/graph.h"
#include "passes/report.h"

namespace kc {

enum class FusionVariant {
  kPointwise,           // chains of pointwise ops over one iteration space become one kernel
  kPointwiseReduction,  // also: pointwise prologues and epilogues fuse into reductions and norms
};

// Walks the ops in order. A pointwise op (by libtorch's tag, plus copies and dtype casts)
// joins the open group of one of its producers when the group iterates over the same number
// of elements and joining cannot make the group depend on itself through an outside op;
// views and other free ops are transparent. GEMMs, convolutions, attention and everything
// else stay alone. A fused group reads the tensors that come from outside it and writes
// those used outside it (or returned), once each.
// Given `pointwise`, the plan of the kPointwise variant for the same graph, the
// kPointwiseReduction variant copies it when no op that launches is a reduction: the two plans
// are then the same but for their name.
FusionPlan run_fusion(const Graph& g, const std::vector<Launch>& launches, const std::vector<Traffic>& traffic,
                      FusionVariant variant, const FusionPlan* pointwise = nullptr);

}  // namespace kc
