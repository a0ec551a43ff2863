#include <string>

#include "cli/render.h"
#include "cli/report_rows.h"

namespace kc {
namespace {

std::string escape(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '|') out += '\\';
    out += c;
  }
  return out;
}

void table(std::ostream& os, const std::vector<std::string>& header, const std::vector<std::vector<std::string>>& rows) {
  auto line = [&](const std::vector<std::string>& cells, bool head) {
    os << '|';
    for (const auto& c : cells) {
      std::string cell = head && !c.empty() && c[0] == '>' ? c.substr(1) : c;
      os << ' ' << escape(cell) << " |";
    }
    os << '\n';
  };
  line(header, true);
  os << '|';
  for (const auto& h : header) os << (!h.empty() && h[0] == '>' ? " ---: |" : " --- |");
  os << '\n';
  for (const auto& r : rows) line(r, false);
}

}  // namespace

void render_markdown(std::ostream& os, const Graph& g, const Report& r, const RenderOptions& o) {
  os << "### kernelcount: `" << g.info.path << "`\n\n";
  os << "Target `" << r.target.name << "` (eager PyTorch " << r.target.torch_version << ", " << r.target.gpu << ").\n\n";
  table(os, {"", ">eager", ">fused", ">fused+reductions"}, totals_rows(r));
  os << '\n';
  table(os, main_header(o.by), main_rows(g, r, o.by));
  if (o.baseline) {
    os << "**Against baseline** `" << o.baseline->baseline_path << "`\n\n";
    table(os, {"", ">before", ">after", ">change"}, baseline_rows(*o.baseline));
    auto modules = baseline_module_rows(*o.baseline, 20);
    if (!modules.empty()) {
      os << "\nModules whose eager kernels changed\n\n";
      table(os, {"module", ">before", ">after", ">change"}, modules);
    }
    os << '\n';
  }
  auto groups = fusion_rows(g, r.fusion);
  if (!groups.empty()) {
    os << "\n**Fusion groups** (pointwise chains, one kernel each)\n\n";
    table(os, fusion_header(), groups);
  }
}

}  // namespace kc
