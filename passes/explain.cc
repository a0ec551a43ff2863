#include "passes/explain.h"

#include "analyzer/dtype.h"
#include "passes/hbm_traffic.h"
#include "passes/launch_rules.h"

namespace kc {
namespace {

const LaunchRule* find_rule(const Target& t, const std::string& id) {
  for (const LaunchRule& r : t.rules)
    if (r.id == id) return &r;
  return nullptr;
}

// The dtype the kernel-name table is keyed by: the first tensor input's, else the output's.
std::string op_dtype(const Graph& g, const Op& op) {
  auto ins = op.tensor_inputs();
  if (!ins.empty()) return dtype_name(g.values[ins[0]].dtype);
  for (int v : op.outputs)
    if (v >= 0) return dtype_name(g.values[v].dtype);
  return "";
}

}  // namespace

std::vector<OpExplanation> run_explain(const Graph& g, const std::vector<Launch>& launches, const Target& target) {
  std::vector<OpExplanation> out(g.ops.size());
  for (size_t i = 0; i < g.ops.size(); ++i) {
    const Launch& l = launches[i];
    OpExplanation& e = out[i];
    const HbmArrays arrays = hbm_arrays(g, static_cast<int>(i), l);
    e.reads = arrays.reads;
    e.writes = arrays.writes;
    if (!l.known) {
      e.kind = OpExplanation::Kind::kUnknown;
      e.rule = l.rule;
      continue;
    }
    e.kind = l.counts.none() ? OpExplanation::Kind::kFree : OpExplanation::Kind::kLaunch;
    e.measured = l.rule == "measured";
    e.rule = e.measured ? l.fitting_rule : l.rule;
    if (const LaunchRule* rule = find_rule(target, e.rule)) {
      e.when = rule->when;
      e.why = rule->why;
      e.evidence = rule->evidence;
    }
    if (e.measured)
      if (const MeasuredLaunch* m = target.find_measured(l.key, {})) e.measured_in = m->models;
    const int launched = l.counts.kernels + l.counts.memcpy + l.counts.memset;
    if (launched == 0) continue;
    if (const KernelNames* k = find_kernel_names(target.kernel_names, e.rule, op_dtype(g, g.ops[i]), launched)) {
      e.kernel_names = split_families(k->families);
      e.names_seen = k->seen;
      e.names_of = k->of;
    }
  }
  return out;
}

}  // namespace kc
