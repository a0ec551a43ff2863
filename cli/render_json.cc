#include <nlohmann/json.hpp>

#include "cli/render.h"
#include "passes/op_classes.h"
#include "passes/rollup.h"

namespace kc {
namespace {

using json = nlohmann::ordered_json;

// `strides` as the export recorded them; `runtime_strides` only where eager CUDA PyTorch gives
// the value others (the layout pass: a convolution's channels-last output), which the launch
// rules read.
json value_json(const Graph& g, const Report& r, int id) {
  const Value& v = g.values[id];
  json j = {{"name", v.name}, {"shape", v.sizes}, {"strides", v.strides}, {"dtype", dtype_name(v.dtype)}};
  if (static_cast<size_t>(id) < r.layout.diverges.size() && r.layout.diverges[id])
    j["runtime_strides"] = r.layout.strides[id];
  return j;
}

json arg_json(const Graph& g, const Arg& a) {
  using K = Arg::Kind;
  json j = {{"name", a.name}};
  switch (a.kind) {
    case K::kTensor:
      j["tensor"] = g.values[a.tensors[0]].name;
      break;
    case K::kTensorList: {
      json l = json::array();
      for (int v : a.tensors) l.push_back(v < 0 ? json(nullptr) : json(g.values[v].name));
      j["tensors"] = l;
      break;
    }
    case K::kNone:
      j["value"] = nullptr;
      break;
    case K::kBool:
      j["value"] = a.ints[0] != 0;
      break;
    case K::kInt:
      j["value"] = a.ints[0];
      break;
    case K::kIntList:
      j["value"] = a.ints;
      break;
    case K::kFloat:
      j["value"] = a.floats[0];
      break;
    case K::kFloatList:
      j["value"] = a.floats;
      break;
    case K::kBoolList: {
      json l = json::array();
      for (int64_t b : a.ints) l.push_back(b != 0);
      j["value"] = l;
      break;
    }
    case K::kScalarType:
      j["value"] = dtype_name(static_cast<DType>(a.ints[0]));
      break;
    default:
      j["value"] = a.text;
  }
  return j;
}

json traffic_json(const Traffic& t) {
  return {{"reads", t.reads}, {"writes", t.writes}, {"read_bytes", t.read_bytes}, {"write_bytes", t.write_bytes}};
}

json plan_json(const FusionPlan& plan) {
  json groups = json::array();
  for (size_t k = 0; k < plan.groups.size(); ++k) {
    const FusionGroup& grp = plan.groups[k];
    groups.push_back({{"id", k},
                      {"kind", grp.kind},
                      {"ops", grp.ops},
                      {"eager_kernels", grp.eager_kernels},
                      {"fused_kernels", grp.fused_kernels},
                      {"eager_hbm", traffic_json(grp.eager)},
                      {"fused_hbm", traffic_json(grp.fused)},
                      {"saved_kernels", grp.eager_kernels - grp.fused_kernels},
                      {"saved_bytes", grp.eager.bytes() - grp.fused.bytes()}});
  }
  return {{"variant", plan.variant}, {"groups", groups}};
}

json rollup_row_json(const RollupRow& row) {
  return {{"ops", row.ops},
          {"eager_kernels", row.counts.kernels},
          {"memcpy", row.counts.memcpy},
          {"memset", row.counts.memset},
          {"host_syncs", row.counts.host_syncs},
          {"unknown_ops", row.unknown_ops},
          {"hbm_transfers", row.transfers},
          {"hbm_bytes", row.bytes}};
}

json rollup_json(const std::vector<RollupRow>& rows, RollupKey key) {
  json out = json::array();
  for (const RollupRow& row : rows) {
    if (key == RollupKey::kOpType) {
      json j = {{"op_type", row.key}};
      j.update(rollup_row_json(row));
      out.push_back(j);
      continue;
    }
    out.push_back({{key == RollupKey::kLine ? "line" : "module", row.key},
                   {key == RollupKey::kLine ? "code" : "class", row.code},
                   {"ops", row.ops},
                   {"eager_kernels", row.counts.kernels},
                   {"memcpy", row.counts.memcpy},
                   {"memset", row.counts.memset},
                   {"host_syncs", row.counts.host_syncs},
                   {"unknown_ops", row.unknown_ops},
                   {"hbm_transfers", row.transfers},
                   {"hbm_bytes", row.bytes}});
  }
  return out;
}

json tree_json(const std::vector<ModuleNode>& tree) {
  json out = json::array();
  for (const ModuleNode& n : tree) {
    json j = {{"module", n.total.key}, {"class", n.total.code}, {"depth", n.depth}, {"parent", n.parent}};
    j.update(rollup_row_json(n.total));
    out.push_back(j);
  }
  return out;
}

json entry_json(const Entry& e) {
  return {{"ops", e.ops}, {"eager_kernels", e.kernels}, {"unknown_ops", e.unknown}, {"hbm_bytes", e.bytes}};
}

json entry_deltas_json(const std::vector<EntryDelta>& v, const char* key) {
  json a = json::array();
  for (const EntryDelta& d : v) {
    json j = {
        {key, d.after.name}, {"status", d.status}, {"before", entry_json(d.before)}, {"after", entry_json(d.after)}};
    if (std::string(key) == "module") j["depth"] = d.after.depth;
    a.push_back(j);
  }
  return a;
}

json budgets_json(const std::vector<BudgetCheck>& budgets) {
  json checks = json::array();
  bool exceeded = false;
  for (const BudgetCheck& b : budgets) {
    checks.push_back({{"option", b.option},
                      {"what", b.what},
                      {"unit", b.unit},
                      {"limit", b.limit},
                      {"value", b.value},
                      {"exceeded", b.exceeded()},
                      {"unproven", b.unproven}});
    exceeded |= b.exceeded();
  }
  return {{"verdict", budgets.empty() ? "none" : exceeded ? "fail" : "pass"}, {"checks", checks}};
}

}  // namespace

void render_json(std::ostream& os, const Graph& g, const Report& r, const RenderOptions& o) {
  json out;
  out["schema"] = "kernelcount.report/1";
  out["kernelcount_version"] = o.version;
  out["model"] = {
      {"path", g.info.path}, {"format", g.info.format}, {"producer", g.info.producer_version}, {"notes", g.info.notes}};
  const Target& t = *r.target;
  out["target"] = {{"name", t.name},
                   {"torch_version", t.torch_version},
                   {"gpu", t.gpu},
                   {"arch", t.arch},
                   {"hbm_bytes_per_s", t.hbm_bytes_per_s},
                   {"matmul_bf16_flops_per_s", t.matmul_bf16_flops_per_s},
                   {"matmul_fp32_flops_per_s", t.matmul_fp32_flops_per_s},
                   {"vector_flops_per_s", t.vector_flops_per_s},
                   {"launch_s", t.launch_s}};
  json ops = json::array();
  for (size_t i = 0; i < g.ops.size(); ++i) {
    const Op& op = g.ops[i];
    const Launch& l = r.launches[i];
    json ins = json::array(), outs = json::array(), args = json::array();
    for (int v : op.tensor_inputs()) ins.push_back(value_json(g, r, v));
    for (int v : op.outputs)
      if (v >= 0) outs.push_back(value_json(g, r, v));
    for (const Arg& a : op.args) args.push_back(arg_json(g, a));
    json launches = {{"known", l.known},
                     {"rule", l.rule},
                     {"key", l.key},
                     {"fitting_rule", l.fitting_rule},
                     {"kernel_names", r.explain[i].kernel_names}};
    if (l.known) {
      launches["kernels"] = l.counts.kernels;
      launches["memcpy"] = l.counts.memcpy;
      launches["memset"] = l.counts.memset;
      launches["host_syncs"] = l.counts.host_syncs;
    } else {
      launches["kernels"] = launches["memcpy"] = launches["memset"] = launches["host_syncs"] = nullptr;
    }
    ops.push_back({{"index", i},
                   {"op", op.full_name()},
                   {"class", op_class_name(op_class(op))},
                   {"source", {{"file", op.loc.file}, {"line", op.loc.line}, {"code", op.loc.code}}},
                   {"module", op.module},
                   {"module_class", op.module_type},
                   {"inputs", ins},
                   {"outputs", outs},
                   {"args", args},
                   {"launches", launches},
                   {"hbm", traffic_json(r.traffic[i])},
                   {"flops", r.traffic[i].flops},
                   {"time_floor_s", r.time[i].floor_s()},
                   {"memory_bound", r.time[i].memory_bound()},
                   {"bound", r.time[i].bound()},
                   {"fusion_group", r.fusion.group_of[i]},
                   {"fusion_group_reduction", r.fusion_reduction.group_of[i]}});
  }
  out["ops"] = ops;
  out["fusion"] = {plan_json(r.fusion), plan_json(r.fusion_reduction)};
  out["by_line"] = rollup_json(r.by_line, RollupKey::kLine);
  out["by_module"] = rollup_json(r.by_module, RollupKey::kModule);
  out["by_op_type"] = rollup_json(r.by_op_type, RollupKey::kOpType);
  out["module_tree"] = tree_json(r.module_tree);
  const Totals& s = r.totals;
  json totals = json::object();
  for (const auto& [key, value] : s.counts()) totals[key] = value;
  totals["eager_time_floor_s"] = s.eager_time_floor_s;
  totals["fused_time_floor_s"] = s.fused_time_floor_s;
  out["totals"] = totals;
  out["budgets"] = budgets_json(o.budgets);
  if (o.baseline) {
    json totals = json::object();
    for (const Delta& d : o.baseline->totals) totals[d.name] = {{"before", d.before}, {"after", d.after}};
    auto deltas = [](const std::vector<Delta>& v) {
      json a = json::array();
      for (const Delta& d : v) a.push_back({{"module", d.name}, {"before", d.before}, {"after", d.after}});
      return a;
    };
    out["baseline"] = {{"path", o.baseline->baseline_path},
                       {"totals", totals},
                       {"module_kernels", deltas(o.baseline->module_kernels)},
                       {"module_bytes", deltas(o.baseline->module_bytes)},
                       {"warnings", o.baseline->warnings},
                       {"op_types", entry_deltas_json(o.baseline->op_types, "op_type")},
                       {"module_tree", entry_deltas_json(o.baseline->module_tree, "module")},
                       {"lines", entry_deltas_json(o.baseline->lines, "line")}};
  }
  os << out.dump(1) << '\n';
}

}  // namespace kc
