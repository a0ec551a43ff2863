#include "passes/pipeline.h"

#include "analyzer/error.h"
#include "passes/fusion.h"
#include "passes/hbm_traffic.h"
#include "passes/launches.h"
#include "passes/time_floor.h"

namespace kc {
namespace {

// Invariants every report must hold; a broken one is a bug in a pass, reported as such.
void check_plan(const FusionPlan& plan, const Graph& g, const std::vector<Launch>& launches) {
  int eager = 0, fused = 0;
  for (const FusionGroup& grp : plan.groups) {
    check(grp.fused_kernels <= grp.eager_kernels,
          "pass fusion failed: group at op " + std::to_string(grp.ops.front()) + " has more fused than eager kernels");
    eager += grp.eager_kernels;
    fused += grp.fused_kernels;
  }
  int counted = 0;
  for (const Launch& l : launches) counted += l.kernels;
  check(eager == counted, "pass fusion failed: its groups hold " + std::to_string(eager) + " eager kernels, the ops " +
                              std::to_string(counted));
  for (size_t i = 0; i < g.ops.size(); ++i) {
    int grp = plan.group_of[i];
    if (grp < 0) continue;
    bool member = false;
    for (int m : plan.groups[grp].ops) member |= m == static_cast<int>(i);
    check(member, "pass fusion failed at op " + std::to_string(i) + ": not a member of its group");
  }
}

}  // namespace

Report analyze(const Graph& g, const Target& target, const LaunchOptions& launch_options) {
  Report r;
  r.target = target;
  r.launches = run_launches(g, target, launch_options);
  r.traffic = run_hbm_traffic(g, r.launches);
  r.fusion = run_fusion(g, r.launches, r.traffic, FusionVariant::kPointwise);
  check_plan(r.fusion, g, r.launches);
  r.fusion_reduction = run_fusion(g, r.launches, r.traffic, FusionVariant::kPointwiseReduction);
  check_plan(r.fusion_reduction, g, r.launches);
  r.time = run_time_floor(g, r.launches, r.traffic, target);

  Totals& t = r.totals;
  t.ops = static_cast<int>(g.ops.size());
  for (size_t i = 0; i < g.ops.size(); ++i) {
    const Launch& l = r.launches[i];
    t.unknown_ops += !l.known;
    t.eager_kernels += l.kernels;
    t.memcpy += l.memcpy;
    t.memset += l.memset;
    t.host_syncs += l.host_syncs;
    t.eager_hbm_transfers += r.traffic[i].transfers();
    t.eager_hbm_bytes += r.traffic[i].bytes();
    t.flops += r.traffic[i].flops;
    t.eager_time_floor_s += r.time[i].floor_s();
  }
  for (const FusionGroup& grp : r.fusion.groups) {
    t.fused_kernels += grp.fused_kernels;
    t.fused_hbm_transfers += grp.fused.transfers();
    t.fused_hbm_bytes += grp.fused.bytes();
  }
  for (const FusionGroup& grp : r.fusion_reduction.groups) {
    t.fused_kernels_reduction += grp.fused_kernels;
    t.fused_hbm_bytes_reduction += grp.fused.bytes();
  }
  t.fused_time_floor_s = plan_time_floor(r.fusion, g, r.launches, target);
  check(t.fused_kernels <= t.eager_kernels, "pass fusion failed: more fused kernels than eager ones");
  return r;
}

}  // namespace kc
