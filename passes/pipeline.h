// The analysis pipeline, in one visible function: launches -> hbm -> fusion -> time ->
// totals -> explain -> rollups. Every step runs through one wrapper that names the pass (and the op,
// with its source line) in any error and checks the report's invariants after the step.
#pragma once

#include "analyzer/graph.h"
#include "passes/launches.h"
#include "passes/report.h"

namespace kc {

// Runs every pass over the graph for the target. Throws Error("pass <name> failed at op <i>
// <op> (<file:line>): ...") when a pass or an invariant after it fails.
Report analyze(const Graph& g, const Target& target, const LaunchOptions& launch_options = {});

}  // namespace kc
