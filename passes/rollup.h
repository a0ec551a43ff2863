// Pass "rollup": sums per-op results by the user's source line, by module, by op type, and
// over the module tree (each module's totals include its submodules').
#pragma once

#include <vector>

#include "analyzer/graph.h"
#include "passes/report.h"

namespace kc {

enum class RollupKey { kLine, kModule, kOpType };

// Flat rollup, rows in order of their first op. Needs the report's launches and traffic.
std::vector<RollupRow> rollup(const Graph& g, const Report& r, RollupKey key);

// The module tree with inclusive totals, in depth-first order of first op; node 0 is the
// model itself (depth 0, key ""). An op counts in its own module and every ancestor.
std::vector<ModuleNode> module_tree(const Graph& g, const Report& r);

// "aten::add.Tensor" -> "add.Tensor": the op type as rollups and diffs name it.
std::string op_type_name(const Op& op);

}  // namespace kc
