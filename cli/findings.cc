#include "cli/findings.h"

#include <algorithm>
#include <map>
#include <set>

#include "cli/report_rows.h"
#include "cli/table.h"
#include "passes/rollup.h"

namespace kc {

const std::vector<FindingRule>& finding_rules() {
  static const std::vector<FindingRule> rules = {
      {"kernelcount/budget-exceeded", "error", "A kernelcount budget (--max-*) is exceeded"},
      {"kernelcount/host-sync", "warning", "The line makes the host wait for the GPU"},
      {"kernelcount/unknown-op", "warning", "No launch rule covers an op of the line: its kernels are not counted"},
      {"kernelcount/costly-line", "note", "One of the source lines that launch the most GPU kernels"},
      {"kernelcount/gpu-failure", "error",
       "The line takes a view the GPU's strides do not allow: the program does not run on the GPU as exported"},
      // Last: reports without --fusion inductor list the rules before it only (finding_rule_count).
      {"kernelcount/compiled-more-kernels", "note",
       "Under torch.compile (Inductor), an op of the line launches more kernels than eager"},
  };
  return rules;
}

size_t finding_rule_count(const Report& r) {
  return finding_rules().size() - (r.fusion.variant == "inductor" ? 0 : 1);
}

namespace {

// Per source line: its first op's location and the names of the ops doing the thing.
struct LineFacts {
  SourceLoc loc;
  int kernels = 0;
  int64_t bytes = 0;
  int syncs = 0;
  int unknown = 0;
  std::set<std::string> sync_ops, unknown_ops;
  const FailingView* failing = nullptr;  // the line's first view the GPU cannot take
  int failing_views = 0;
  std::map<std::string, std::set<std::string>> modules;  // per op type: the modules its ops ran in
  int first_op = 0;
};

std::string join(const std::set<std::string>& names) {
  std::string s;
  for (const auto& n : names) s += (s.empty() ? "" : ", ") + n;
  return s;
}

// "-gelu +bernoulli.p", "+clone x2": the op types a line lost and gained.
std::string op_change(const std::map<std::string, int64_t>& before, const std::map<std::string, int64_t>& after) {
  std::string gone, added;
  auto name = [](const std::string& op, int64_t n) { return op + (n > 1 ? " x" + std::to_string(n) : ""); };
  for (const auto& [op, n] : before) {
    auto it = after.find(op);
    const int64_t m = it == after.end() ? 0 : it->second;
    if (m < n) gone += " -" + name(op, n - m);
  }
  for (const auto& [op, n] : after) {
    auto it = before.find(op);
    const int64_t m = it == before.end() ? 0 : it->second;
    if (n > m) added += " +" + name(op, n - m);
  }
  std::string s = gone + added;
  return s.empty() ? s : s.substr(1);
}

// What a changed line did, in one clause: "this line (line 74 before the change) adds 16.4 kB of HBM
// traffic: +clone (in proj)".
std::string line_change(const EntryDelta& d, const LineFacts* facts) {
  const Entry& a = d.before;
  const Entry& b = d.after;
  std::string s = a.ops == 0 ? "this new line" : "this line";
  if (d.moved()) s += " (line " + a.name.substr(a.name.rfind(':') + 1) + " before the change)";
  std::vector<std::string> parts;
  const int64_t dk = b.kernels - a.kernels;
  if (dk != 0) parts.push_back((dk > 0 ? "adds " : "removes ") + std::to_string(std::llabs(dk)) + " kernel(s)");
  if (b.unknown > a.unknown)
    parts.push_back("adds " + std::to_string(b.unknown - a.unknown) + " op(s) without a launch rule");
  const int64_t db = b.bytes - a.bytes;
  if (db != 0) parts.push_back((db > 0 ? "adds " : "removes ") + format_bytes(std::llabs(db)) + " of HBM traffic");
  for (size_t i = 0; i < parts.size(); ++i) s += (i == 0 ? " " : i + 1 == parts.size() ? " and " : ", ") + parts[i];
  const std::string ops = op_change(a.op_types, b.op_types);
  if (!ops.empty()) s += ": " + ops;
  // Where the ops it gained ran.
  std::set<std::string> modules;
  if (facts)
    for (const auto& [type, n] : b.op_types) {
      auto was = a.op_types.find(type);
      auto in = facts->modules.find(type);
      if ((was == a.op_types.end() || was->second < n) && in != facts->modules.end())
        modules.insert(in->second.begin(), in->second.end());
    }
  if (!modules.empty()) {
    std::set<std::string> first(modules.begin(), std::next(modules.begin(), std::min<long>(3, modules.size())));
    s += " (in " + join(first) + (modules.size() > 3 ? " and " + std::to_string(modules.size() - 3) + " more" : "") +
         ")";
  }
  return s;
}

// Whether a changed line adds to what budget `b` counts.
bool adds_to(const BudgetCheck& b, const EntryDelta& d, const LineFacts* facts) {
  const Entry& x = d.before;
  const Entry& y = d.after;
  if (b.unit == "kernels")
    return y.kernels + y.unknown > x.kernels + x.unknown || (!b.unproven.empty() && y.unknown > x.unknown);
  if (b.unit == "bytes") return y.bytes > x.bytes;
  if (b.unit == "ops") return y.unknown > x.unknown;
  if (b.unit == "syncs") return facts && facts->syncs > 0;
  return false;
}

}  // namespace

std::vector<Finding> findings(const Graph& g, const Report& r, const std::vector<BudgetCheck>& budgets,
                              const BaselineDiff* base, FindingScope scope, const std::string& source_root,
                              size_t costly) {
  std::string root = source_root;
  while (root.size() > 1 && root.back() == '/') root.pop_back();
  auto relative = [&](const std::string& file) {
    if (!root.empty() && file.size() > root.size() + 1 && file.compare(0, root.size(), root) == 0 &&
        file[root.size()] == '/')
      return file.substr(root.size() + 1);
    return file;
  };
  std::map<std::string, LineFacts> lines;
  for (size_t i = 0; i < g.ops.size(); ++i) {
    const Op& op = g.ops[i];
    // Ops the export ties to no source line are one group without a location.
    auto [it, fresh] = lines.try_emplace(format_loc(op.loc));
    LineFacts& f = it->second;
    if (fresh) {
      f.loc = op.loc;
      f.first_op = static_cast<int>(i);
    }
    const Launch& l = r.launches[i];
    f.kernels += l.counts.kernels;
    f.bytes += r.traffic[i].bytes();
    f.modules[op_type_name(op)].insert(op.module.empty() ? "the model's own forward()" : op.module.str());
    if (l.counts.host_syncs > 0) {
      f.syncs += l.counts.host_syncs;
      f.sync_ops.insert(op_type_name(op));
    }
    if (!l.known) {
      ++f.unknown;
      f.unknown_ops.insert(op.full_name());
    }
  }
  for (const FailingView& v : r.layout.failing_views) {
    LineFacts& f = lines.at(format_loc(g.ops[v.op].loc));
    if (!f.failing) f.failing = &v;
    ++f.failing_views;
  }
  // The lines the change touched, by their name after it ("file:line").
  std::map<std::string, const EntryDelta*> changed;
  if (base)
    for (const EntryDelta* d : base->changed_lines())
      if (d->after.name != "(none)") changed[d->after.name] = d;
  auto facts_of = [&](const std::string& key) -> const LineFacts* {
    auto it = lines.find(key);
    return it == lines.end() ? nullptr : &it->second;
  };
  auto in_scope = [&](const LineFacts* f) {
    return scope == FindingScope::kAll || !base || changed.count(format_loc(f->loc)) > 0;
  };
  std::vector<const LineFacts*> by_cost;
  for (const auto& [k, f] : lines) by_cost.push_back(&f);
  std::stable_sort(by_cost.begin(), by_cost.end(), [](const LineFacts* a, const LineFacts* b) {
    return a->kernels != b->kernels ? a->kernels > b->kernels : a->first_op < b->first_op;
  });

  std::vector<Finding> out;
  for (const BudgetCheck& b : budgets) {
    if (!b.exceeded()) continue;
    const std::string verdict = "kernelcount: " + describe(b);
    // In the order the lines run, each changed line that adds to what the budget counts.
    std::vector<std::pair<int, Finding>> on_lines;
    for (const auto& [key, d] : changed) {
      const LineFacts* f = facts_of(key);
      if (!f || f->loc.file.empty() || !adds_to(b, *d, f)) continue;
      const std::string what = line_change(*d, f);
      on_lines.push_back({f->first_op, {0, f->loc.file, f->loc.line, verdict + "; " + what, what}});
    }
    std::sort(on_lines.begin(), on_lines.end(), [](const auto& x, const auto& y) { return x.first < y.first; });
    for (auto& [first, f] : on_lines) out.push_back(f);
    if (on_lines.empty())
      out.push_back({0, "", 0,
                     verdict + (base ? "; no changed source line adds to it"
                                     : "; the whole model counts (--by line shows where)"),
                     ""});
  }
  std::vector<const LineFacts*> in_order(by_cost);
  std::sort(in_order.begin(), in_order.end(),
            [](const LineFacts* a, const LineFacts* b) { return a->first_op < b->first_op; });
  // Views the GPU cannot take, on every line (in scope or not): the program fails there.
  for (const LineFacts* f : in_order)
    if (f->failing)
      out.push_back(
          {4, f->loc.file, f->loc.line,
           "op " + std::to_string(f->failing->op) +
               " does not run on the GPU as exported: " + failing_view_reason(g, *f->failing) +
               (f->failing_views > 1 ? " (" + std::to_string(f->failing_views - 1) + " more on this line)" : ""),
           ""});
  for (const LineFacts* f : in_order)
    if (f->syncs > 0 && in_scope(f))
      out.push_back({1, f->loc.file, f->loc.line,
                     std::to_string(f->syncs) + " host sync(s) (" + join(f->sync_ops) +
                         "): the CPU waits for the GPU, which stalls the launch queue",
                     ""});
  for (const LineFacts* f : in_order)
    if (f->unknown > 0 && in_scope(f))
      out.push_back({2, f->loc.file, f->loc.line,
                     std::to_string(f->unknown) + " op(s) without a launch rule (" + join(f->unknown_ops) +
                         "): their kernels are not counted in any total",
                     ""});
  const int total = r.totals.eager.kernels;
  for (size_t k = 0; k < by_cost.size() && k < costly; ++k) {
    const LineFacts* f = by_cost[k];
    if (f->kernels == 0) break;
    if (f->loc.file.empty()) {
      ++costly;
      continue;
    }
    if (!in_scope(f)) continue;
    out.push_back({3, f->loc.file, f->loc.line,
                   std::to_string(f->kernels) + " GPU kernels (" +
                       std::to_string(total ? 100 * f->kernels / total : 0) + "% of the model's " +
                       std::to_string(total) + "), " + format_bytes(f->bytes) + " of HBM traffic",
                   ""});
  }
  // --fusion inductor: the compiled groups that launch more than eager, at their anchor op's line.
  for (const KernelIncrease& k : r.more_than_eager) {
    const Op& op = g.ops[k.op];
    const LineFacts* f = facts_of(format_loc(op.loc));
    if (!f || !in_scope(f)) continue;
    out.push_back({5, op.loc.file, op.loc.line,
                   "under torch.compile (Inductor, as kernelcount models it) op " + std::to_string(k.op) + " " +
                       op_type_name(op) + " and its compiled group launch " + std::to_string(k.compiled_kernels) +
                       " kernels where eager launches " + std::to_string(k.eager_kernels) + ": " + k.why,
                   ""});
  }
  for (Finding& f : out) {
    if (f.file.empty() && f.rule != 0) f.message = "(ops the export ties to no source line) " + f.message;
    f.file = relative(f.file);
  }
  return out;
}

}  // namespace kc
