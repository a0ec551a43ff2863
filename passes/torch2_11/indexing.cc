// Gathers, scatters and selections on the H200.
#include <algorithm>

#include "analyzer/tensor_geometry.h"
#include "passes/torch2_11/rules.h"

namespace kc::torch2_11 {
namespace {

// The strides expand() gives t at `shape` (inferExpandGeometry): a broadcast dimension gets
// stride 0, a new leading one of size 1 the stride it would have if contiguous over the rest.
std::vector<int64_t> expanded_strides(const Value& t, const std::vector<int64_t>& shape) {
  std::vector<int64_t> out(shape.size(), 0);
  const int64_t lead = static_cast<int64_t>(shape.size()) - static_cast<int64_t>(t.sizes.size());
  for (int64_t i = static_cast<int64_t>(shape.size()) - 1; i >= 0; --i) {
    const int64_t d = i - lead;
    int64_t size = d >= 0 ? t.sizes[d] : 1;
    int64_t stride =
        d >= 0 ? t.strides[d] : (i + 1 < static_cast<int64_t>(shape.size()) ? shape[i + 1] * out[i + 1] : 1);
    if (size != shape[i]) stride = 0;
    out[i] = stride;
  }
  return out;
}
bool dense_at(const std::vector<int64_t>& sizes, const std::vector<int64_t>& strides) {
  int64_t expected = 1;
  for (int64_t i = static_cast<int64_t>(sizes.size()) - 1; i >= 0; --i) {
    if (sizes[i] == 0) return true;
    if (sizes[i] == 1) continue;
    if (strides[i] != expected) return false;
    expected *= sizes[i];
  }
  return true;
}

// index (AdvancedIndex in TensorAdvancedIndexing.cpp): index tensors on the host are first
// copied to the device, one host-to-device memcpy and a wait each (make_info moves them to self's
// device with a blocking copy).
// A boolean (mask) index is first turned into integer indices by nonzero, which reads the count
// back to the host (nonzero_launches). The index tensors are expanded to their broadcast shape;
// on CUDA, when two or more of them then differ in strides, each is made contiguous, a copy
// kernel for every one that is an expanded (or otherwise non-contiguous) view. One gather.
Counts index_counts(const OpFacts& f) {
  const Arg* idx = f.arg("indices");
  const Value* self = f.input(0);
  Counts c{1, 0, 0, 0};
  std::vector<const Value*> ints;
  if (idx)
    for (int v : idx->tensors) {
      if (v < 0) continue;
      const Value& t = f.graph->values[v];
      if (t.dtype == DType::kBool || t.dtype == DType::kUInt8) {
        const Counts nz = nonzero_launches(t);
        c.kernels += nz.kernels;
        c.memcpy += nz.memcpy;
        c.host_syncs += nz.host_syncs;
        continue;  // its coordinates: columns of one (rank, n) tensor, of equal strides
      }
      ints.push_back(&t);
      // Host indices are moved to the device (.to(self.device())): a copy that waits for the stream.
      if (self && self->placement == Placement::kDevice && t.placement == Placement::kHost && t.numel() > 0) {
        ++c.memcpy;
        ++c.host_syncs;
      }
    }
  if (ints.size() >= 2) {
    std::vector<int64_t> shape;
    for (const Value* t : ints) {
      if (t->sizes.size() > shape.size()) shape.insert(shape.begin(), t->sizes.size() - shape.size(), 1);
      for (size_t i = 0; i < t->sizes.size(); ++i) {
        int64_t& s = shape[shape.size() - t->sizes.size() + i];
        if (s == 1) s = t->sizes[i];
      }
    }
    std::vector<std::vector<int64_t>> strides;
    for (const Value* t : ints) strides.push_back(expanded_strides(*t, shape));
    bool match = true;
    for (const auto& s : strides) match &= s == strides[0];
    if (!match)
      for (const auto& s : strides) c.kernels += dense_at(shape, s) ? 0 : 1;
  }
  return c;
}
// embedding flattens its indices (indices.reshape(-1)): expanded (stride-0) indices, which no
// view can flatten, are copied first.
Counts embedding_counts(const OpFacts& f) {
  const Value* idx = f.tensor_arg("indices");
  const bool copy = idx && idx->numel() > 0 && !view_is_possible(idx->sizes, idx->strides, {idx->numel()});
  return {copy ? 2 : 1, 0, 0, 0};
}
// where with Python scalars: each scalar becomes a 0-d device tensor filled by a kernel, then
// the where kernel (ScalarOther/ScalarSelf 2, Scalar 3).
bool where_scalar(const OpFacts& f) {
  const std::string& o = f.op->overload;
  return o == "ScalarOther" || o == "ScalarSelf" || o == "Scalar";
}
// TensorCompare.cpp's where for a Python number: at::scalar_tensor of each number in the
// promoted dtype (a fill), the tensor operand .to() that dtype (a copy where it differs: a float
// tensor beside a complex number), then where itself.
Counts where_scalar_counts(const OpFacts& f) {
  if (f.out_numel == 0) return {};
  const std::string& o = f.op->overload;
  if (o == "Scalar") return {3, 0, 0, 0};
  const Value* tensor = f.tensor_arg(o == "ScalarSelf" ? "other" : "self");
  const Value* out = f.output(0);
  const bool cast = tensor && out && tensor->dtype != out->dtype;
  return {2 + (cast ? 1 : 0), 0, 0, 0};
}
// im2col / col2im (Im2Col.cu, Col2Im.cu): a non-contiguous input is made contiguous; im2col
// runs one kernel per batch element, col2im one batched kernel. The result is resized from
// empty_like(input): growing past the input's storage copies it over (one memcpy).
bool unfold_fold_shapes(const OpFacts& f) {
  const Value* x = f.input(0);
  const Value* out = f.output(0);
  if (!x || !out) return false;
  const size_t rank = x->sizes.size();
  return f.op->name == "aten::im2col" ? rank == 3 || rank == 4 : rank == 2 || rank == 3;
}
Counts unfold_fold_counts(const OpFacts& f) {
  const Value* x = f.input(0);
  const Value* out = f.output(0);
  const bool batched = f.op->name == "aten::im2col" ? x->sizes.size() == 4 : x->sizes.size() == 3;
  const int copy = x->contiguous() ? 0 : 1;
  const int64_t launches = f.op->name == "aten::im2col" && batched ? x->sizes[0] : 1;
  const int grows = out->numel() > x->numel() ? 1 : 0;
  if (out->numel() == 0) return {};
  return {copy + static_cast<int>(launches), grows, 0, 0};
}

// topk (TensorTopK.cu): the input made contiguous, then the k-selection: one radix-select kernel
// per slice (sbtopk), or for long slices (should_use_multiblock: few slices of >= 20000 down to
// many of >= 400) the multi-block select: a fill, per 8-bit radix digit of the element (4 passes
// for float32) a digit count, a cumulative sum and a within-k count, a kth count, two cub scans by
// key (an init and a scan each) and the gather, with two memsets of its counters. Sorted results
// of k > 1 are sorted in place by one kernel while k fits its shared memory (4096).
bool multiblock_topk(int64_t slices, int64_t slice) {
  return (slices <= 20 && slice >= 20000) || (slices > 20 && slices <= 40 && slice >= 10000) ||
         (slices > 40 && slices <= 80 && slice >= 8000) || (slices > 80 && slices < 200 && slice >= 5000) ||
         (slices >= 200 && slices < 800 && slice >= 3000) || (slices >= 800 && slices <= 4000 && slice >= 800) ||
         (slices > 4000 && slice >= 400);
}
bool topk_sorts_in_place(const OpFacts& f) {
  return f.input(0) && f.int_arg("k", 1) <= 4096;
}
Counts topk_counts(const OpFacts& f) {
  const Value& x = *f.input(0);
  const int64_t rank = static_cast<int64_t>(x.sizes.size());
  int64_t dim = f.int_arg("dim", -1);
  if (dim < 0) dim += rank;
  const int64_t slice = rank == 0 ? 1 : x.sizes[std::clamp<int64_t>(dim, 0, rank - 1)];
  const int64_t slices = slice > 0 ? x.numel() / slice : 0;
  const int64_t k = f.int_arg("k", 1);
  Counts c{x.contiguous() ? 0 : 1, 0, 0, 0};
  if (multiblock_topk(slices, slice))
    c += Counts{7 + 3 * dtype_size(x.dtype), 0, 2, 0};
  else
    c.kernels += 1;
  if (f.bool_arg("sorted", true) && k > 1 && slices * k > 1) c.kernels += 1;
  return c;
}

// _unsafe_masked_index (TensorAdvancedIndexing.cpp): each index tensor clamped into range (one
// clamp kernel each), self.index(clamped) as aten::index counts it, then
// result.masked_fill(logical_not(mask), fill): a logical_not, the result's clone (a memcpy) and
// the fill.
Counts unsafe_masked_index_counts(const OpFacts& f) {
  Counts c = index_counts(f);
  if (const Arg* idx = f.arg("indices"))
    for (int v : idx->tensors) c.kernels += v >= 0 ? 1 : 0;
  c += Counts{2, 1, 0, 0};
  return c;
}
// index_reduce (index_reduce_func_cuda_impl, Indexing.cu): the result starts as a copy of self
// (a memcpy when self is dense), include_self=False first fills the indexed slices with the
// reduction's identity (index_fill_), then one indexFunc kernel reduces the source in. mean
// also counts: a fill of counts (ones or zeros), ones_like(source), index_add_ of them, then
// counts == 0, masked_fill_ and the division: 6 kernels more.
Counts index_reduce_counts(const OpFacts& f) {
  const Value& self = *f.input(0);
  Counts c = self.contiguous() ? Counts{1, 1, 0, 0} : Counts{2, 0, 0, 0};
  if (!f.bool_arg("include_self", true)) c.kernels += 1;
  if (f.text_arg("reduce", "") == "mean") c.kernels += 6;
  return c;
}

}  // namespace

void add_indexing_rules(std::vector<LaunchRule>& r) {
  // Gathers, copies and shape ops.
  r.push_back(
      rule("index")
          .ops({"aten::index"})
          .when("one gather; with several index tensors whose strides differ once broadcast, a copy of each expanded "
                "one first; + a host-to-device memcpy and a host sync per index tensor on the host; + nonzero per "
                "boolean mask")
          .compute(index_counts)
          .evidence(
              "truth:index_select, sweep:index/index:x[idx], sweep:index/index:x[arange,idx], corpus:swin_t, "
              "corpus:gpt2, corpus:llama, broad:mvit (host indices: 1 memcpy, 1 sync in the real run), broad:albert "
              "(broadcast indices 3), broad:clip (same-shape indices 1), opset:index_bool, sweep:select_sizes (x[i, j] "
              "in 8 broadcast forms, x[mask]), detection:* ([1,1] and [1,450] indices: 2)")
          .why("Advanced indexing is one gather kernel; index tensors that must be broadcast are copied first, and "
               "index tensors on the host are copied to the device, and the host waits for that copy."));
  r.push_back(rule("embedding")
                  .ops({"aten::embedding"})
                  .when("one gather; + a copy of indices no view can flatten")
                  .compute(embedding_counts)
                  .evidence("truth:embedding_*, sweep:index/embedding, broad:bert (expanded token_type_ids)")
                  .why("An embedding lookup is one gather kernel; indices that cannot be flattened by a view (a "
                       "broadcast, stride-0 tensor) are copied first."));
  r.push_back(rule("gather")
                  .ops({"aten::index_select", "aten::gather"})
                  .when("always")
                  .counts({1, 0, 0, 0})
                  .evidence("truth:index_select, sweep:index/gather, sweep:index/index_select")
                  .why("A lookup (embedding, index_select, gather) is one gather kernel."));
  r.push_back(rule("unsafe_masked_index")
                  .ops({"aten::_unsafe_masked_index"})
                  .when("a clamp per index tensor, the gather as aten::index counts it, then logical_not of the mask "
                        "and masked_fill (a clone memcpy and the fill)",
                        [](const OpFacts& f) { return f.input(0) && f.input(0)->numel() > 0 && f.out_numel > 0; })
                  .compute(unsafe_masked_index_counts)
                  .evidence("opinfo: _unsafe_masked_index ([5,5] by [10,1] and [1,10] indices: 2 clamps, 2 index "
                            "copies, the gather, logical_not, masked_fill = 7 + 1 memcpy)")
                  .why("A masked gather clamps its indices into range, gathers like advanced indexing, then fills the "
                       "masked-off positions: a kernel per index tensor, the gather and two more."));
  r.push_back(rule("index_reduce")
                  .ops({"aten::index_reduce"})
                  .when("a copy of self (a memcpy when dense), + an identity fill of the indexed slices without "
                        "include_self, one indexFunc kernel; mean + 6 (count fills, index_add, == 0, masked_fill, div)",
                        [](const OpFacts& f) { return f.input(0) && f.out_numel > 0; })
                  .compute(index_reduce_counts)
                  .evidence("opinfo: index_reduce prod, amax, amin (1 + 1 memcpy; include_self=False 2), mean (7, 8)")
                  .why("index_reduce copies its input, then reduces the source rows into the indexed ones with one "
                       "kernel (after filling them with the reduction's identity when the input is left out); a mean "
                       "also counts the rows reduced into each slot and divides by the count."));
  r.push_back(
      rule("where.scalar")
          .ops({"aten::where"})
          .when("a 0-d fill per Python scalar, the tensor operand cast where the scalar promotes it (a complex "
                "number beside a real tensor), then where",
                where_scalar)
          .compute(where_scalar_counts)
          .evidence("sweep:where/where_t_scalar, sweep:where/where_scalar_t, sweep:where/where_scalar_scalar, "
                    "broad:bloom, broad:t5, broad:mpt; the cast (TensorCompare.cpp's other.to(result_type)): "
                    "opinfo_reference: where__r9 (a complex number beside a bfloat16 tensor: FillFunctor<complex>, "
                    "the copy casting the tensor, where_kernel)")
          .why("Each Python number in a where is first filled into a tensor by one kernel, a tensor operand "
               "of another dtype than the result is converted by one more; then the where itself is one "
               "kernel."));
  r.push_back(rule("masked_fill")
                  .ops({"aten::masked_fill"})
                  .when("the input cloned at the mask's broadcast shape (a memcpy; a copy kernel when the mask "
                        "broadcasts it larger or it is strided), then the fill; a fill value given as a device tensor "
                        "is read back first (1 memcpy, 1 host sync)")
                  .compute([](const OpFacts& f) -> Counts {
                    const Arg* v = f.arg("value");
                    const bool device_value = v && v->kind == Arg::Kind::kTensor && !v->tensors.empty() &&
                                              f.graph->values[v->tensors[0]].placement == Placement::kDevice;
                    // masked_fill: expand_outplace(mask, self), then _self->clone(Contiguous).
                    const Value* self = f.input(0);
                    const Value* mask = f.input(1);
                    bool memcpy = true;
                    if (self && mask)
                      memcpy = broadcast_shape(self->sizes, mask->sizes) == self->sizes && self->contiguous();
                    Counts c = memcpy ? Counts{1, 1, 0, 0} : Counts{2, 0, 0, 0};
                    if (device_value) c += Counts{0, 1, 0, 1};
                    return c;
                  })
                  .evidence("truth:masked_fill, opset:masked_fill_scalar_tensor, sweep:opinfo_edges (a [5], [1] or "
                            "[3, 1, 5] input under a [5, 5] mask: a copy kernel; [5, 5] under [5] or [5, 5]: a "
                            "memcpy)")
                  .why("Out-of-place masked_fill first copies its input at the broadcast shape (a device-to-device "
                       "memcpy, or a copy kernel when the mask makes it larger), then fills the masked positions in "
                       "place with one kernel."));
  r.push_back(rule("topk")
                  .ops({"aten::topk"})
                  .when("k <= 4096: one select kernel per slice, or the multi-block radix select on long slices (7 + 3 "
                        "per byte of the dtype, 2 memsets); + an in-place sort when sorted and k > 1; a copy of a "
                        "non-contiguous input first",
                        topk_sorts_in_place)
                  .compute(topk_counts)
                  .evidence("truth:topk, detection:retinanet_resnet50_fpn-all_scores (float32 slices of 40131 to "
                            "8190000, k 1000: 20 kernels, 2 memsets), detection:fcos_resnet50_fpn-all_scores")
                  .why("topk selects the k largest with one kernel, or on long slices with a radix select over several "
                       "blocks (three kernels per byte of the key, then scans and a gather), then sorts them."));
  r.push_back(
      rule("repeat_interleave.int")
          .ops({"aten::repeat_interleave"})
          .when("int repeats: one copy of the expanded view; a count of 1 clones the input (a memcpy when it is dense)",
                [](const OpFacts& f) { return f.op->overload == "self_int"; })
          .compute([](const OpFacts& f) -> Counts {
            if (f.int_arg("repeats", 0) == 1) return clone_counts(f);
            return {1, 0, 0, 0};
          })
          .evidence("broad:codegen, broad:mvit, fresh2:gcvit (repeats=1: 0 kernels, 1 memcpy)")
          .why("repeat_interleave with an integer count copies an expanded view of its input with one kernel; with a "
               "count of 1 the copy is of the input as it is, a device-to-device memcpy when it is dense."));
  r.push_back(rule("unfold_fold")
                  .ops({"aten::im2col", "aten::col2im"})
                  .when("+ a copy of a non-contiguous input; im2col one kernel per batch element, col2im one; a memcpy "
                        "when the result outgrows the input",
                        unfold_fold_shapes)
                  .compute(unfold_fold_counts)
                  .evidence("broad:convbert, broad:volo, broad:tnt")
                  .why("im2col runs one kernel per batch element and col2im one kernel; a non-contiguous input is "
                       "copied first."));
  r.push_back(rule("grid_sampler")
                  .ops({"aten::grid_sampler", "aten::grid_sampler_2d", "aten::grid_sampler_3d"})
                  .when("one sampling kernel (cuDNN's or ATen's); grid_sampler of a 5-d input is grid_sampler_3d's",
                        [](const OpFacts& f) {
                          const Value* x = f.input(0);
                          if (!x) return false;
                          // GridSampler.cpp grid_sampler: cuDNN or grid_sampler_2d for 4-d, grid_sampler_3d else.
                          if (f.op->name == "aten::grid_sampler") return x->sizes.size() == 4 || x->sizes.size() == 5;
                          return x->sizes.size() == (f.op->name == "aten::grid_sampler_3d" ? 5u : 4u);
                        })
                  .counts({1, 0, 0, 0})
                  .evidence("broad:raft, opinfo: grid_sampler_3d (one kernel, bilinear and nearest, every padding); "
                            "opinfo samples 15+ (unmeasured): grid_sampler of 5-d inputs, ATen's path to "
                            "grid_sampler_3d")
                  .why("Grid sampling is one kernel: of a 4-d input cuDNN's or ATen's 2-d kernel, of a 5-d input "
                       "(grid_sampler dispatches it to grid_sampler_3d, cuDNN taking only 4-d) ATen's 3-d kernel."));
}

}  // namespace kc::torch2_11
