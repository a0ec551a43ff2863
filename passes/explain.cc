#include "passes/explain.h"

#include <map>
#include <string_view>
#include <tuple>
#include <unordered_map>

#include "analyzer/dtype.h"
#include "passes/hbm_traffic.h"
#include "passes/kernel_steps.h"
#include "passes/launch_rules.h"

namespace kc {

Explanations run_explain(const Graph& g, const std::vector<Launch>& launches, const Target& target) {
  Explanations out;
  out.of_op.resize(g.ops.size());
  // A graph repeats a few rules and kernel-name entries many times: each is looked up and its
  // families split once, not once per op.
  // Keyed by views of the ids in `launches`, which outlive the pass: no copy of an id per op.
  std::unordered_map<std::string_view, const LaunchRule*> rules;
  auto rule_of = [&](std::string_view id) {
    auto it = rules.find(id);
    if (it == rules.end()) it = rules.emplace(id, target.find_rule(id)).first;
    return it->second;
  };
  KernelNamesLookup names_of(target.kernel_names);
  // Everything an explanation is made of: ops with equal keys share one. The measured models are
  // a view into the target's table, told apart by where they start.
  using Key = std::tuple<OpExplanation::Kind, std::string_view, const char*, const char*, int>;
  std::map<Key, uint32_t> index_of;
  for (size_t i = 0; i < g.ops.size(); ++i) {
    const Launch& l = launches[i];
    OpExplanation e;
    const char* dtype = nullptr;
    int launched = 0;
    if (!l.known) {
      e.kind = OpExplanation::Kind::kUnknown;
    } else {
      e.kind = l.counts.none() ? OpExplanation::Kind::kFree : OpExplanation::Kind::kLaunch;
      e.measured = l.rule == "measured";
      if (e.measured)
        if (const MeasuredLaunch* m = target.find_measured(l.key, {})) e.measured_in = m->models;
      launched = l.counts.kernels + l.counts.memcpy + l.counts.memset;
      if (launched > 0) dtype = kernel_names_dtype(g, g.ops[i]);
    }
    const std::string& rule_id = e.measured ? l.fitting_rule : l.rule;
    const Key key{e.kind, rule_id, e.measured ? e.measured_in.data() : nullptr, dtype, launched};
    auto [known, fresh] = index_of.try_emplace(key, static_cast<uint32_t>(out.distinct.size()));
    out.of_op[i] = known->second;
    if (!fresh) continue;
    e.rule = rule_id;
    if (e.kind != OpExplanation::Kind::kUnknown) {
      if (const LaunchRule* rule = rule_of(rule_id)) {
        e.when = rule->when;
        e.why = rule->why;
        e.evidence = rule->evidence;
        e.data_dependent = rule->data_dependent;
      }
    }
    if (launched > 0) {
      const KernelNamesLookup::Found& names = names_of.find(rule_id, dtype, launched);
      if (names.names) {
        e.kernel_names = names.families;
        e.names_seen = names.names->seen;
        e.names_of = names.names->of;
      }
    }
    out.distinct.push_back(std::move(e));
  }
  return out;
}

}  // namespace kc
