#include <string>
#include <vector>

#include "passes/inductor.h"
#include "passes/inductor_builder.h"

namespace kc {

std::string inductor_fusion_reason(const Graph& g, const FusionPlan& plan, int a, int b) {
  auto name = [&](int i) { return "op " + std::to_string(i) + " " + g.ops[i].full_name(); };
  const int ga = plan.group_of[a], gb = plan.group_of[b];
  auto lowered = [&](int i) { return i < static_cast<int>(plan.lowering.size()) ? plan.lowering[i] : std::string(); };
  if (ga < 0 || gb < 0) {
    const int free = ga < 0 ? a : b;
    return name(free) + " launches nothing under Inductor (" + lowered(free) + "), so there is no kernel to share.";
  }
  if (ga == gb)
    return "they share one compiled " + plan.groups[ga].kind + " kernel (group F" + std::to_string(ga) + ").";
  for (int i : {a, b}) {
    const std::string& kind = plan.groups[plan.group_of[i]].kind;
    if (kind == "extern" || kind == "fallback" || kind == "concat")
      return name(i) + " is not Triton code: " + lowered(i) + "; Inductor fuses only Triton loops.";
  }
  const FusionGroup& x = plan.groups[ga];
  const FusionGroup& y = plan.groups[gb];
  if (x.ops.size() + y.ops.size() > static_cast<size_t>(inductor::kMaxFusionSize))
    return "together they would pass Inductor's limit of 64 nodes in one kernel.";
  // A path between the two groups through an op of a third group: fusing would make a cycle.
  auto path_through = [&](int from_grp, int to_grp) -> int {
    std::vector<int> on(g.ops.size(), 0);
    for (int i : plan.groups[from_grp].ops) on[i] = 1;
    for (size_t i = 0; i < g.ops.size(); ++i) {
      bool reached = false;
      g.ops[i].for_each_tensor_input([&](int v) {
        const int p = g.values[v].producer;
        if (p >= 0 && on[p]) reached = true;
      });
      if (!reached || on[i]) continue;
      if (plan.group_of[i] == to_grp) {
        if (on[i] == 0) {
          // reached the target through an op of another group only if some intermediate marked 2
          bool via_other = false;
          g.ops[i].for_each_tensor_input([&](int v) {
            const int p = g.values[v].producer;
            if (p >= 0 && on[p] == 2) via_other = true;
          });
          if (via_other) return static_cast<int>(i);
        }
        continue;
      }
      on[i] = plan.group_of[i] >= 0 && plan.group_of[i] != from_grp ? 2 : 1;
    }
    return -1;
  };
  if (path_through(ga, gb) >= 0 || path_through(gb, ga) >= 0)
    return "a kernel of another group runs between them (one reads what the other's path writes): fusing them "
           "would make a cycle.";
  return "their loops do not tile together (different sizes, or a reduction of another shape), or they share no "
         "buffer, so Inductor's scheduler keeps them apart.";
}

}  // namespace kc
