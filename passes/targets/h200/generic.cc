// Rules by op class, after every explicit rule: views, reductions and tagged pointwise ops.
#include "passes/targets/h200/rules.h"

namespace kc::h200 {
namespace {

// A reduction down to one output splits the work across blocks that meet in global memory,
// whose semaphores are zeroed with a memset first. ATen's setReduceConfig (Reduce.cuh) does so
// once a thread of its 512-thread block would reduce >= 256 values: from 131072 inputs
// (opset:sum_all 32768 none, 131072 one; sweep:reduction all dims 2352 none, 302592 one).
// Only ops libtorch tags as reductions: the op class table also files ops such as kthvalue or
// histc under reductions, which their own rules cover only where measured.
bool tagged_reduction(const OpFacts& f) {
  return f.op->traits.reduction;
}
bool global_reduction(const OpFacts& f) {
  return tagged_reduction(f) && f.out_numel == 1 && f.in_numel >= 131072;
}
bool tagged_pointwise(const OpFacts& f) {
  return f.op->traits.pointwise;
}

}  // namespace

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
               "libtorch tags it a reduction; one output from at least 131072 inputs",
               global_reduction,
               {1, 0, 1, 0},
               nullptr,
               "truth:mean_all_float32, truth:mean_all_bfloat16, truth:item, opset:sum_all, opset:max_all",
               "A reduction of a large tensor to one value is one reduce kernel that splits the work over many blocks; "
               "it zeroes a semaphore buffer first (one memset)."});
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

}  // namespace kc::h200
