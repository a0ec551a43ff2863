#include "passes/fusion.h"

#include <algorithm>
#include <map>
#include <set>

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

  void account(FusionGroup& grp, int id) {
    for (int i : grp.ops) {
      grp.eager_kernels += launches[i].counts.kernels;
      grp.eager += traffic[i];
    }
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
    // Reads: each array from outside the group once, as much of it as the group's views of it
    // cover (never more than the array). Writes: results used outside it or returned. Host
    // values never cross HBM.
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
        if (v >= 0 && escapes_[v] && g.values[v].placement == Placement::kDevice) writes.insert(v);
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

  std::vector<bool> escapes_;  // per value: read by an op of another group, or returned

  FusionPlan run() {
    plan.variant = variant_name(variant);
    plan.group_of.assign(g.ops.size(), -1);
    base.resize(g.values.size());
    for (size_t v = 0; v < base.size(); ++v) base[v] = static_cast<int>(v);
    for (size_t i = 0; i < g.ops.size(); ++i) {
      const Op& op = g.ops[i];
      if (free_op(static_cast<int>(i))) {
        // A free op's outputs alias its first input's memory.
        int in = -1;
        op.for_each_tensor_input([&](int v) {
          if (in < 0) in = v;
        });
        for (int v : op.outputs)
          if (v >= 0 && in >= 0 && v != in) base[v] = base[in];
        continue;
      }
      place(static_cast<int>(i));
    }
    escapes_.assign(g.values.size(), false);
    for (int v : g.outputs)
      if (v >= 0) escapes_[base[v]] = true;
    for (size_t i = 0; i < g.ops.size(); ++i) {
      int mine = plan.group_of[i];
      if (mine < 0) continue;
      g.ops[i].for_each_tensor_input([&](int v) {
        const int p = g.values[base[v]].producer;
        if (p >= 0 && plan.group_of[p] != mine) escapes_[base[v]] = true;
      });
    }
    for (size_t k = 0; k < plan.groups.size(); ++k) account(plan.groups[k], static_cast<int>(k));
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
  return Builder{g, launches, traffic, variant, {}, {}, {}, {}, {}, {}}.run();
}

}  // namespace kc
