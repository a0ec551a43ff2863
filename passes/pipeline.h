// The analysis pipeline, in one visible function: launches -> hbm -> fusion -> time ->
// totals -> explain -> rollups. Every step runs through one wrapper that names the pass (and the op,
// with its source line) in any error and checks the report's invariants after the step.
#pragma once

#include "analyzer/graph.h"
#include "passes/launches.h"
#include "passes/report.h"

namespace kc {

// Which plan fills the report's fused columns (`fusion`): the greedy pointwise plan, or the
// model of what torch.compile's Inductor launches (pass "inductor").
enum class FusionModel { kPointwise, kInductor };

// Runs every pass over the graph for the target. Throws Error("pass <name> failed at op <i>
// <op> (<file:line>): ...") when a pass or an invariant after it fails.
Report analyze(const Graph& g, const Target& target, const LaunchOptions& launch_options = {},
               FusionModel fusion = FusionModel::kPointwise);

}  // namespace kc
