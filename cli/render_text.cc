#include "cli/render.h"
#include "cli/report_rows.h"
#include "cli/table.h"

namespace kc {

void render_text(std::ostream& os, const Graph& g, const Report& r, const RenderOptions& o) {
  os << "model   " << g.info.path << " (" << g.info.format
     << (g.info.producer_version.empty() ? "" : ", " + g.info.producer_version) << ")\n";
  os << "target  " << r.target->name << ": " << r.target->description << '\n';
  for (const auto& note : g.info.notes) os << "note    " << note << '\n';
  os << '\n';
  Table main(main_header(o.by));
  for (auto& row : main_rows(g, r, o.by)) main.add(std::move(row));
  main.print(os);

  auto groups = fusion_rows(g, r.fusion);
  if (!groups.empty()) {
    os << "\nfusion groups (pointwise chains, one kernel each)\n";
    Table t(fusion_header());
    for (auto& row : groups) t.add(std::move(row));
    t.print(os);
  }
  os << "\ntotals\n";
  Table t({"", ">eager", ">fused", ">fused+reductions"});
  for (auto& row : totals_rows(r)) t.add(std::move(row));
  t.print(os);
  if (o.baseline) {
    os << "\nagainst baseline " << o.baseline->baseline_path << '\n';
    Table b({"", ">before", ">after", ">change"});
    for (auto& row : baseline_rows(*o.baseline)) b.add(std::move(row));
    b.print(os);
    auto modules = baseline_module_rows(*o.baseline, 20);
    if (!modules.empty()) {
      os << "\nmodules whose eager kernels changed\n";
      Table m({"module", ">before", ">after", ">change"});
      for (auto& row : modules) m.add(std::move(row));
      m.print(os);
    }
  }
  if (r.totals.unknown_ops > 0)
    os << "\n" << r.totals.unknown_ops
       << " op(s) have no launch rule: their kernels are not in the totals (see --list-rules)\n";
}

}  // namespace kc
