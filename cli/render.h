// Renderers: the only code that turns a report into text. Each writes one format.
#pragma once

#include <ostream>
#include <string>

#include "analyzer/graph.h"
#include "cli/baseline.h"
#include "passes/report.h"

namespace kc {

struct RenderOptions {
  std::string by = "op";  // "op", "line" or "module": the rows of the main table
  std::string version;    // kernelcount's version, recorded in JSON
  const BaselineDiff* baseline = nullptr;  // --baseline: the change against it
};

// Per-op (or per-line/module) table, fusion groups that save work, totals.
void render_text(std::ostream& os, const Graph& g, const Report& r, const RenderOptions& o);
// Everything, with stable keys; the schema is docs/json.md.
void render_json(std::ostream& os, const Graph& g, const Report& r, const RenderOptions& o);
// The text report's tables as GitHub markdown, for review comments.
void render_markdown(std::ostream& os, const Graph& g, const Report& r, const RenderOptions& o);

}  // namespace kc
