#include "passes/launches.h"

#include <algorithm>

#include "passes/launch_rules.h"
#include "passes/measured.h"

namespace kc {
namespace {

bool generic_fits(const std::string& cls, const Op& op) {
  if (cls == "any") return true;
  if (cls == "view") return op.traits.view;
  if (cls == "reduction") return op.traits.reduction;
  if (cls == "pointwise") return op.traits.pointwise;
  return false;
}

}  // namespace

std::string model_device(const Graph& g) {
  for (int v : g.inputs)
    if (v >= 0) return g.values[v].device;
  for (const Value& v : g.values)
    if (v.role == ValueRole::kParameter || v.role == ValueRole::kBuffer) return v.device;
  // A model with neither (factories only) runs where its first tensor is made.
  return g.values.empty() ? "cuda" : g.values.front().device;
}

std::vector<Launch> run_launches(const Graph& g, const Target& target, const LaunchOptions& options) {
  const auto& rules = launch_rules(target.name);
  const std::string device = model_device(g);
  std::vector<Launch> out(g.ops.size());
  for (size_t i = 0; i < g.ops.size(); ++i) {
    const Op& op = g.ops[i];
    OpFacts facts = op_facts(g, static_cast<int>(i), device);
    Launch& l = out[i];
    l.rule = "no rule for " + op.full_name();
    l.key = launch_key(g, op);
    if (options.use_measured && !facts.on_host) {
      if (const MeasuredLaunch* m = find_measured(target.name, l.key, options.exclude_measured)) {
        const LaunchCounts& c = m->counts;
        l = {true, c.kernels, c.memcpy, c.memset, c.host_syncs, "measured", l.key};
        continue;
      }
    }
    for (const LaunchRule& rule : rules) {
      bool listed = rule.ops.empty() ? generic_fits(rule.generic, op)
                                     : std::find(rule.ops.begin(), rule.ops.end(), op.name) != rule.ops.end();
      if (!listed || (rule.matches && !rule.matches(facts))) continue;
      LaunchCounts c = rule.compute ? rule.compute(facts) : rule.counts;
      l = {true, c.kernels, c.memcpy, c.memset, c.host_syncs, rule.id, l.key};
      break;
    }
  }
  return out;
}

}  // namespace kc
