// Pass "time": a lower bound on each op's GPU time from its bytes, FLOPs and kernel count.
#pragma once

#include <vector>

#include "analyzer/graph.h"
#include "passes/report.h"

namespace kc {

// memory_s = bytes / HBM bandwidth; compute_s = FLOPs / rate (tensor-core GEMM rate for
// GEMMs, convolutions and attention, the vector rate otherwise); launch_s = kernels times
// the smallest time per launch. The floor is the largest of the three: no schedule beats it.
std::vector<TimeFloor> run_time_floor(const Graph& g, const std::vector<Launch>& launches,
                                      const std::vector<Traffic>& traffic, const Target& target);

// Sets each group's floor_s, the group as one op, and returns the plan's: their sum.
double plan_time_floor(FusionPlan& plan, const Graph& g, const Target& target);

}  // namespace kc
