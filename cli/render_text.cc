#include "cli/render.h"
#include "cli/report_rows.h"
#include "cli/table.h"

namespace kc {
namespace {

// The rows are moved into the table, not copied: a row can hold megabytes.
void print(std::ostream& os, const std::string& title, Rows rows, const std::string& what) {
  if (rows.rows.empty()) return;
  os << '\n' << title << '\n';
  Table t(rows.header);
  for (auto& row : rows.rows) t.add(std::move(row));
  t.print(os);
  if (rows.cut()) os << more_note(rows.cut(), what) << '\n';
}

std::string top_title(const std::string& what, const Rows& rows, const std::string& sort) {
  if (!rows.cut()) return what + (sort == "order" ? "" : ", by " + sort);
  return what + ", top " + std::to_string(rows.rows.size()) + " of " + std::to_string(rows.total) + " by " + sort;
}

void print_baseline(std::ostream& os, const BaselineDiff& d, size_t limit, int depth) {
  os << "\nagainst baseline " << d.baseline_path << '\n';
  for (const auto& w : d.warnings) os << "warning: " << w << '\n';
  Table b({"", ">before", ">after", ">change"});
  for (auto& row : baseline_rows(d)) b.add(std::move(row));
  b.print(os);
  print(os, "op types that changed", entry_delta_table(d.op_types, "op type", limit), "op types");
  print(os, "modules that changed (inclusive, to depth " + std::to_string(depth) + ")",
        entry_delta_table(d.module_tree, "module", limit, depth), "modules");
  print(os, "source lines that changed", entry_delta_table(d.lines, "source line", limit), "source lines");
  if (d.op_types.empty()) print(os, "modules whose eager kernels changed", baseline_module_rows(d, limit), "modules");
}

}  // namespace

void render_text(std::ostream& os, const Graph& g, const Report& r, const RenderOptions& o) {
  model_header(os, g, r);
  const bool summary = o.by == "summary";
  const bool compiled = compiled_view(r);
  // Where Inductor launches more kernels than eager, with why.
  auto print_increases = [&](size_t top) {
    Rows more = increase_table(g, r, top);
    print(os, "compiled groups that launch more kernels than eager (Inductor)", std::move(more), "groups");
  };

  auto print_totals = [&] {
    os << "\ntotals\n";
    Table t(totals_header(r));
    for (auto& row : totals_rows(r)) t.add(std::move(row));
    t.print(os);
    os << bytes_note(r) << "\n";
  };
  if (summary) {
    const size_t top = o.top ? static_cast<size_t>(*o.top) : 10;
    const std::string sort = o.sort.empty() ? "kernels" : o.sort;
    const int depth = o.depth ? *o.depth : 1;
    print_totals();
    // Each title is taken before its rows are moved into the table.
    Rows lines = without_cost_columns(rollup_table(r.by_line, "line", sort, top, compiled), sort);
    std::string title = top_title("source lines", lines, sort);
    print(os, title, std::move(lines), "source lines");
    Rows modules = without_cost_columns(module_tree_table(r.module_tree, depth, sort, top, true, compiled), sort);
    title = top_title("modules at depth " + std::to_string(depth) + " (inclusive)", modules, sort);
    print(os, title, std::move(modules), "modules");
    Rows types = without_cost_columns(rollup_table(r.by_op_type, "op-type", sort, top, compiled), sort);
    title = top_title("op types", types, sort);
    print(os, title, std::move(types), "op types");
    Rows wins = fusion_table(g, r.fusion, true, top, "", dram_past_l2(r));
    Rows into = fusion_table(g, r.fusion_reduction, true, top, "reduction", dram_past_l2(r));
    const bool any_group = !wins.rows.empty() || !into.rows.empty();
    title = top_title(
        compiled ? "compiled kernels of several ops (Inductor)" : "fusion wins (pointwise chains, one kernel each)",
        wins, "bytes saved");
    print(os, title, std::move(wins), "groups");
    title = top_title("fusion into reductions (pointwise ops in a reduction's kernel)", into, "bytes saved");
    print(os, title, std::move(into), "groups");
    if (any_group)
      if (const std::string note = fusion_bytes_note(r); !note.empty()) os << note << '\n';
    print_increases(top);
  } else {
    const size_t top = o.top ? static_cast<size_t>(*o.top) : 0;
    const std::string sort = o.sort.empty() ? "order" : o.sort;
    Rows main = o.by == "op" ? op_table(g, r, sort, top)
                : o.by == "module"
                    ? module_tree_table(r.module_tree, o.depth ? *o.depth : -1, sort, top, false, compiled)
                : o.by == "line"   ? rollup_table(r.by_line, "line", sort, top, compiled)
                : o.by == "kernel" ? kernel_table(g, r, o.sort.empty() ? "kernels" : o.sort, top)
                                   : rollup_table(r.by_op_type, "op-type", sort, top, compiled);
    os << '\n';
    Table t(main.header);
    for (auto& row : main.rows) t.add(std::move(row));
    t.print(os);
    if (main.cut()) os << more_note(main.cut(), "rows") << '\n';
    // The compiled view lists the greedy plan's groups (P<n>) too, as its op table names both.
    Rows chains =
        fusion_table(g, compiled ? r.pointwise : r.fusion, false, 0, "", dram_past_l2(r), pointwise_letter(r));
    Rows groups = compiled ? fusion_table(g, r.fusion, false, 0, "", dram_past_l2(r)) : Rows{};
    Rows into = fusion_table(g, r.fusion_reduction, false, 0, "reduction", dram_past_l2(r));
    const bool any_group = !chains.rows.empty() || !groups.rows.empty() || !into.rows.empty();
    print(os, "fusion groups (pointwise chains, one kernel each)", std::move(chains), "groups");
    if (compiled) print(os, "compiled kernels of several ops (Inductor)", std::move(groups), "groups");
    print(os, "fusion into reductions (pointwise ops in a reduction's kernel)", std::move(into), "groups");
    if (any_group)
      if (const std::string note = fusion_bytes_note(r); !note.empty()) os << note << '\n';
    print_increases(0);
    print_totals();
  }
  if (!o.budgets.empty()) {
    os << "\nbudgets\n";
    for (const BudgetCheck& b : o.budgets) os << (b.exceeded() ? "FAIL  " : "ok    ") << describe(b) << '\n';
  }
  if (o.baseline) print_baseline(os, *o.baseline, o.top ? static_cast<size_t>(*o.top) : 20, o.depth ? *o.depth : 2);
  if (r.totals.unknown_ops > 0)
    os << "\n"
       << r.totals.unknown_ops
       << " op(s) have no launch rule: their kernels are not in the totals (see --list-rules)\n";
  if (o.legend) {
    os << "\ncolumns\n";
    Table t({"column", "meaning"});
    for (auto& row : legend_rows(o.by == "op" ? "op" : o.by == "kernel" ? "kernel" : "rollup", compiled))
      t.add(std::move(row));
    t.print(os);
  } else {
    os << "\n" << (summary ? "full tables: --by op, line, module or op-type; " : "") << "columns explained: --legend\n";
  }
}

}  // namespace kc
