#include "cli/findings.h"

#include <algorithm>
#include <map>
#include <set>

#include "cli/table.h"
#include "passes/rollup.h"

namespace kc {

const std::vector<FindingRule>& finding_rules() {
  static const std::vector<FindingRule> rules = {
      {"kernelcount/budget-exceeded", "error", "A kernelcount budget (--max-*) is exceeded"},
      {"kernelcount/host-sync", "warning", "The line makes the host wait for the GPU"},
      {"kernelcount/unknown-op", "warning", "No launch rule covers an op of the line: its kernels are not counted"},
      {"kernelcount/costly-line", "note", "One of the source lines that launch the most GPU kernels"},
  };
  return rules;
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
  int first_op = 0;
};

std::string join(const std::set<std::string>& names) {
  std::string s;
  for (const auto& n : names) s += (s.empty() ? "" : ", ") + n;
  return s;
}

}  // namespace

std::vector<Finding> findings(const Graph& g, const Report& r, const std::vector<BudgetCheck>& budgets,
                              const std::string& source_root, size_t costly) {
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
    if (l.counts.host_syncs > 0) {
      f.syncs += l.counts.host_syncs;
      f.sync_ops.insert(op_type_name(op));
    }
    if (!l.known) {
      ++f.unknown;
      f.unknown_ops.insert(op.full_name());
    }
  }
  std::vector<const LineFacts*> by_cost;
  for (const auto& [k, f] : lines) by_cost.push_back(&f);
  std::stable_sort(by_cost.begin(), by_cost.end(), [](const LineFacts* a, const LineFacts* b) {
    return a->kernels != b->kernels ? a->kernels > b->kernels : a->first_op < b->first_op;
  });

  std::vector<Finding> out;
  for (const BudgetCheck& b : budgets) {
    if (!b.exceeded()) continue;
    Finding f{0, "", 0, "kernelcount: " + describe(b)};
    auto located =
        std::find_if(by_cost.begin(), by_cost.end(), [](const LineFacts* l) { return !l->loc.file.empty(); });
    if (located != by_cost.end()) {
      const LineFacts* top = *located;
      f.file = top->loc.file;
      f.line = top->loc.line;
      f.message += "; the costliest line is here (" + std::to_string(top->kernels) + " kernels)";
    }
    out.push_back(f);
  }
  std::vector<const LineFacts*> in_order(by_cost);
  std::sort(in_order.begin(), in_order.end(),
            [](const LineFacts* a, const LineFacts* b) { return a->first_op < b->first_op; });
  for (const LineFacts* f : in_order)
    if (f->syncs > 0)
      out.push_back({1, f->loc.file, f->loc.line,
                     std::to_string(f->syncs) + " host sync(s) (" + join(f->sync_ops) +
                         "): the CPU waits for the GPU, which stalls the launch queue"});
  for (const LineFacts* f : in_order)
    if (f->unknown > 0)
      out.push_back({2, f->loc.file, f->loc.line,
                     std::to_string(f->unknown) + " op(s) without a launch rule (" + join(f->unknown_ops) +
                         "): their kernels are not counted in any total"});
  const int total = r.totals.eager.kernels;
  for (size_t k = 0; k < by_cost.size() && k < costly; ++k) {
    const LineFacts* f = by_cost[k];
    if (f->kernels == 0) break;
    if (f->loc.file.empty()) {
      ++costly;
      continue;
    }
    out.push_back({3, f->loc.file, f->loc.line,
                   std::to_string(f->kernels) + " GPU kernels (" +
                       std::to_string(total ? 100 * f->kernels / total : 0) + "% of the model's " +
                       std::to_string(total) + "), " + format_bytes(f->bytes) + " of HBM traffic"});
  }
  for (Finding& f : out) {
    if (f.file.empty() && f.rule != 0) f.message = "(ops the export ties to no source line) " + f.message;
    f.file = relative(f.file);
  }
  return out;
}

}  // namespace kc
