#include "passes/launches.h"

#include <algorithm>
#include <cstring>
#include <deque>
#include <limits>
#include <string_view>
#include <unordered_map>

#include "analyzer/describe.h"
#include "passes/launch_rules.h"

namespace kc {

namespace {

// An op's counts for every run it stands for (Op::repeat).
Counts times(const Counts& c, int64_t repeat, int op) {
  auto scale = [&](int n) {
    const int64_t v = int64_t{n} * repeat;
    if (v > std::numeric_limits<int>::max()) throw OpError(op, "its loop launches more than can be counted");
    return static_cast<int>(v);
  };
  return {scale(c.kernels), scale(c.memcpy), scale(c.memset), scale(c.host_syncs)};
}

// Everything of an op that a rule, the operand checks and the measured table's key may read,
// as bytes: two ops with equal signatures get the same decision. Values are told apart by
// where they first appear in the op (a rule may ask whether query, key and value are one
// tensor), not by their index; the op's position, names of values, source and module are left
// out; rules that read other ops say so (reads_graph).
class Signature {
 public:
  std::string_view of(const Graph& recorded, const Graph& seen, const Op& op) {
    used_ = 0;
    ids_.clear();
    text(op.name);
    text(op.overload);
    const OpTraits& t = op.traits;
    number(t.pointwise | t.reduction << 1 | t.view << 2 | t.inplace << 3 | t.out_variant << 4);
    list(t.mutated_args);
    number(static_cast<int64_t>(op.args.size()));
    for (const Arg& a : op.args) {
      text(a.name);
      number(static_cast<int64_t>(a.kind));
      number(static_cast<int64_t>(a.tensors.size()));
      for (int v : a.tensors) value(recorded, seen, v);
      list(a.ints);
      list(a.floats);
      text(a.text);
    }
    number(static_cast<int64_t>(op.outputs.size()));
    for (int v : op.outputs) value(recorded, seen, v);
    return std::string_view(s_.data(), used_);
  }

 private:
  // Written into a buffer that only grows: an op's signature is some forty pieces of a few
  // bytes each, and a string's append per piece was most of its cost.
  void bytes(const void* p, size_t n) {
    if (n == 0) return;  // an empty list's data() may be null, which memcpy must not see
    if (used_ + n > s_.size()) s_.resize(std::max(2 * s_.size(), used_ + n));
    std::memcpy(s_.data() + used_, p, n);
    used_ += n;
  }
  void number(int64_t n) { bytes(&n, sizeof n); }
  void text(const std::string& t) {
    number(static_cast<int64_t>(t.size()));
    bytes(t.data(), t.size());
  }
  template <typename T>
  void list(const std::vector<T>& xs) {
    number(static_cast<int64_t>(xs.size()));
    bytes(xs.data(), xs.size() * sizeof(T));
  }
  void value(const Graph& recorded, const Graph& seen, int id) {
    if (id < 0) return number(-1);
    size_t first = 0;
    while (first < ids_.size() && ids_[first] != id) ++first;
    number(static_cast<int64_t>(first));
    if (first < ids_.size()) return;  // described where it first appeared
    ids_.push_back(id);
    const Value& v = recorded.values[id];
    number(static_cast<int64_t>(v.dtype) | static_cast<int64_t>(v.placement) << 8 |
           static_cast<int64_t>(v.requires_grad) << 16 | static_cast<int64_t>(v.role) << 24);
    text(v.device);
    list(v.sizes);
    list(v.strides);
    if (&seen != &recorded) list(seen.values[id].strides);  // the run-time strides the rules read
  }

  std::vector<char> s_;
  size_t used_ = 0;       // bytes of s_ this op's signature holds
  std::vector<int> ids_;  // the op's values, in order of first appearance
};

}  // namespace

std::vector<Launch> run_launches(const Graph& g, const Target& target, const LaunchOptions& options,
                                 const Layout* layout) {
  std::vector<Launch> out(g.ops.size());
  // The rules see the values with their run-time strides.
  const Graph runtime = layout && layout->diverging > 0 ? with_runtime_strides(g, *layout) : Graph();
  const Graph& seen = layout && layout->diverging > 0 ? runtime : g;
  // A graph repeats a few signatures many times (a block per layer): each is decided once.
  std::unordered_map<std::string_view, Launch> decided;
  std::deque<std::string> decided_keys;  // the bytes decided's keys view
  Signature signature;
  for (size_t i = 0; i < g.ops.size(); ++i) {
    const Op& op = g.ops[i];
    Launch& l = out[i];
    std::string_view signed_as;
    const std::string_view* sig = nullptr;
    if (options.reuse_by_signature) {
      signed_as = signature.of(g, seen, op);
      sig = &signed_as;
    }
    if (sig)
      if (auto it = decided.find(*sig); it != decided.end()) {
        l = it->second;
        if (op.repeat > 1) l.counts = times(l.counts, op.repeat, static_cast<int>(i));
        continue;
      }
    OpFacts facts = op_facts(seen, static_cast<int>(i), target);
    std::string cudnn;  // where a rule's cuDNN answer came from, if one asked
    facts.cudnn_answer = &cudnn;
    int64_t engine = -1;
    facts.cudnn_engine = &engine;
    check_operands(facts);
    l.rule = "no rule for " + op.full_name();
    l.key = launch_key(g, op);
    bool reusable = sig != nullptr;
    for (const LaunchRule& rule : target.rules) {
      if (!rule.applies_to(facts)) continue;
      reusable &= !rule.reads_graph;
      if (rule.matches && !rule.matches(facts)) continue;
      l.known = true;
      l.counts = rule.predict(facts);
      l.rule = l.fitting_rule = rule.id;
      break;
    }
    if (!cudnn.empty()) l.cudnn = std::move(cudnn);
    l.cudnn_engine = engine;  // cuDNN's choice, whether or not a measurement decides the counts
    if (options.use_measured && !facts.on_host) {
      if (const MeasuredLaunch* m = target.find_measured(l.key, options.exclude_measured)) {
        l.known = true;
        l.counts = m->counts;
        l.rule = "measured";
        l.cudnn = SharedString();  // the rule's answer did not decide
      }
    }
    if (reusable) decided.emplace(decided_keys.emplace_back(*sig), l);
    if (op.repeat > 1) l.counts = times(l.counts, op.repeat, static_cast<int>(i));
  }
  // Totals are summed in 32-bit counts: a model (its loops' trips included) must fit them.
  int64_t launches = 0;
  for (const Launch& l : out)
    launches += int64_t{l.counts.kernels} + l.counts.memcpy + l.counts.memset + l.counts.host_syncs;
  check(launches <= std::numeric_limits<int>::max(),
        "the model launches " + std::to_string(launches) + " times, more than can be counted");
  return out;
}

}  // namespace kc
