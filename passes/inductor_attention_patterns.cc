#include <algorithm>

#include "analyzer/tensor_geometry.h"
#include "passes/inductor_builder.h"
#include "passes/launch_rules.h"
#include "passes/launches.h"
#include "passes/layout.h"
#include "passes/sdpa_path.h"

namespace kc::inductor {
namespace {

// One explicit attention found in the graph: the ops it replaces and what the fused call reads.
struct Match {
  int product = -1;         // the second matmul, probabilities by v: becomes the attention call
  std::vector<int> folded;  // the first matmul, the scale, the mask add, the softmax and no-ops between
  int q = -1, k = -1, v = -1, mask = -1;
};

struct Finder {
  const Graph& g;
  const std::vector<Launch>& launches;
  std::vector<int> uses;  // per value: how many op inputs read it (a value read twice by one op counts twice)
  std::vector<bool> returned;

  Finder(const Graph& graph, const std::vector<Launch>& l) : g(graph), launches(l) {
    uses.assign(g.values.size(), 0);
    returned.assign(g.values.size(), false);
    for (const Op& op : g.ops) op.for_each_tensor_input([&](int v) { ++uses[v]; });
    for (int v : g.outputs)
      if (v >= 0) returned[v] = true;
  }

  // The pattern matcher replaces nodes only none of whose results is used outside the pattern.
  bool private_value(int v) const { return v >= 0 && uses[v] == 1 && !returned[v]; }

  int producer(int v) const { return v >= 0 ? g.values[v].producer : -1; }

  // Skips what the traced graph does not hold: dropout outside training, a conversion to the
  // dtype the value already has (launches nothing, shape unchanged, one tensor read).
  int through_no_ops(int v, std::vector<int>& folded) const {
    for (;;) {
      const int p = producer(v);
      if (p < 0 || !private_value(v)) return v;
      const Op& op = g.ops[p];
      const std::vector<int> in = op.tensor_inputs();
      if (op.traits.view || in.size() != 1 || !launches[p].known || !launches[p].counts.none() ||
          g.values[in[0]].sizes != g.values[v].sizes)
        return v;
      folded.push_back(p);
      v = in[0];
    }
  }

  static bool named(const Op& op, const char* base) { return op.name == base; }

  // Whether a value is a permute or transpose of another (a view, not a loop's result).
  bool permuted(int v) const {
    const int p = producer(v);
    return p >= 0 && (named(g.ops[p], "aten::permute") || named(g.ops[p], "aten::transpose"));
  }

  // A transpose of the last two dims (k.transpose(-2, -1)): its input, else -1.
  int untransposed(int kt) const {
    const int p = producer(kt);
    if (p < 0) return -1;
    const Op& op = g.ops[p];
    const std::vector<int> in = op.tensor_inputs();
    if (in.size() != 1) return -1;
    const int64_t r = static_cast<int64_t>(g.values[kt].sizes.size());
    auto wrap = [&](int64_t d) { return d < 0 ? d + r : d; };
    if (named(op, "aten::transpose")) {
      int64_t a = -1, b = -1;
      for (const Arg& x : op.args) {
        if (x.ints.empty()) continue;
        if (x.name == "dim0") a = wrap(x.ints[0]);
        if (x.name == "dim1") b = wrap(x.ints[0]);
      }
      if (std::min(a, b) == r - 2 && std::max(a, b) == r - 1) return in[0];
      return -1;
    }
    if (named(op, "aten::permute")) {
      for (const Arg& x : op.args) {
        if (x.name != "dims" || static_cast<int64_t>(x.ints.size()) != r) continue;
        for (int64_t d = 0; d + 2 < r; ++d)
          if (wrap(x.ints[d]) != d) return -1;
        if (wrap(x.ints[r - 2]) == r - 1 && wrap(x.ints[r - 1]) == r - 2) return in[0];
      }
    }
    return -1;
  }

  // A scalar multiply or divide: the scale of the scores.
  const char* scale_kind(const Op& op) const {
    if (op.tensor_inputs().size() != 1) return nullptr;  // a tensor scale: _sfdp_extra_check refuses it
    if (named(op, "aten::div")) return "div";
    if (named(op, "aten::mul")) return "mul";
    return nullptr;
  }

  bool match(int i, Match& m) const {
    const Op& mm2 = g.ops[i];
    if (!named(mm2, "aten::matmul") && !named(mm2, "aten::bmm")) return false;
    const std::vector<int> in2 = mm2.tensor_inputs();
    if (in2.size() != 2) return false;
    std::vector<int> folded;
    const int probs = through_no_ops(in2[0], folded);
    const int sm = producer(probs);
    if (sm < 0 || !private_value(probs)) return false;
    const Op& softmax = g.ops[sm];
    if (!named(softmax, "aten::softmax") && !named(softmax, "aten::_softmax")) return false;
    const int64_t rank = static_cast<int64_t>(g.values[probs].sizes.size());
    for (const Arg& a : softmax.args)
      if (a.name == "dim" && !a.ints.empty() && a.ints[0] != -1 && a.ints[0] != rank - 1) return false;
    folded.push_back(sm);
    int x = through_no_ops(softmax.tensor_inputs().at(0), folded);
    int p = producer(x);
    if (p < 0 || !private_value(x)) return false;
    // The mask add (patterns 5, 6, 14): scores + mask, either side.
    int mask = -1;
    if (named(g.ops[p], "aten::add") && g.ops[p].tensor_inputs().size() == 2) {
      const std::vector<int> a = g.ops[p].tensor_inputs();
      const int scores = g.values[a[0]].sizes == g.values[x].sizes ? a[0] : a[1];
      mask = scores == a[0] ? a[1] : a[0];
      folded.push_back(p);
      x = through_no_ops(scores, folded);
      p = producer(x);
      if (p < 0 || !private_value(x)) return false;
    }
    const char* scale = scale_kind(g.ops[p]);
    if (scale) {
      folded.push_back(p);
      x = through_no_ops(g.ops[p].tensor_inputs().at(0), folded);
      p = producer(x);
      if (p < 0 || !private_value(x)) return false;
    }
    const Op& mm1 = g.ops[p];
    if (!named(mm1, "aten::matmul") && !named(mm1, "aten::bmm")) return false;
    const std::vector<int> in1 = mm1.tensor_inputs();
    if (in1.size() != 2) return false;
    folded.push_back(p);
    const int q = in1[0], kt = in1[1], v = in2[1];
    const int k = untransposed(kt);
    if (k < 0) return false;
    const Value &qv = g.values[q], &kv = g.values[k], &vv = g.values[v];
    // _sfdp_params_check: one dtype for q, k and v; fused kernels in float32 would use TF32,
    // which is off by default (fp32_precision "ieee"), so float32 attention is left alone.
    if (!is_half(qv.dtype) || kv.dtype != qv.dtype || vv.dtype != qv.dtype) return false;
    if (mask >= 0) {
      const DType d = g.values[mask].dtype;
      if (d != qv.dtype && d != DType::kBool && d != DType::kFloat32) return false;
    }
    const size_t r = qv.sizes.size();
    if (kv.sizes.size() != r || vv.sizes.size() != r) return false;
    if (r == 3) {
      // Pattern 13: bmm, softmax, bmm, with neither scale nor mask.
      if (scale || mask >= 0 || !named(mm1, "aten::bmm")) return false;
    } else if (r == 4) {
      // The traced patterns' matmul decomposition: each operand's [B, H] folded into one batch
      // dim, by a view where it is dense over them (patterns 1 to 4, operands as
      // contiguous tensors), by a copy where not (11, 12 and 14, heads permuted out of a
      // projection). Operands of both kinds, or a mask without the copies, match none.
      const bool cq = sdpa_math_batch_copied(qv, false), ck = sdpa_math_batch_copied(g.values[kt], false),
                 cv = sdpa_math_batch_copied(vv, false);
      if (cq != ck || cq != cv) return false;
      // Patterns 11, 12 and 14 permute each input themselves (query.permute([0, 2, 1, 3])): a
      // copied operand matches only as the permute it is, not as a loop's result laid out so
      // (RoFormer's rotated q and k).
      if (cq && (!permuted(q) || !permuted(k) || !permuted(v))) return false;
      if (!scale) return false;
      if (mask >= 0 && (!cq || std::string(scale) != "div")) return false;
      if (cq && std::string(scale) != "div") return false;
    } else {
      return false;
    }
    m.product = i;
    m.folded = folded;
    m.q = q;
    m.k = k;
    m.v = v;
    m.mask = mask;
    return true;
  }
};

}  // namespace

// Inductor's joint-graph pass (fx_passes/fuse_attention.py) replaces an explicit attention,
// matmul(q, k^T), a scalar scale, a mask added, softmax and a matmul by v, with one
// scaled_dot_product_attention call, which then lowers as a fused kernel does. The graph Inductor
// lowers is rewritten the same way: the second matmul becomes the attention call (its output
// takes the strides the fused kernel writes, and the views and copies reading it follow), the
// ops it absorbs launch nothing. Op indices are kept, so the plan maps onto the graph as given;
// the graph is copied only where a pattern matched.
std::optional<AttentionRewrite> fuse_attention_patterns(const Graph& given, const std::vector<Launch>& eager,
                                                        const Target& target) {
  std::vector<Match> found;
  {
    const Finder f(given, eager);
    for (size_t i = 0; i < given.ops.size(); ++i) {
      Match m;
      if (!f.match(static_cast<int>(i), m)) continue;
      found.push_back(m);
    }
  }
  if (found.empty()) return std::nullopt;
  AttentionRewrite r{given, eager, {}};
  Graph& g = r.graph;
  std::vector<Launch>& launches = r.launches;
  const Layout before = run_layout(g);
  Launch nothing;
  nothing.known = true;
  std::vector<int>& fused_into = r.fused_into;
  fused_into.assign(g.ops.size(), -1);
  for (const Match& m : found) {
    Op& op = g.ops[m.product];
    op.name = "aten::scaled_dot_product_attention";
    op.overload = "";
    op.traits = OpTraits{};
    op.args.clear();
    op.args.push_back(Arg::tensor("query", m.q));
    op.args.push_back(Arg::tensor("key", m.k));
    op.args.push_back(Arg::tensor("value", m.v));
    if (m.mask >= 0) op.args.push_back(Arg::tensor("attn_mask", m.mask));
    for (int i : m.folded) {
      launches[i] = nothing;
      fused_into[i] = m.product;
    }
  }
  // The attention's output strides, and those of the views and copies downstream.
  const Layout after = run_layout(g);
  std::vector<bool> changed(g.values.size(), false);
  for (size_t v = 0; v < g.values.size(); ++v) {
    const std::vector<int64_t>& s = after.strides(g, static_cast<int>(v));
    if (s != before.strides(g, static_cast<int>(v))) changed[v] = true;
  }
  for (const Match& m : found)
    for (int v : g.ops[m.product].outputs)
      if (v >= 0) changed[v] = true;
  for (size_t v = 0; v < g.values.size(); ++v)
    if (changed[v]) g.values[v].strides = after.strides(g, static_cast<int>(v));
  const std::vector<Launch> fresh = run_launches(g, target, LaunchOptions{}, &after);
  for (size_t i = 0; i < g.ops.size(); ++i) {
    if (fused_into[i] >= 0) continue;
    bool reads_changed = false;
    for (int v : g.ops[i].outputs) reads_changed |= v >= 0 && changed[v];
    g.ops[i].for_each_tensor_input([&](int v) { reads_changed |= changed[v]; });
    if (!reads_changed) continue;
    // A copy the new strides make a no-op (contiguous() of the attention's output, already in
    // that order) is removed (remove_noop_ops): it joins the op whose output it would copy.
    if (fresh[i].known && fresh[i].counts.none() && !launches[i].counts.none()) {
      int from = i;
      while (from >= 0 && fused_into[from] < 0 && (from == static_cast<int>(i) || fresh[from].counts.none())) {
        const std::vector<int> in = g.ops[from].tensor_inputs();
        from = in.empty() ? -1 : g.values[in[0]].producer;
      }
      if (from >= 0) fused_into[i] = fused_into[from] >= 0 ? fused_into[from] : from;
    }
    launches[i] = fresh[i];
  }
  return r;
}

}  // namespace kc::inductor
