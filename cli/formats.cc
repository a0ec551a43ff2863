#include "cli/formats.h"

#include "analyzer/error.h"

namespace kc {

const std::vector<Format>& formats() {
  static const std::vector<Format> all = {
      // name, help, renderer, --list-rules as markdown, tables (--by ...), --legend, --findings
      {"text", "aligned tables for a terminal", render_text, false, true, true, false},
      {"json", "everything, stable keys (docs/json.md)", render_json, false, false, false, false},
      {"markdown", "a pull-request comment: verdict and diff first, detail folded, under 60,000 characters",
       render_markdown, true, true, false, false},
      {"sarif", "SARIF 2.1.0 findings on your source lines, for code scanning", render_sarif, false, false, false,
       true},
      {"github", "GitHub Actions annotations (::warning file=...,line=...::)", render_github, false, false, false,
       true},
      {"dot", "the op graph for Graphviz, fusion groups as clusters (dot -Tsvg)", render_dot, false, false, false,
       false},
      {"trace", "Chrome/Perfetto trace JSON of the predicted kernels, eager and fused", render_trace, false, false,
       false, false},
  };
  return all;
}

const Format& find_format(const std::string& name) {
  std::string names;
  for (const Format& f : formats()) {
    if (name == f.name) return f;
    names += (names.empty() ? "" : ", ") + std::string(f.name);
  }
  throw Error("unknown format '" + name + "' (known: " + names + ")");
}

}  // namespace kc
