#include "passes/fusion.h"

#include "passes/fusion_groups.h"
#include "passes/op_classes.h"

namespace kc {
namespace {

// Ops Inductor lowers to pointwise loops: pointwise ops and elementwise copies, and
// inference batch norm, a per-channel scale and shift.
bool pointwise_like(const Op& op) {
  const OpClass c = op_class(op);
  if (c == OpClass::kPointwise || c == OpClass::kCopy) return true;
  return c == OpClass::kNorm && batch_norm_inference(op);
}

// Ops Inductor lowers to a reduction loop: reductions, softmax, and the norms that reduce
// (layer, group, RMS); inference batch norm reduces nothing.
bool reduction_like(const Op& op) {
  const OpClass c = op_class(op);
  return c == OpClass::kReduction || (c == OpClass::kNorm && !batch_norm_inference(op));
}

const char* variant_name(FusionVariant v) {
  return v == FusionVariant::kPointwise ? "pointwise" : "pointwise+reduction";
}

struct Builder {
  const Graph& g;
  const std::vector<Launch>& launches;
  const std::vector<Traffic>& traffic;
  FusionVariant variant;
  FusionPlan plan;
  std::vector<int> base;       // per value: the value whose memory it is (through free ops)
  std::vector<int64_t> numel;  // per group: its iteration space
  std::vector<int> first;      // per group: first member op
  std::vector<bool> has_reduction;

  bool free_op(int i) const { return launches[i].known && launches[i].counts.none(); }
  int producer_group(int v) const {
    int p = g.values[base[v]].producer;
    return p >= 0 ? plan.group_of[p] : -1;
  }
  int64_t out_numel(const Op& op) const {
    for (int v : op.outputs)
      if (v >= 0) return g.values[v].numel();
    return -1;
  }

  // A group can take op i when every input of i from outside the group was produced before
  // the group's first member: then no outside op sits between group members.
  bool can_join(int grp, int i) const {
    bool joins = true;
    g.ops[i].for_each_tensor_input([&](int v) {
      const int p = g.values[base[v]].producer;
      if (p >= 0 && plan.group_of[p] != grp && p > first[grp]) joins = false;
    });
    return joins;
  }

  int new_group(int i, const std::string& kind) {
    plan.groups.push_back({});
    plan.groups.back().kind = kind;
    numel.push_back(out_numel(g.ops[i]));
    first.push_back(i);
    has_reduction.push_back(false);
    return static_cast<int>(plan.groups.size()) - 1;
  }

  void place(int i) {
    const Op& op = g.ops[i];
    const bool fuse_reductions = variant == FusionVariant::kPointwiseReduction;
    const bool pw = launches[i].known && pointwise_like(op);
    const bool red = fuse_reductions && launches[i].known && reduction_like(op);
    int chosen = -1;
    if (pw || red) {
      // Latest open group among the producers that fits.
      op.for_each_tensor_input([&](int v) {
        int grp = producer_group(v);
        if (grp < 0 || grp <= chosen) return;
        const std::string& kind = plan.groups[grp].kind;
        if (kind == "single") return;
        bool fits;
        if (red)  // a reduction takes a pointwise prologue of any shape, once
          fits = kind == "pointwise" && !has_reduction[grp];
        else
          fits = numel[grp] == out_numel(op);
        // A loop body's ops stand for every trip: they fuse with ops of the same trip count only.
        fits = fits && g.ops[first[grp]].repeat == op.repeat;
        if (fits && can_join(grp, i)) chosen = grp;
      });
    }
    if (chosen < 0) chosen = new_group(i, pw ? "pointwise" : red ? "reduction" : "single");
    if (red) {
      plan.groups[chosen].kind = "reduction";
      has_reduction[chosen] = true;
      numel[chosen] = out_numel(op);
    }
    plan.groups[chosen].ops.push_back(i);
    plan.group_of[i] = chosen;
  }

  void account(int id, const std::vector<bool>& escapes) {
    FusionGroup& grp = plan.groups[id];
    sum_eager(grp, launches, traffic);
    // One op alone is no fusion: it costs what it costs eagerly.
    if (grp.kind == "single" || grp.ops.size() == 1) {
      grp.fused_kernels = grp.eager_kernels;
      grp.fused = grp.eager;
      return;
    }
    grp.fused.flops = grp.eager.flops;
    // One kernel per run: members share their repeat (a loop's trips), see place().
    const int64_t runs = g.ops[grp.ops.front()].repeat;
    grp.fused_kernels = grp.eager_kernels > 0 ? static_cast<int>(runs) : 0;
    const auto every_member_writes = [](int) { return true; };
    add_fused_traffic(g, base, escapes, runs, every_member_writes, plan, id);
  }

  FusionPlan run() {
    plan.variant = variant_name(variant);
    plan.group_of.assign(g.ops.size(), -1);
    base = alias_bases(g, [&](int i) { return free_op(i); });
    for (size_t i = 0; i < g.ops.size(); ++i)
      if (!free_op(static_cast<int>(i))) place(static_cast<int>(i));
    const std::vector<bool> escapes = escaping_values(g, base, plan.group_of);
    for (size_t k = 0; k < plan.groups.size(); ++k) account(static_cast<int>(k), escapes);
    return std::move(plan);
  }
};

}  // namespace

FusionPlan run_fusion(const Graph& g, const std::vector<Launch>& launches, const std::vector<Traffic>& traffic,
                      FusionVariant variant, const FusionPlan* pointwise) {
  if (pointwise && variant == FusionVariant::kPointwiseReduction) {
    // Builder::place() treats a reduction differently only when it launches (free ops are
    // never placed): without one, it places every op as the pointwise variant did.
    bool reduces = false;
    for (size_t i = 0; i < g.ops.size() && !reduces; ++i)
      reduces = launches[i].known && !launches[i].counts.none() && reduction_like(g.ops[i]);
    if (!reduces) {
      FusionPlan plan = *pointwise;
      plan.variant = variant_name(variant);
      return plan;
    }
  }
  return Builder{g, launches, traffic, variant, {}, {}, {}, {}, {}}.run();
}

}  // namespace kc
