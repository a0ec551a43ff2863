// Pass "hbm": array-sized HBM reads and writes of each op, and its FLOPs.
#pragma once

#include <vector>

#include "analyzer/graph.h"
#include "passes/report.h"

namespace kc {

// Each op that launches GPU work reads every distinct tensor input once, at its real size
// (a broadcast input counts its own elements, not the broadcast ones), and writes every
// output once; an in-place op reads and writes the same array. Ops that launch nothing
// (views, metadata, host-side ops) move nothing. Traffic inside a multi-kernel op (cuDNN
// layout transforms) is not included: the figures are the op's unavoidable traffic.
std::vector<Traffic> run_hbm_traffic(const Graph& g, const std::vector<Launch>& launches);

}  // namespace kc
