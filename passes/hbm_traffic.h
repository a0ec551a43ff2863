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

// The arrays that cross HBM when op i of g runs, as run_hbm_traffic counts them: each distinct
// GPU tensor input (reads) and output (writes) once; none for an op that moves nothing.
struct HbmArrays {
  bool moves = false;              // the op launches work that touches its arrays
  std::vector<int> reads, writes;  // value indices
};
HbmArrays hbm_arrays(const Graph& g, int i, const Launch& launch);
// The same into `out`, whose lists keep their storage: a pass that asks for every op's arrays
// allocates nothing per op.
void hbm_arrays(const Graph& g, int i, const Launch& launch, HbmArrays& out);

}  // namespace kc
