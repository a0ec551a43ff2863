#include <vector>

#include "passes/fusion_groups.h"
#include "passes/inductor.h"

namespace kc {

std::vector<KernelIncrease> kernel_increases(const FusionPlan& plan, const std::vector<Launch>& launches) {
  std::vector<KernelIncrease> out;
  const std::vector<int> anchors = group_anchors(plan, launches);
  for (size_t k = 0; k < plan.groups.size(); ++k) {
    const FusionGroup& grp = plan.groups[k];
    if (grp.fused_kernels <= grp.eager_kernels || anchors[k] < 0) continue;
    KernelIncrease inc;
    inc.group = static_cast<int>(k);
    inc.op = anchors[k];
    inc.eager_kernels = grp.eager_kernels;
    inc.compiled_kernels = grp.fused_kernels;
    inc.why = static_cast<size_t>(inc.op) < plan.lowering.size() ? plan.lowering[inc.op] : "";
    out.push_back(std::move(inc));
  }
  return out;
}

}  // namespace kc
