#include "cli/report_rows.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <functional>
#include <map>
#include <numeric>
#include <set>

#include "analyzer/describe.h"
#include "cli/table.h"
#include "passes/rollup.h"

namespace kc {
namespace {

std::string values_short(const Graph& g, const std::vector<int>& ids) {
  std::string s;
  for (int v : ids) {
    if (v < 0) continue;
    if (!s.empty()) s += ", ";
    s += describe_value(g.values[v], Style::kShort);
  }
  return s;
}

std::string count(const Launch& l, int n) {
  return l.known ? std::to_string(n) : "?";
}

// Indices 0..n-1 ordered by `key` (largest first, ties in execution order), cut to `top`.
template <typename Key>
std::vector<size_t> pick(size_t n, const std::string& sort, size_t top, Key key) {
  std::vector<size_t> idx(n);
  std::iota(idx.begin(), idx.end(), 0);
  if (sort != "order" && !sort.empty())
    std::stable_sort(idx.begin(), idx.end(), [&](size_t a, size_t b) { return key(a) > key(b); });
  if (top > 0 && idx.size() > top) idx.resize(top);
  return idx;
}

int64_t rollup_key(const RollupRow& row, const std::string& sort) {
  if (sort == "bytes") return row.bytes;
  if (sort == "ops") return row.ops;
  if (sort == "flops") return row.flops;
  if (sort == "time") return static_cast<int64_t>(row.floor_s * 1e12);  // picoseconds
  // Unknown ops count as one kernel, as budgets count them, so that they sort with the costly.
  return row.counts.kernels + row.unknown_ops;
}

// `compiled`: the inductor plan's report, whose rows also show the greedy plan's and Inductor's
// kernels and bytes beside eager's.
std::vector<std::string> rollup_cells(const RollupRow& row, const std::string& label, bool compiled) {
  std::vector<std::string> cells = {label,
                                    std::to_string(row.ops),
                                    std::to_string(row.counts.kernels),
                                    std::to_string(row.counts.memcpy),
                                    std::to_string(row.counts.memset),
                                    std::to_string(row.counts.host_syncs),
                                    std::to_string(row.unknown_ops),
                                    std::to_string(row.transfers),
                                    format_bytes(row.bytes),
                                    format_flops(static_cast<double>(row.flops)),
                                    format_seconds(row.floor_s),
                                    row.code};
  if (compiled) {
    cells.insert(cells.begin() + 9, {format_bytes(row.pointwise_bytes), format_bytes(row.fused_bytes)});
    cells.insert(cells.begin() + 3, {std::to_string(row.pointwise_kernels), std::to_string(row.fused_kernels)});
  }
  return cells;
}

std::vector<std::string> rollup_header(const std::string& label, const std::string& last, bool compiled) {
  std::vector<std::string> h = {label,      ">ops", ">kernels", ">memcpy", ">memset", ">sync",
                                ">unknown", ">R+W", ">bytes",   ">FLOPs",  ">floor",  last};
  if (compiled) {
    h.insert(h.begin() + 9, {">fused bytes", ">inductor bytes"});
    h.insert(h.begin() + 3, {">fused", ">inductor"});
  }
  return h;
}

std::string arrow(int64_t before, int64_t after, bool bytes) {
  auto show = [&](int64_t v) { return bytes ? format_bytes(v) : std::to_string(v); };
  return before == after ? show(after) : show(before) + " -> " + show(after);
}

}  // namespace

std::string failing_view_reason(const Graph& g, const FailingView& f) {
  auto ints = [](const std::vector<int64_t>& v) {
    std::string s = "[";
    for (size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + std::to_string(v[i]);
    return s + "]";
  };
  const Op& op = g.ops[f.op];
  std::vector<int64_t> to;
  for (int v : op.outputs)
    if (v >= 0) {
      to = g.values[v].sizes;
      break;
    }
  return op.full_name() + " of " + ints(f.sizes) + " to " + ints(to) + ": on the GPU its input has strides " +
         ints(f.strides) + ", which no view fits (the export recorded the host's); eager PyTorch and torch.compile " +
         "raise here";
}

std::string gpu_failure_warning(const Graph& g, const Report& r) {
  const auto& fails = r.layout.failing_views;
  if (fails.empty()) return "";
  const FailingView& f = fails.front();
  std::string s = "the program does not run on the GPU as exported: op " + std::to_string(f.op) + " (" +
                  format_loc(g.ops[f.op].loc) + "), " + failing_view_reason(g, f);
  if (fails.size() > 1) s += "; " + std::to_string(fails.size() - 1) + " more view(s) alike";
  return s + "; the counts are what it would launch if they ran";
}

void model_header(std::ostream& os, const Graph& g, const Report& r) {
  os << "model   " << g.info.path << " (" << g.info.format
     << (g.info.producer_version.empty() ? "" : ", " + g.info.producer_version) << ")\n";
  os << "target  " << r.target->name << ": " << r.target->description << '\n';
  for (const auto& note : g.info.notes) os << "note    " << note << '\n';
  if (auto w = gpu_failure_warning(g, r); !w.empty()) os << "warning " << w << '\n';
  // Ops whose values decide part of their count, one note per rule (in the order of its first op).
  std::vector<std::pair<std::string_view, std::vector<size_t>>> by_rule;
  for (size_t i = 0; i < r.explain.size(); ++i) {
    const OpExplanation& e = r.explain[i];
    if (e.data_dependent.empty()) continue;
    auto it = std::find_if(by_rule.begin(), by_rule.end(), [&](const auto& p) { return p.first == e.rule; });
    if (it == by_rule.end()) it = by_rule.insert(by_rule.end(), {std::string_view(e.rule), {}});
    it->second.push_back(i);
  }
  for (const auto& [rule, ops] : by_rule) {
    const size_t first = ops.front();
    os << "note    " << (ops.size() == 1 ? "op " + std::to_string(first) : std::to_string(ops.size()) + " ops") << " ("
       << g.ops[first].full_name() << ", rule " << rule << ") data-dependent: " << r.explain[first].data_dependent
       << '\n';
  }
}

Rows op_table(const Graph& g, const Report& r, const std::string& sort, size_t top) {
  Rows t;
  t.header = {">#",       "source",  "module",  "op",    "inputs -> outputs",
              ">kernels", ">memcpy", ">memset", ">sync", ">R+W",
              ">bytes",   ">FLOPs",  ">floor",  ">group"};
  const bool compiled = compiled_view(r);
  if (compiled) t.header.back() = ">fused group", t.header.push_back(">inductor group");
  t.total = g.ops.size();
  auto key = [&](size_t i) -> int64_t {
    if (sort == "bytes") return r.traffic[i].bytes();
    if (sort == "flops") return r.traffic[i].flops;
    if (sort == "time") return static_cast<int64_t>(r.time[i].floor_s() * 1e12);
    return r.launches[i].known ? r.launches[i].counts.kernels : 1;
  };
  for (size_t i : pick(g.ops.size(), sort == "ops" ? "order" : sort, top, key)) {
    const Op& op = g.ops[i];
    const Launch& l = r.launches[i];
    std::vector<int> outs;
    for (int v : op.outputs)
      if (v >= 0) outs.push_back(v);
    // A group's name where the op shares its kernel with others, else empty.
    auto group = [&](const FusionPlan& plan, char letter) -> std::string {
      const int grp = plan.group_of[i];
      return grp >= 0 && plan.groups[grp].ops.size() > 1 ? letter + std::to_string(grp) : "";
    };
    const std::string name = op.repeat > 1 ? op_type_name(op) + " x" + std::to_string(op.repeat) : op_type_name(op);
    t.rows.push_back({std::to_string(i), format_loc(op.loc), op.module.str(), name,
                      values_short(g, op.tensor_inputs()) + " -> " + values_short(g, outs), count(l, l.counts.kernels),
                      count(l, l.counts.memcpy), count(l, l.counts.memset), count(l, l.counts.host_syncs),
                      std::to_string(r.traffic[i].transfers()), format_bytes(r.traffic[i].bytes()),
                      format_flops(static_cast<double>(r.traffic[i].flops)),
                      format_seconds(r.time[i].floor_s()) + " " + static_cast<char>(std::toupper(r.time[i].bound()[0])),
                      compiled ? group(r.pointwise, pointwise_letter(r)) : group(r.fusion, 'F')});
    if (compiled) t.rows.back().push_back(group(r.fusion, 'F'));
  }
  return t;
}

Rows rollup_table(const std::vector<RollupRow>& rows, const std::string& by, const std::string& sort, size_t top,
                  bool compiled) {
  Rows t;
  const std::string label = by == "line" ? "source line" : by == "module" ? "module" : "op type";
  t.header = rollup_header(label, by == "line" ? "code" : by == "module" ? "class" : "", compiled);
  if (by == "op-type") t.header.pop_back();
  t.total = rows.size();
  for (size_t i : pick(rows.size(), sort, top, [&](size_t k) { return rollup_key(rows[k], sort); })) {
    t.rows.push_back(rollup_cells(rows[i], rows[i].key, compiled));
    if (by == "op-type") t.rows.back().pop_back();
  }
  return t;
}

Rows module_tree_table(const std::vector<ModuleNode>& tree, int depth, const std::string& sort, size_t top,
                       bool only_depth, bool compiled) {
  Rows t;
  t.header = rollup_header("module (inclusive)", "class", compiled);
  auto label = [&](const ModuleNode& n) {
    return n.depth == 0 ? std::string("(model)")
           : only_depth ? n.total.key
                        : std::string(2 * n.depth, ' ') + n.total.key;
  };
  std::vector<size_t> shown;
  if (only_depth) {
    std::vector<size_t> at;
    for (size_t i = 0; i < tree.size(); ++i)
      if (tree[i].depth == depth) at.push_back(i);
    t.total = at.size();
    for (size_t k : pick(at.size(), sort, top, [&](size_t k) { return rollup_key(tree[at[k]].total, sort); }))
      shown.push_back(at[k]);
  } else {
    // Depth-first; siblings ordered by `sort`.
    std::vector<std::vector<size_t>> children(tree.size());
    for (size_t i = 1; i < tree.size(); ++i) children[tree[i].parent].push_back(i);
    std::function<void(size_t)> visit = [&](size_t n) {
      if (depth >= 0 && tree[n].depth > depth) return;
      ++t.total;
      shown.push_back(n);
      std::vector<size_t>& c = children[n];
      for (size_t k : pick(c.size(), sort, 0, [&](size_t k) { return rollup_key(tree[c[k]].total, sort); }))
        visit(c[k]);
    };
    if (!tree.empty()) visit(0);
    if (top > 0 && shown.size() > top) shown.resize(top);
  }
  // Self: the module's own ops, its inclusive figures less its direct submodules'.
  std::vector<RollupRow> self(tree.size());
  for (size_t i = 0; i < tree.size(); ++i) self[i] = tree[i].total;
  for (size_t i = 1; i < tree.size(); ++i) {
    RollupRow& p = self[tree[i].parent];
    p.counts.kernels -= tree[i].total.counts.kernels;
    p.flops -= tree[i].total.flops;
    p.floor_s -= tree[i].total.floor_s;
  }
  // The tree has them beside the inclusive ones; the summary's modules of one depth do not.
  if (!only_depth) t.header.insert(t.header.end() - 1, {">self kernels", ">self FLOPs", ">self floor"});
  for (size_t i : shown) {
    std::vector<std::string> cells = rollup_cells(tree[i].total, label(tree[i]), compiled);
    const RollupRow& s = self[i];
    if (!only_depth)
      cells.insert(cells.end() - 1, {std::to_string(s.counts.kernels), format_flops(static_cast<double>(s.flops)),
                                     format_seconds(s.floor_s > 0 ? s.floor_s : 0)});
    t.rows.push_back(std::move(cells));
  }
  return t;
}

Rows without_cost_columns(Rows rows, const std::string& sort) {
  if (sort == "flops" || sort == "time") return rows;
  for (size_t c = rows.header.size(); c-- > 0;)
    if (rows.header[c] == ">FLOPs" || rows.header[c] == ">floor") {
      rows.header.erase(rows.header.begin() + static_cast<long>(c));
      for (auto& row : rows.rows) row.erase(row.begin() + static_cast<long>(c));
    }
  return rows;
}

Rows kernel_table(const Graph& g, const Report& r, const std::string& sort, size_t top) {
  struct Row {
    std::string name;
    int64_t calls = 0;
    int ops = 0;
    double floor_s = 0;
    bool unknown = false;
    std::map<std::string, int64_t> by;  // op type -> calls
    size_t first = 0;
  };
  std::map<std::string, size_t> index;
  std::vector<Row> rows;
  int64_t all_calls = 0;
  auto row = [&](const std::string& name, size_t op) -> Row& {
    auto [it, fresh] = index.try_emplace(name, rows.size());
    if (fresh) {
      rows.push_back({});
      rows.back().name = name;
      rows.back().first = op;
    }
    return rows[it->second];
  };
  for (size_t i = 0; i < g.ops.size(); ++i) {
    const Launch& l = r.launches[i];
    const std::string type = op_type_name(g.ops[i]);
    if (!l.known) {
      Row& x = row("? (no launch rule: " + type + ")", i);
      x.unknown = true;
      ++x.ops;
      continue;
    }
    const int64_t launches = int64_t{l.counts.kernels} + l.counts.memcpy + l.counts.memset;
    if (launches == 0) continue;
    const auto& names = r.explain[i].kernel_names;
    const double floor = r.time[i].floor_s();
    // The names are one trip's launches in order; the counts cover every trip.
    const int64_t n = static_cast<int64_t>(names.size());
    std::vector<std::pair<std::string, int64_t>> calls;
    if (n > 0 && launches % n == 0)
      for (const auto& name : names) calls.emplace_back(std::string(name), launches / n);
    else
      calls.emplace_back("(kernel not named by a measurement: rule " + l.rule.str() + ")", launches);
    std::set<std::string> seen;
    for (const auto& [name, c] : calls) {
      Row& x = row(name, i);
      x.calls += c;
      x.floor_s += floor * static_cast<double>(c) / static_cast<double>(launches);
      x.by[type] += c;
      if (seen.insert(name).second) ++x.ops;
    }
    all_calls += launches;
  }
  Rows t;
  t.header = {"kernel", ">calls", ">% calls", ">ops", ">floor", "launched by"};
  t.total = rows.size();
  auto key = [&](size_t k) -> int64_t {
    if (rows[k].unknown) return -1;  // calls unknown: after every counted kernel
    if (sort == "time") return static_cast<int64_t>(rows[k].floor_s * 1e12);
    if (sort == "ops") return rows[k].ops;
    return rows[k].calls;
  };
  std::vector<size_t> order(rows.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return rows[a].first < rows[b].first; });
  std::vector<size_t> picked;
  for (size_t k : pick(order.size(), sort.empty() || sort == "bytes" || sort == "flops" ? "kernels" : sort, top,
                       [&](size_t k) { return key(order[k]); }))
    picked.push_back(order[k]);
  for (size_t k : picked) {
    const Row& x = rows[k];
    std::vector<std::pair<std::string, int64_t>> by(x.by.begin(), x.by.end());
    std::stable_sort(by.begin(), by.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
    std::string who;
    for (size_t j = 0; j < by.size() && j < 3; ++j)
      who += (who.empty() ? "" : ", ") + by[j].first + " (" + std::to_string(by[j].second) + ")";
    if (by.size() > 3) who += ", " + std::to_string(by.size() - 3) + " more";
    char pct[16];
    std::snprintf(pct, sizeof pct, "%.1f%%",
                  all_calls ? 100.0 * static_cast<double>(x.calls) / static_cast<double>(all_calls) : 0.0);
    t.rows.push_back({x.name, x.unknown ? "?" : std::to_string(x.calls), x.unknown ? "?" : pct, std::to_string(x.ops),
                      x.unknown ? "?" : format_seconds(x.floor_s), x.unknown ? "" : who});
  }
  return t;
}

Rows fusion_table(const Graph& g, const FusionPlan& plan, bool by_saving, size_t top, const std::string& kind,
                  const std::vector<DramTraffic>& dram, char letter) {
  Rows t;
  t.header = {"group", "ops", ">eager kernels", ">fused", ">eager R+W", ">fused R+W", ">bytes saved"};
  if (!dram.empty()) t.header.push_back(">eager DRAM");
  std::vector<size_t> merged;
  for (size_t k = 0; k < plan.groups.size(); ++k)
    if (plan.groups[k].ops.size() > 1 && (kind.empty() || plan.groups[k].kind == kind)) merged.push_back(k);
  t.total = merged.size();
  auto saved = [&](size_t k) { return plan.groups[merged[k]].eager.bytes() - plan.groups[merged[k]].fused.bytes(); };
  for (size_t m : pick(merged.size(), by_saving ? "bytes" : "order", top, saved)) {
    const size_t k = merged[m];
    const FusionGroup& grp = plan.groups[k];
    std::string members;
    for (int i : grp.ops) {
      if (!members.empty()) members += ' ';
      members += std::to_string(i);
      members += ':';
      members += op_type_name(g.ops[i]);
    }
    // Groups of the reduction plan are numbered in that plan: R<n>, apart from the F<n> of the ops table.
    // The members are moved in, never copied: a group of 100,000 ops lists megabytes of them.
    std::vector<std::string> row = {(kind == "reduction" ? 'R' : letter) + std::to_string(k), ""};
    row[1] = std::move(members);
    for (int64_t n : {int64_t{grp.eager_kernels}, int64_t{grp.fused_kernels}, int64_t{grp.eager.transfers()},
                      int64_t{grp.fused.transfers()}})
      row.push_back(std::to_string(n));
    row.push_back(format_bytes(grp.eager.bytes() - grp.fused.bytes()));
    t.rows.push_back(std::move(row));
    if (!dram.empty()) {
      int64_t past_l2 = 0;
      for (int i : grp.ops) past_l2 = add_checked(past_l2, dram.at(i).bytes(), "DRAM bytes");
      t.rows.back().push_back(format_bytes(past_l2));
    }
  }
  return t;
}

char pointwise_letter(const Report& r) {
  return compiled_view(r) ? 'P' : 'F';
}

const std::vector<DramTraffic>& dram_past_l2(const Report& r) {
  static const std::vector<DramTraffic> none;
  return r.target && r.target->device.l2_bytes > 0 ? r.dram : none;
}

std::string fusion_bytes_note(const Report& r) {
  if (!r.target || r.target->device.l2_bytes <= 0) return "";
  return "bytes saved: array-sized transfers the fused kernel no longer makes (launches and L2 traffic); "
         "eager DRAM: the part of the group's traffic that gets past the L2, the most of it that is DRAM";
}

std::string signed_change(int64_t before, int64_t after, bool bytes) {
  int64_t d = after - before;
  std::string s = d > 0 ? "+" : d < 0 ? "-" : "";
  s += bytes ? format_bytes(d < 0 ? -d : d) : std::to_string(d < 0 ? -d : d);
  if (before != 0 && d != 0) {
    char pct[32];
    std::snprintf(pct, sizeof pct, " (%+.1f%%)", 100.0 * static_cast<double>(d) / static_cast<double>(before));
    s += pct;
  }
  return d == 0 ? "=" : s;
}

std::string more_note(size_t cut, const std::string& what) {
  if (cut == 0) return "";
  return "(" + std::to_string(cut) + " more " + what + " not shown; --top N shows more, --format json has all)";
}

std::vector<std::vector<std::string>> baseline_rows(const BaselineDiff& d) {
  std::vector<std::vector<std::string>> rows;
  for (const Delta& t : d.totals) {
    const bool bytes = t.name.find("bytes") != std::string::npos;
    const bool flops = t.name == "flops";
    auto show = [&](int64_t v) {
      return bytes ? format_bytes(v) : flops ? format_flops(static_cast<double>(v)) : std::to_string(v);
    };
    std::string change =
        flops && t.before != t.after
            ? (t.after > t.before ? "+" : "-") + format_flops(static_cast<double>(std::llabs(t.after - t.before)))
            : signed_change(t.before, t.after, bytes);
    rows.push_back({total_label(t.name, d.fusion), show(t.before), show(t.after), change});
    // An op without a rule launches kernels nobody counted: a kernel total that fell while such
    // ops were added is no saving. Say what the budgets count (each unknown op as one).
    if (t.name == "eager_kernels") {
      const int64_t ub = d.total("unknown_ops", false), ua = d.total("unknown_ops", true);
      if (ua != ub)
        rows.push_back({"kernels (eager, each unknown op as one)", std::to_string(t.before + ub),
                        std::to_string(t.after + ua), signed_change(t.before + ub, t.after + ua, false)});
    }
  }
  return rows;
}

Rows baseline_module_rows(const BaselineDiff& d, size_t limit) {
  Rows t;
  t.header = {"module", ">before", ">after", ">change"};
  t.total = d.module_kernels.size();
  for (const Delta& m : d.module_kernels) {
    if (limit > 0 && t.rows.size() == limit) break;
    t.rows.push_back(
        {m.name, std::to_string(m.before), std::to_string(m.after), signed_change(m.before, m.after, false)});
  }
  return t;
}

Rows entry_delta_table(const std::vector<EntryDelta>& deltas, const std::string& what, size_t limit, int max_depth) {
  Rows t;
  t.header = {what, "", ">ops", ">kernels", ">change", ">unknown", ">bytes", "per op"};
  for (const EntryDelta& d : deltas) {
    if (max_depth >= 0 && d.after.depth > max_depth) continue;
    ++t.total;
    if (limit > 0 && t.rows.size() == limit) continue;
    const Entry& a = d.before;
    const Entry& b = d.after;
    std::string name = what == "module" ? (b.name.empty() ? "(model)" : std::string(2 * b.depth, ' ') + b.name)
                       : b.name.empty() ? a.name
                                        : b.name;
    // A line that moved (code added above it): its number before, as `diff` would show it.
    if (d.moved()) name += " (was " + a.name.substr(a.name.rfind(':') + 1) + ")";
    // "x53: 1 -> 3 kernels": the same ops, each launching a different number of kernels.
    std::string per_op;
    if (a.ops == b.ops && a.ops > 0 && a.kernels % a.ops == 0 && b.kernels % b.ops == 0 && a.kernels != b.kernels)
      per_op = "x" + std::to_string(b.ops) + ": " + std::to_string(a.kernels / a.ops) + " -> " +
               std::to_string(b.kernels / b.ops) + " kernels";
    t.rows.push_back({name, d.status, arrow(a.ops, b.ops, false), arrow(a.kernels, b.kernels, false),
                      // Known kernels that fell while ops without a rule came are no saving: say so.
                      signed_change(a.kernels, b.kernels, false) +
                          (b.unknown > a.unknown ? ", +" + std::to_string(b.unknown - a.unknown) + " unknown" : ""),
                      arrow(a.unknown, b.unknown, false), signed_change(a.bytes, b.bytes, true), per_op});
  }
  return t;
}

namespace {
// "81.6 us (12 ops)": the floor of the ops whose floor is kernels x the smallest time per launch.
std::string launch_bound_share(const Report& r) {
  int n = 0;
  double s = 0;
  for (const TimeFloor& t : r.time) {
    if (t.floor_s() > 0 && std::string(t.bound()) == "launch") {
      ++n;
      s += t.floor_s();
    }
  }
  return format_seconds(s) + " (" + std::to_string(n) + " ops)";
}

// The totals in the default report's columns: eager, fused, fused+reductions.
std::vector<std::vector<std::string>> totals_rows_of(const Report& r) {
  const Totals& t = r.totals;
  return {
      {"kernels", std::to_string(t.eager.kernels), std::to_string(t.fused_kernels),
       std::to_string(t.fused_kernels_reduction)},
      {"array-sized HBM transfers", std::to_string(t.eager_hbm_transfers), std::to_string(t.fused_hbm_transfers), ""},
      {"array-sized HBM bytes", format_bytes(t.eager_hbm_bytes), format_bytes(t.fused_hbm_bytes),
       format_bytes(t.fused_hbm_bytes_reduction)},
      {"expected DRAM bytes",
       format_bytes(add_checked(t.eager_dram_read_bytes, t.eager_dram_write_bytes, "DRAM bytes")), "", ""},
      {"time floor", format_seconds(t.eager_time_floor_s), format_seconds(t.fused_time_floor_s), ""},
      // Where the launch term sets an op's floor, the floor is the host's launch pace, not GPU
      // work: say how much of the floor is that.
      {"  of which launch-rate bound", launch_bound_share(r), "", ""},
      {"memcpy", std::to_string(t.eager.memcpy), "", ""},
      {"memset", std::to_string(t.eager.memset), "", ""},
      {"host syncs", std::to_string(t.eager.host_syncs), "", ""},
      {"unknown ops", std::to_string(t.unknown_ops), "", ""},
  };
}
}  // namespace

bool compiled_view(const Report& r) {
  return r.fusion.variant == "inductor";
}

std::vector<std::string> totals_header(const Report& r) {
  if (compiled_view(r)) return {"", ">eager", ">fused", ">inductor", ">fused+reductions"};
  return {"", ">eager", ">fused", ">fused+reductions"};
}

std::vector<std::vector<std::string>> totals_rows(const Report& r) {
  const Totals& t = r.totals;
  if (compiled_view(r)) {
    // The greedy plan's column beside Inductor's, in the rows the fused columns fill.
    std::vector<std::vector<std::string>> rows = totals_rows_of(r);
    const std::vector<std::string> pointwise = {
        std::to_string(t.pointwise_kernels), std::to_string(t.pointwise_hbm_transfers),
        format_bytes(t.pointwise_hbm_bytes), "", format_seconds(t.pointwise_time_floor_s)};
    for (size_t k = 0; k < rows.size(); ++k)
      rows[k].insert(rows[k].begin() + 2, k < pointwise.size() ? pointwise[k] : "");
    // pad_mm decides some GEMMs by timing them on the GPU: the kernels either answer gives.
    if (t.inductor_kernels_low != t.fused_kernels || t.inductor_kernels_high != t.fused_kernels)
      rows.insert(rows.begin() + 1,
                  {"  as pad_mm's GPU timings answer", "", "",
                   std::to_string(t.inductor_kernels_low) + " to " + std::to_string(t.inductor_kernels_high), ""});
    return rows;
  }
  return totals_rows_of(r);
}

Rows increase_table(const Graph& g, const Report& r, size_t top) {
  Rows t;
  t.header = {"group", "op", "source", ">eager kernels", ">inductor", "why"};
  t.total = r.more_than_eager.size();
  for (const KernelIncrease& k : r.more_than_eager) {
    if (top > 0 && t.rows.size() == top) break;
    const Op& op = g.ops[k.op];
    t.rows.push_back({"F" + std::to_string(k.group), std::to_string(k.op) + ":" + op_type_name(op), format_loc(op.loc),
                      std::to_string(k.eager_kernels), std::to_string(k.compiled_kernels), k.why});
  }
  return t;
}

std::string bytes_note(const Report& r) {
  const int64_t l2 = r.target ? r.target->device.l2_bytes : 0;
  if (l2 <= 0) return "array-sized: every kernel reads its inputs from HBM and writes its outputs back";
  return "array-sized: each kernel reads its inputs from HBM, writes its outputs back (the time floor's); "
         "expected DRAM: what gets past the " +
         std::to_string(l2 >> 20) + " MiB L2, call after call";
}

std::vector<std::vector<std::string>> legend_rows(const std::string& table, bool compiled) {
  if (table == "kernel")
    return {{"kernel",
             "a kernel's name as the H200 ran it for such ops (the measurements behind the rules); "
             "'?': an op no launch rule covers"},
            {"calls", "launches of that kernel (memsets and memcpys too), as a profiler's '# of Calls'"},
            {"% calls", "its share of every launch of the model"},
            {"ops", "ops that launch it"},
            {"floor", "its share of those ops' time floors (each op's floor split evenly over its launches)"},
            {"launched by", "the op types that launch it, with their calls"}};
  std::vector<std::vector<std::string>> rows = {
      {"kernels", "GPU kernels eager PyTorch launches ('?': no launch rule covers the op; not counted, see unknown)"},
      {"memcpy", "cudaMemcpy operations (device-to-device or device-to-host copies)"},
      {"memset", "cudaMemset operations"},
      {"sync", "points where the host waits for the GPU (e.g. .item(), nonzero)"},
      {"R+W", "array-sized reads plus writes of GPU memory (HBM)"},
      {"bytes", "bytes those reads and writes move, decimal units (1 MB = 10^6 B)"},
      {"FLOPs", "floating-point operations, decimal units (1 M = 10^6), as fvcore counts them"},
  };
  if (table == "op") {
    rows.insert(
        rows.begin(),
        {{"#", "the op's position in execution order"},
         {"source", "the innermost line of your code that called the op"},
         {"module", "the module path the op ran in"},
         {"op", "the aten op and overload; xN: it runs N times (a loop's trips), and its counts are for all of them"},
         {"inputs -> outputs", "tensor shapes and dtypes (f32 = float32, bf16 = bfloat16, ...)"}});
    rows.push_back({"floor",
                    "lower bound on the op's time and what sets it: M bytes / HBM bandwidth, C FLOPs / "
                    "compute rate, L launch-rate bound (kernels x the host's smallest time per launch: the "
                    "GPU may sit idle, so this bound is about the host, not GPU work)"});
    if (compiled) {
      rows.push_back(
          {"fused group", "the greedy pointwise fusion group the op joins (P<n>); empty when it stays alone"});
      rows.push_back({"inductor group",
                      "the compiled kernel the op shares with other ops (F<n>), as kernelcount's model of Inductor "
                      "predicts; empty when it has its own kernels or none"});
    } else {
      rows.push_back({"group", "the pointwise fusion group the op joins (F<n>); empty when it stays alone"});
    }
  } else {
    rows.insert(rows.begin(), {{"ops", "ops in the row (a module's include its submodules' when inclusive)"}});
    rows.push_back({"unknown", "ops without a launch rule: their kernels are not in the counts"});
    rows.push_back({"floor", "the sum of the row's ops' time floors"});
    rows.push_back({"self kernels / FLOPs / floor",
                    "the module tree: the module's own ops only, without its submodules' (the other columns "
                    "are inclusive)"});
  }
  rows.push_back({"eager / fused",
                  "eager PyTorch / after greedy pointwise fusion (what torch.compile's simplest "
                  "fusion saves); fused+reductions also fuses into reductions (groups R<n>)"});
  if (compiled)
    rows.push_back({"inductor",
                    "what torch.compile (Inductor, default mode) launches, as kernelcount's model of its scheduling "
                    "predicts (groups F<n>); per line and module, each compiled kernel counts at one op of its group "
                    "(a library call, a reduction, else its first op)"});
  rows.push_back({"time floor", "sum of the ops' floors: no schedule of these kernels is faster on the GPU"});
  rows.push_back({"launch-rate bound",
                  "the ops whose floor is set by launches, and their share of the floor: "
                  "the host's launch pace (the target's smallest time per kernel launch), not GPU work; "
                  "CUDA graphs or fusion remove it"});
  return rows;
}

}  // namespace kc
