// Rules by op class, after every explicit rule: views, reductions and tagged pointwise ops.
#include "passes/torch2_11/reduce_config.h"
#include "passes/torch2_11/rules.h"

namespace kc::torch2_11 {
namespace {

// Only ops libtorch tags as reductions: the op class table also files ops such as kthvalue or
// histc under reductions, which their own rules cover only where measured.
bool tagged_reduction(const OpFacts& f) {
  return f.op->traits.reduction;
}
// A memset where ATen's reduce kernel splits the input across blocks: a function of the run-time
// layout, not only of the sizes (a mean over H and W splits for a channels-last tensor, not for
// an NCHW one).
bool global_reduction(const OpFacts& f) {
  return tagged_reduction(f) && reduction_splits(f);
}
bool tagged_pointwise(const OpFacts& f) {
  return f.op->traits.pointwise;
}

}  // namespace

bool reduction_splits(const OpFacts& f) {
  const Value* x = f.input(0);
  if (!x) return false;
  const Arg* a = f.arg("dim");
  const bool listed = a && (a->kind == Arg::Kind::kIntList || a->kind == Arg::Kind::kInt);
  return reduce_splits_across_blocks(f.target->device, x->sizes, x->strides, listed ? a->ints : std::vector<int64_t>{});
}

void add_generic_rules(std::vector<LaunchRule>& r) {
  // Classes by libtorch's own tags, after every explicit rule.
  r.push_back(
      {"view",
       {},
       OpClass::kView,
       "the schema returns an alias of an input",
       nullptr,
       {0, 0, 0, 0},
       nullptr,
       "truth:view_reshape_float32, truth:view_reshape_bfloat16",
       "A view only changes the shape and strides the host keeps for the same memory: no kernel, no data moved."});
  r.push_back({"reduction.global",
               {},
               OpClass::kReduction,
               "libtorch tags it a reduction and ATen's reduce kernel splits each output's values across blocks: "
               "setReduceConfig for the run-time layout, at least 256 values a thread and room in the grid",
               global_reduction,
               {1, 0, 1, 0},
               nullptr,
               "sweep:reduction (538 of 538 configurations), truth:mean_all_float32, truth:mean_all_bfloat16, "
               "truth:item, opset:sum_all, opset:max_all",
               "A reduction with many values per output and few outputs is one reduce kernel that splits each output's "
               "values over several blocks, which combine through global memory; it zeroes their semaphores first "
               "(one memset)."});
  r.push_back({"reduction",
               {},
               OpClass::kReduction,
               "libtorch tags it a reduction; otherwise",
               tagged_reduction,
               {1, 0, 0, 0},
               nullptr,
               "truth:sum_last_float32, truth:sum_last_bfloat16, truth:argmax",
               "A reduction (sum, mean, max, argmax over some dims) is one reduce kernel."});
  r.push_back(
      {"pointwise",
       {},
       OpClass::kPointwise,
       "libtorch tags it pointwise",
       tagged_pointwise,
       {1, 0, 0, 0},
       nullptr,
       "truth:add, truth:add_scalar, truth:gelu_*, truth:silu_*, truth:where, truth:expand_add",
       "A pointwise op is one elementwise kernel: it reads each input from HBM once and writes its output back once."});
}

}  // namespace kc::torch2_11
