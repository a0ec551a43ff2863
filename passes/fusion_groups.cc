#include "passes/fusion_groups.h"

#include <algorithm>
#include <map>
#include <set>

namespace kc {

std::vector<int> alias_bases(const Graph& g, const std::function<bool(int)>& free_op) {
  std::vector<int> base(g.values.size());
  for (size_t v = 0; v < base.size(); ++v) base[v] = static_cast<int>(v);
  for (size_t i = 0; i < g.ops.size(); ++i) {
    if (!free_op(static_cast<int>(i))) continue;
    const Op& op = g.ops[i];
    int in = -1;
    op.for_each_tensor_input([&](int v) {
      if (in < 0) in = v;
    });
    for (int v : op.outputs)
      if (v >= 0 && in >= 0 && v != in) base[v] = base[in];
  }
  return base;
}

std::vector<bool> escaping_values(const Graph& g, const std::vector<int>& base, const std::vector<int>& group_of) {
  std::vector<bool> out(g.values.size(), false);
  for (int v : g.outputs)
    if (v >= 0) out[base[v]] = true;
  for (size_t i = 0; i < g.ops.size(); ++i) {
    const int mine = group_of[i];
    if (mine < 0) continue;
    g.ops[i].for_each_tensor_input([&](int v) {
      const int p = g.values[base[v]].producer;
      if (p >= 0 && group_of[p] != mine) out[base[v]] = true;
    });
  }
  return out;
}

void sum_eager(FusionGroup& grp, const std::vector<Launch>& launches, const std::vector<Traffic>& traffic) {
  for (int i : grp.ops) {
    grp.eager_kernels += launches[i].counts.kernels;
    grp.eager += traffic[i];
  }
}

void add_fused_traffic(const Graph& g, const std::vector<int>& base, const std::vector<bool>& escapes, int64_t runs,
                       const std::function<bool(int)>& writes_memory, FusionPlan& plan, int id) {
  FusionGroup& grp = plan.groups[id];
  std::map<int, int64_t> reads;
  std::set<int> writes;
  for (int i : grp.ops) {
    g.ops[i].for_each_tensor_input([&](int v) {
      const int b = base[v];
      const int p = g.values[b].producer;
      if (g.values[v].placement != Placement::kDevice || (p >= 0 && plan.group_of[p] == id)) return;
      int64_t& bytes = reads[b];
      bytes = std::max(bytes, std::min(g.values[v].bytes(), g.values[b].bytes()));
    });
    for (int v : g.ops[i].outputs)
      if (v >= 0 && escapes[base[v]] && g.values[v].placement == Placement::kDevice && writes_memory(i))
        writes.insert(v);
  }
  for (const auto& [v, bytes] : reads) {
    grp.fused.reads += static_cast<int>(runs);
    grp.fused.read_bytes =
        add_checked(grp.fused.read_bytes, mul_checked(bytes, runs, "fused HBM bytes"), "fused HBM bytes");
    grp.fused_reads.push_back(v);
  }
  for (int v : writes) {
    grp.fused.writes += static_cast<int>(runs);
    grp.fused.write_bytes = add_checked(grp.fused.write_bytes,
                                        mul_checked(g.values[v].bytes(), runs, "fused HBM bytes"), "fused HBM bytes");
    grp.fused_writes.push_back(v);
  }
}

std::vector<int> group_anchors(const FusionPlan& plan, const std::vector<Launch>& launches) {
  std::vector<int> anchors(plan.groups.size(), -1);
  for (size_t k = 0; k < plan.groups.size(); ++k) {
    // A library call or fallback counts at its own op, not at an op inlined into its group.
    const FusionGroup& grp = plan.groups[k];
    const int root = grp.root_op;
    const bool call = grp.kind == "extern" || grp.kind == "fallback" || grp.kind == "concat";
    if (call && root >= 0 && plan.group_of[root] == static_cast<int>(k)) {
      anchors[k] = root;
      continue;
    }
    for (int i : plan.groups[k].ops)
      if (anchors[k] < 0 || launches[i].counts.kernels > launches[anchors[k]].counts.kernels) anchors[k] = i;
  }
  return anchors;
}

PlanShare share_by_anchor(const FusionPlan& plan, const std::vector<Launch>& launches, size_t ops) {
  PlanShare s{std::vector<int>(ops, 0), std::vector<int64_t>(ops, 0)};
  const std::vector<int> anchors = group_anchors(plan, launches);
  for (size_t k = 0; k < plan.groups.size(); ++k) {
    if (anchors[k] < 0) continue;
    s.kernels[anchors[k]] += plan.groups[k].fused_kernels;
    s.bytes[anchors[k]] = add_checked(s.bytes[anchors[k]], plan.groups[k].fused.bytes(), "fused HBM bytes");
  }
  return s;
}

}  // namespace kc
