// Shape ops, copies, conversions and host reads on the H200: what moves data and what is only metadata.
#include "passes/targets/h200/rules.h"

namespace kc::h200 {
namespace {

// reshape/flatten/contiguous: free when the result can be a view, else one copy kernel.
Counts reshape_counts(const OpFacts& f) {
  const Value* in = f.input(0);
  const Value* out = f.output(0);
  if (!in || !out) return {};
  bool copies = !view_is_possible(in->sizes, in->strides, out->sizes);
  return {copies ? 1 : 0, 0, 0, 0};
}
Counts contiguous_counts(const OpFacts& f) {
  const Value* in = f.input(0);
  return {in && !in->contiguous() ? 1 : 0, 0, 0, 0};
}
// to/_to_copy: a new dtype is a conversion kernel; the same dtype is a copy, or nothing for
// aten::to, which returns its input unchanged.
Counts to_counts(const OpFacts& f) {
  const Value* in = f.input(0);
  const Value* out = f.output(0);
  if (!in || !out) return {};
  if (in->dtype != out->dtype) return {1, 0, 0, 0};
  if (f.op->name == "aten::to") return {};
  return clone_counts(f);
}
// A result on the host read from the device: cudaMemcpy device-to-host, and the host waits.
bool to_host(const OpFacts& f) {
  const Value* out = f.output(0);
  return out && out->placement == Placement::kHost && !f.on_host;
}
// cat of one tensor is a copy of it into its own memory format (cat_meta's
// compute_output_memory_format): a memcpy when it is dense in that format (contiguous, or
// channels_last at run time), else a copy kernel.
Counts cat_counts(const OpFacts& f) {
  const Arg* ts = f.arg("tensors");
  if (ts && ts->tensors.size() == 1) {
    const Value* in = f.input(0);
    return in && dense_in_memory_format(*in) ? Counts{0, 1, 0, 0} : Counts{1, 0, 0, 0};
  }
  return {1, 0, 0, 0};
}
// pad with all-zero amounts is a copy of its input; any padding fills then copies.
Counts pad_counts(const OpFacts& f) {
  if (all_equal(f.arg("pad"), 0)) return clone_counts(f);
  return {2, 0, 0, 0};
}

}  // namespace

void add_copies_rules(std::vector<LaunchRule>& r) {
  r.push_back({"metadata", ops({"aten::size", "aten::sym_size", "aten::dim", "aten::numel", "aten::stride",
                                "aten::sym_numel", "aten::sym_stride", "aten::is_contiguous",
                                "aten::_assert_tensor_metadata", "aten::detach", "aten::alias",
                                "aten::lift_fresh"}), {}, "always", nullptr, {}, nullptr,
               "truth:view_reshape_float32, test:traced_shape_arith (aten::size), corpus:swin_t (alias)",
               "It only reads or relabels a tensor's shape, strides or identity, which the host already knows: no kernel."});
  r.push_back({"reshape", ops({"aten::reshape", "aten::flatten", "aten::view_as", "aten::reshape_as", "aten::unflatten"}), {}, "copies only when no view fits the strides", nullptr, {}, reshape_counts,
               "truth:view_reshape_float32, truth:contiguous_T_float32",
               "A reshape is a view (no kernel) when the strides allow it; otherwise it copies the data into a new array with one copy kernel."});
  r.push_back({"contiguous", ops({"aten::contiguous"}), {}, "copies only a non-contiguous input", nullptr, {},
               contiguous_counts, "truth:contiguous_T_float32",
               "A contiguous input is returned as it is; a non-contiguous one (a transpose, a permute) is copied into a new row-major array by one copy kernel."});
  r.push_back({"clone", ops({"aten::clone", "aten::lift_fresh_copy"}), {}, "memcpy for a contiguous input, else a copy kernel", nullptr, {},
               clone_counts, "truth:relu_inplace (clone half), truth:contiguous_T_float32, corpus:swin_t (lift_fresh_copy)",
               "A clone of a contiguous tensor is one device-to-device memcpy; of a strided one, one copy kernel."});
  r.push_back({"to.host", ops({"aten::to", "aten::_to_copy", "aten::cpu"}), {},
               "the result is on the CPU: device-to-host copy and a wait",
               to_host,
               {0, 1, 0, 1}, nullptr, "truth:to_cpu",
               "Moving a result to the CPU is a device-to-host memcpy, and the host waits for the GPU to finish before it can read it."});
  r.push_back({"to", ops({"aten::to", "aten::_to_copy", "aten::type_as"}), {},
               "dtype change: one conversion kernel; same dtype: copy or nothing", nullptr, {}, to_counts,
               "truth:to_half_float32, truth:to_half_bfloat16",
               "A dtype conversion reads every element and writes it in the new type: one kernel; the same dtype launches nothing."});
  r.push_back({"item", ops({"aten::item", "aten::_local_scalar_dense", "aten::Int", "aten::Float", "aten::Bool",
                            "aten::ScalarImplicit"}), {}, "a GPU value read by the host: device-to-host copy and a wait", nullptr, {0, 1, 0, 1}, nullptr,
               "truth:item, test:traced_shape_arith (aten::Int of a traced x.size(1) // 4)",
               "The host asks for a value that lives on the GPU: a device-to-host memcpy of one element, and the host waits (a sync) for every kernel queued before it."});
  r.push_back({"cat", ops({"aten::cat", "aten::concat", "aten::concatenate", "aten::stack"}), {},
               "one kernel; one tensor alone is a copy", nullptr, {}, cat_counts,
               "truth:cat_float32, truth:cat_bfloat16, corpus:densenet121",
               "Concatenation copies every input into the output with one batched-copy kernel."});
  r.push_back({"pad", ops({"aten::pad", "aten::constant_pad_nd"}), {}, "fill then copy; zero padding is a copy",
               nullptr, {}, pad_counts, "truth:pad, corpus:swin_t",
               "Padding fills the output with the pad value, then copies the input into it: two kernels; a pad that adds nothing is one copy."});
  r.push_back({"roll", ops({"aten::roll"}), {}, "always", nullptr, {2, 0, 0, 0}, nullptr, "corpus:swin_t",
               "Rolling over two dims runs one roll kernel per dim."});
}

}  // namespace kc::h200
