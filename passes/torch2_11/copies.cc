// Shape ops, copies, conversions and host reads on the H200: what moves data and what is only metadata.
#include <algorithm>
#include <cstdlib>

#include "analyzer/tensor_geometry.h"
#include "passes/layout.h"
#include "passes/torch2_11/rules.h"

namespace kc::torch2_11 {
namespace {

// reshape/flatten/contiguous: free when the result can be a view, else one copy kernel.
Counts reshape_counts(const OpFacts& f) {
  const Value* in = f.input(0);
  const Value* out = f.output(0);
  if (!in || !out) return {};
  bool copies = !view_is_possible(in->sizes, in->strides, out->sizes);
  return {copies ? 1 : 0, 0, 0, 0};
}
// The layout a memory_format argument asks for, in the export schema's numbering: 1 contiguous,
// 2 channels last, 3 channels last 3d, 4 preserve (also where it is absent or None).
int64_t requested_format(const OpFacts& f) {
  const Arg* m = f.arg("memory_format");
  if (m && m->kind == Arg::Kind::kMemoryFormat) return std::atoll(m->text.c_str());
  if (m && m->kind == Arg::Kind::kInt && !m->ints.empty() && (m->ints[0] == 2 || m->ints[0] == 3)) return m->ints[0];
  return 4;
}
// contiguous(memory_format=channels_last[_3d]) copies unless the input is already dense in
// that order (C fastest, then W, H, (D), N; size-1 dims free).
bool channels_last_request(const OpFacts& f, size_t rank) {
  const int64_t format = requested_format(f);
  return (format == 2 && rank == 4) || (format == 3 && rank == 5);
}
Counts contiguous_counts(const OpFacts& f) {
  const Value* in = f.input(0);
  if (!in || in->numel() == 0) return {};
  if (channels_last_request(f, in->sizes.size()) && in->strides.size() == in->sizes.size())
    return {channels_last_dense(in->sizes, in->strides) ? 0 : 1, 0, 0, 0};
  return {!in->contiguous() ? 1 : 0, 0, 0, 0};
}
// A copy between the host and the device: one cudaMemcpyAsync, and unless the copy is
// non_blocking, a wait for the stream (copy_kernel_cuda's memcpy_and_sync) in either direction.
Counts host_device_copy(bool non_blocking) {
  return {0, 1, 0, non_blocking ? 0 : 1};
}
// A tensor of rank 1 or more whose strides the graph records.
bool has_strides(const Value& v) {
  return !v.sizes.empty() && v.strides.size() == v.sizes.size();
}
// Whether a copy in `format` leaves `in`'s layout as it is: preserve keeps the strides of a
// non-overlapping and dense tensor (empty_like), the others ask for their own order.
bool laid_out_as(const Value& in, int64_t format) {
  if (!has_strides(in)) return in.contiguous();
  const size_t rank = in.sizes.size();
  if (format == 1) return in.contiguous();
  if ((format == 2 && rank == 4) || (format == 3 && rank == 5)) return channels_last_dense(in.sizes, in.strides);
  if (format == 2 || format == 3) return in.contiguous();
  return dense_in_stride_order(in.sizes, in.strides);
}
// clone, and _to_copy of the same dtype: a new tensor in the requested layout, filled by one
// cudaMemcpyAsync where the input is laid out so already (copy_ sees two dense tensors of one
// order), else by one copy kernel.
Counts copy_as_requested(const OpFacts& f) {
  const Value* in = f.input(0);
  if (!in) return {1, 0, 0, 0};
  return laid_out_as(*in, requested_format(f)) ? Counts{0, 1, 0, 0} : Counts{1, 0, 0, 0};
}
// to/_to_copy: a new dtype is a conversion kernel; the same dtype is a copy, or nothing for
// aten::to, which returns its input unchanged.
Counts to_counts(const OpFacts& f) {
  const Value* in = f.input(0);
  const Value* out = f.output(0);
  if (!in || !out) return {};
  // A host tensor moved to the device: converted on the host, then one host-to-device copy.
  if (in->placement == Placement::kHost && out->placement == Placement::kDevice)
    return host_device_copy(f.bool_arg("non_blocking", false));
  if (in->dtype != out->dtype) return {1, 0, 0, 0};
  // aten::to and type_as (to(other.dtype())) return their input where to_will_alias holds: no
  // copy=True, and no memory_format or the one the input suggests (a transposed 2-D tensor asked
  // for contiguous suggests contiguous, and is returned as it is); otherwise one copy kernel into
  // that layout.
  if (f.op->name == "aten::to" || f.op->name == "aten::type_as") {
    if (f.bool_arg("copy", false)) return copy_as_requested(f);
    const int64_t format = requested_format(f);
    const size_t rank = in->sizes.size();
    const bool cl = has_strides(*in) && (rank == 4 || rank == 5) && channels_last_strides(in->sizes, in->strides);
    const int64_t suggested = cl ? (rank == 4 ? 2 : 3) : 1;
    if (in->numel() == 0 || format == 4 || format == suggested) return {};
    return {1, 0, 0, 0};
  }
  return copy_as_requested(f);
}
// A result on the host read from the device: cudaMemcpy device-to-host, and the host waits.
bool to_host(const OpFacts& f) {
  const Value* out = f.output(0);
  return out && out->placement == Placement::kHost && !f.on_host;
}
// One copy_ of `src` into a slice of `dst` shaped like src: cudaMemcpyAsync when both are dense
// with the same strides and dtype (ATen's copy_impl), else one copy kernel.
Counts copy_into(const Value& src, const std::vector<int64_t>& dst_strides, DType dst_dtype) {
  const bool memcpy = src.dtype == dst_dtype && src.contiguous() && src.strides == dst_strides;
  return memcpy ? Counts{0, 1, 0, 0} : Counts{1, 0, 0, 0};
}
// cat, cat_out_cuda: more than one input (empty ones count: a legacy [0] beside 2-D inputs too), a
// result of rank <= 4 (CAT_ARRAY_MAX_INPUT_DIMS) and one dtype: batched kernels, one per batch of
// 128 inputs (64 when an input is strided), from the first batch holding a non-empty input on
// (parallel_cat skips all-empty batches only until it has launched once). Otherwise each
// non-empty input is copied into its slice of the contiguous result: a memcpy where that slice is
// itself dense (the cat dim is the outermost non-1 dim, or one input spans it), else a copy
// kernel. An empty result launches nothing. stack is a cat of its inputs along `dim` viewed to the stacked
// shape, except at the new last dim, where it is a cat of the inputs unsqueezed there (rank + 1).
Counts cat_counts(const OpFacts& f) {
  const Arg* ts = f.arg("tensors");
  const Value* out = f.output(0);
  if (!ts || !out || out->sizes.empty()) return {1, 0, 0, 0};
  if (out->numel() == 0) return {};
  const bool stack = f.op->name == "aten::stack";
  std::vector<const Value*> ins;
  bool same_dtype = true, all_contiguous = true;
  int64_t count = 0, first_nonempty = -1;
  for (int v : ts->tensors) {
    if (v < 0) continue;
    const Value& t = f.graph->values[v];
    same_dtype &= t.dtype == out->dtype;
    if (t.numel() > 0) {
      if (first_nonempty < 0) first_nonempty = count;
      ins.push_back(&t);
      all_contiguous &= t.contiguous();
    }
    ++count;
  }
  const int64_t rank = static_cast<int64_t>(out->sizes.size());
  int64_t dim = f.int_arg("dim", 0);
  if (dim < 0) dim += rank;
  if (dim < 0 || dim >= rank) return {1, 0, 0, 0};
  const int64_t cat_rank = stack && dim < rank - 1 ? rank - 1 : rank;
  if (count > 1 && cat_rank <= 4 && same_dtype) {
    const int64_t batch = all_contiguous ? 128 : 64;
    return {static_cast<int>((count + batch - 1) / batch - first_nonempty / batch), 0, 0, 0};
  }
  // The slice of the result along `dim` is dense when every dim before it has size 1.
  bool slice_dense = true;
  for (int64_t d = 0; d < dim; ++d) slice_dense &= out->sizes[d] == 1;
  Counts c;
  for (const Value* t : ins) {
    const bool spans = ins.size() == 1;
    // One input alone keeps its memory format (a channels_last tensor stays one dense block).
    const bool dense = spans ? dense_in_memory_format(*t) : t->contiguous();
    c += (slice_dense || spans) && dense && t->dtype == out->dtype ? Counts{0, 1, 0, 0} : Counts{1, 0, 0, 0};
  }
  return c;
}
// The value a chain of views and in-place ops starts from, with the view steps taken (op and
// literal arguments), so that two values can be recognised as the same region of one tensor.
std::pair<int, std::string> view_path(const Graph& g, int v) {
  std::string path;
  for (int guard = 0; guard < 64; ++guard) {
    const int p = g.values[v].producer;
    if (p < 0) break;
    const Op& op = g.ops[p];
    if (!op.traits.view && !op.traits.inplace) break;
    int base = -1;
    for (const Arg& a : op.args)
      if (a.kind == Arg::Kind::kTensor && !a.tensors.empty()) {
        base = a.tensors[0];
        break;
      }
    if (base < 0) break;
    if (op.traits.view) {
      std::string step = op.full_name() + "(";
      for (const Arg& a : op.args)
        if (a.kind != Arg::Kind::kTensor && a.kind != Arg::Kind::kTensorList)
          for (int64_t x : a.ints) step += std::to_string(x) + ",";
      path = step + ")" + path;
    }
    v = base;
  }
  return {v, path};
}
// copy_(self, src): nothing when src is self's own region (copy_impl returns early for views
// of the same data: x[s] += y re-assigns the slice it updated in place); a memcpy between dense
// tensors of one dtype and layout; a host source is one host-to-device copy (and a wait); else a
// kernel.
Counts copy_counts(const OpFacts& f) {
  const Value* self = f.input(0);
  const Value* src = f.input(1);
  if (!self || !src) return {1, 0, 0, 0};
  if (self->numel() == 0) return {};
  if (f.inputs[0] == f.inputs[1] ||
      (self->sizes == src->sizes && self->strides == src->strides && self->dtype == src->dtype &&
       view_path(*f.graph, f.inputs[0]) == view_path(*f.graph, f.inputs[1])))
    return {};
  if (src->placement != self->placement) return host_device_copy(f.bool_arg("non_blocking", false));
  return copy_into(*src, self->strides, self->dtype);
}
// roll over several dims rolls the first dim, then the result over the rest (roll_common).
Counts roll_counts(const OpFacts& f) {
  if (f.out_numel == 0) return {};
  const Arg* dims = f.arg("dims");
  const size_t n = dims ? dims->ints.size() : 0;
  return {static_cast<int>(std::max<size_t>(n, 1)), 0, 0, 0};
}
// repeat: an expanded view copied into the result; repeating nothing is a plain copy.
Counts repeat_counts(const OpFacts& f) {
  if (all_equal(f.arg("repeats"), 1)) return clone_counts(f);
  return {1, 0, 0, 0};
}
std::string pad_mode(const OpFacts& f) {
  return f.text_arg("mode", "constant");
}
// Circular padding copies each wrapped border separately (2-7 kernels in the sweep): not predicted.
bool pad_known(const OpFacts& f) {
  return pad_mode(f) != "circular";
}
// pad with all-zero amounts is a copy of its input. Constant padding fills the result, then
// copies the input into it; amounts that only crop (all <= 0) are a narrowed view cloned.
// Reflect and replicate write every output element in one kernel.
// constant_pad_nd (PadNd.cpp) with no positive amount returns c_input.clone(): the input narrowed
// by the negative amounts (its own strides over the result's sizes). clone keeps a
// non-overlapping, dense view's strides and copies it as one block, a memcpy; any other view
// takes a copy kernel.
Counts cropped_clone_counts(const Value& in, const Value& out) {
  if (!has_strides(in) || in.sizes.size() != out.sizes.size())
    return in.contiguous() ? Counts{0, 1, 0, 0} : Counts{1, 0, 0, 0};
  Value view = in;
  view.sizes = out.sizes;
  if (view.numel() == 0) return {};
  return view.contiguous() || dense_in_stride_order(view.sizes, view.strides) ? Counts{0, 1, 0, 0} : Counts{1, 0, 0, 0};
}
Counts pad_counts(const OpFacts& f) {
  const Arg* pad = f.arg("pad");
  const Value* in = f.input(0);
  const Value* out = f.output(0);
  if (all_equal(pad, 0)) {
    // constant_pad_nd with nothing to pad returns input.clone(), which keeps the input's layout:
    // a dense tensor (row-major or channels last) is copied as one block, a memcpy.
    if (in && has_strides(*in) && dense_in_memory_format(*in)) return {0, 1, 0, 0};
    return clone_counts(f);
  }
  if (pad_mode(f) != "constant") return {1, 0, 0, 0};
  bool grows = false, crops = false;
  if (pad)
    for (int64_t x : pad->ints) {
      grows |= x > 0;
      crops |= x < 0;
    }
  if (!grows) return in && out ? cropped_clone_counts(*in, *out) : Counts{1, 0, 0, 0};
  // The result is filled; copying an input of no elements into it launches nothing.
  if (in && in->numel() == 0) return {1, 0, 0, 0};
  // The input is copied into the interior of the filled result: a memcpy when that view, with
  // the result's strides, is contiguous once its size-1 dims are dropped (copy_'s TensorIterator
  // coalesces them), as for a row padded inside a batch of one.
  if (!crops && in && out && in->contiguous() && in->dtype == out->dtype && in->sizes.size() == out->strides.size()) {
    if (row_major_dense(in->sizes, out->strides)) return {1, 1, 0, 0};
  }
  return {2, 0, 0, 0};
}

}  // namespace

void add_copies_rules(std::vector<LaunchRule>& r) {
  r.push_back(rule("metadata")
                  .ops({"aten::size", "aten::sym_size", "aten::dim", "aten::numel", "aten::stride", "aten::sym_numel",
                        "aten::sym_stride", "aten::is_contiguous", "aten::_assert_tensor_metadata", "aten::detach",
                        "aten::alias", "aten::lift_fresh", "aten::detach_", "aten::_shape_as_tensor"})
                  .when("always")
                  .counts({0, 0, 0, 0})
                  .evidence("truth:view_reshape_float32, test:traced_shape_arith (aten::size), corpus:swin_t (alias), "
                            "detection:* (_shape_as_tensor: a host tensor of the sizes, 202 of 202)")
                  .why("It only reads or relabels a tensor's shape, strides or identity, which the host already knows: "
                       "no kernel."));
  r.push_back(rule("meshgrid")
                  .ops({"aten::meshgrid"})
                  .when("always: each output is an expanded view of one input")
                  .counts({0, 0, 0, 0})
                  .evidence("fresh:data2vec-vision (meshgrid of two int64[14]: 0 kernels)")
                  .why("meshgrid reshapes and broadcasts each input as a view: no kernel."));
  r.push_back(rule("reshape")
                  .ops({"aten::reshape", "aten::flatten", "aten::view_as", "aten::reshape_as", "aten::unflatten"})
                  .when("copies only when no view fits the strides")
                  .compute(reshape_counts)
                  .evidence("truth:view_reshape_float32, truth:contiguous_T_float32")
                  .why("A reshape is a view (no kernel) when the strides allow it; otherwise it copies the data into a "
                       "new array with one copy kernel."));
  r.push_back(rule("contiguous")
                  .ops({"aten::contiguous"})
                  .when("copies only a non-contiguous input (or, for memory_format=channels_last, an input not dense "
                        "in channels-last order)")
                  .compute(contiguous_counts)
                  .evidence("truth:contiguous_T_float32, opset:channels_last")
                  .why("A contiguous input is returned as it is; a non-contiguous one (a transpose, a permute) is "
                       "copied into a new row-major array by one copy kernel."));
  r.push_back(
      rule("clone")
          .ops({"aten::clone", "aten::lift_fresh_copy"})
          .when("memcpy for an input already laid out as memory_format asks (preserve, the default: dense in any "
                "order), else a copy kernel")
          .compute(copy_as_requested)
          .evidence("truth:relu_inplace (clone half), truth:contiguous_T_float32, corpus:swin_t (lift_fresh_copy), "
                    "opinfo_reference: clone of a dense transposed [6, 5, 3] and channels_last clone of a "
                    "channels-last [2, 2, 2, 2] (1 memcpy each)")
          .why("A clone of a tensor it keeps the layout of is one device-to-device memcpy; one it lays out anew (a "
               "strided input, or another memory_format), one copy kernel."));
  r.push_back(rule("to.host")
                  .ops({"aten::to", "aten::_to_copy", "aten::cpu"})
                  .when("the result is on the CPU: device-to-host copy and a wait", to_host)
                  .counts({0, 1, 0, 1})
                  .evidence("truth:to_cpu")
                  .why("Moving a result to the CPU is a device-to-host memcpy, and the host waits for the GPU to "
                       "finish before it can read it."));
  r.push_back(
      rule("to")
          .ops({"aten::to", "aten::_to_copy", "aten::type_as"})
          .when(
              "host tensor to the device: one host-to-device copy (converted on the host) and, unless non_blocking, a "
              "host sync; dtype change: one conversion kernel; same dtype: nothing for to/type_as (a copy kernel "
              "into another memory format), a copy for _to_copy")
          .compute(to_counts)
          .evidence("truth:to_half_float32, truth:to_half_bfloat16, broad:convit (host to device), broad:eva, "
                    "broad:gemma2 (type_as, same dtype), broad:beit, broad:mvit, torchscript:gpt-neo, detection (a "
                    "host-to-device copy waits: cudaStreamSynchronize in every real run), opinfo_heldout: to.dtype "
                    "of the same dtype to channels_last (a copy kernel)")
          .why("A dtype conversion reads every element and writes it in the new type: one kernel; the same dtype "
               "launches nothing. A copy from the host waits for the GPU's stream before it returns."));
  r.push_back(rule("item")
                  .ops({"aten::item", "aten::_local_scalar_dense", "aten::is_nonzero", "aten::Int", "aten::Float",
                        "aten::Bool", "aten::ScalarImplicit"})
                  .when("a GPU value read by the host: device-to-host copy and a wait")
                  .counts({0, 1, 0, 1})
                  .evidence("truth:item, test:traced_shape_arith (aten::Int of a traced x.size(1) // 4), control:cond "
                            "(is_nonzero: cond's predicate)")
                  .why("The host asks for a value that lives on the GPU: a device-to-host memcpy of one element, and "
                       "the host waits (a sync) for every kernel queued before it."));
  r.push_back(
      rule("cat")
          .ops({"aten::cat", "aten::concat", "aten::concatenate", "aten::stack"})
          .when("several inputs of one dtype, cat of rank <= 4: one batched kernel (per 128 inputs); else (one input, "
                "rank 5+, stack of rank-4 inputs at the new last dim) a copy per non-empty input: a memcpy into a "
                "dense slice, else a kernel; an empty result: nothing")
          .compute(cat_counts)
          .evidence("truth:cat_float32, truth:cat_bfloat16, sweep:copy/cat, sweep:copy/stack, corpus:densenet121, "
                    "broad:s3d (5-d cat 0/4/0), broad:eva, broad:roformer, broad:gptj (last-dim 5-d stacks), "
                    "broad:skresnet (stack at dim 1: one kernel)")
          .why("A cat is one kernel that copies every input into its slice of the result; with mixed dtypes or more "
               "than four dimensions it copies each input separately (a memcpy where its slice is dense)."));
  r.push_back(
      rule("copy_")
          .ops({"aten::copy_"})
          .when("src is self's own region (same view path from one base): nothing; host source: one host-to-device "
                "copy; dense, same dtype and strides: a memcpy; else a copy kernel")
          .compute(copy_counts)
          .reads_graph()
          .evidence("broad:mvit (x[s] += y: 0), broad:mvitv2 (memcpy)")
          .why("An in-place copy: nothing when the source already is the destination's memory, a memcpy for a dense "
               "copy of the same layout or from the host (which waits for the GPU), else one copy kernel."));
  r.push_back(rule("repeat")
                  .ops({"aten::repeat"})
                  .when("one copy kernel; all repeats 1: a copy of the input")
                  .compute(repeat_counts)
                  .evidence("sweep:copy/repeat, broad:gptj, broad:xcit, broad:gcvit")
                  .why("A repeat is one kernel writing the tiled result (a plain copy when every repeat is 1)."));
  r.push_back(
      rule("tile")
          .ops({"aten::tile"})
          .when("one copy kernel of the expanded view (repeat); a result of the input's size (every dim 1): a copy of "
                "the input",
                [](const OpFacts& f) { return f.input(0) && f.output(0); })
          .compute([](const OpFacts& f) -> Counts {
            if (f.out_numel == 0) return {};
            if (f.out_numel == f.in_numel) return clone_counts(f);
            return {1, 0, 0, 0};
          })
          .evidence("opset:tile (1 kernel), opinfo: tile with dims () of a 0-d and a [2] tensor (1 memcpy)")
          .why("tile is a repeat: one kernel writing the tiled result, or a plain copy when nothing is repeated."));
  r.push_back(rule("pad")
                  .ops({"aten::pad", "aten::constant_pad_nd"})
                  .when("not circular. Zero amounts: a clone (a memcpy when the input is dense in its layout, else a "
                        "copy kernel); constant: fill then copy (the fill alone for an input of no elements); only "
                        "cropping: the narrowed input cloned (a memcpy when that view is dense, else a copy kernel); "
                        "reflect/replicate: one kernel",
                        pad_known)
                  .compute(pad_counts)
                  .evidence("truth:pad, sweep:copy/pad, corpus:swin_t, broad:davit (zero amounts), "
                            "opinfo_heldout3: constant_pad_nd and pad of a [0, 3, 3] input (the fill alone, 4 of 4)")
                  .why("Constant padding fills the result and copies the input into it (two kernels); cropping alone "
                       "is one copy of the narrowed input; reflect and replicate padding are one kernel; zero padding "
                       "is a copy."));
  r.push_back(rule("roll")
                  .ops({"aten::roll"})
                  .when("one kernel per rolled dim (roll recurses dim by dim); a flat roll: 1")
                  .compute(roll_counts)
                  .evidence("sweep:copy/roll, sweep:copy/roll2d, corpus:swin_t, broad:swin3d (3 dims: 3)")
                  .why("A roll is one gather kernel per rolled dimension."));
}

}  // namespace kc::torch2_11
