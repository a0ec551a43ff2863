// The analysis pipeline, in one visible function: launches -> hbm -> fusion -> time -> totals.
#pragma once

#include "analyzer/graph.h"
#include "passes/launches.h"
#include "passes/report.h"

namespace kc {

// Runs every pass over the graph for the target. Throws Error("pass <name> failed at op <i>
// (<file:line>): ...") when a pass or an invariant between passes fails.
Report analyze(const Graph& g, const Target& target, const LaunchOptions& launch_options = {});

}  // namespace kc
