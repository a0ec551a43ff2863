// Findings for code scanning (SARIF) and GitHub annotations: what a reviewer should look at,
// each tied to a line of the user's Python source. Chosen here, printed by the renderers.
#pragma once

#include <string>
#include <vector>

#include "analyzer/graph.h"
#include "cli/budgets.h"
#include "passes/report.h"

namespace kc {

// A kind of finding: the SARIF rule.
struct FindingRule {
  const char* id;     // "kernelcount/budget-exceeded"
  const char* level;  // SARIF level: "error", "warning" or "note"
  const char* text;   // one line
};

// The rules, in the order their index is reported.
const std::vector<FindingRule>& finding_rules();
// How many of them a report can find: the last, compiled-more-kernels, only with --fusion inductor.
size_t finding_rule_count(const Report& r);

struct Finding {
  int rule = 0;      // index into finding_rules()
  std::string file;  // the user's source file as the export recorded it; may be empty
  int line = 0;
  std::string message;
  std::string detail;  // a budget finding on a changed line: what the line did ("this line ... adds ...")
};

// Which source lines get findings: those a --baseline comparison found changed (all lines when
// there is no baseline), or every line.
enum class FindingScope { kChanged, kAll };

// Budgets exceeded, on the changed source lines that add to them (a line paired with its moved
// self is unchanged); a budget no changed line adds to (or any without a baseline) is one finding
// on the model file. Host syncs and unknown ops on their lines, and the `costly` costliest lines
// by kernels, on the lines in scope; views the GPU cannot take (the program fails there), on
// every line; with --fusion inductor, the compiled groups that launch more
// than eager, on their anchor op's line. Files under `source_root` are named relative to it (code
// scanning and annotations want paths in the repository).
std::vector<Finding> findings(const Graph& g, const Report& r, const std::vector<BudgetCheck>& budgets,
                              const BaselineDiff* base, FindingScope scope, const std::string& source_root,
                              size_t costly = 5);

}  // namespace kc
