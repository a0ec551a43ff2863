// What the fusion plans share: values that alias one buffer, which buffers leave a group, and
// the HBM traffic of a group run as one kernel. Used by the greedy plan (passes/fusion.*) and
// Inductor's (passes/inductor.*); computes nothing about which ops fuse.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "analyzer/graph.h"
#include "passes/report.h"

namespace kc {

// Per value: the value whose memory it is. The outputs of an op for which `free_op(i)` holds
// (a view, a no-op) alias its first tensor input; every other value is its own.
std::vector<int> alias_bases(const Graph& g, const std::function<bool(int)>& free_op);

// Per base value: returned by the graph, or read by an op of another group than its producer's
// (ops in no group read nothing here).
std::vector<bool> escaping_values(const Graph& g, const std::vector<int>& base, const std::vector<int>& group_of);

// Adds up the members' eager kernels and traffic into the group's eager columns.
void sum_eager(FusionGroup& grp, const std::vector<Launch>& launches, const std::vector<Traffic>& traffic);

// Fills group `id`'s fused reads and writes as one kernel run `runs` times: each device array
// from outside the group once (as much of it as the group's views cover, never more than the
// array), and each escaping device output of a member for which `writes_memory(i)` holds.
// Host values never cross HBM. Kernels and FLOPs are the caller's.
void add_fused_traffic(const Graph& g, const std::vector<int>& base, const std::vector<bool>& escapes, int64_t runs,
                       const std::function<bool(int)>& writes_memory, FusionPlan& plan, int id);

// Per group: its anchor, the member its kernels and bytes are counted at when results are summed
// by source line or module: the library call or fallback of such a group of the inductor plan
// (FusionGroup::root_op), else the member launching the most eager kernels, the first of equals
// (a chain's first op), so that the greedy and Inductor plans count a shared chain alike.
std::vector<int> group_anchors(const FusionPlan& plan, const std::vector<Launch>& launches);

// Per op: the fused kernels and bytes of the group it anchors, 0 for every other op; sums to
// the plan's totals.
struct PlanShare {
  std::vector<int> kernels;
  std::vector<int64_t> bytes;
};
PlanShare share_by_anchor(const FusionPlan& plan, const std::vector<Launch>& launches, size_t ops);

}  // namespace kc
