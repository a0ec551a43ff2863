#include "passes/fusion.h"

#include <algorithm>
#include <set>

namespace kc {
namespace {

// Ops Inductor lowers to pointwise loops besides those tagged pointwise.
bool pointwise_like(const Op& op) {
  if (op.traits.pointwise) return true;
  static const char* const kCopies[] = {
      "aten::_to_copy", "aten::to",         "aten::type_as",  "aten::clone",    "aten::contiguous",
      "aten::reshape",  "aten::flatten",    "aten::masked_fill", "aten::dropout", "aten::native_dropout",
      "aten::fill_",    "aten::zero_",      "aten::_native_batch_norm_legit_no_training",
  };
  for (const char* n : kCopies)
    if (op.name == n) return true;
  // Inference batch norm is a per-channel scale and shift.
  if (op.name == "aten::batch_norm")
    for (const Arg& a : op.args)
      if (a.name == "training") return a.kind == Arg::Kind::kBool && a.ints[0] == 0;
  return false;
}

// Ops Inductor lowers to a reduction loop (norms and softmax decompose into one).
bool reduction_like(const Op& op) {
  if (op.traits.reduction) return true;
  static const char* const kNorms[] = {
      "aten::softmax",   "aten::_softmax",    "aten::log_softmax",       "aten::_log_softmax",
      "aten::layer_norm", "aten::native_layer_norm", "aten::group_norm", "aten::native_group_norm",
      "aten::rms_norm",  "aten::_fused_rms_norm",
  };
  for (const char* n : kNorms)
    if (op.name == n) return true;
  return false;
}

struct Builder {
  const Graph& g;
  const std::vector<Launch>& launches;
  const std::vector<Traffic>& traffic;
  FusionVariant variant;
  FusionPlan plan;
  std::vector<int> base;        // per value: the value whose memory it is (through free ops)
  std::vector<int64_t> numel;   // per group: its iteration space
  std::vector<int> first;       // per group: first member op
  std::vector<bool> has_reduction;

  bool free_op(int i) const {
    const Launch& l = launches[i];
    return l.known && l.kernels == 0 && l.memcpy == 0 && l.memset == 0 && l.host_syncs == 0;
  }
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
    for (int v : g.ops[i].tensor_inputs()) {
      int p = g.values[base[v]].producer;
      if (p < 0 || plan.group_of[p] == grp) continue;
      if (p > first[grp]) return false;
    }
    return true;
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
      for (int v : op.tensor_inputs()) {
        int grp = producer_group(v);
        if (grp < 0 || grp <= chosen) continue;
        const std::string& kind = plan.groups[grp].kind;
        if (kind == "single") continue;
        bool fits;
        if (red)  // a reduction takes a pointwise prologue of any shape, once
          fits = kind == "pointwise" && !has_reduction[grp];
        else
          fits = numel[grp] == out_numel(op);
        if (fits && can_join(grp, i)) chosen = grp;
      }
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
    std::set<int> members(grp.ops.begin(), grp.ops.end());
    for (int i : grp.ops) {
      grp.eager_kernels += launches[i].kernels;
      const Traffic& t = traffic[i];
      grp.eager.reads += t.reads;
      grp.eager.writes += t.writes;
      grp.eager.read_bytes += t.read_bytes;
      grp.eager.write_bytes += t.write_bytes;
      grp.eager.flops += t.flops;
    }
    grp.fused.flops = grp.eager.flops;
    if (grp.kind == "single") {
      grp.fused_kernels = grp.eager_kernels;
      grp.fused = grp.eager;
      return;
    }
    grp.fused_kernels = grp.eager_kernels > 0 ? 1 : 0;
    // Reads: tensors from outside the group. Writes: results used outside it or returned.
    std::set<int> reads, writes;
    for (int i : grp.ops) {
      for (int v : g.ops[i].tensor_inputs()) {
        int p = g.values[base[v]].producer;
        if (p < 0 || plan.group_of[p] != id) reads.insert(base[v]);
      }
    }
    for (int i : grp.ops)
      for (int v : g.ops[i].outputs)
        if (v >= 0 && escapes_[v]) writes.insert(v);
    for (int v : reads) {
      ++grp.fused.reads;
      grp.fused.read_bytes += g.values[v].bytes();
    }
    for (int v : writes) {
      ++grp.fused.writes;
      grp.fused.write_bytes += g.values[v].bytes();
    }
  }

  std::vector<bool> escapes_;  // per value: read by an op of another group, or returned

  FusionPlan run() {
    plan.variant = variant == FusionVariant::kPointwise ? "pointwise" : "pointwise+reduction";
    plan.group_of.assign(g.ops.size(), -1);
    base.resize(g.values.size());
    for (size_t v = 0; v < base.size(); ++v) base[v] = static_cast<int>(v);
    for (size_t i = 0; i < g.ops.size(); ++i) {
      const Op& op = g.ops[i];
      if (free_op(static_cast<int>(i))) {
        // A free op's outputs alias its first input's memory.
        auto ins = op.tensor_inputs();
        for (int v : op.outputs)
          if (v >= 0 && !ins.empty() && v != ins[0]) base[v] = base[ins[0]];
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
      for (int v : g.ops[i].tensor_inputs()) {
        int p = g.values[base[v]].producer;
        if (p >= 0 && plan.group_of[p] != mine) escapes_[base[v]] = true;
      }
    }
    for (size_t k = 0; k < plan.groups.size(); ++k) account(plan.groups[k], static_cast<int>(k));
    return std::move(plan);
  }
};

}  // namespace

FusionPlan run_fusion(const Graph& g, const std::vector<Launch>& launches, const std::vector<Traffic>& traffic,
                      FusionVariant variant) {
  return Builder{g, launches, traffic, variant, {}, {}, {}, {}, {}, {}}.run();
}

}  // namespace kc
