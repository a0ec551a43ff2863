#include "passes/time_floor.h"

#include <algorithm>

#include "passes/op_classes.h"

namespace kc {
namespace {

double rate(const Op& op, DType dtype, const Target& t) {
  if (!on_matrix_units(op_class(op))) return t.vector_flops_per_s;
  return dtype == DType::kFloat32 || dtype == DType::kFloat64 ? t.matmul_fp32_flops_per_s : t.matmul_bf16_flops_per_s;
}

DType first_dtype(const Graph& g, const Op& op) {
  int first = -1;
  op.for_each_tensor_input([&](int v) {
    if (first < 0) first = v;
  });
  return first < 0 ? DType::kUnknown : g.values[first].dtype;
}

TimeFloor floor_of(int64_t bytes, int64_t flops, int kernels, double flop_rate, const Target& t) {
  TimeFloor f;
  f.memory_s = t.hbm_bytes_per_s > 0 ? bytes / t.hbm_bytes_per_s : 0;
  f.compute_s = flop_rate > 0 ? flops / flop_rate : 0;
  f.launch_s = kernels * t.launch_s;
  return f;
}

}  // namespace

double TimeFloor::floor_s() const {
  return std::max({memory_s, compute_s, launch_s});
}

const char* TimeFloor::bound() const {
  if (launch_s > memory_s && launch_s > compute_s) return "launch";
  return memory_bound() ? "memory" : "compute";
}

std::vector<TimeFloor> run_time_floor(const Graph& g, const std::vector<Launch>& launches,
                                      const std::vector<Traffic>& traffic, const Target& target) {
  std::vector<TimeFloor> out(g.ops.size());
  for (size_t i = 0; i < g.ops.size(); ++i) {
    const Op& op = g.ops[i];
    out[i] = floor_of(traffic[i].bytes(), traffic[i].flops, launches[i].counts.kernels,
                      rate(op, first_dtype(g, op), target), target);
  }
  return out;
}

double plan_time_floor(FusionPlan& plan, const Graph& g, const Target& target) {
  double total = 0;
  for (FusionGroup& grp : plan.groups) {
    if (grp.ops.empty()) continue;
    // A fused group computes at the rate of its heaviest member's unit.
    const Op& lead = g.ops[grp.ops.front()];
    double r = rate(lead, first_dtype(g, lead), target);
    for (int i : grp.ops) r = std::min(r, rate(g.ops[i], first_dtype(g, g.ops[i]), target));
    grp.floor_s = floor_of(grp.fused.bytes(), grp.fused.flops, grp.fused_kernels, r, target).floor_s();
    total += grp.floor_s;
  }
  return total;
}

}  // namespace kc
