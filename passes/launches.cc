#include "passes/launches.h"

#include <limits>

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

}  // namespace

std::vector<Launch> run_launches(const Graph& g, const Target& target, const LaunchOptions& options,
                                 const Layout* layout) {
  std::vector<Launch> out(g.ops.size());
  // The rules see the values with their run-time strides.
  const Graph runtime = layout && layout->diverging > 0 ? with_runtime_strides(g, *layout) : Graph();
  const Graph& seen = layout && layout->diverging > 0 ? runtime : g;
  for (size_t i = 0; i < g.ops.size(); ++i) {
    const Op& op = g.ops[i];
    Launch& l = out[i];
    OpFacts facts = op_facts(seen, static_cast<int>(i));
    facts.cudnn_answer = &l.cudnn;
    check_operands(facts);
    l.rule = "no rule for " + op.full_name();
    l.key = launch_key(g, op);
    for (const LaunchRule& rule : target.rules) {
      if (!rule.fits(facts)) continue;
      l.known = true;
      l.counts = rule.predict(facts);
      l.rule = l.fitting_rule = rule.id;
      break;
    }
    if (options.use_measured && !facts.on_host) {
      if (const MeasuredLaunch* m = target.find_measured(l.key, options.exclude_measured)) {
        l.known = true;
        l.counts = m->counts;
        l.rule = "measured";
        l.cudnn.clear();  // the rule's answer did not decide
      }
    }
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
