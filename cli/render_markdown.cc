#include <set>
#include <sstream>
#include <string>

#include "cli/findings.h"
#include "cli/render.h"
#include "cli/report_rows.h"
#include "cli/table.h"

namespace kc {
namespace {

// GitHub refuses comments over 65,536 characters; this leaves room for what a workflow adds.
constexpr size_t kMaxChars = 60000;

std::string table(const std::vector<std::string>& header, const std::vector<std::vector<std::string>>& rows) {
  Table t(header);
  for (const auto& r : rows) t.add(r);
  std::ostringstream os;
  t.print_markdown(os);
  return os.str();
}

// Markdown trims a cell's leading spaces: the module tree's indentation becomes no-break spaces.
Rows indented(Rows rows) {
  for (auto& row : rows.rows) {
    size_t n = row[0].find_first_not_of(' ');
    if (n != std::string::npos && n > 0) {
      std::string pad;
      for (size_t i = 0; i < n; ++i) pad += "&nbsp;";
      row[0] = pad + row[0].substr(n);
    }
  }
  return rows;
}

// A titled table with "N more" under it when rows were left off.
std::string section(const std::string& title, const Rows& rows, const std::string& what) {
  if (rows.rows.empty()) return "";
  std::string s = title + "\n\n" + table(rows.header, rows.rows);
  if (rows.cut()) s += more_note(rows.cut(), what) + "\n\n";
  return s;
}

// The largest leading part of `rows` whose table fits in `budget` characters, and a note
// saying how many rows were cut and why.
std::string fitted(const Rows& rows, size_t budget, const std::string& what) {
  size_t keep = rows.rows.size();
  for (;;) {
    std::vector<std::vector<std::string>> part(rows.rows.begin(), rows.rows.begin() + static_cast<long>(keep));
    std::string s = table(rows.header, part);
    const size_t cut = rows.total - keep;
    if (cut) {
      s += "(" + std::to_string(cut) + " more " + what;
      s += keep < rows.rows.size() ? " cut to keep this comment under " + std::to_string(kMaxChars) + " characters"
                                   : " not shown";
      s += "; `--format json` has all)\n\n";
    }
    if (s.size() <= budget || keep == 0) return keep == 0 && s.size() > budget ? std::string() : s;
    keep = std::min(keep - 1, static_cast<size_t>(static_cast<double>(keep) * budget / s.size() * 0.97));
  }
}

// Where the change adds to the exceeded budgets: the changed lines of the budget findings, as the
// annotations and code scanning place them.
std::string changed_lines_over(const Graph& g, const Report& r, const RenderOptions& o) {
  if (!o.baseline) return "";
  // A comment stays short whatever changed: the first lines, and how many more.
  constexpr size_t kMostLines = 10;
  std::string s;
  std::set<std::string> seen;
  for (const Finding& f : findings(g, r, o.budgets, o.baseline, FindingScope::kChanged, o.source_root)) {
    if (f.rule != 0 || f.line == 0) continue;
    const std::string at = f.file + ":" + std::to_string(f.line);
    if (seen.insert(at).second && seen.size() <= kMostLines)
      s += "- `" + at + "`: " + markdown_escape(f.detail.substr(0, 400)) + "\n";
  }
  if (seen.size() > kMostLines)
    s += "- (" + std::to_string(seen.size() - kMostLines) +
         " more lines; `--format sarif` and `--format github` have them all)\n";
  return s.empty() ? "" : "Changed lines that add to the exceeded budgets:\n\n" + s + "\n";
}

std::string verdict(const RenderOptions& o) {
  if (o.budgets.empty())
    return "**Budgets:** none set (`--max-kernels`, `--max-kernel-increase`, ... fail a change).\n\n";
  int exceeded = 0;
  std::vector<std::vector<std::string>> rows;
  for (const BudgetCheck& b : o.budgets) {
    exceeded += b.exceeded();
    auto show = [&](int64_t v) { return b.unit == "bytes" ? format_bytes(v) : std::to_string(v) + " " + b.unit; };
    rows.push_back({b.exceeded() ? "exceeded" : "ok",
                    markdown_escape(b.what + (b.unproven.empty() ? "" : ": " + b.unproven)), "`" + b.option + "`",
                    describe_value(b), show(b.limit)});
  }
  std::string s = exceeded ? "**Verdict: over budget** (" + std::to_string(exceeded) + " of " +
                                 std::to_string(o.budgets.size()) + " budgets exceeded)\n\n"
                           : "**Verdict: within budget** (" + std::to_string(o.budgets.size()) + " budgets)\n\n";
  // The option column holds code spans, which the table escaping would break: build it by hand.
  s += "| | budget | option | value | limit |\n| --- | --- | --- | ---: | ---: |\n";
  for (const auto& r : rows) s += "| " + r[0] + " | " + r[1] + " | " + r[2] + " | " + r[3] + " | " + r[4] + " |\n";
  return s + "\n";
}

std::string details(const std::string& summary, const std::string& body) {
  if (body.empty()) return "";
  return "<details>\n<summary>" + summary + "</summary>\n\n" + body + "</details>\n\n";
}

}  // namespace

void render_markdown(std::ostream& os, const Graph& g, const Report& r, const RenderOptions& o) {
  const size_t top = o.top ? static_cast<size_t>(*o.top) : 10;
  const std::string sort = o.sort.empty() ? "kernels" : o.sort;
  std::string head = "### kernelcount: `" + g.info.path + "`\n\n";
  head += "Target `" + r.target->name + "` (" + r.target->description + ").\n\n";
  if (auto w = gpu_failure_warning(g, r); !w.empty()) head += "> **Warning:** " + w + "\n\n";
  head += verdict(o);
  head += changed_lines_over(g, r, o);
  if (o.baseline) {
    const BaselineDiff& d = *o.baseline;
    const size_t limit = o.top ? top : 20;
    head += "#### Change against `" + d.baseline_path + "`\n\n";
    for (const auto& w : d.warnings) head += "> **Warning:** " + w + "\n\n";
    head += table({"", ">before", ">after", ">change"}, baseline_rows(d));
    head += section("**Op types that changed**", entry_delta_table(d.op_types, "op type", limit), "op types");
    head += section("**Modules that changed** (inclusive, to depth " + std::to_string(o.depth ? *o.depth : 2) + ")",
                    indented(entry_delta_table(d.module_tree, "module", limit, o.depth ? *o.depth : 2)), "modules");
    head += section("**Source lines that changed**", entry_delta_table(d.lines, "source line", limit), "source lines");
    if (d.op_types.empty())
      head += section("**Modules whose eager kernels changed**", baseline_module_rows(d, limit), "modules");
    if (d.op_types.empty() && d.lines.empty() && d.module_kernels.empty())
      head += "No op type, module or line changed.\n\n";
    head += "#### This model\n\n";
  }
  const bool compiled = compiled_view(r);
  head += table(totals_header(r), totals_rows(r));
  if (r.totals.unknown_ops > 0)
    head += std::to_string(r.totals.unknown_ops) +
            " op(s) have no launch rule: their kernels are not in the totals (`--list-rules`).\n\n";
  head += section("**Source lines**, top by " + sort,
                  without_cost_columns(rollup_table(r.by_line, "line", sort, top, compiled), sort), "source lines");
  const int depth = o.depth ? *o.depth : 1;
  head += section("**Modules** at depth " + std::to_string(depth) + " (inclusive), top by " + sort,
                  without_cost_columns(module_tree_table(r.module_tree, depth, sort, top, true, compiled), sort),
                  "modules");
  head += section("**Op types**, top by " + sort,
                  without_cost_columns(rollup_table(r.by_op_type, "op-type", sort, top, compiled), sort), "op types");
  const Rows wins = fusion_table(g, r.fusion, true, top, "", dram_past_l2(r));
  head += section(compiled ? "**Compiled kernels of several ops** (Inductor), top by bytes saved"
                           : "**Fusion wins** (pointwise chains, one kernel each), top by bytes saved",
                  wins, "groups");
  if (const std::string note = fusion_bytes_note(r); !note.empty() && !wins.rows.empty()) head += note + ".\n\n";
  if (compiled)
    head += section("**Compiled groups that launch more kernels than eager** (Inductor)", increase_table(g, r, top),
                    "groups");

  // Detail, folded, in what room is left; the legend always fits.
  const std::string legend = details("Columns", table({"column", "meaning"}, legend_rows("op", compiled)));
  const std::string tail = "Full report: `kernelcount " + g.info.path + " --format json`.\n";
  size_t room = kMaxChars > head.size() + legend.size() + tail.size() + 200
                    ? kMaxChars - head.size() - legend.size() - tail.size() - 200
                    : 0;
  std::string detail;
  auto fold = [&](const std::string& title, const Rows& rows, const std::string& what) {
    const size_t wrapper = 40 + title.size();
    if (room <= wrapper) return;
    std::string body = fitted(rows, room - wrapper, what);
    if (body.empty()) return;
    std::string d = details(title, body);
    room -= std::min(room, d.size());
    detail += d;
  };
  const std::string full = o.by == "summary" ? "op" : o.by;
  const std::string detail_sort = o.sort.empty() ? "order" : o.sort;
  const int tree_depth = o.by == "module" && o.depth ? *o.depth : 3;
  fold("Module tree to depth " + std::to_string(tree_depth) + " (inclusive)",
       indented(module_tree_table(r.module_tree, tree_depth, detail_sort, 0, false, compiled)), "modules");
  fold("Every source line", rollup_table(r.by_line, "line", detail_sort, 0, compiled), "source lines");
  fold("Every op type", rollup_table(r.by_op_type, "op-type", detail_sort, 0, compiled), "op types");
  fold(compiled ? "Every compiled kernel group" : "Every fusion group",
       fusion_table(g, r.fusion, false, 0, "", dram_past_l2(r)), "groups");
  // The op table names each op's greedy group too (P<n>): list them.
  if (compiled)
    if (const Rows chains = fusion_table(g, r.pointwise, false, 0, "", dram_past_l2(r), pointwise_letter(r));
        !chains.rows.empty())
      fold("Every greedy fusion group (pointwise chains)", chains, "groups");
  // Last: the longest, cut to what room is left.
  if (full == "op") fold("Every op (" + std::to_string(g.ops.size()) + ")", op_table(g, r, detail_sort, 0), "ops");
  os << head << detail << legend << tail;
}

}  // namespace kc
