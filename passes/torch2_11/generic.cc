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
// sum and prod reduce in their result's dtype (make_reduction_from_out_ty, ReduceOps.cpp): an
// input of another dtype is converted by one copy kernel first (self.to(in_dtype)), except
// bf16/fp16 summed into float32, which the CUDA reduce kernel reads as it is. A bool or integer
// input sums into int64.
bool converting_reduction(const OpFacts& f) {
  if (f.op->name != "aten::sum" && f.op->name != "aten::prod") return false;
  const Value* x = f.input(0);
  const Value* y = f.output(0);
  if (!tagged_reduction(f) || !x || !y || x->dtype == y->dtype || x->numel() == 0) return false;
  return !(is_half(x->dtype) && y->dtype == DType::kFloat32);
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
  r.push_back(rule("view")
                  .cls(OpClass::kView)
                  .when("the schema returns an alias of an input")
                  .counts({0, 0, 0, 0})
                  .evidence("truth:view_reshape_float32, truth:view_reshape_bfloat16")
                  .why("A view only changes the shape and strides the host keeps for the same memory: no kernel, no "
                       "data moved."));
  r.push_back(
      rule("reduction.dim.scalar")
          .cls(OpClass::kReduction)
          .when("max.dim / min.dim of a 0-d tensor: the value copied (1 memcpy) and the index filled with 0 (1 kernel)",
                [](const OpFacts& f) {
                  return (f.op->name == "aten::max" || f.op->name == "aten::min") && f.op->overload == "dim" &&
                         f.input(0) && f.input(0)->sizes.empty();
                })
          .counts({1, 1, 0, 0})
          .evidence("opinfo: max.dim and min.dim of 0-d inputs (FillFunctor<long> + DtoD memcpy)")
          .why("Reducing a single value over its only position copies the value and writes index 0: a memory copy and "
               "one fill kernel."));
  r.push_back(rule("reduction.convert")
                  .ops({"aten::sum", "aten::prod"})
                  .when("the input's dtype is not the result's (bool or integer summed into int64, an explicit dtype), "
                        "bf16/fp16 into float32 aside: a conversion copy, then the reduce kernel (+ its semaphore "
                        "memset when it splits across blocks)",
                        converting_reduction)
                  .compute([](const OpFacts& f) -> Counts {
                    return {2, 0, reduction_splits(f) ? 1 : 0, 0};
                  })
                  .evidence("opinfo: masked_mean, masked_std, masked_var (sum.dim_IntList of a bool mask: "
                            "direct_copy_kernel to int64 + reduce_kernel, 10 of 10)")
                  .why("A sum whose result has another dtype than its input (a bool mask counted into int64) first "
                       "converts the input with one copy kernel, then reduces it."));
  r.push_back(
      rule("reduction.global")
          .cls(OpClass::kReduction)
          .when("libtorch tags it a reduction and ATen's reduce kernel splits each output's values across blocks: "
                "setReduceConfig for the run-time layout, at least 256 values a thread and room in the grid",
                global_reduction)
          .counts({1, 0, 1, 0})
          .evidence("sweep:reduction (538 of 538 configurations), truth:mean_all_float32, truth:mean_all_bfloat16, "
                    "truth:item, opset:sum_all, opset:max_all")
          .why("A reduction with many values per output and few outputs is one reduce kernel that splits each output's "
               "values over several blocks, which combine through global memory; it zeroes their semaphores first (one "
               "memset)."));
  r.push_back(rule("reduction")
                  .cls(OpClass::kReduction)
                  .when("libtorch tags it a reduction; otherwise", tagged_reduction)
                  .counts({1, 0, 0, 0})
                  .evidence("truth:sum_last_float32, truth:sum_last_bfloat16, truth:argmax")
                  .why("A reduction (sum, mean, max, argmax over some dims) is one reduce kernel."));
  r.push_back(rule("rrelu.train")
                  .ops({"aten::rrelu"})
                  .when("training: the noise kernel, after a copy of an input that is not contiguous",
                        [](const OpFacts& f) { return f.bool_arg("training", false) && f.in_numel > 0; })
                  .compute([](const OpFacts& f) -> Counts {
                    const Value* in = f.input(0);
                    return {in && !in->contiguous() ? 2 : 1, 0, 0, 0};
                  })
                  .evidence("opinfo_reference: rrelu with training of transposed float32 and bfloat16 inputs "
                            "(direct_copy, rrelu_with_noise_cuda_kernel)")
                  .why("In training, rrelu draws a slope per element in one kernel that reads a contiguous input: a "
                       "strided input is copied first."));
  r.push_back(rule("pointwise")
                  .cls(OpClass::kPointwise)
                  .when("libtorch tags it pointwise", tagged_pointwise)
                  .counts({1, 0, 0, 0})
                  .evidence("truth:add, truth:add_scalar, truth:gelu_*, truth:silu_*, truth:where, truth:expand_add")
                  .why("A pointwise op is one elementwise kernel: it reads each input from HBM once and writes its "
                       "output back once."));
}

}  // namespace kc::torch2_11
