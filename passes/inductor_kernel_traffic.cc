#include <algorithm>
#include <cstdint>

#include "passes/fusion_groups.h"
#include "passes/inductor_builder.h"

namespace kc::inductor {

void Builder::account(FusionPlan& plan, int id, int root, const std::vector<bool>& escapes) {
  FusionGroup& grp = plan.groups[id];
  sum_eager(grp, eager_launches ? *eager_launches : launches, traffic);
  grp.fused.flops = grp.eager.flops;
  if (grp.kind == "dead") return;
  const Node& nd = nodes[root];
  const int64_t runs = g.ops[grp.ops.front()].repeat;
  if (grp.kind == "extern" || grp.kind == "fallback") {
    grp.fused_kernels = extern_kernels[nd.op] + copy_kernels_[nd.op];
    grp.fused = traffic[nd.op];
    if (decomposed_traffic[nd.op]) {  // its kernels' traffic, the same arithmetic
      grp.fused = *decomposed_traffic[nd.op];
      grp.fused.flops = traffic[nd.op].flops;
    }
    // Operand copies (channels last, dense for the call) read and write the operand once more.
    if (copy_bytes[nd.op] > 0) {
      grp.fused.reads += 1;
      grp.fused.writes += 1;
      grp.fused.read_bytes = add_checked(grp.fused.read_bytes, copy_bytes[nd.op], "fused HBM bytes");
      grp.fused.write_bytes = add_checked(grp.fused.write_bytes, copy_bytes[nd.op], "fused HBM bytes");
    }
    return;
  }
  int kernels = 1;
  if (grp.kind == "concat") {
    kernels = copy_kernels_[nd.op];
    grp.fused_kernels = static_cast<int>(std::min<int64_t>(kernels * runs, 1 << 30));
    grp.fused = traffic[nd.op];
    return;
  } else {
    kernels = root_kernels(root);  // a split reduction: partial results, level by level, then theirs
  }
  grp.fused_kernels = static_cast<int>(std::min<int64_t>(kernels * runs, 1 << 30));
  // Only what a kernel computes is written: inlined ops' values stay in registers.
  const auto computed = [&](int i) { return node_of[i] >= 0 || lower[i] == Lower::kConcat; };
  add_fused_traffic(g, base, escapes, runs, computed, plan, id);
}

}  // namespace kc::inductor
