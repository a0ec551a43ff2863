// Sorting, selection, scatters and ops whose output size depends on the data, on the H200
// (aten/src/ATen/native/cuda/Sort.cpp, Sorting.cpp, TensorModeKernel.cu, Nonzero.cu,
// Unique.cu, SummaryOps.cu, Bucketization.cu, ScatterGatherKernel.cu, Indexing.cu,
// IndexKernel.cu). Evidence `opset:` names the blocks of data/corpus/opset measured in
// data/results/opset.
#include <algorithm>

#include "analyzer/tensor_geometry.h"
#include "passes/torch2_11/reduce_config.h"
#include "passes/torch2_11/rules.h"

namespace kc::torch2_11 {
namespace {

const Value* self(const OpFacts& f) {
  return f.input(0);
}
// The size of the dimension an op works along (dim argument, default last).
int64_t slice_size(const OpFacts& f, int64_t fallback_dim) {
  const Value* x = self(f);
  if (!x || x->sizes.empty()) return 1;
  const int64_t rank = static_cast<int64_t>(x->sizes.size());
  // msort is sort(self, dim=0) (TensorCompare.cpp).
  int64_t dim = f.op->name == "aten::msort" ? 0 : f.int_arg("dim", fallback_dim);
  if (dim < 0) dim += rank;
  return dim >= 0 && dim < rank ? x->sizes[dim] : 1;
}

// sort/argsort: indices from an arange, values copied into the output, then one in-place
// key-value sort per slice (bitonic up to 32 elements, radix above) when a slice holds at
// most 4096 elements (sortKeyValueInplace); larger slices take the segmented sort, not predicted.
bool small_sort(const OpFacts& f) {
  return self(f) && slice_size(f, -1) <= 4096;
}
// With a single slice the values' copy is a device-to-device memcpy (sweep: 2 kernels, 3 memcpy).
Counts sort_counts(const OpFacts& f) {
  const Value* out = f.output(0);
  if (out && out->numel() == 0) return {};
  const bool one_slice = self(f)->numel() == slice_size(f, -1);
  return one_slice ? Counts{2, 3, 0, 0} : Counts{3, 2, 0, 0};
}
// Whether nonzero (or argwhere, where(condition)) found any non-zero element: the rows of its
// result. The values decide that number; a graph that leaves it open (an export's data-dependent
// size) gives its upper bound, so every element is assumed non-zero unless a size of 0 is given.
bool found_any(const OpFacts& f) {
  const Value* out = f.output(0);
  return !out || out->sizes.empty() || out->sizes[0] != 0;
}
// kthvalue_out_cuda and median_with_indices_impl (cuda/Sorting.cpp) make the input contiguous,
// then launch one select kernel when it has elements; kthvalue of a 0-d input skips the kernel:
// values.copy_(self) (one element, a device-to-device memcpy) and indices.zero_() (a fill).
Counts kth_counts(const OpFacts& f) {
  const Value* x = self(f);
  if (!x) return {1, 0, 0, 0};
  if (f.op->name == "aten::kthvalue" && x->sizes.empty()) return {1, 1, 0, 0};
  if (x->numel() == 0) return {};
  return {1 + (x->contiguous() ? 0 : 1), 0, 0, 0};
}
// embedding_renorm_ (Embedding.cu): the indices sorted along their last dim (as sort counts it),
// cub's unique of the sorted indices (init + select), whose count stays on the device, then one
// renorm kernel over the rows: no value read back. Slices of 2 to 4096 indices (a lone index was
// not measured; none fails on the device).
bool embedding_renorm_sorts_small(const OpFacts& f) {
  const Value* idx = f.input(1);
  if (!idx || idx->numel() == 0 || idx->sizes.empty()) return false;
  const int64_t n = idx->sizes.back();
  return n >= 2 && n <= 4096;
}
Counts embedding_renorm_counts(const OpFacts& f) {
  const Value* idx = f.input(1);
  const bool one_slice = idx->numel() == idx->sizes.back();
  Counts c = one_slice ? Counts{2, 3, 0, 0} : Counts{3, 2, 0, 0};  // sort_counts
  c += Counts{3, 0, 0, 0};
  return c;
}
// combinations (Itertools.cpp): _triu_mask (arange, full, then mask *= grid[i] < grid[i + 1] for
// each adjacent pair: a comparison and a multiply), masked_select of each of the r meshgrid views
// by the mask, then stack. The number selected, C(n, r) or C(n + r - 1, r) with replacement, is
// zero exactly when n < r without replacement (or n = 0): then nonzero writes no coordinates,
// nothing is gathered and the empty stack copies nothing.
bool combinations_small(const OpFacts& f) {
  const Value* x = f.input(0);
  const int64_t r = f.int_arg("r", 2);
  if (!x || x->sizes.size() != 1 || r < 0 || r > 8) return false;
  double cells = 1;
  for (int64_t i = 0; i < r; ++i) cells *= static_cast<double>(x->sizes[0]);
  return cells <= 4096;
}
Counts combinations_counts(const OpFacts& f) {
  const int64_t n = f.input(0)->sizes[0];
  const int r = static_cast<int>(f.int_arg("r", 2));
  if (r == 0) return {};
  const bool any = n > 0 && (f.bool_arg("with_replacement", false) || n >= r);
  Value mask;
  mask.sizes.assign(r, n);
  mask.strides = contiguous_strides(mask.sizes);
  mask.dtype = DType::kBool;
  Counts per_grid = nonzero_launches(mask, any);
  if (any) per_grid.kernels += 1;                  // the gather
  Counts c{n > 0 ? 2 + 2 * (r - 1) : 0, 0, 0, 0};  // arange, full, the comparisons
  for (int i = 0; i < r; ++i) c += per_grid;
  if (any) c += r == 1 ? Counts{0, 1, 0, 0} : Counts{1, 0, 0, 0};  // the stack
  return c;
}
// Radix passes of cub's onesweep sort: one per 8 bits of the key.
int radix_passes(DType t) {
  switch (t) {
    case DType::kBool:
    case DType::kUInt8:
    case DType::kInt8:
      return 1;
    case DType::kFloat16:
    case DType::kBFloat16:
    case DType::kInt16:
      return 2;
    case DType::kFloat32:
    case DType::kInt32:
      return 4;
    case DType::kFloat64:
    case DType::kInt64:
      return 8;
    default:
      return 0;
  }
}
// Slices of more than 4096 elements (launch_stable_sort_kernel): one slice, or slices of a
// million elements and more, are sorted one after another by cub's radix sort (histogram,
// exclusive sum and one onesweep kernel per 8 key bits, each zeroing its counters: 2 + passes
// kernels and memsets per slice) after one arange of the indices; several shorter slices
// are sorted together on keys tagged with their slice (fill_index_and_segment, the
// segmented radix sort, sort_postprocess: 7 + passes kernels, 5 + passes memsets; measured
// for 4 to 64 slices, more stay unknown). One memcpy copies the values in either case.
constexpr int64_t kMeasuredSortSlices = 64;
bool long_sort(const OpFacts& f) {
  if (!self(f) || slice_size(f, -1) <= 4096 || radix_passes(self(f)->dtype) == 0) return false;
  const int64_t n = slice_size(f, -1);
  const int64_t slices = self(f)->numel() / n;
  return slices == 1 || n >= 1'000'000 || slices <= kMeasuredSortSlices;
}
Counts long_sort_counts(const OpFacts& f) {
  const int64_t n = slice_size(f, -1);
  const int64_t slices = self(f)->numel() / std::max<int64_t>(1, n);
  const int passes = radix_passes(self(f)->dtype);
  if (slices == 1 || n >= 1'000'000) {
    const int64_t per = 2 + passes;
    return {static_cast<int>(1 + slices * per), 1, static_cast<int>(slices * per), 0};
  }
  return {7 + passes, 1, 5 + passes, 0};
}
// masked_select (MaskedSelect: expand_outplace(mask, self), then index with the mask) runs
// nonzero on the mask expanded to the broadcast shape, which nonzero copies contiguous when the
// expansion is not the mask itself, then one gather.
Counts masked_select_counts(const OpFacts& f) {
  const Value& mask = *f.input(1);
  Value wide = mask;
  wide.sizes = broadcast_shape(f.input(0)->sizes, mask.sizes);
  if (wide.sizes != mask.sizes) wide.strides.assign(wide.sizes.size(), 0);  // an expanded view
  // index() indexes a 0-d self with a 0-d mask as one element of rank 1 (both unsqueezed), so the
  // mask's nonzero writes its indices with cub's select.
  if (wide.sizes.empty()) {
    wide.sizes = {1};
    wide.strides = {1};
  }
  Counts c = nonzero_launches(wide);
  c.kernels += 1;
  return c;
}

}  // namespace

// nonzero (Nonzero.cu) makes its input contiguous (a copy when it is not), counts the non-zero
// elements with cub's DeviceReduce::Sum of int counts (one single-tile kernel up to 256 threads x
// 16 items = 4096 elements, Policy600 on sm90; a partial and a final kernel above), copies the
// count to pinned host memory and syncs; for an input of rank >= 1 cub's DeviceSelect::Flagged
// writes the flat indices (an init and a sweep kernel, the init alone over no elements), and
// for rank >= 2 write_indices turns them into coordinates when any element is non-zero
// (num_nonzeros_h > 0).
Counts nonzero_launches(const Value& x, bool any_found) {
  constexpr int64_t kSingleTile = 256 * 16;
  const int64_t n = x.numel();
  const size_t rank = x.sizes.size();
  int kernels = (n == 0 || x.contiguous() ? 0 : 1) + (n <= kSingleTile ? 1 : 2);
  if (rank >= 1) kernels += n > 0 ? 2 : 1;
  if (rank >= 2 && n > 0 && any_found) kernels += 1;
  return {kernels, 1, 0, 1};
}

Counts sort_1d_launches(int64_t n, DType dt) {
  if (n <= 0) return {};
  if (n == 1) return {1, 3, 0, 0};  // no sort kernel for one element (sweep:torchvision_ops nms)
  if (n <= 4096) return {2, 3, 0, 0};
  const int passes = radix_passes(dt);
  return {3 + passes, 1, 2 + passes, 0};
}

namespace {

// mode: one fused kernel per slice while a slice fits a block's shared memory.
bool small_mode(const OpFacts& f) {
  return self(f) && slice_size(f, -1) <= 2048;
}
// mode moves the dim innermost (transpose(dim, -1).contiguous(): a copy unless that is already
// contiguous, size-1 dims aside), then one kernel.
Counts small_mode_counts(const OpFacts& f) {
  const Value* x = self(f);
  const int64_t rank = static_cast<int64_t>(x->sizes.size());
  if (x->numel() == 0) return {};
  // A 0-d input is its own mode (_dimreduce_return_trivial_no_ident): the value copied (a
  // memcpy) and the index filled with 0.
  if (rank == 0) return {1, 1, 0, 0};
  if (x->strides.size() != x->sizes.size()) return {1, 0, 0, 0};
  int64_t dim = f.int_arg("dim", -1);
  if (dim < 0) dim += rank;
  std::vector<int64_t> sizes = x->sizes, strides = x->strides;
  if (dim >= 0 && dim < rank) {
    std::swap(sizes[dim], sizes[rank - 1]);
    std::swap(strides[dim], strides[rank - 1]);
  }
  return {row_major_dense(sizes, strides) ? 1 : 2, 0, 0, 0};
}
// Longer slices: ModeImpl runs thrust per slice (sort a copy, count runs, find the largest),
// reading 8 results back per slice, + 1 memcpy. Kernels and memsets per slice, measured:
// f32 15 and 6 (16 from 8192 elements), int64 17 and 10 (18 from 8192); bf16/fp16 merge
// sort, no memset: 10 from 4096 elements, 13 at 8192, + 2 per doubling beyond. Shorter long
// slices take other thrust paths: bf16 8 kernels a slice (measured at 2049 and 3000), fp16 10
// (at 2049, as at 4096); f32 and int64 below 3000 and 4096 differ again (2049 measured: no
// memset, 10 memcpy a slice) and stay unknown, except f32 from 3000 (measured at 3000: as at
// 4096).
bool long_mode(const OpFacts& f) {
  const Value* x = self(f);
  if (!x) return false;
  const int64_t n = slice_size(f, -1);
  if (x->dtype == DType::kFloat32) return n >= 3000;
  if (is_half(x->dtype)) return n > 2048;
  return x->dtype == DType::kInt64 && n >= 4096;
}
Counts long_mode_counts(const OpFacts& f) {
  const Value* x = self(f);
  const int64_t n = slice_size(f, -1);
  const int64_t slices = x->numel() / std::max<int64_t>(1, n);
  int64_t kernels = 0, memsets = 0;
  if (x->dtype == DType::kFloat32) {
    kernels = n < 8192 ? 15 : 16;
    memsets = 6;
  } else if (x->dtype == DType::kInt64) {
    kernels = n < 8192 ? 17 : 18;
    memsets = 10;
  } else if (x->dtype == DType::kBFloat16 && n < 4096) {
    kernels = 8;
  } else {
    kernels = 10;
    for (int64_t m = 8192; m <= n; m *= 2) kernels += m == 8192 ? 3 : 2;
  }
  return {static_cast<int>(slices * kernels), static_cast<int>(1 + 8 * slices), static_cast<int>(slices * memsets), 0};
}
// index_put / scatter / index_add / index_copy / index_fill / select_scatter / slice_scatter,
// out of place: self is cloned (a device-to-device memcpy when dense, else a copy kernel), then
// one kernel writes into the clone.
Counts clone_then_write(const OpFacts& f) {
  const Value* x = self(f);
  if (!x || x->numel() == 0) return {};
  return x->contiguous() ? Counts{1, 1, 0, 0} : Counts{2, 0, 0, 0};
}
// slice_scatter (TensorShape.cpp): self cloned, then output.slice(dim, start, end, step).copy_(src).
// The copy is a memcpy when the slice is one dense block of a contiguous clone (step 1 and
// every dim before `dim` of size 1, or the whole dim) and src is contiguous of the same dtype.
Counts slice_scatter_counts(const OpFacts& f) {
  Counts c = clone_then_write(f);
  const Value* x = self(f);
  const Value* src = f.input(1);
  if (!x || !src || x->numel() == 0 || !x->contiguous()) return c;
  const int64_t rank = static_cast<int64_t>(x->sizes.size());
  int64_t dim = f.int_arg("dim", 0);
  if (dim < 0) dim += rank;
  if (dim < 0 || dim >= rank || src->sizes.size() != x->sizes.size()) return c;
  const int64_t len = src->sizes[dim];
  bool dense = len == x->sizes[dim] || f.int_arg("step", 1) == 1 || len <= 1;
  if (len != x->sizes[dim])
    for (int64_t d = 0; d < dim; ++d) dense = dense && x->sizes[d] == 1;
  if (src->numel() == 0) return {c.kernels - 1, c.memcpy, 0, 0};
  if (dense && src->contiguous() && src->dtype == x->dtype) return {c.kernels - 1, c.memcpy + 1, 0, 0};
  return c;
}
// select_scatter (TensorShape.cpp): self cloned, then output.select(dim, index).copy_(src): a
// memcpy when the selected slice of the contiguous clone is dense (every dim before `dim` of size
// 1, or one element) and src is contiguous of the same dtype, else a copy kernel.
Counts select_scatter_counts(const OpFacts& f) {
  Counts c = clone_then_write(f);
  const Value* x = self(f);
  const Value* src = f.input(1);
  if (!x || !src || x->numel() == 0 || !x->contiguous()) return c;
  const int64_t rank = static_cast<int64_t>(x->sizes.size());
  int64_t dim = f.int_arg("dim", 0);
  if (dim < 0) dim += rank;
  if (dim < 0 || dim >= rank) return c;
  std::vector<int64_t> sizes, strides;
  for (int64_t d = 0; d < rank; ++d) {
    if (d == dim) continue;
    sizes.push_back(x->sizes[d]);
    strides.push_back(x->strides[d]);
  }
  if (src->numel() == 0) return {c.kernels - 1, c.memcpy, 0, 0};
  const bool dense = src->numel() == 1 || row_major_dense(sizes, strides);
  if (dense && src->contiguous() && src->dtype == x->dtype) return {c.kernels - 1, c.memcpy + 1, 0, 0};
  return c;
}
// index_put with accumulate=True (index_put_with_sort_kernel, Indexing.cu): each integer index
// tensor is bounds-checked on the device (max, compare, assert; min, compare, assert), wrapped
// (remainder) and scaled by its stride (mul) into a linear index: 8 kernels; one broadcast to
// the others' shape (or not contiguous) is copied before each of the two reductions (+2). The
// linear indices are summed (one add per index after the first), divided into slices, and sorted
// with their positions (an arange, cub's single-tile radix sort), then accumulated by one kernel.
Counts index_put_accumulate_counts(const OpFacts& f) {
  Counts c = clone_then_write(f);  // the clone (a memcpy when dense) and the accumulate kernel
  const Arg* idx = f.arg("indices");
  std::vector<const Value*> ints;
  if (idx)
    for (int v : idx->tensors)
      if (v >= 0) ints.push_back(&f.graph->values[v]);
  std::vector<int64_t> shape;
  for (const Value* t : ints) {
    if (t->sizes.size() > shape.size()) shape.insert(shape.begin(), t->sizes.size() - shape.size(), 1);
    for (size_t i = 0; i < t->sizes.size(); ++i) {
      int64_t& d = shape[shape.size() - t->sizes.size() + i];
      if (d == 1) d = t->sizes[i];
    }
  }
  for (const Value* t : ints) c.kernels += 8 + (t->sizes != shape || !t->contiguous() ? 2 : 0);
  c.kernels += static_cast<int>(ints.size() > 1 ? ints.size() - 1 : 0) + 3;  // adds, div, arange, sort
  return c;
}
// Integer (not boolean) index tensors only: a mask is turned into indices by nonzero first.
bool integer_indices(const OpFacts& f) {
  const Arg* idx = f.arg("indices");
  if (!idx) return false;
  for (int v : idx->tensors)
    if (v >= 0 && f.graph->values[v].dtype != DType::kInt64 && f.graph->values[v].dtype != DType::kInt32) return false;
  return true;
}
bool index_put_plain(const OpFacts& f) {
  return !f.bool_arg("accumulate", false);
}
// x[idx] = True in a GPU export: the value is a 0-dim host tensor (a lifted constant), which
// index_put moves to self's device first, a pageable host-to-device copy the host waits for.
Counts host_scalar_value(const OpFacts& f) {
  const Value* x = self(f);
  const Value* v = f.tensor_arg("values");
  if (!x || !v) return {};
  const Value& value = *v;
  return value.placement == Placement::kHost && x->placement == Placement::kDevice && value.sizes.empty()
             ? Counts{0, 1, 0, 1}
             : Counts{};
}
bool index_put_accumulate(const OpFacts& f) {
  return f.bool_arg("accumulate", false);
}
// index_put(self, [mask], values, accumulate=True) with one 1-d boolean mask over self's first dim
// (index_put_with_sort_kernel, Indexing.cu): the clone, then makeLinearIndex's expandTensors turns
// the mask into one int64 index by nonzero (its count read back: a host sync); with k indices
// found, each is checked, wrapped and scaled (8 kernels), divided into slices, sorted with its
// positions (arange, cub's radix sort) and accumulated (1); values smaller than the k slices they
// fill are first expanded and made contiguous (a copy kernel). How many elements the mask holds
// true the values decide: counted as all (the export's bound, as nonzero's); none true launches
// nonzero and the clone only (opinfo_heldout: an all-false [5] mask, 3 kernels + 2 memcpy).
const Value* one_mask_index(const OpFacts& f) {
  const Arg* idx = f.arg("indices");
  if (!idx || idx->tensors.size() != 1 || idx->tensors[0] < 0) return nullptr;
  const Value& mask = f.graph->values[idx->tensors[0]];
  const Value* x = self(f);
  if (mask.dtype != DType::kBool || mask.sizes.size() != 1 || !x || x->sizes.empty() || mask.sizes[0] != x->sizes[0])
    return nullptr;
  return &mask;
}
bool index_put_accumulate_mask(const OpFacts& f) {
  return index_put_accumulate(f) && one_mask_index(f) && self(f)->numel() > 0 && f.tensor_arg("values");
}
Counts index_put_accumulate_mask_counts(const OpFacts& f) {
  const Value& mask = *one_mask_index(f);
  const Value& x = *self(f);
  const Value& values = f.graph->values[f.arg("values")->tensors[0]];
  Counts c = clone_then_write(f);  // the clone and the accumulate kernel
  c += nonzero_launches(mask, true);
  const int64_t k = mask.numel();
  c.kernels += 8 + 3;  // one index's checks, wrap and stride; the division, arange and sort
  const int64_t slice = x.numel() / x.sizes[0];
  if (values.numel() < mul_checked(k, slice, "elements") || !values.contiguous()) c.kernels += 1;
  return c;
}
// scatter_reduce.two: sum/prod/amax/amin including self are one scatter kernel after the
// clone; "mean" without self scatters the sum and the counts and divides (8 kernels).
bool scatter_reduce_including_self(const OpFacts& f) {
  const std::string r = f.text_arg("reduce", "");
  return f.bool_arg("include_self", true) && (r == "sum" || r == "prod" || r == "amax" || r == "amin");
}
// sum/prod/amax/amin excluding self: the positions scattered to are first set to the
// reduction's identity (one more scatter kernel).
bool scatter_reduce_excluding_self(const OpFacts& f) {
  const std::string r = f.text_arg("reduce", "");
  return !f.bool_arg("include_self", true) && (r == "sum" || r == "prod" || r == "amax" || r == "amin");
}
bool scatter_reduce_mean_excluding_self(const OpFacts& f) {
  return !f.bool_arg("include_self", true) && f.text_arg("reduce", "") == "mean";
}
// searchsorted and bucketize (Bucketization.cu, BucketizationUtils.h). The value operand is `self`
// (searchsorted(sorted_sequence, self), bucketize(self, boundaries)); a Scalar overload makes it a
// 0-d device tensor (scalar_to_tensor: a fill kernel) marked a wrapped number, of type double,
// int64 or bool. searchsorted_pre_check reads a non-empty sorter's aminmax back to the host
// (one reduction, two item() copies and syncs) even when there is nothing to search.
// searchsorted_maybe_trim_input_tensors then copies each operand that is not contiguous, and
// casts the operands whose type is not result_type(boundaries, value) (a wrapped number or a 0-d
// tensor counts only when its category, bool < integral < floating, is higher).
int dtype_category(DType t) {
  if (t == DType::kBool) return 0;
  if (t == DType::kComplex32 || t == DType::kComplex64 || t == DType::kComplex128) return 3;
  return is_floating(t) ? 2 : 1;
}
// c10::promote_types for the types searchsorted sees (real numbers and bool).
DType promote_real(DType a, DType b) {
  if (a == b) return a;
  const int ca = dtype_category(a), cb = dtype_category(b);
  if (ca != cb) return ca > cb ? a : b;
  if (ca == 2) {
    const bool half_a = a == DType::kFloat16 || a == DType::kBFloat16;
    const bool half_b = b == DType::kFloat16 || b == DType::kBFloat16;
    if (half_a && half_b) return DType::kFloat32;
  }
  if (ca == 1 && dtype_size(a) == dtype_size(b)) return DType::kInt16;  // uint8 with int8
  if (ca == 1 && (a == DType::kUInt8 || b == DType::kUInt8)) {
    const DType other = a == DType::kUInt8 ? b : a;
    return dtype_size(other) > 1 ? other : DType::kInt16;
  }
  return dtype_size(a) >= dtype_size(b) ? a : b;
}
Counts searchsorted_counts(const OpFacts& f) {
  const Value* boundaries = f.tensor_arg(f.op->name == "aten::bucketize" ? "boundaries" : "sorted_sequence");
  const Arg* v_arg = f.arg("self");
  const Value* value = f.tensor_arg("self");
  const Value* sorter = f.tensor_arg("sorter");
  const bool sorter_checked = sorter && sorter->numel() > 0;
  Counts c;
  // The value's type and standing in result_type: a dimensioned tensor, a 0-d tensor, or a scalar.
  DType value_type = DType::kUnknown;
  bool value_dimensioned = false;
  if (value) {
    value_type = value->dtype;
    value_dimensioned = !value->sizes.empty();
  } else if (v_arg) {
    c.kernels += 1;  // scalar_to_tensor on the device: a fill
    value_type = v_arg->kind == Arg::Kind::kFloat  ? DType::kFloat64
                 : v_arg->kind == Arg::Kind::kBool ? DType::kBool
                                                   : DType::kInt64;
  }
  if (sorter_checked) c += Counts{1, 2, 0, 2};
  if (f.out_numel == 0 || !boundaries) return c;
  if (value && !value->contiguous()) c.kernels += 1;
  if (!boundaries->contiguous()) c.kernels += 1;
  if (sorter_checked && !sorter->contiguous()) c.kernels += 1;
  if (value_type != DType::kUnknown && boundaries->dtype != value_type) {
    // A wrapped double takes the default type (float32) where it raises the category.
    DType wrapped = !value && value_type == DType::kFloat64 ? DType::kFloat32 : value_type;
    DType common = boundaries->dtype;
    if (value_dimensioned) {
      common = promote_real(boundaries->dtype, value_type);
    } else if (dtype_category(value_type) > dtype_category(boundaries->dtype)) {
      common = promote_real(boundaries->dtype, wrapped);
    }
    if (common != value_type) c.kernels += 1;
    if (common != boundaries->dtype) c.kernels += 1;
  }
  c.kernels += 1;  // the search
  return c;
}
// unique with neither inverse nor counts: radix sort, then cub's select of the distinct values.
// No inverse: unique_cuda_template's compute_unique then keeps the distinct values with cub's
// unique, or, for the counts, cub's run-length encode: two kernels either way.
bool unique_plain(const OpFacts& f) {
  return !f.bool_arg("return_inverse", false);
}
// unique along a dim, measured without inverse or counts only.
bool unique_dim_plain(const OpFacts& f) {
  return !f.bool_arg("return_inverse", false) && !f.bool_arg("return_counts", false);
}
// unique and unique_consecutive with their options (Unique.cu, UniqueCub.cu): the launches do not
// depend on the values (how many are distinct), only on the options. The sizes where they were
// measured (sweep:opinfo_edges, up to 7 elements or slices; the plain cases up to 1024 and 256
// in opset:unique and opset:unique_dim) keep every cub sort one kernel.
constexpr int64_t kUniqueMaxElements = 1024;
constexpr int64_t kUniqueMaxSlices = 256;
const Arg* dim_given(const OpFacts& f) {
  const Arg* d = f.arg("dim");
  return d && d->kind != Arg::Kind::kNone ? d : nullptr;
}
// Elements of the input (a 0-d input is one), or slices along `dim` where one is given.
int64_t unique_items(const OpFacts& f) {
  const Value* x = self(f);
  if (!x || x->numel() == 0) return 0;
  if (!dim_given(f)) return x->numel();
  const int64_t rank = static_cast<int64_t>(x->sizes.size());
  int64_t d = f.int_arg("dim", 0);
  if (d < 0) d += rank;
  return d < 0 || d >= rank ? 0 : x->sizes[d];
}
// _unique2 with the inverse: an arange of positions, a radix sort of (value, position) pairs, an
// adjacent difference, its inclusive scan (init + scan), a scatter of the scan into the inverse,
// then the distinct values kept (cub's select or, with counts, run-length encode: init + sweep).
bool unique_inverse(const OpFacts& f) {
  const int64_t n = unique_items(f);
  return f.bool_arg("return_inverse", false) && n >= 1 && n <= kUniqueMaxElements;
}
// unique_dim and unique_consecutive along a dim (unique_dim_cuda_template): an arange of slice
// indices, (unique_dim: a merge sort of them by slice,) thrust's unique of the indices (unique_dim:
// a compaction; unique_consecutive: init + unique-by-key), its count read back, an index_select
// of the slices kept; the counts add a fill, an adjacent difference and a second unique-by-key
// pass (3), the inverse an adjacent difference, a fill, a scan (init + scan) and a transform (5).
bool unique_dim_options(const OpFacts& f) {
  const int64_t n = unique_items(f);
  return dim_given(f) && n >= 1 && n <= kUniqueMaxSlices;
}
// unique_dim_cuda_template with self.size(dim) == 0 (and no other empty dim, which ATen rejects).
bool unique_dim_empty(const OpFacts& f) {
  const Value* x = self(f);
  if (!dim_given(f) || !x || x->sizes.empty()) return false;
  const int64_t rank = static_cast<int64_t>(x->sizes.size());
  int64_t d = f.int_arg("dim", 0);
  if (d < 0) d += rank;
  if (d < 0 || d >= rank || x->sizes[d] != 0) return false;
  return std::count(x->sizes.begin(), x->sizes.end(), 0) == 1;
}
// unique_dim_cuda_template flattens self.moveaxis(dim, 0) with .contiguous(): one copy kernel
// first unless the moved tensor is already dense (dim 0 of a contiguous input, or a dim whose
// move crosses only size-1 dimensions), opinfo_heldout7's direct_copy before the arange.
int unique_dim_flatten_copy(const OpFacts& f) {
  const Value* x = self(f);
  if (!x || x->sizes.empty() || x->strides.size() != x->sizes.size()) return 0;
  const int64_t rank = static_cast<int64_t>(x->sizes.size());
  int64_t d = f.int_arg("dim", 0);
  if (d < 0) d += rank;
  if (d < 0 || d >= rank) return 0;
  std::vector<int64_t> sizes{x->sizes[d]}, strides{x->strides[d]};
  for (int64_t i = 0; i < rank; ++i) {
    if (i == d) continue;
    sizes.push_back(x->sizes[i]);
    strides.push_back(x->strides[i]);
  }
  return row_major_dense(sizes, strides) ? 0 : 1;
}
Counts unique_dim_counts(const OpFacts& f) {
  const int base = f.op->name == "aten::unique_dim" ? 5 : 4;
  return {base + unique_dim_flatten_copy(f) + (f.bool_arg("return_counts", false) ? 3 : 0) +
              (f.bool_arg("return_inverse", false) ? 5 : 0),
          1, 0, 1};
}
// bincount without weights: min and max of the input read back to the host (two syncs) to
// size the result, a fill, then the histogram kernel.
bool bincount_unweighted(const OpFacts& f) {
  return !f.has_tensor_arg("weights");
}
// histc with an explicit range (min < max): a zero fill and the histogram kernel.
bool histc_ranged(const OpFacts& f) {
  const Arg* lo = f.arg("min");
  const Arg* hi = f.arg("max");
  auto value = [](const Arg* a) {
    if (!a) return 0.0;
    if (a->kind == Arg::Kind::kFloat) return a->floats[0];
    if (a->kind == Arg::Kind::kInt) return static_cast<double>(a->ints[0]);
    return 0.0;
  };
  return value(lo) < value(hi);
}
bool one_hot_sized(const OpFacts& f) {
  return f.int_arg("num_classes", -1) > 0;
}
// embedding_bag in sum (0), mean (1) or max (2) mode: one kernel.
bool embedding_bag_sum_mean(const OpFacts& f) {
  const int64_t mode = f.int_arg("mode", 0);
  return mode >= 0 && mode <= 2;
}
// scatter_reduce "mean" including self: the sum and count scatters, fills and a division.
bool scatter_reduce_mean_including_self(const OpFacts& f) {
  return f.bool_arg("include_self", true) && f.text_arg("reduce", "") == "mean";
}

// segment_reduce over 1-d data (SegmentReduce.cu, cub's segmented reduce): given offsets, their
// end points are formed (one add) and cub reduces each segment (one kernel); given lengths, they
// are first checked unless unsafe (min >= 0 read back; sum == the data's size, its one-element
// all() a device copy, read back: 3 kernels, 3 memcpys, 2 waits), turned into offsets (a zero
// fill, a cub inclusive scan of init + scan, a cat), then reduced. mean divides the sums by the
// lengths (post_sum_div, one kernel).
Counts segment_reduce_counts(const OpFacts& f) {
  Counts c = f.has_tensor_arg("offsets") ? Counts{2, 0, 0, 0} : Counts{5, 0, 0, 0};
  if (!f.has_tensor_arg("offsets") && !f.bool_arg("unsafe", false)) c += Counts{3, 3, 0, 2};
  if (f.text_arg("reduce", "") == "mean") c.kernels += 1;
  return c;
}
// The lengths or offsets tensor segment_reduce was given.
const Value* segment_bounds(const OpFacts& f) {
  for (const char* name : {"offsets", "lengths"}) {
    if (const Value* bounds = f.tensor_arg(name)) return bounds;
  }
  return nullptr;
}
// segment_reduce over data of rank >= 2 (SegmentReduce.cpp segment_reduce_kernel, then
// _segment_reduce_lengths_offsets_cuda_kernel): the axis is the last dim of the lengths or offsets,
// and with more than one output dim every reduction, mean included, is the one
// segment_reduce_forward_kernel. Contiguous data and bounds (no copy from .contiguous()), nothing
// empty.
bool segment_reduce_nd(const OpFacts& f) {
  const Value* data = f.input(0);
  const Value* bounds = segment_bounds(f);
  const Value* out = f.output(0);
  if (!data || !bounds || !out || data->sizes.size() < 2 || bounds->sizes.empty()) return false;
  int64_t axis = f.int_arg("axis", 0);
  if (axis < 0) axis += static_cast<int64_t>(data->sizes.size());
  return axis == static_cast<int64_t>(bounds->sizes.size()) - 1 && data->contiguous() && bounds->contiguous() &&
         data->numel() > 0 && bounds->numel() > 0 && out->numel() > 0;
}
// Offsets: lengths = offsets.diff() (one subtraction), then the forward kernel. Lengths: unless
// unsafe, lengths.min().item() (a reduction, read back), all(lengths.sum(-1) == data.size(axis))
// .item() (the row sums, the comparison, all: a device copy of one element, a reduction of several;
// read back); then offsets = cat(zeros, lengths) cumsum'd in place along the axis (the fill, the
// cat, the scan: cub's two kernels for one row, one kernel for several), then the forward kernel.
// Each reduction zeroes its semaphores first where it splits across blocks.
Counts segment_reduce_nd_counts(const OpFacts& f) {
  if (f.has_tensor_arg("offsets")) return {2, 0, 0, 0};
  const Value& lengths = *segment_bounds(f);
  const int64_t rows = lengths.numel() / lengths.sizes.back();
  Counts c{3 + (rows == 1 ? 2 : 1), 0, 0, 0};
  if (!f.bool_arg("unsafe", false)) {
    auto split = [&](const std::vector<int64_t>& sizes, const std::vector<int64_t>& dims) {
      return reduce_splits_across_blocks(f.target->device, sizes, contiguous_strides(sizes), dims) ? 1 : 0;
    };
    std::vector<int64_t> row_shape(lengths.sizes.begin(), lengths.sizes.end() - 1);
    c += Counts{2, 2, 0, 2};  // min and the row sums; both .item() reads
    c.memset += split(lengths.sizes, {}) + split(lengths.sizes, {-1});
    c.kernels += 1;  // the comparison
    if (rows == 1) {
      c.memcpy += 1;  // all() of one element copies it
    } else {
      c.kernels += 1;
      c.memset += split(row_shape, {});
    }
  }
  return c;
}

}  // namespace

void add_selection_rules(std::vector<LaunchRule>& r) {
  r.push_back(rule("sort.small")
                  .ops({"aten::sort", "aten::argsort", "aten::msort"})
                  .when("slices of at most 4096 elements: arange of the indices + copy of the values + in-place sort = "
                        "3, + 2 device-to-device memcpy",
                        small_sort)
                  .compute(sort_counts)
                  .evidence("opset:sort (8x1024 radix), opset:sort_small (64x32 bitonic), opset:argsort (dim of 64), "
                            "opinfo: msort (sort along dim 0: [5,10,5] 3 + 2 memcpy)")
                  .why("Sorting fills the indices with an arange, copies the values into the output and sorts each "
                       "slice in place with one kernel; two small device copies set up the outputs."));
  r.push_back(
      rule("sort.long")
          .ops({"aten::sort", "aten::argsort", "aten::msort"})
          .when("slices of more than 4096 elements: one slice or slices of >= 1M elements: 1 + (2 + p) per slice "
                "kernels and (2 + p) memsets (p = key bits / 8); 2-64 shorter slices together: 7 + p kernels, 5 + p "
                "memsets; + 1 memcpy",
                long_sort)
          .compute(long_sort_counts)
          .evidence("sweep:sortmode (f32, bf16, f16, int64; 1, 4 and 32 slices of 4097 to 1M), opset:sort_long, "
                    "opinfo: msort ([8000]: f32 7, bf16 5), opset:sort_long_rows (64 slices of 8192)")
          .why("Long slices are sorted by cub's radix sort, one pass per byte of the key, each pass zeroing its "
               "counters; several slices of moderate length are sorted together on keys tagged with their slice, very "
               "long ones one after another."));
  r.push_back(rule("mode.long")
                  .ops({"aten::mode"})
                  .when("slices of >= 3000 (f32), >= 4096 (int64) or > 2048 (bf16, fp16) elements: thrust per slice, "
                        "f32 15-16 kernels + 6 memsets, int64 17-18 + 10, bf16 8 below 4096, bf16/fp16 10 + 2 per "
                        "doubling from 8192; 8 memcpy per slice + 1",
                        long_mode)
                  .compute(long_mode_counts)
                  .evidence("sweep:sortmode (mode of 1, 4, 32 slices of 2049 to 1M elements), opset:mode_long, "
                            "opset:mode_long_rows (bf16: 16 slices of 3000)")
                  .why("The mode of a long slice is computed slice by slice with thrust: a sort, a run count and a "
                       "search, with results copied back to the host after each slice."));
  r.push_back(rule("select.kth")
                  .ops({"aten::kthvalue", "aten::median", "aten::nanmedian"})
                  .when("median or nanmedian along a dim / kthvalue: one radix-select kernel, + a copy of a "
                        "non-contiguous input; kthvalue of a 0-d input: the value copied (a memcpy) and the index "
                        "zeroed (a fill); of no elements: nothing",
                        [](const OpFacts& f) { return f.op->name == "aten::kthvalue" || f.op->overload == "dim"; })
                  .compute(kth_counts)
                  .evidence("opset:kthvalue, opset:median_dim (4-D and rows), opinfo: nanmedian.dim, masked.median, "
                            "opinfo_heldout3: kthvalue of a 0-d input (FillFunctor<long> + a DtoD memcpy, 4 of 4)")
                  .why("A k-th value or median along a dimension is found by one radix-select kernel per slice; the "
                       "k-th value of a single number is that number, copied, at index 0."));
  r.push_back(
      rule("mode.small")
          .ops({"aten::mode"})
          .when("slices of at most 2048 elements: one fused kernel; a copy first when the dim is not the innermost",
                small_mode)
          .compute(small_mode_counts)
          .evidence("opset:mode (slices of 32 and 4), opinfo: mode (dim 1 of 3: a copy and the kernel), "
                    "opinfo_heldout: mode of a 0-d input (the fill and a memcpy)")
          .why("The mode of a short slice is computed by one kernel that sorts and counts it in shared memory."));
  r.push_back(
      rule("segment_reduce.1d")
          .ops({"aten::segment_reduce"})
          .when("1-d data, axis 0: offsets 2 (+1 for mean); lengths 8 + 3 memcpy, 2 host syncs (+1 for mean; unsafe "
                "skips the checks: 5, no memcpy)",
                [](const OpFacts& f) {
                  return f.input(0) && f.input(0)->sizes.size() == 1 && f.int_arg("axis", 0) == 0 &&
                         (f.has_tensor_arg("offsets") || f.has_tensor_arg("lengths"));
                })
          .compute(segment_reduce_counts)
          .evidence(
              "opinfo: _segment_reduce_offsets (max 2, mean 3), _segment_reduce_lengths (max 8, mean 9; 3 memcpy), "
              "opinfo_heldout4: _segment_reduce_lengths with unsafe=True (max: 5, no memcpy)")
          .why(
              "segment_reduce reduces each segment of a 1-d input with cub's segmented reduce; lengths are first "
              "checked on the host and scanned into offsets, and a mean divides by the lengths with one more kernel."));
  r.push_back(
      rule("segment_reduce.nd")
          .ops({"aten::segment_reduce"})
          .when("data of rank >= 2 along the last dim of lengths or offsets, contiguous, nothing empty: offsets 2 "
                "(the diff, the forward kernel); lengths: the fill, the cat, the cumsum (cub's 2 for one row, else "
                "1), the forward kernel; unless unsafe, + the checks (min, row sums, comparison: 3; all of several "
                "rows one more kernel, of one row a memcpy; 2 read back); mean the same",
                segment_reduce_nd)
          .compute(segment_reduce_nd_counts)
          .evidence("opinfo samples 15+ (unmeasured): ATen's path (_segment_reduce_lengths_offsets_cuda_kernel) "
                    "composed of what the 1-d samples measure (opinfo: _segment_reduce_offsets: the diff, 1; "
                    "_segment_reduce_lengths: the checks 3 + 3 memcpy, the fill, the cat, cub's scan; "
                    "opinfo_heldout4: unsafe skips the checks), the scan rule (sweep:scan/cumsum_int: one "
                    "innermost-dim kernel for several rows), any/all of one element a memcpy and of several a "
                    "kernel (sweep:opinfo_edges multinomial of [1, 1] and [3, 4]) and the reductions' split "
                    "(reduce_config); the forward kernel's own count not yet measured")
          .why("Over data of more than one dimension, segment_reduce runs its own kernel, one thread per output "
               "element walking its segment (a mean divides there too), instead of cub's segmented reduce; lengths "
               "are still checked on the host unless unsafe and turned into offsets first."));
  r.push_back(
      rule("unique.dim.empty")
          .ops({"aten::unique_dim", "aten::unique_consecutive"})
          .when("along a dim of size 0: nothing (the empty results are allocated and returned)", unique_dim_empty)
          .counts({0, 0, 0, 0})
          .evidence("opinfo samples 15+ (unmeasured): ATen's path (unique_dim_cuda_template returns its empty "
                    "outputs when self.size(dim) == 0, before the arange, the sort or any read back)")
          .why("With no slice along the dimension there is nothing to sort or compare: unique allocates its empty "
               "results and returns without launching anything or reading back a count."));
  r.push_back(
      rule("unique_consecutive")
          .ops({"aten::unique_consecutive"})
          .when("no dim, no inverse: cub's unique (init + select; with counts init + run-length encode) and its "
                "count read back (1 memcpy, 1 host sync)",
                [](const OpFacts& f) {
                  const Arg* d = f.arg("dim");
                  return f.input(0) && (!d || d->kind == Arg::Kind::kNone) && !f.bool_arg("return_inverse", false);
                })
          .counts({2, 1, 0, 1})
          .evidence("opinfo: unique_consecutive (DeviceCompactInitKernel + DeviceSelectSweepKernel + DtoH, 6 of 6); "
                    "opinfo_heldout: with counts (DeviceCompactInitKernel + DeviceReduceByKeyKernel + DtoH)")
          .why("unique_consecutive keeps the first of each run of equal values with cub's select (two kernels) and "
               "reads the number kept back to the host to size its result."));
  r.push_back(
      rule("unique_consecutive.inverse")
          .ops({"aten::unique_consecutive"})
          .when("no dim, with the inverse, up to 1024 elements: an adjacent difference, its scan (init + scan), cub's "
                "run-length encode (init + sweep), with or without counts; the count read back (1 memcpy, 1 host sync)",
                [](const OpFacts& f) { return !dim_given(f) && unique_inverse(f); })
          .counts({5, 1, 0, 1})
          .evidence("sweep:opinfo_edges (unique_consecutive with return_inverse, with and without return_counts, of "
                    "[], [1], [7], [2, 3]; f32 and bf16)")
          .why("unique_consecutive's inverse is the running count of value changes, a scan; the runs are then "
               "encoded, and their number is read back to the host to size the result."));
  r.push_back(
      rule("unique_consecutive.dim")
          .ops({"aten::unique_consecutive"})
          .when("along a dim, up to 256 slices: an arange of slice indices, thrust's unique-by-key (init + sweep), "
                "the count read back (1 memcpy, 1 host sync), an index_select: 4; + 3 for the counts, + 5 for the "
                "inverse, + 1 where moving dim to the front leaves the input not dense (its contiguous copy)",
                unique_dim_options)
          .compute(unique_dim_counts)
          .evidence("sweep:opinfo_edges (unique_consecutive along dim 0 of [1], [7], [2, 3], every combination of "
                    "return_inverse and return_counts; f32 and bf16); opinfo_heldout7 (along dims 1 and 2 of [5, 5] "
                    "and [5, 5, 5]: the contiguous copy first)")
          .why("Along a dimension, unique_consecutive compares whole slices: it keeps the indices of the slices that "
               "differ from their predecessor, reads their number back to the host, and gathers those slices."));
  r.push_back(
      rule("multinomial.replacement")
          .ops({"aten::multinomial"})
          .when("with replacement, one distribution (1-d): the rows renormalized, their cumulative sum (cub, 2), "
                "one sampling kernel; 2 memcpy",
                [](const OpFacts& f) {
                  const Value* x = f.input(0);
                  return x && x->sizes.size() == 1 && x->numel() > 0 && f.bool_arg("replacement", false) &&
                         f.int_arg("num_samples", 1) > 1;
                })
          .counts({4, 2, 0, 0})
          .evidence("opinfo_heldout: multinomial of [3], 3 samples with replacement (renormRowsL1, cub's scan, "
                    "sampleMultinomialWithReplacement)")
          .why("Sampling with replacement normalizes the probabilities, takes their running sum and draws "
               "every sample by binary search in one kernel."));
  r.push_back(
      rule("multinomial.replacement.rows")
          .ops({"aten::multinomial"})
          .when("with replacement, 2 or more samples, 2-d distributions shorter than 400: the two copies of the "
                "probabilities (2 memcpy), renormRowsL1, their cumulative sum along the rows (one innermost-dim scan "
                "kernel; one row: cub's scan, init + scan), one sampling kernel",
                [](const OpFacts& f) {
                  const Value* x = f.input(0);
                  return x && x->sizes.size() == 2 && x->numel() > 0 && x->sizes.back() < 400 &&
                         f.bool_arg("replacement", false) && f.int_arg("num_samples", 1) > 1;
                })
          .compute([](const OpFacts& f) -> Counts {
            // cumsum scans a single row with cub (as a 1-d tensor), several with one innermost-dim kernel.
            return {f.input(0)->sizes[0] == 1 ? 4 : 3, 2, 0, 0};
          })
          .evidence("sweep:opinfo_edges (multinomial with replacement of [3, 4] and [5, 200], 3 and 4 samples: 3 "
                    "kernels + 2 memcpy; of [1, 1]: 4 + 2)")
          .why("Sampling with replacement normalizes each row, takes its running sum and draws every sample by "
               "binary search in one kernel; the number drawn does not change the launches."));
  r.push_back(rule("multinomial.no_replacement")
                  .ops({"aten::multinomial"})
                  .when("without replacement (or one sample), rows shorter than 400: the probability checks (min >= 0, "
                        "max < inf, and, assert; sum == 0 (+ any over rows for 2-d: a memcpy for one row), not, "
                        "assert), exponential_, div, then argmax for one sample or topk (select + sort): 14 for 1-d, "
                        "15 for 2-d",
                        [](const OpFacts& f) {
                          const Value* x = f.input(0);
                          return x && (x->sizes.size() == 1 || x->sizes.size() == 2) && x->sizes.back() < 400 &&
                                 (!f.bool_arg("replacement", false) || f.int_arg("num_samples", 1) == 1);
                        })
                  .compute([](const OpFacts& f) -> Counts {
                    // Distributions.cpp multinomial: Gumbel-style sampling by topk of p / Exp(1).
                    const Value& x = *f.input(0);
                    const int checks = 6 + (x.sizes.size() == 1 ? 2 : 3) + 2;
                    const int select = f.int_arg("num_samples", 1) == 1 ? 1 : 2;
                    Counts c{checks + 2 + select, 0, 0, 0};
                    // One row: the any over the rows reduces one element, which ATen copies (a memcpy).
                    if (x.sizes.size() == 2 && x.sizes[0] == 1) c += Counts{-1, 1, 0, 0};
                    return c;
                  })
                  .evidence("opinfo: multinomial ([3] and [10], 3 samples: 14; [3,10]: 15); sweep:opinfo_edges "
                            "([4], [3, 4], [5, 200], [1, 1]; 1, 3, 4 samples: 13, 14, 15, and 13 + a memcpy for one "
                            "row)")
                  .why("multinomial without replacement checks the probabilities on the device (asserts, no host "
                       "wait), divides them by exponential noise and takes the top samples: a select and a sort."));
  r.push_back(rule("median.all")
                  .ops({"aten::median", "aten::nanmedian"})
                  .when("over all elements: a sort of the flattened input (as sort counts one slice), then median: "
                        "isnan and where (2); nanmedian: isnan, its sum (a conversion and the reduce), rsub, div, the "
                        "cast to int64 and the gather (7)",
                        [](const OpFacts& f) {
                          const std::string& o = f.op->overload;
                          return f.input(0) && f.input(0)->numel() > 0 && (o.empty() || o == "default");
                        })
                  .compute([](const OpFacts& f) -> Counts {
                    // Sorting.cu median_impl: sorted = self.flatten().sort(); median: where(sorted[-1].isnan(),
                    // sorted[-1], sorted[k]); nanmedian: k = ((size - 1) - sorted.isnan().sum()) / 2, sorted[k].
                    Counts c = sort_1d_launches(f.input(0)->numel(), f.input(0)->dtype);
                    c.kernels += f.op->name == "aten::median" ? 2 : 7;
                    return c;
                  })
                  .evidence("opinfo: median and nanmedian of a 0-d tensor (arange, 3 memcpy; + eq, where: 3; + 7: 8)")
                  .why("median over all elements sorts a flattened copy and picks the middle value (or NaN) with two "
                       "more kernels; nanmedian first counts the NaNs on the device to find the middle of the rest."));
  r.push_back(rule("nonzero_static.empty")
                  .ops({"aten::nonzero_static"})
                  .when("a result of no elements (size 0, or a 0-d input: [0, size]): nothing",
                        [](const OpFacts& f) { return f.output(0) && f.output(0)->numel() == 0; })
                  .counts({0, 0, 0, 0})
                  .evidence("opinfo: nonzero_static of 0-d inputs, size 0, 1 and 3 (0 kernels)")
                  .why("nonzero_static allocates its [rank, size] result and returns at once when it has no elements: "
                       "nothing is counted or launched."));
  r.push_back(rule("nonzero_static")
                  .ops({"aten::nonzero_static"})
                  .when("calc_block_sums, compute_agg, flag_kernel and write_fill_value; write_indices for rank >= 2; "
                        "a copy of a non-contiguous input first; no count read back; an empty input: the result "
                        "filled with fill_value (1)",
                        [](const OpFacts& f) { return f.input(0) && f.output(0); })
                  .compute([](const OpFacts& f) {
                    const Value* x = f.input(0);
                    if (x->numel() == 0) return Counts{1, 0, 0, 0};
                    const int copy = x->numel() > 0 && !x->contiguous() ? 1 : 0;
                    return Counts{copy + 4 + (x->sizes.size() >= 2 ? 1 : 0), 0, 0, 0};
                  })
                  .evidence("opinfo_heldout5: nonzero_static of [5] with size 1 and 3 (4 kernels, float32 and "
                            "bfloat16); opinfo_heldout7: of an empty [5, 0, 5] with size 10 (FillFunctor<long> alone)")
                  .why("nonzero_static (cuda/Nonzero.cu) counts the non-zeros per block, scans the block counts, "
                       "writes the selected indices and pads the rest with the fill value, all on the device: its "
                       "size is given, so nothing is read back and the host never waits."));
  r.push_back(
      rule("nonzero")
          .ops({"aten::nonzero", "aten::argwhere", "aten::nonzero_numpy", "aten::where"})
          .when("nonzero, argwhere, where(condition): cub count (1 kernel up to 4096 elements, else 2), the count read "
                "back (1 memcpy, 1 host sync), cub select (2) for rank >= 1, write_indices for rank >= 2 when any "
                "element is "
                "non-zero (a result of 0 rows: none); a copy of a non-contiguous input first",
                [](const OpFacts& f) {
                  return f.input(0) &&
                         (f.op->name != "aten::where" ||
                          (f.inputs.size() == 1 && (f.op->overload.empty() || f.op->overload == "default")));
                })
          .compute([](const OpFacts& f) {
            // nonzero_numpy runs nonzero on a 0-d input unsqueezed to [1] (opinfo: 3 kernels).
            if (f.op->name == "aten::nonzero_numpy" && f.input(0)->sizes.empty()) {
              Value one = *f.input(0);
              one.sizes = {1};
              one.strides = {1};
              return nonzero_launches(one);
            }
            return nonzero_launches(*f.input(0), found_any(f));
          })
          .evidence(
              "sweep:select_sizes (nonzero of 1 to 250,000 elements, rank 0-3, contiguous, transposed, expanded: "
              "research/sweeps/check_selection.py), opset:nonzero, opset:argwhere, opset:where_cond, opinfo:argwhere, "
              "opinfo:nonzero (rank 0: 1), detection:* (where of 150 and 450 elements: 3; of 13500: 4), "
              "opinfo_heldout3:nonzero (an all-zero [5, 5]: no write_indices, 3)")
          .why("nonzero counts the non-zero elements on the GPU and must copy that count to the host to size its "
               "output: a host sync; cub's select then writes the flat indices, and a last kernel turns them into "
               "coordinates for a tensor of rank 2 or more."));
  r.push_back(
      rule("to_sparse")
          .ops({"aten::to_sparse"})
          .when("a dense 2-D tensor of at most 25 elements to a sparse COO tensor (all dims sparse): nonzero (4 "
                "kernels, the count read back), the values gathered at the indices (1), 2 memcpy of the indices",
                [](const OpFacts& f) {
                  const Value* x = f.input(0);
                  const Arg* layout = f.arg("layout");
                  return f.op->overload != "sparse_dim" && x && x->sizes.size() == 2 && x->numel() > 0 &&
                         x->numel() <= 25 && x->contiguous() && (!layout || layout->kind == Arg::Kind::kNone);
                })
          .compute([](const OpFacts& f) {
            Counts c = nonzero_launches(*f.input(0));
            c += Counts{1, 2, 0, 0};
            return c;
          })
          .evidence("opinfo:to_sparse ([5, 5], float32 and bfloat16: cub count, compact, select, write_indices, index; "
                    "DtoH, 2 DtoD)")
          .why("Converting a dense tensor to sparse finds its non-zero elements (a nonzero, whose count the host reads "
               "back) and gathers their values."));
  r.push_back(
      rule("to_sparse.sparse_dim")
          .ops({"aten::to_sparse"})
          .when("sparse_dim 1 of a dense 2-D tensor of at most 25 elements: nonzero (4 kernels, the count read back), "
                "the distinct rows of the indices (arange, a block merge sort, 2 thrust kernels, the count read back), "
                "index_select and the values gathered (2)",
                [](const OpFacts& f) {
                  const Value* x = f.input(0);
                  return f.op->overload == "sparse_dim" && x && x->sizes.size() == 2 && x->numel() > 0 &&
                         x->numel() <= 25 && x->contiguous() && f.int_arg("sparse_dim", -1) == 1;
                })
          .compute([](const OpFacts& f) {
            Counts c = nonzero_launches(*f.input(0));
            c += Counts{6, 2, 0, 1};
            return c;
          })
          .evidence("opinfo:to_sparse ([5, 5] with sparse_dim 1, float32 and bfloat16: 10 kernels; DtoH x2, DtoD)")
          .why("With fewer sparse dims than the tensor has, the indices of the non-zero elements are reduced to "
               "their distinct leading coordinates (a sort and a unique, read back by the host) before the values "
               "are gathered."));
  r.push_back(
      rule("combinations")
          .ops({"aten::combinations"})
          .when("a 1-D input, r >= 1, a mask of n^r elements up to 4096: the index arange, the mask's fill, a "
                "comparison and a multiply per adjacent pair of grids, then per grid masked_select (nonzero of the "
                "mask with its count read back: 1 memcpy each; with any combination the coordinates written and "
                "the gather), then the stack (one cat; a memcpy for r = 1); r = 0: nothing",
                combinations_small)
          .compute(combinations_counts)
          .evidence("opinfo:combinations ([1], r = 1: 6 kernels, DtoH and DtoD); sweep:opinfo_edges (n 0, 1, 2, 3, "
                    "5, 8; r 0 to 3; with and without replacement; f32 and bf16: 0 to 22 kernels)")
          .why("combinations builds an index grid per position, masks the increasing (or non-decreasing) ones and "
               "selects them with masked_select, whose nonzero reads the count back to the host, then stacks the "
               "selected columns. How many combinations there are follows from n and r, not from the values."));
  r.push_back(
      rule("masked_select")
          .ops({"aten::masked_select"})
          .when("nonzero of the mask broadcast to self's shape (a copy of the broadcast mask first when it is "
                "expanded) + one gather",
                [](const OpFacts& f) { return f.input(0) && f.input(1); })
          .compute(masked_select_counts)
          .evidence(
              "sweep:select_sizes (masked_select with same-shape, row, column and scalar masks), opset:masked_select, "
              "opinfo_heldout:masked_select (0-d self and mask: 4 kernels)")
          .why("masked_select is nonzero on the mask (which syncs with the host to size the result) followed by one "
               "gather kernel."));
  r.push_back(
      rule("unique.dim")
          .ops({"aten::unique_dim"})
          .when("unique slices along a dim, no inverse, no counts: an arange of slice indices, a sort of them by "
                "slice, a compaction of the distinct ones (thrust), an index_select of the result; the count read "
                "back: 1 memcpy, 1 host sync",
                unique_dim_plain)
          .compute(unique_dim_counts)
          .evidence("opset:unique_dim (int64[256,2], dim 0); opinfo_heldout7: along a dim other than 0 a "
                    "direct_copy first (self.moveaxis(dim, 0).contiguous()), 6")
          .why("unique along a dimension sorts the slices' indices by the slices' values, keeps the distinct ones and "
               "gathers them; their number is read back to the host to size the result, a host sync."));
  r.push_back(
      rule("embedding_renorm_")
          .ops({"aten::embedding_renorm_"})
          .when("2 to 4096 indices a slice: the indices sorted (as sort: 2 kernels + 3 memcpy for one slice, 3 + 2 "
                "for several), cub's unique of them (init + select), one renorm kernel; nothing read back",
                embedding_renorm_sorts_small)
          .compute(embedding_renorm_counts)
          .evidence("sweep:opinfo_edges (embedding_renorm_ of [5, 5] and [100, 5] weights with indices [7] (5 "
                    "kernels, 3 memcpy) and [2, 2] (6, 2), norm_type 1, 2, 3; f32 and bf16)")
          .why("embedding_renorm_ sorts the indices, keeps the distinct ones with cub's unique (their number stays "
               "on the device) and rescales each row they name whose norm exceeds max_norm in one kernel."));
  r.push_back(
      rule("unique.dim.options")
          .ops({"aten::unique_dim"})
          .when("with counts or the inverse, up to 256 slices: the plain 5 (the count read back: 1 memcpy, 1 host "
                "sync), + 3 for the counts, + 5 for the inverse, + 1 where moving dim to the front leaves the input "
                "not dense (its contiguous copy)",
                unique_dim_options)
          .compute(unique_dim_counts)
          .evidence("sweep:opinfo_edges (unique along dim 0 of [1], [7], [2, 3], every combination of sorted, "
                    "return_inverse and return_counts; f32 and bf16); opinfo_heldout7 (along dims 1 and 2 of [5, 5] "
                    "and [5, 5, 5]: the contiguous copy first)")
          .why("unique along a dimension sorts and compacts the slice indices; the counts take the differences of "
               "the kept positions, the inverse a scan of where a new slice starts, each a few kernels more."));
  r.push_back(
      rule("unique.inverse")
          .ops({"aten::_unique2", "aten::_unique"})
          .when("with the inverse, up to 1024 elements: an arange, a radix sort of (value, position) pairs, an "
                "adjacent difference, its scan (init + scan), a scatter into the inverse, cub's select or run-length "
                "encode (init + sweep): 8, with or without counts; the count read back (1 memcpy, 1 host sync)",
                unique_inverse)
          .counts({8, 1, 0, 1})
          .evidence("sweep:opinfo_edges (unique with return_inverse, sorted or not, with and without return_counts, "
                    "of [], [1], [7], [2, 3]; f32 and bf16)")
          .why("The inverse needs each element's rank among the distinct values: the positions are sorted with the "
               "values, the starts of new values scanned and scattered back; the distinct values are then selected "
               "and their number read back to the host."));
  r.push_back(
      rule("unique")
          .ops({"aten::_unique2", "aten::_unique"})
          .when("no inverse: radix sort + cub select (2; with counts cub's run-length encode, 2); the count read back: "
                "1 memcpy, 1 host sync",
                unique_plain)
          .counts({3, 1, 0, 1})
          .evidence(
              "opset:unique (int64[1024], _unique2; _unique runs the same unique_cuda_template without counts), "
              "opinfo_heldout: unique with counts (radix sort + DeviceCompactInitKernel + DeviceReduceByKeyKernel)")
          .why("unique sorts the values, then selects the distinct ones; their number is read back to the host to size "
               "the result, a host sync."));
  r.push_back(rule("bincount")
                  .ops({"aten::bincount"})
                  .when("no weights: min and max reductions read back (2 memcpy, 2 host syncs), fill, histogram",
                        bincount_unweighted)
                  .counts({4, 2, 0, 2})
                  .evidence("opset:bincount")
                  .why("bincount reads the input's minimum and maximum back to the host to size its result (two "
                       "syncs), zeroes it and counts with one histogram kernel."));
  r.push_back(rule("bincount.int_weights")
                  .ops({"aten::bincount"})
                  .when("integer weights: converted to float64 first (a copy kernel), then as without weights (min and "
                        "max read back, the fill, the histogram)",
                        [](const OpFacts& f) {
                          const Arg* w = f.arg("weights");
                          if (!w || w->kind != Arg::Kind::kTensor || w->tensors.empty()) return false;
                          const Value* wv = f.input(1);
                          return wv && wv->dtype != DType::kFloat32 && wv->dtype != DType::kFloat64 &&
                                 !is_half(wv->dtype);
                        })
                  .counts({5, 2, 0, 2})
                  .evidence("opinfo_heldout: bincount of int64 [5] with int64 weights (the cast, min, max, fill, "
                            "histogram)")
                  .why("bincount histograms non-float weights as float64: it converts them first, then sizes, zeroes "
                       "and fills the result as without weights."));
  r.push_back(rule("histc.empty")
                  .ops({"aten::histc"})
                  .when("no elements: the zero fill of the bins only, whatever the range",
                        [](const OpFacts& f) { return f.input(0) && f.in_numel == 0 && f.out_numel > 0; })
                  .counts({1, 0, 0, 0})
                  .evidence("opinfo samples 15+ (unmeasured): ATen's path (_histc_cuda_template: the zeros of "
                            "opinfo: histc's FillFunctor; min and max are read only when self.numel() > 0; "
                            "CUDA_tensor_histogram returns before its kernel when there is no element)")
                  .why("histc of no element still builds its zeroed bins (one fill), but has no range to read and no "
                       "element to count, so neither the min/max reductions nor the histogram kernel run."));
  r.push_back(rule("histc")
                  .ops({"aten::histc"})
                  .when("min < max given: zero fill + histogram", histc_ranged)
                  .counts({2, 0, 0, 0})
                  .evidence("opset:histc")
                  .why("histc with a given range zeroes the bins and counts into them with one histogram kernel."));
  r.push_back(rule("searchsorted")
                  .ops({"aten::searchsorted", "aten::bucketize"})
                  .when("one binary-search kernel; a scalar value first filled into a device tensor (1) and cast to "
                        "the boundaries' type (1); a sorter's range checked (aminmax: 1 kernel, 2 memcpy, 2 host "
                        "syncs); each operand not contiguous or not of the common type copied (1 each)")
                  .compute(searchsorted_counts)
                  .evidence("opset:searchsorted, opset:bucketize; opinfo_heldout7 (with a sorter: MinMaxOps + 2 DtoH "
                            "before the search, 11 of 11; a scalar value: FillFunctor<double> + direct_copy + the "
                            "search, 3 of 3)")
                  .why("searchsorted and bucketize run one binary-search kernel over the values. A scalar value is "
                       "first made a device tensor (a fill) and cast to the boundaries' type; a sorter is checked to "
                       "hold valid indices by reading its minimum and maximum back to the host."));
  r.push_back(rule("randperm")
                  .ops({"aten::randperm"})
                  .when("random keys + arange + radix sort + duplicate-key fix-up")
                  .counts({5, 0, 0, 0})
                  .evidence("opset:randperm (n = 1024)")
                  .why("randperm draws random keys, sorts an arange by them with cub's radix sort and fixes up equal "
                       "keys: five kernels."));
  // Scatters and out-of-place writes.
  r.push_back(
      rule("slice_scatter")
          .ops({"aten::slice_scatter"})
          .when("clone of self (1 memcpy when contiguous, else a copy kernel) + the copy of src into its slice: a "
                "memcpy when the slice is one dense block and src is contiguous of the same dtype, else a kernel")
          .compute(slice_scatter_counts)
          .evidence("opset:slice_scatter, opinfo: slice_scatter (a whole or leading slice of a contiguous [20,20,20]: "
                    "2 memcpy)")
          .why("slice_scatter clones its input and copies the source into one slice of the clone: when that slice is "
               "one block of memory both copies are plain memory copies."));
  r.push_back(rule("index_fill.tensor_value")
                  .ops({"aten::index_fill"})
                  .when("a 0-d tensor value: read back (.item(): 1 memcpy, 1 host sync), then clone + the fill kernel",
                        [](const OpFacts& f) { return f.has_tensor_arg("value"); })
                  .compute([](const OpFacts& f) -> Counts {
                    Counts c = clone_then_write(f);
                    c += Counts{0, 1, 0, 1};
                    return c;
                  })
                  .evidence("opinfo: index_fill.int_Tensor (1 kernel, a DtoD and a DtoH memcpy)")
                  .why("index_fill with a tensor value reads the value back to the host first (a copy the host waits "
                       "for), then clones its input and fills the indexed slices with one kernel."));
  r.push_back(rule("select_scatter")
                  .ops({"aten::select_scatter"})
                  .when("clone of self (1 memcpy when contiguous, else a copy kernel) + src copied into the selected "
                        "slice: a memcpy when that slice is dense, else a copy kernel")
                  .compute(select_scatter_counts)
                  .evidence("opset:select_scatter, opinfo_heldout:select_scatter (a 0-d src into [5]: 2 memcpy)")
                  .why("select_scatter clones its input, then copies src into one slice of the clone: a plain memcpy "
                       "when that slice is one dense block."));
  r.push_back(
      rule("scatter.clone")
          .ops({"aten::scatter", "aten::scatter_add", "aten::index_add", "aten::index_copy", "aten::index_fill"})
          .when("clone of self (1 memcpy when contiguous, else a copy kernel) + one scatter/write kernel")
          .compute(clone_then_write)
          .evidence("opset:scatter, opset:scatter_value, opset:scatter_add, opset:index_add, opset:index_copy, "
                    "opset:index_fill, opset:slice_scatter")
          .why("An out-of-place scatter first clones its input (a device-to-device memcpy), then writes the "
               "scattered values into the clone with one kernel."));
  r.push_back(
      rule("scatter.inplace")
          .ops({"aten::scatter_", "aten::scatter_add_", "aten::index_add_", "aten::index_copy_", "aten::index_fill_"})
          .when("in place: the write kernel alone (the out-of-place op's clone is not needed)")
          .compute([](const OpFacts& f) -> Counts {
            const Value* x = self(f);
            return x && x->numel() > 0 ? Counts{1, 0, 0, 0} : Counts{};
          })
          .evidence("opset:scatter, opset:scatter_add, opset:index_add, opset:index_copy, opset:index_fill (out of "
                    "place: clone + this kernel)")
          .why("An in-place scatter writes into its input with one kernel; no copy is made."));
  r.push_back(rule("index_put.inplace")
                  .ops({"aten::index_put_"})
                  .when("in place, accumulate=False: one indexed write; + a host-to-device copy the host waits for "
                        "when the value is a 0-dim host tensor",
                        index_put_plain)
                  .compute([](const OpFacts& f) {
                    Counts c{1, 0, 0, 0};
                    c += host_scalar_value(f);
                    return c;
                  })
                  .evidence("opset:index_put (out of place: clone + this kernel); detection_pt2: 360 index_put_ of a "
                            "host True into a device mask (1 kernel, 1 HtoD pageable memcpy, 1 host sync each)")
                  .why("An in-place index_put (x[idx] = v) writes the values at the indices with one kernel; a value "
                       "held on the host is first copied to the GPU."));
  r.push_back(
      rule("index_put")
          .ops({"aten::index_put"})
          .when("accumulate=False: clone + one indexed write; + nonzero per boolean index", index_put_plain)
          .compute([](const OpFacts& f) -> Counts {
            Counts c = clone_then_write(f);
            // A boolean index becomes integer indices by nonzero (expandTensors), counted and read back.
            if (const Arg* idx = f.arg("indices"))
              for (int v : idx->tensors)
                if (v >= 0 && f.graph->values[v].dtype == DType::kBool) c += nonzero_launches(f.graph->values[v]);
            return c;
          })
          .evidence("opset:index_put, opinfo: index_put with a bool [5] index (nonzero 3 + 1 memcpy, clone, write)")
          .why("index_put clones its input, then writes the values at the indices with one kernel."));
  r.push_back(
      rule("index_put.accumulate")
          .ops({"aten::index_put"})
          .when("accumulate=True, integer indices: clone (1 memcpy) + per index tensor its device bounds checks, wrap "
                "and stride (8; + 2 copies of a broadcast one), the sum of the linear indices, a division, an arange "
                "and cub's radix sort of them, and the sorted accumulate kernel (one index: 12)",
                [](const OpFacts& f) { return index_put_accumulate(f) && integer_indices(f); })
          .compute(index_put_accumulate_counts)
          .evidence("opset:index_put_acc, opinfo: index_put (one [2] index: 12), _unsafe_masked_index_put_accumulate "
                    "([10,1] and [1,10] indices: 25 of its 29 kernels)")
          .why("index_put with accumulate checks each index tensor on the device and combines them into linear "
               "indices, sorts those (so that equal indices add in order) and accumulates, after cloning the input."));
  r.push_back(
      rule("index_put.accumulate_mask")
          .ops({"aten::index_put"})
          .when("accumulate=True, one 1-d boolean mask over self's first dim: clone (1 memcpy) + nonzero of the "
                "mask (3 kernels up to 4096 elements, 1 memcpy, 1 host sync) + for the index it yields the checks, "
                "wrap and stride (8), division, arange and sort (3), the accumulate kernel, + a copy of values smaller "
                "than the slices they fill",
                index_put_accumulate_mask)
          .compute(index_put_accumulate_mask_counts)
          .data_dependent("how many elements the mask holds true: counted as every element (the export's bound, "
                          "as for nonzero); with none true only the clone and nonzero run (3 kernels + 2 memcpy "
                          "for a mask of up to 4096), the 12 or 13 kernels after nonzero skipped")
          .evidence("opinfo_heldout: index_put with an all-false bool [5] mask, accumulate=True (nonzero 3 kernels + "
                    "1 memcpy, the clone's memcpy: nothing after), opinfo: index_put accumulate with a [2] index (the "
                    "12 kernels after the clone), sweep:select_sizes (nonzero)")
          .why("index_put with a mask and accumulate first turns the mask into indices with nonzero, whose count the "
               "host must read, then sorts those indices and accumulates the values at them."));
  r.push_back(
      rule("masked_index_put.acc")
          .ops({"aten::_unsafe_masked_index_put_accumulate"})
          .when("a clamp per index tensor, logical_not of the mask, values.masked_fill (a clone memcpy and the fill), "
                "then index_put with accumulate as counted above",
                [](const OpFacts& f) { return f.input(0) && f.input(0)->numel() > 0 && integer_indices(f); })
          .compute([](const OpFacts& f) -> Counts {
            // TensorAdvancedIndexing.cpp: clamp each index, values.masked_fill(logical_not(mask), 0),
            // then self.index_put(clamped, masked_values, accumulate=true).
            Counts c = index_put_accumulate_counts(f);
            if (const Arg* idx = f.arg("indices"))
              for (int v : idx->tensors) c.kernels += v >= 0 ? 1 : 0;
            c += Counts{2, 1, 0, 0};
            return c;
          })
          .evidence(
              "opinfo: _unsafe_masked_index_put_accumulate ([5,5] by [10,1] and [1,10] indices: 29 kernels, 2 memcpy)")
          .why("A masked accumulate clamps its indices into range, zeroes the masked-off values and accumulates them "
               "like index_put with accumulate."));
  r.push_back(rule("scatter_reduce")
                  .ops({"aten::scatter_reduce"})
                  .when("sum/prod/amax/amin including self: clone + one scatter kernel, 2 memcpy",
                        scatter_reduce_including_self)
                  .counts({1, 2, 0, 0})
                  .evidence("opset:scatter_reduce (amax)")
                  .why("scatter_reduce clones its input and reduces the scattered values into it with one kernel."));
  r.push_back(rule("scatter_reduce.excluding_self")
                  .ops({"aten::scatter_reduce"})
                  .when("sum/prod/amax/amin excluding self: clone, the identity scattered to the targets, the scatter: "
                        "2 kernels, 2 memcpy",
                        scatter_reduce_excluding_self)
                  .counts({2, 2, 0, 0})
                  .evidence("opinfo: scatter_reduce amax, amin, prod, sum with include_self=False (16 of 16)")
                  .why("Without the input's own values, scatter_reduce first resets every target position to the "
                       "reduction's identity, then reduces the scattered values into them."));
  r.push_back(rule("scatter_reduce.mean")
                  .ops({"aten::scatter_reduce"})
                  .when("mean excluding self: scatters of the sums and the counts, fills and a division = 8, 2 memcpy",
                        scatter_reduce_mean_excluding_self)
                  .counts({8, 2, 0, 0})
                  .evidence("opset:scatter_reduce_mean")
                  .why("A scatter mean without the input's own values scatters the sums and the counts separately and "
                       "divides: eight kernels."));
  r.push_back(rule("scatter_reduce.mean.self")
                  .ops({"aten::scatter_reduce"})
                  .when("mean including self: sum and count scatters, fills, a division = 7, 2 memcpy",
                        scatter_reduce_mean_including_self)
                  .counts({7, 2, 0, 0})
                  .evidence("opset:scatter_reduce_mean_self")
                  .why("A scatter mean including the input's own values scatters the sums and the counts and divides: "
                       "seven kernels."));
  r.push_back(
      rule("masked_scatter")
          .ops({"aten::masked_scatter"})
          .when("clone (1 memcpy) + cub scan of the mask (2) + size check + scatter; + a copy of a mask broadcast to "
                "self's shape (or not contiguous)",
                [](const OpFacts& f) { return f.input(0) && f.input(1); })
          .compute([](const OpFacts& f) -> Counts {
            // masked_scatter: self and mask broadcast together, the broadcast self cloned (a memcpy
            // when it is self, dense; a copy kernel when expanded), then masked_scatter_cuda's
            // mask.contiguous() of the mask expanded to that shape.
            const Value& self = *f.input(0);
            const Value& mask = *f.input(1);
            const std::vector<int64_t> shape = broadcast_shape(self.sizes, mask.sizes);
            const bool self_dense = self.sizes == shape && self.contiguous();
            const bool mask_copies = mask.sizes != shape || !mask.contiguous();
            return {(self_dense ? 4 : 5) + (mask_copies ? 1 : 0), self_dense ? 1 : 0, 0, 0};
          })
          .evidence("opset:masked_scatter, opinfo: masked_scatter (full mask 4; [5] and 0-d masks over [5,5]: 5), "
                    "opinfo_heldout: masked_scatter of a [5] self by a [5, 5] mask (the expanded self copied: 5, no "
                    "memcpy)")
          .why("masked_scatter clones its input, scans the mask to find where each source value goes, checks the "
               "source is large enough and scatters: four kernels."));
  r.push_back(rule("take_along_dim")
                  .ops({"aten::take_along_dim"})
                  .when("index broadcast copy + gather; no dim: one gather of the flattened input",
                        [](const OpFacts& f) { return f.input(0) && f.input(1); })
                  .compute([](const OpFacts& f) -> Counts {
                    // Without a dim, take_along_dim is self.view(-1).gather(0, indices.view(-1)).
                    const Arg* d = f.arg("dim");
                    if (!d || d->kind == Arg::Kind::kNone) return f.out_numel > 0 ? Counts{1, 0, 0, 0} : Counts{};
                    return {2, 0, 0, 0};
                  })
                  .evidence("opset:take_along_dim, opinfo_heldout:take_along_dim (no dim: one gather kernel)")
                  .why("take_along_dim broadcasts its indices (one copy) and gathers with one kernel."));
  r.push_back(rule("one_hot")
                  .ops({"aten::one_hot"})
                  .when("num_classes given: zeros + scatter of ones", one_hot_sized)
                  .counts({2, 0, 0, 0})
                  .evidence("opset:one_hot")
                  .why("one_hot with a known number of classes zeroes the result and scatters the ones: two kernels "
                       "(with num_classes=-1 it would read the maximum back to the host)."));
  r.push_back(rule("embedding_bag")
                  .ops({"aten::embedding_bag", "aten::_embedding_bag"})
                  .when("sum, mean or max mode: one kernel", embedding_bag_sum_mean)
                  .counts({1, 0, 0, 0})
                  .evidence("opset:embedding_bag (mean), opset:embedding_bag_sum, opset:embedding_bag_max")
                  .why("An embedding bag gathers and reduces each bag with one kernel."));
  r.push_back(rule("repeat_interleave.tensor")
                  .ops({"aten::repeat_interleave"})
                  .when("tensor repeats: cub scan of the repeats (2), their sum read back and the repeats checked "
                        "non-negative (2 kernels, 2 memcpy, 2 host syncs) unless output_size is given, the index "
                        "computation, one index_select",
                        [](const OpFacts& f) { return f.op->overload == "self_Tensor" || f.op->overload == "Tensor"; })
                  .compute([](const OpFacts& f) -> Counts {
                    // repeat_interleave_common reads cumsum[-1] and (repeats >= 0).all() back only when
                    // it has no output_size.
                    const Arg* size = f.arg("output_size");
                    if (size && size->kind == Arg::Kind::kInt) return {4, 0, 0, 0};
                    return {6, 2, 0, 2};
                  })
                  .evidence("opset:repeat_interleave_tensor, opinfo_heldout:repeat_interleave (output_size given: 4 "
                            "kernels, no memcpy)")
                  .why("repeat_interleave with a tensor of counts sums them on the GPU and reads the total back to "
                       "size the result (host syncs), builds the gather indices and gathers."));
  r.push_back(
      rule("triu_indices")
          .ops({"aten::triu_indices", "aten::tril_indices"})
          .when("one kernel (TensorFactories.cu: one indices kernel each); none for an empty result")
          .compute(one_kernel_unless_empty)
          .evidence("opset:triu_indices, opinfo: tril_indices of 0 rows or columns (0)")
          .why("triu_indices and tril_indices write the row and column indices of the triangle with one kernel."));
}

}  // namespace kc::torch2_11
