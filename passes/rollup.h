// Pass "rollup": sums per-op results by the user's source line or by module.
#pragma once

#include <vector>

#include "analyzer/graph.h"
#include "passes/report.h"

namespace kc {

enum class RollupKey { kLine, kModule };

// Needs the report's launches and traffic.
std::vector<RollupRow> rollup(const Graph& g, const Report& r, RollupKey key);

}  // namespace kc
