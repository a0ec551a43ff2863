#include <algorithm>
#include <map>
#include <set>

#include "passes/fusion_groups.h"
#include "passes/inductor_builder.h"

namespace kc::inductor {

FusionPlan Builder::build() {
  FusionPlan plan;
  plan.variant = "inductor";
  plan.group_of.assign(g.ops.size(), -1);
  // Inlined ops join the group of their first reader that is in one (readers come later).
  std::vector<int> group_root(g.ops.size(), -1);  // per op: its node's root
  for (size_t k = 0; k < g.ops.size(); ++k)
    if (node_of[k] >= 0) group_root[k] = find(node_of[k]);
  for (size_t k = 0; k < g.ops.size(); ++k)
    if (absorbed_into[k] >= 0 && node_of[absorbed_into[k]] >= 0) group_root[k] = find(node_of[absorbed_into[k]]);
  // Ops an attention call absorbed (fuse_attention_patterns) are counted in its kernel.
  auto folded = [&](size_t k) { return !fused_into.empty() && fused_into[k] >= 0; };
  for (size_t k = 0; k < g.ops.size(); ++k)
    if (folded(k) && node_of[fused_into[k]] >= 0) group_root[k] = find(node_of[fused_into[k]]);
  for (size_t k = g.ops.size(); k-- > 0;) {
    if (group_root[k] >= 0 || lower[k] == Lower::kFree) continue;
    for (int v : g.ops[k].outputs) {
      if (v < 0) continue;
      for (int u : readers[base[v]])
        if (group_root[u] >= 0 && (group_root[k] < 0 || u < first_reader_[k])) {
          group_root[k] = group_root[u];
          first_reader_[k] = u;
        }
    }
  }
  std::map<int, int> group_index;  // root node -> plan group
  for (size_t k = 0; k < g.ops.size(); ++k) {
    const int i = static_cast<int>(k);
    if (lower[i] == Lower::kFree && !(folded(k) && group_root[i] >= 0)) continue;
    int grp;
    if (group_root[i] >= 0) {
      auto it = group_index.find(group_root[i]);
      if (it == group_index.end()) {
        it = group_index.emplace(group_root[i], static_cast<int>(plan.groups.size())).first;
        plan.groups.push_back({});
        const Node& root = nodes[group_root[i]];
        plan.groups.back().root_op = root.op;
        const Lower l = lower[root.op];
        plan.groups.back().kind = l == Lower::kExtern     ? "extern"
                                  : l == Lower::kFallback ? "fallback"
                                  : l == Lower::kConcat   ? "concat"
                                  : root.red              ? "reduction"
                                                          : "pointwise";
      }
      grp = it->second;
    } else {
      // Read by nothing that launches: it is computed for nothing and costs nothing.
      grp = static_cast<int>(plan.groups.size());
      plan.groups.push_back({});
      plan.groups.back().kind = "dead";
    }
    plan.groups[grp].ops.push_back(i);
    plan.group_of[i] = grp;
  }
  std::vector<int> root_of_group(plan.groups.size(), -1);
  for (const auto& [root, grp] : group_index) root_of_group[grp] = root;
  roots_of_groups = root_of_group;
  // Kernels of copies fused with no op's loop belong to the first cat they copy for.
  copy_kernels_.assign(g.ops.size(), 0);
  std::set<int> counted;
  for (size_t k = 0; k < nodes.size(); ++k) {
    if (nodes[k].copy_of < 0) continue;
    const int root = find(static_cast<int>(k));
    if (group_index.count(root) || !counted.insert(root).second) continue;
    ++copy_kernels_[nodes[k].op];
  }
  // Kernels of statistics fused with no op's loop belong to the op whose epilogue reads them.
  stats_kernels_.assign(g.ops.size(), 0);
  std::set<int> counted_stats;
  for (size_t k = 0; k < nodes.size(); ++k) {
    if (nodes[k].stats_of < 0) continue;
    const int root = find(static_cast<int>(k));
    if (group_index.count(root) || !counted_stats.insert(root).second) continue;
    stats_kernels_[nodes[k].op] += root_kernels(root);
  }
  // Every copy reads its value and writes it again, fused or not (fused with a loop that
  // reads it anyway, it still writes the copy).
  for (size_t k = 0; k < nodes.size(); ++k) {
    if (nodes[k].copy_of < 0 || lower[nodes[k].op] != Lower::kExtern) continue;
    copy_bytes[nodes[k].op] = add_checked(copy_bytes[nodes[k].op], g.values[nodes[k].copy_of].bytes(), "copy bytes");
  }
  const std::vector<bool> escapes = escaping_values(g, base, plan.group_of);
  for (size_t k = 0; k < plan.groups.size(); ++k) {
    account(plan, static_cast<int>(k), root_of_group[k], escapes);
    FusionGroup& grp = plan.groups[k];
    if (grp.kind == "dead") continue;  // its statistics are dead code too
    int64_t extra = 0;
    for (int i : grp.ops) extra += int64_t{stats_kernels_[i]} * g.ops[i].repeat;
    grp.fused_kernels = static_cast<int>(std::min<int64_t>(grp.fused_kernels + extra, 1 << 30));
  }
  plan.lowering = why;
  for (size_t k = 0; k < g.ops.size(); ++k) {
    if (plan.group_of[k] < 0) continue;  // dead code launches nothing either way
    plan.timed_more = add_checked(plan.timed_more, timed_more[k], "kernels");
    plan.timed_fewer = add_checked(plan.timed_fewer, timed_fewer[k], "kernels");
  }
  return plan;
}

}  // namespace kc::inductor
