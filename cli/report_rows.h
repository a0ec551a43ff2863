// Cells shared by the text and markdown renderers, so both show the same numbers.
#pragma once

#include <string>
#include <vector>

#include "analyzer/graph.h"
#include "cli/baseline.h"
#include "passes/report.h"

namespace kc {

// Header and rows of the main table for --by op|line|module.
std::vector<std::string> main_header(const std::string& by);
std::vector<std::vector<std::string>> main_rows(const Graph& g, const Report& r, const std::string& by);
// Fusion groups that merge two or more ops.
std::vector<std::string> fusion_header();
std::vector<std::vector<std::string>> fusion_rows(const Graph& g, const FusionPlan& plan);
// Totals against a baseline: (quantity, before, after, change).
std::vector<std::vector<std::string>> baseline_rows(const BaselineDiff& d);
// Modules whose eager kernels changed: (module, before, after, change), at most `limit`.
std::vector<std::vector<std::string>> baseline_module_rows(const BaselineDiff& d, size_t limit);
// Totals as (label, eager, fused) lines.
std::vector<std::vector<std::string>> totals_rows(const Report& r);

}  // namespace kc
