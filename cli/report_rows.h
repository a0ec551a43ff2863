// Cells shared by the text and markdown renderers, so both show the same numbers. Choosing,
// ordering and cutting rows for display happens here; the numbers come from the report.
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include "analyzer/graph.h"
#include "cli/baseline.h"
#include "passes/report.h"

namespace kc {

// The text reports' first lines: the model file, the target, the loader's notes, the views the
// GPU cannot take.
void model_header(std::ostream& os, const Graph& g, const Report& r);

// Why a view fails on the GPU, in one sentence (the text header's warning, JSON's `gpu_failures`).
std::string failing_view_reason(const Graph& g, const FailingView& f);
// The report's warning that the program cannot run on the GPU (its first failing view, how many
// more), or "" when it can.
std::string gpu_failure_warning(const Graph& g, const Report& r);

// A table ready to print: header, rows, and how many rows were left off (say "N more").
struct Rows {
  std::vector<std::string> header;
  std::vector<std::vector<std::string>> rows;
  size_t total = 0;  // rows before the cut
  size_t cut() const { return total - rows.size(); }
};

// Whether the report is --fusion inductor's: its fused columns are Inductor's, and the greedy
// plan's stand beside them.
bool compiled_view(const Report& r);
// The totals' header: eager, fused (greedy), inductor when compiled_view, fused+reductions.
std::vector<std::string> totals_header(const Report& r);

// Row order for --sort: "kernels", "bytes", "ops" (largest first) or "order" (execution order).
// `top` 0 keeps every row. In the compiled view each op has two groups: the greedy plan's (P<n>)
// and Inductor's (F<n>).
Rows op_table(const Graph& g, const Report& r, const std::string& sort, size_t top);
// A flat rollup (by line, module or op type: `by` is "line", "module" or "op-type").
// `compiled`: also the greedy plan's and Inductor's kernels and bytes (compiled_view).
Rows rollup_table(const std::vector<RollupRow>& rows, const std::string& by, const std::string& sort, size_t top,
                  bool compiled = false);
// The module tree to `depth` (-1: all), names indented by depth, inclusive totals and the
// module's self figures (its own ops, without its submodules'); siblings
// ordered by `sort`. `only_depth`: the nodes of exactly that depth, ordered by `sort` (the summary).
Rows module_tree_table(const std::vector<ModuleNode>& tree, int depth, const std::string& sort, size_t top,
                       bool only_depth, bool compiled = false);
// Kernels by name, as torch.profiler's key_averages() tables them: calls (each op's launches
// under the names measured for such ops), share of all calls, ops, time floor (each op's floor
// split over its launches) and the op types that launch them. Ops without a launch rule are
// rows of their own with unknown calls. Sorted by calls (--sort time: floor, order: first call).
Rows kernel_table(const Graph& g, const Report& r, const std::string& sort, size_t top);
// The summary's narrower rollups: `rows` without the FLOPs and floor columns, unless `sort` orders by
// them (flops, time).
Rows without_cost_columns(Rows rows, const std::string& sort);
// Fusion groups that merge two or more ops; by bytes saved when `by_saving`, else in order.
// `kind`: only groups of that kind ("reduction": pointwise ops fused into a reduction's kernel).
// The bytes saved are array-sized; with the ops' expected DRAM traffic (`dram`, one per op; empty
// where the target models no L2) an "eager DRAM" column says how much of it gets past the L2,
// the most of the saving that is DRAM traffic. Groups are named `letter`<n> (R<n> for "reduction").
Rows fusion_table(const Graph& g, const FusionPlan& plan, bool by_saving, size_t top, const std::string& kind = "",
                  const std::vector<DramTraffic>& dram = {}, char letter = 'F');
// The letter the greedy pointwise plan's groups are named by: F, or P in the compiled view,
// where F<n> names Inductor's groups.
char pointwise_letter(const Report& r);
// One line saying which bytes the fusion tables' savings are, or "" without an L2 model.
std::string fusion_bytes_note(const Report& r);
// The ops' expected DRAM traffic for fusion_table, or none where the target models no L2.
const std::vector<DramTraffic>& dram_past_l2(const Report& r);
// Totals as (label, eager, fused, [inductor,] fused+reductions) lines, as totals_header.
std::vector<std::vector<std::string>> totals_rows(const Report& r);
// The compiled groups that launch more kernels than their ops do eagerly (--fusion inductor),
// in order: group, anchor op, its source line, eager and compiled kernels, why.
Rows increase_table(const Graph& g, const Report& r, size_t top);
// One line saying what the array-sized bytes and the expected DRAM bytes each are.
std::string bytes_note(const Report& r);
// Totals against a baseline: (quantity, before, after, change).
std::vector<std::vector<std::string>> baseline_rows(const BaselineDiff& d);
// Modules whose eager kernels changed (flat): (module, before, after, change).
Rows baseline_module_rows(const BaselineDiff& d, size_t limit);
// Op types, module tree or source lines that changed: "batch_norm x53: 1 -> 3 kernels".
// `what` is "op type", "module" or "source line"; modules deeper than `max_depth` (>= 0) are
// left out (their change is in their parents').
Rows entry_delta_table(const std::vector<EntryDelta>& deltas, const std::string& what, size_t limit,
                       int max_depth = -1);
// The columns of a table and what each means, one line each (--legend).
// `compiled`: also the inductor column (compiled_view).
std::vector<std::vector<std::string>> legend_rows(const std::string& table, bool compiled = false);
// "+12 (+3.1%)", "-1.20 MB", "=".
std::string signed_change(int64_t before, int64_t after, bool bytes);
// "(12 more not shown; --top N or --format json for all)" or "" when nothing was cut.
std::string more_note(size_t cut, const std::string& what);

}  // namespace kc
