#include "passes/pipeline.h"

#include <algorithm>

#include "analyzer/error.h"
#include "passes/dram_traffic.h"
#include "passes/explain.h"
#include "passes/fusion.h"
#include "passes/hbm_traffic.h"
#include "passes/inductor.h"
#include "passes/rollup.h"
#include "passes/time_floor.h"

namespace kc {
namespace {

// Runs one pass, then the invariants that must hold after it; either failing names the pass.
template <typename Pass, typename Check>
void step(const char* name, const Graph& g, Pass&& pass, Check&& invariants) {
  try {
    pass();
    invariants();
  } catch (const OpError& e) {
    const Op& op = g.ops.at(e.op());
    std::string where = "op " + std::to_string(e.op()) + " " + op.full_name();
    if (!op.loc.file.empty()) where += " (" + op.loc.file.str() + ":" + std::to_string(op.loc.line) + ")";
    throw Error(std::string("pass ") + name + " failed at " + where + ": " + e.what());
  } catch (const Error& e) {
    throw Error(std::string("pass ") + name + " failed: " + e.what());
  }
}

void per_op(const Graph& g, size_t n, const char* what) {
  check(n == g.ops.size(), std::to_string(n) + " " + what + " for " + std::to_string(g.ops.size()) + " ops");
}

void check_plan(const FusionPlan& plan, const Graph& g, const std::vector<Launch>& launches) {
  int eager = 0;
  // Inductor may launch more than eager for an op (a convolution's weight copied to channels
  // last); the greedy plans only merge kernels.
  const bool merges_only = plan.variant != "inductor";
  for (const FusionGroup& grp : plan.groups) {
    if (merges_only && grp.fused_kernels > grp.eager_kernels)
      throw OpError(grp.ops.front(), "its group has more fused than eager kernels");
    eager += grp.eager_kernels;
  }
  int counted = 0;
  for (const Launch& l : launches) counted += l.counts.kernels;
  check(eager == counted,
        "its groups hold " + std::to_string(eager) + " eager kernels, the ops " + std::to_string(counted));
  per_op(g, plan.group_of.size(), "group assignments");
  // Membership both ways in linear time: each group lists only ops assigned to it, and as
  // many as are assigned in all.
  size_t members = 0;
  for (size_t k = 0; k < plan.groups.size(); ++k)
    for (int m : plan.groups[k].ops) {
      if (m < 0 || m >= static_cast<int>(g.ops.size()) || plan.group_of[m] != static_cast<int>(k))
        throw OpError(std::max(m, 0), "listed in a group it is not assigned to");
      ++members;
    }
  size_t assigned = 0;
  for (size_t i = 0; i < g.ops.size(); ++i) assigned += plan.group_of[i] >= 0;
  check(members == assigned, "an op is assigned to a group that does not list it");
}

// Children sum to their parent: every rollup holds every op, its kernels and its bytes once.
void check_rollup(const std::vector<RollupRow>& rows, const Totals& t) {
  int ops = 0, kernels = 0, fused = 0, pointwise = 0;
  int64_t bytes = 0, fused_bytes = 0;
  for (const RollupRow& r : rows) {
    ops += r.ops;
    kernels += r.counts.kernels;
    fused += r.fused_kernels;
    pointwise += r.pointwise_kernels;
    bytes = add_checked(bytes, r.bytes, "rollup HBM bytes");
    fused_bytes = add_checked(fused_bytes, r.fused_bytes, "rollup fused HBM bytes");
  }
  check(ops == t.ops && kernels == t.eager.kernels && bytes == t.eager_hbm_bytes,
        "a rollup does not sum to the totals");
  check(fused == t.fused_kernels && fused_bytes == t.fused_hbm_bytes && pointwise == t.pointwise_kernels,
        "a rollup's fused columns do not sum to the plans' totals");
}

// The model's node holds every op; a module holds at least what its submodules hold.
void check_tree(const std::vector<ModuleNode>& tree, const Totals& t) {
  check(!tree.empty() && tree[0].depth == 0, "the module tree has no root");
  check_rollup({tree[0].total}, t);
  std::vector<int> child_ops(tree.size()), child_kernels(tree.size());
  for (size_t i = 1; i < tree.size(); ++i) {
    const int p = tree[i].parent;
    check(p >= 0 && p < static_cast<int>(i) && tree[p].depth + 1 == tree[i].depth, "the module tree is malformed");
    child_ops[p] += tree[i].total.ops;
    child_kernels[p] += tree[i].total.counts.kernels;
  }
  for (size_t i = 0; i < tree.size(); ++i)
    check(child_ops[i] <= tree[i].total.ops && child_kernels[i] <= tree[i].total.counts.kernels,
          "module " + tree[i].total.key + " holds less than its submodules");
}

Totals sum_totals(const Graph& g, Report& r) {
  Totals t;
  t.ops = static_cast<int>(g.ops.size());
  for (size_t i = 0; i < g.ops.size(); ++i) {
    t.unknown_ops += !r.launches[i].known;
    t.eager += r.launches[i].counts;
    t.eager_hbm_transfers += r.traffic[i].transfers();
    t.eager_hbm_bytes = add_checked(t.eager_hbm_bytes, r.traffic[i].bytes(), "total HBM bytes");
    t.flops = add_checked(t.flops, r.traffic[i].flops, "total FLOPs");
    t.eager_time_floor_s += r.time[i].floor_s();
    t.eager_dram_read_bytes = add_checked(t.eager_dram_read_bytes, r.dram[i].read_bytes, "total DRAM bytes");
    t.eager_dram_write_bytes = add_checked(t.eager_dram_write_bytes, r.dram[i].write_bytes, "total DRAM bytes");
  }
  for (const FusionGroup& grp : r.fusion.groups) {
    t.fused_kernels += grp.fused_kernels;
    t.fused_hbm_transfers += grp.fused.transfers();
    t.fused_hbm_bytes = add_checked(t.fused_hbm_bytes, grp.fused.bytes(), "total fused HBM bytes");
  }
  for (const FusionGroup& grp : r.fusion_reduction.groups) {
    t.fused_kernels_reduction += grp.fused_kernels;
    t.fused_hbm_bytes_reduction = add_checked(t.fused_hbm_bytes_reduction, grp.fused.bytes(), "total fused HBM bytes");
  }
  for (const FusionGroup& grp : r.pointwise.groups) {
    t.pointwise_kernels += grp.fused_kernels;
    t.pointwise_hbm_transfers += grp.fused.transfers();
    t.pointwise_hbm_bytes = add_checked(t.pointwise_hbm_bytes, grp.fused.bytes(), "total fused HBM bytes");
  }
  t.inductor_kernels_low = std::max<int64_t>(0, t.fused_kernels - r.fusion.timed_fewer);
  t.inductor_kernels_high = add_checked(t.fused_kernels, r.fusion.timed_more, "kernels");
  t.fused_time_floor_s = plan_time_floor(r.fusion, g, *r.target);
  if (!r.pointwise.variant.empty()) t.pointwise_time_floor_s = plan_time_floor(r.pointwise, g, *r.target);
  return t;
}

}  // namespace

Report analyze(const Graph& g, const Target& target, const LaunchOptions& launch_options, FusionModel fusion) {
  Report r;
  r.target = &target;
  auto none = [] {};
  step("graph", g, none, [&] {
    if (auto broken = g.check()) throw Error(*broken);
  });
  step(
      "layout", g, [&] { r.layout = run_layout(g); },
      [&] {
        check(r.layout.diverges.size() == g.values.size() &&
                  r.layout.runtime.size() == static_cast<size_t>(r.layout.diverging),
              "layout strides for every value");
        for (const auto& [v, strides] : r.layout.runtime)
          check(v >= 0 && static_cast<size_t>(v) < g.values.size() && r.layout.diverges[v] &&
                    strides.size() == g.values[v].strides.size(),
                "a value's run-time strides change its rank");
        for (const FailingView& f : r.layout.failing_views)
          check(f.op >= 0 && static_cast<size_t>(f.op) < g.ops.size() && f.sizes.size() == f.strides.size(),
                "a failing view names an op and its input's strides");
      });
  step(
      "launches", g, [&] { r.launches = run_launches(g, target, launch_options, &r.layout); },
      [&] { per_op(g, r.launches.size(), "launch predictions"); });
  step(
      "hbm", g, [&] { r.traffic = run_hbm_traffic(g, r.launches); },
      [&] {
        per_op(g, r.traffic.size(), "traffic entries");
        for (size_t i = 0; i < r.traffic.size(); ++i)
          if (r.traffic[i].read_bytes < 0 || r.traffic[i].write_bytes < 0)
            throw OpError(static_cast<int>(i), "negative bytes");
      });
  step(
      "dram", g, [&] { r.dram = run_dram_traffic(g, r.launches, r.traffic, target); },
      [&] {
        per_op(g, r.dram.size(), "DRAM entries");
        for (size_t i = 0; i < r.dram.size(); ++i)
          if (r.dram[i].read_bytes < 0 || r.dram[i].write_bytes < 0 ||
              r.dram[i].read_bytes > r.dram[i].kernel_read_bytes)
            throw OpError(static_cast<int>(i), "DRAM reads outside [0, what its kernels read]");
      });
  step(
      "fusion", g, [&] { r.fusion = run_fusion(g, r.launches, r.traffic, FusionVariant::kPointwise); },
      [&] { check_plan(r.fusion, g, r.launches); });
  step(
      "fusion+reduction", g,
      [&] { r.fusion_reduction = run_fusion(g, r.launches, r.traffic, FusionVariant::kPointwiseReduction, &r.fusion); },
      [&] { check_plan(r.fusion_reduction, g, r.launches); });
  if (fusion == FusionModel::kInductor)
    step(
        "inductor", g,
        [&] {
          // The greedy plan stays beside Inductor's: reports show eager, greedy and compiled.
          r.pointwise = std::move(r.fusion);
          r.fusion = run_inductor(g, r.launches, r.traffic, target);
          r.more_than_eager = kernel_increases(r.fusion, r.launches);
        },
        [&] {
          check_plan(r.fusion, g, r.launches);
          per_op(g, r.fusion.lowering.size(), "lowerings");
          for (const KernelIncrease& k : r.more_than_eager)
            if (k.compiled_kernels <= k.eager_kernels || r.fusion.group_of[k.op] != k.group)
              throw OpError(k.op, "listed as launching more compiled than eager kernels, which it does not");
        });
  step(
      "time", g, [&] { r.time = run_time_floor(g, r.launches, r.traffic, target); },
      [&] { per_op(g, r.time.size(), "time floors"); });
  step(
      "totals", g, [&] { r.totals = sum_totals(g, r); },
      [&] {
        const Totals& t = r.totals;
        const bool inductor = r.fusion.variant == "inductor";  // may add kernels and bytes (layout copies)
        check(inductor || t.fused_kernels <= t.eager.kernels, "more fused kernels than eager ones");
        check(t.fused_kernels_reduction <= t.eager.kernels, "more fused+reduction kernels than eager ones");
        // Fusion only removes round trips to HBM: a plan that moves more bytes than eager
        // counts something twice (the Swin-T bug: single-op groups, host values, views).
        check(inductor || t.fused_hbm_bytes <= t.eager_hbm_bytes,
              "fused HBM bytes " + std::to_string(t.fused_hbm_bytes) + " exceed eager " +
                  std::to_string(t.eager_hbm_bytes));
        check(t.fused_hbm_bytes_reduction <= t.eager_hbm_bytes,
              "fused+reduction HBM bytes " + std::to_string(t.fused_hbm_bytes_reduction) + " exceed eager " +
                  std::to_string(t.eager_hbm_bytes));
        for (const FusionPlan* plan : {&r.fusion, &r.fusion_reduction})
          for (const FusionGroup& grp : plan->groups)
            if (plan->variant != "inductor" && grp.fused.bytes() > grp.eager.bytes())
              throw OpError(grp.ops.front(), "its " + plan->variant + " group moves more bytes fused than eager");
      });
  step(
      "explain", g, [&] { r.explain = run_explain(g, r.launches, target); },
      [&] { per_op(g, r.explain.size(), "explanations"); });
  step(
      "rollup", g,
      [&] {
        r.by_line = rollup(g, r, RollupKey::kLine);
        r.by_module = rollup(g, r, RollupKey::kModule);
        r.by_op_type = rollup(g, r, RollupKey::kOpType);
        r.module_tree = module_tree(g, r);
      },
      [&] {
        check_rollup(r.by_line, r.totals);
        check_rollup(r.by_module, r.totals);
        check_rollup(r.by_op_type, r.totals);
        check_tree(r.module_tree, r.totals);
      });
  return r;
}

}  // namespace kc
