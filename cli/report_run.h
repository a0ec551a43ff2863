// The report command's run, shared by the CLI and the Python package: load the model, analyze
// it, compare it with --baseline, check the budgets, and the options its renderers take.
// Nothing here prints or picks an exit status.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "cli/baseline.h"
#include "cli/budgets.h"
#include "cli/options.h"
#include "cli/render.h"
#include "passes/pipeline.h"

namespace kc {

// What a run loads and computes; filled in place, since the render options point into it.
struct ReportRun {
  std::optional<Graph> graph;
  std::optional<Report> report;
  std::optional<BaselineDiff> baseline;  // with --baseline
  std::vector<BudgetCheck> budgets;      // the budgets given, held or exceeded
};

// Loads o.model and fills `run`. With --baseline, each side takes the --input and --dim that
// apply to it; one that applies to neither is an error.
void run_report(const Options& o, const Target& target, const std::string& version, ReportRun& run);
// The renderers' options for `run` (which must outlive them).
RenderOptions report_render_options(const Options& o, const ReportRun& run, const std::string& version);
// What the run says beside its report, one line each ("kernelcount: over budget: ...",
// "kernelcount: warning: ..."), and its exit status: 1 when a budget is exceeded, else 0.
std::vector<std::string> report_messages(const ReportRun& run);
int report_status(const ReportRun& run);
// An error message as one line, whatever it holds (a name from the file may carry newlines), and
// not so long that it buries the terminal: what `kernelcount: error: ` is followed by.
std::string error_line(std::string what);

}  // namespace kc
