#include "passes/launches.h"

#include "analyzer/describe.h"
#include "passes/launch_rules.h"

namespace kc {

std::vector<Launch> run_launches(const Graph& g, const Target& target, const LaunchOptions& options,
                                 const Layout* layout) {
  std::vector<Launch> out(g.ops.size());
  // The rules see the values with their run-time strides.
  const Graph runtime = layout && layout->diverging > 0 ? with_runtime_strides(g, *layout) : Graph();
  const Graph& seen = layout && layout->diverging > 0 ? runtime : g;
  for (size_t i = 0; i < g.ops.size(); ++i) {
    const Op& op = g.ops[i];
    const OpFacts facts = op_facts(seen, static_cast<int>(i));
    check_operands(facts);
    Launch& l = out[i];
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
      }
    }
  }
  return out;
}

}  // namespace kc
