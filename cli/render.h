// Renderers: the only code that turns a report into text. Each writes one format.
#pragma once

#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "analyzer/graph.h"
#include "cli/baseline.h"
#include "cli/budgets.h"
#include "cli/findings.h"
#include "passes/inductor.h"
#include "passes/report.h"

namespace kc {

struct RenderOptions {
  std::string by = "summary";              // "summary", or the full table "op", "line", "module", "op-type", "kernel"
  std::string version;                     // kernelcount's version, recorded in JSON
  const BaselineDiff* baseline = nullptr;  // --baseline: the change against it
  std::vector<BudgetCheck> budgets;        // the budgets given, held or exceeded
  std::optional<int> top;                  // --top: rows per table
  std::string sort;                        // --sort; empty: the view's default
  std::optional<int> depth;                // --depth: module tree depth
  bool legend = false;                     // --legend: explain the columns
  std::string source_root;                 // --source-root: findings name files relative to it
  bool all_findings = false;               // --findings all: findings on every line, not just changed ones
};

// Summary (totals, top lines, modules, op types, fusion wins) or one full table; totals.
void render_text(std::ostream& os, const Graph& g, const Report& r, const RenderOptions& o);
// Everything, with stable keys; the schema is docs/json.md.
void render_json(std::ostream& os, const Graph& g, const Report& r, const RenderOptions& o);
// A pull-request comment: verdict and diff first, detail folded, under 60,000 characters.
void render_markdown(std::ostream& os, const Graph& g, const Report& r, const RenderOptions& o);
// SARIF 2.1.0: findings on the user's source lines, for code scanning.
void render_sarif(std::ostream& os, const Graph& g, const Report& r, const RenderOptions& o);
// GitHub Actions workflow commands (::warning file=...,line=...::), one per finding.
void render_github(std::ostream& os, const Graph& g, const Report& r, const RenderOptions& o);

// Which ops `kernelcount explain` explains: one op, the ops of one source line, or all.
struct ExplainSelection {
  std::optional<int> op;  // --op N
  std::string line_file;  // --line FILE:LINE (FILE may be a suffix of the recorded path)
  int line = 0;
  // --with M (with --op N, the inductor plan): whether ops N and M share a compiled kernel, and
  // the rule that decided
  std::optional<int> with;
  FusionVerdict pair;
};

// Every selected op in sentences: its launches and why, the arrays crossing HBM, the rule and
// its measurement, the kernel names measured for such ops, its fusion group; then the model.
// Throws Error when the selection matches no op.
void render_explain(std::ostream& os, const Graph& g, const Report& r, const ExplainSelection& s);
// Graphviz DOT: the op graph, fusion groups as clusters, each node with its kernels and bytes.
void render_dot(std::ostream& os, const Graph& g, const Report& r, const RenderOptions& o);
// Chrome / Perfetto trace JSON (Trace Event Format): the predicted kernels at their time
// floors, eager and fused on two tracks.
void render_trace(std::ostream& os, const Graph& g, const Report& r, const RenderOptions& o);

}  // namespace kc
