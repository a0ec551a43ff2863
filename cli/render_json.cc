#include <nlohmann/json.hpp>

#include "cli/json_writer.h"
#include "cli/render.h"
#include "cli/report_rows.h"
#include "passes/op_classes.h"
#include "passes/rollup.h"

namespace kc {
namespace {

using json = nlohmann::ordered_json;

void write_arg(JsonWriter& w, const Graph& g, const Arg& a) {
  using K = Arg::Kind;
  w.begin_object();
  w.member("name", a.name.str());
  switch (a.kind) {
    case K::kTensor:
      w.member("tensor", g.values[a.tensors[0]].name);
      break;
    case K::kTensorList:
      w.key("tensors");
      w.begin_array();
      for (int v : a.tensors)
        if (v < 0)
          w.null();
        else
          w.value(g.values[v].name);
      w.end_array();
      break;
    case K::kNone:
      w.key("value");
      w.null();
      break;
    case K::kBool:
      w.member("value", a.ints[0] != 0);
      break;
    case K::kInt:
      w.member("value", a.ints[0]);
      break;
    case K::kIntList:
      w.member("value", a.ints);
      break;
    case K::kFloat:
      w.member("value", a.floats[0]);
      break;
    case K::kFloatList:
    case K::kComplex:  // [real, imaginary]
      w.member("value", a.floats);
      break;
    case K::kBoolList:
      w.key("value");
      w.begin_array();
      for (int64_t b : a.ints) w.value(b != 0);
      w.end_array();
      break;
    case K::kScalarType:
      w.member("value", dtype_name(static_cast<DType>(a.ints[0])));
      break;
    default:
      w.member("value", a.text.str());
  }
  w.end_object();
}

void write_traffic(JsonWriter& w, const Traffic& t) {
  w.begin_object();
  w.member("reads", t.reads);
  w.member("writes", t.writes);
  w.member("read_bytes", t.read_bytes);
  w.member("write_bytes", t.write_bytes);
  w.end_object();
}

void write_plan(JsonWriter& w, const FusionPlan& plan) {
  w.begin_object();
  w.member("variant", plan.variant);
  w.key("groups");
  w.begin_array();
  for (size_t k = 0; k < plan.groups.size(); ++k) {
    const FusionGroup& grp = plan.groups[k];
    w.begin_object();
    w.member("id", k);
    w.member("kind", grp.kind);
    w.member("ops", grp.ops);
    w.member("eager_kernels", grp.eager_kernels);
    w.member("fused_kernels", grp.fused_kernels);
    w.key("eager_hbm");
    write_traffic(w, grp.eager);
    w.key("fused_hbm");
    write_traffic(w, grp.fused);
    w.member("saved_kernels", grp.eager_kernels - grp.fused_kernels);
    w.member("saved_bytes", grp.eager.bytes() - grp.fused.bytes());
    if (grp.root_op >= 0) w.member("root_op", grp.root_op);  // the inductor plan only
    w.end_object();
  }
  w.end_array();
  w.end_object();
}

// A row's numbers, after its keys; `compiled`: the plans' kernels and bytes too (--fusion inductor).
void write_rollup_numbers(JsonWriter& w, const RollupRow& row, bool compiled) {
  w.member("ops", row.ops);
  w.member("eager_kernels", row.counts.kernels);
  w.member("memcpy", row.counts.memcpy);
  w.member("memset", row.counts.memset);
  w.member("host_syncs", row.counts.host_syncs);
  w.member("unknown_ops", row.unknown_ops);
  w.member("hbm_transfers", row.transfers);
  w.member("hbm_bytes", row.bytes);
  w.member("flops", row.flops);
  w.member("time_floor_s", row.floor_s);
  if (!compiled) return;
  w.member("fused_kernels", row.fused_kernels);
  w.member("fused_hbm_bytes", row.fused_bytes);
  w.member("pointwise_fused_kernels", row.pointwise_kernels);
  w.member("pointwise_fused_hbm_bytes", row.pointwise_bytes);
}

void write_rollup(JsonWriter& w, const std::vector<RollupRow>& rows, RollupKey key, bool compiled) {
  w.begin_array();
  for (const RollupRow& row : rows) {
    w.begin_object();
    if (key == RollupKey::kOpType) {
      w.member("op_type", row.key);
    } else {
      w.member(key == RollupKey::kLine ? "line" : "module", row.key);
      w.member(key == RollupKey::kLine ? "code" : "class", row.code);
    }
    write_rollup_numbers(w, row, compiled);
    w.end_object();
  }
  w.end_array();
}

void write_tree(JsonWriter& w, const std::vector<ModuleNode>& tree, bool compiled) {
  w.begin_array();
  for (const ModuleNode& n : tree) {
    w.begin_object();
    w.member("module", n.total.key);
    w.member("class", n.total.code);
    w.member("depth", n.depth);
    w.member("parent", n.parent);
    write_rollup_numbers(w, n.total, compiled);
    w.end_object();
  }
  w.end_array();
}

json entry_json(const Entry& e) {
  return {{"ops", e.ops}, {"eager_kernels", e.kernels}, {"unknown_ops", e.unknown}, {"hbm_bytes", e.bytes}};
}

json entry_deltas_json(const std::vector<EntryDelta>& v, const char* key) {
  json a = json::array();
  for (const EntryDelta& d : v) {
    json j = {{key, d.after.name.empty() ? d.before.name : d.after.name},
              {"status", d.status},
              {"before", entry_json(d.before)},
              {"after", entry_json(d.after)}};
    if (std::string(key) == "module") j["depth"] = d.after.depth;
    if (d.moved()) j["line_before"] = d.before.name;
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

// One op's entry of "ops", written as it goes: these are most of a report's bytes.
void write_op(JsonWriter& w, const Graph& g, const Report& r, size_t i) {
  const Op& op = g.ops[i];
  const Launch& l = r.launches[i];
  // `strides` as the export recorded them; `runtime_strides` only where eager CUDA PyTorch
  // gives the value others (the layout pass: a convolution's channels-last output), which the
  // launch rules read.
  auto write_value = [&](int id) {
    const Value& v = g.values[id];
    w.begin_object();
    w.member("name", v.name);
    w.member("shape", v.sizes);
    w.member("strides", v.strides);
    w.member("dtype", dtype_name(v.dtype));
    if (static_cast<size_t>(id) < r.layout.diverges.size() && r.layout.diverges[id])
      w.member("runtime_strides", r.layout.runtime.at(id));
    w.end_object();
  };
  w.begin_object();
  w.member("index", i);
  w.member("op", op.full_name());
  w.member("class", op_class_name(op_class(op)));
  w.key("source");
  w.begin_object();
  w.member("file", op.loc.file.str());
  w.member("line", op.loc.line);
  w.member("code", op.loc.code.str());
  w.end_object();
  w.member("module", op.module.str());
  w.member("module_class", op.module_type.str());
  w.key("inputs");
  w.begin_array();
  op.for_each_tensor_input(write_value);
  w.end_array();
  w.key("outputs");
  w.begin_array();
  for (int v : op.outputs)
    if (v >= 0) write_value(v);
  w.end_array();
  w.key("args");
  w.begin_array();
  for (const Arg& a : op.args) write_arg(w, g, a);
  w.end_array();
  w.key("launches");
  w.begin_object();
  w.member("known", l.known);
  w.member("rule", l.rule.str());
  w.member("key", l.key.str());
  w.member("fitting_rule", l.fitting_rule.str());
  if (!l.cudnn.empty()) w.member("cudnn", l.cudnn.str());  // only where the rule read cuDNN's answer
  w.member("kernel_names", r.explain[i].kernel_names);
  // Only where the op's values decide part of its count (the rule's words for that part).
  if (!r.explain[i].data_dependent.empty()) w.member("data_dependent", std::string(r.explain[i].data_dependent));
  if (l.known) {
    w.member("kernels", l.counts.kernels);
    w.member("memcpy", l.counts.memcpy);
    w.member("memset", l.counts.memset);
    w.member("host_syncs", l.counts.host_syncs);
  } else {
    // The order reports have always had for an op without a rule.
    for (const char* name : {"host_syncs", "memset", "memcpy", "kernels"}) {
      w.key(name);
      w.null();
    }
  }
  w.end_object();
  w.key("hbm");
  write_traffic(w, r.traffic[i]);
  w.key("dram");
  w.begin_object();
  w.member("read_bytes", r.dram[i].read_bytes);
  w.member("write_bytes", r.dram[i].write_bytes);
  w.end_object();
  w.member("flops", r.traffic[i].flops);
  w.member("time_floor_s", r.time[i].floor_s());
  w.member("memory_bound", r.time[i].memory_bound());
  w.member("bound", r.time[i].bound());
  if (op.repeat > 1) w.member("repeat", op.repeat);  // its counts are for every run
  w.member("fusion_group", r.fusion.group_of[i]);
  w.member("fusion_group_reduction", r.fusion_reduction.group_of[i]);
  if (!r.pointwise.group_of.empty()) w.member("pointwise_fusion_group", r.pointwise.group_of[i]);  // --fusion inductor
  if (!r.fusion.lowering.empty()) w.member("inductor", r.fusion.lowering[i]);                      // --fusion inductor
  w.end_object();
}

}  // namespace

void render_json(std::ostream& os, const Graph& g, const Report& r, const RenderOptions& o) {
  JsonWriter w(os);
  w.begin_object();
  w.member("schema", "kernelcount.report/1");
  w.member("kernelcount_version", o.version);
  w.member("model", json{{"path", g.info.path},
                         {"format", g.info.format},
                         {"producer", g.info.producer_version},
                         {"notes", g.info.notes}});
  const Target& t = *r.target;
  w.member("target", json{{"name", t.name},
                          {"torch_version", t.torch_version},
                          {"gpu", t.gpu},
                          {"arch", t.arch},
                          {"hbm_bytes_per_s", t.hbm_bytes_per_s},
                          {"matmul_bf16_flops_per_s", t.matmul_bf16_flops_per_s},
                          {"matmul_fp32_flops_per_s", t.matmul_fp32_flops_per_s},
                          {"vector_flops_per_s", t.vector_flops_per_s},
                          {"launch_s", t.launch_s}});
  // Views the GPU cannot take (the layout pass's): empty for a program that runs there.
  w.key("gpu_failures");
  w.begin_array();
  for (const FailingView& f : r.layout.failing_views) {
    w.begin_object();
    w.member("op", f.op);
    w.member("input_sizes", f.sizes);
    w.member("runtime_strides", f.strides);
    w.member("why", failing_view_reason(g, f));
    w.end_object();
  }
  w.end_array();
  w.key("ops");
  w.begin_array();
  for (size_t i = 0; i < g.ops.size(); ++i) write_op(w, g, r, i);
  w.end_array();
  w.key("fusion");
  w.begin_array();
  write_plan(w, r.fusion);
  write_plan(w, r.fusion_reduction);
  const bool compiled = compiled_view(r);
  if (compiled) write_plan(w, r.pointwise);  // the greedy plan beside Inductor's
  w.end_array();
  if (compiled) {
    w.key("more_than_eager");
    w.begin_array();
    for (const KernelIncrease& k : r.more_than_eager) {
      w.begin_object();
      w.member("group", k.group);
      w.member("op", k.op);
      w.member("eager_kernels", k.eager_kernels);
      w.member("compiled_kernels", k.compiled_kernels);
      w.member("why", k.why);
      w.end_object();
    }
    w.end_array();
  }
  w.key("by_line");
  write_rollup(w, r.by_line, RollupKey::kLine, compiled);
  w.key("by_module");
  write_rollup(w, r.by_module, RollupKey::kModule, compiled);
  w.key("by_op_type");
  write_rollup(w, r.by_op_type, RollupKey::kOpType, compiled);
  w.key("module_tree");
  write_tree(w, r.module_tree, compiled);
  const Totals& s = r.totals;
  json totals = json::object();
  for (const auto& [key, value] : s.counts()) totals[key] = value;
  totals["eager_time_floor_s"] = s.eager_time_floor_s;
  totals["fused_time_floor_s"] = s.fused_time_floor_s;
  if (compiled) {
    totals["pointwise_fused_kernels"] = s.pointwise_kernels;
    totals["fused_kernels_low"] = s.inductor_kernels_low;
    totals["fused_kernels_high"] = s.inductor_kernels_high;
    totals["pointwise_fused_hbm_transfers"] = s.pointwise_hbm_transfers;
    totals["pointwise_fused_hbm_bytes"] = s.pointwise_hbm_bytes;
    totals["pointwise_fused_time_floor_s"] = s.pointwise_time_floor_s;
  }
  w.member("totals", totals);
  w.member("budgets", budgets_json(o.budgets));
  if (o.baseline) {
    json totals = json::object();
    for (const Delta& d : o.baseline->totals) totals[d.name] = {{"before", d.before}, {"after", d.after}};
    auto deltas = [](const std::vector<Delta>& v) {
      json a = json::array();
      for (const Delta& d : v) a.push_back({{"module", d.name}, {"before", d.before}, {"after", d.after}});
      return a;
    };
    w.member("baseline", json{{"path", o.baseline->baseline_path},
                              {"totals", totals},
                              {"module_kernels", deltas(o.baseline->module_kernels)},
                              {"module_bytes", deltas(o.baseline->module_bytes)},
                              {"warnings", o.baseline->warnings},
                              {"op_types", entry_deltas_json(o.baseline->op_types, "op_type")},
                              {"module_tree", entry_deltas_json(o.baseline->module_tree, "module")},
                              {"lines", entry_deltas_json(o.baseline->lines, "line")}});
  }
  w.end_object();
  w.flush();
  os << '\n';
}

}  // namespace kc
