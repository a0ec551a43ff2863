#include <string>

#include "cli/render.h"
#include "cli/report_rows.h"
#include "cli/table.h"

namespace kc {
namespace {

void table(std::ostream& os, const std::vector<std::string>& header, std::vector<std::vector<std::string>> rows) {
  Table t(header);
  for (auto& r : rows) t.add(std::move(r));
  t.print_markdown(os);
}

}  // namespace

void render_markdown(std::ostream& os, const Graph& g, const Report& r, const RenderOptions& o) {
  os << "### kernelcount: `" << g.info.path << "`\n\n";
  os << "Target `" << r.target->name << "` (" << r.target->description << ").\n\n";
  table(os, {"", ">eager", ">fused", ">fused+reductions"}, totals_rows(r));
  table(os, main_header(o.by), main_rows(g, r, o.by));
  if (o.baseline) {
    os << "**Against baseline** `" << o.baseline->baseline_path << "`\n\n";
    table(os, {"", ">before", ">after", ">change"}, baseline_rows(*o.baseline));
    auto modules = baseline_module_rows(*o.baseline, 20);
    if (!modules.empty()) {
      os << "Modules whose eager kernels changed\n\n";
      table(os, {"module", ">before", ">after", ">change"}, modules);
    }
  }
  auto groups = fusion_rows(g, r.fusion);
  if (!groups.empty()) {
    os << "**Fusion groups** (pointwise chains, one kernel each)\n\n";
    table(os, fusion_header(), groups);
  }
}

}  // namespace kc
