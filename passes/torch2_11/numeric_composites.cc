// Composite ops ATen writes as short chains of other ops (Distance.cpp, TensorCompare.cpp,
// ReduceOps.cpp, Integration.cpp, TensorShape.cpp): each step one kernel, every reduction
// zeroing its semaphores first where it splits across blocks (reduce_config.h).
#include <algorithm>
#include <cmath>

#include "analyzer/tensor_geometry.h"
#include "passes/torch2_11/reduce_config.h"
#include "passes/torch2_11/rules.h"

namespace kc::torch2_11 {
namespace {

// 1 when a reduction of a fresh contiguous tensor of `sizes` over `dims` (empty: all) zeroes
// its semaphores first.
int split_memset(const OpFacts& f, const std::vector<int64_t>& sizes, const std::vector<int64_t>& dims) {
  return reduce_splits_across_blocks(f.target->device, sizes, contiguous_strides(sizes), dims) ? 1 : 0;
}
std::vector<int64_t> dims_arg(const OpFacts& f, const char* name) {
  const Arg* a = f.arg(name);
  return a ? a->ints : std::vector<int64_t>{};
}

// dist(a, b, p) = norm(a - b, p): the difference, then one norm reduction over every element.
Counts dist_counts(const OpFacts& f) {
  const auto shape = broadcast_shape(f.input(0)->sizes, f.input(1)->sizes);
  return {2, 0, split_memset(f, shape, {}), 0};
}
// pairwise_distance(x1, x2, p, eps) = norm(x1 - x2 + eps, p, last dim): sub, add, the norm.
Counts pairwise_distance_counts(const OpFacts& f) {
  const auto shape = broadcast_shape(f.input(0)->sizes, f.input(1)->sizes);
  return {3, 0, shape.empty() ? 0 : split_memset(f, shape, {-1}), 0};
}
// isclose (TensorCompare.cpp): self == other; for floating tensors with equal_nan, the NaN test
// isnan(self) & isnan(other) or-ed in (isnan, isnan, and, or); zero tolerances return there.
// Otherwise the allowed error atol + |rtol * other| (mul, abs, add), the actual error
// |self - other| (sub, abs), its finiteness ((x == x) * (|x| != inf): four kernels), <=, and the
// and/or that combine them: 12 more. Integer inputs with a tolerance first cast to the default
// dtype (unmeasured: not this rule).
bool isclose_tolerant(const OpFacts& f) {
  auto tolerance = [&](const char* name, double fallback) {
    const Arg* t = f.arg(name);
    return t && t->kind == Arg::Kind::kFloat && !t->floats.empty() ? t->floats[0] : fallback;
  };
  return tolerance("rtol", 1e-05) != 0.0 || tolerance("atol", 1e-08) != 0.0;
}
// Half, bfloat16, float, double: the floating types whose isfinite is the four-kernel test (fp8
// takes other paths).
bool isclose_wide_floating(DType t) {
  return t == DType::kFloat16 || t == DType::kBFloat16 || t == DType::kFloat32 || t == DType::kFloat64;
}
bool isclose_fits(const OpFacts& f) {
  const Value* a = f.input(0);
  const Value* b = f.input(1);
  if (!a || !b || a->dtype != b->dtype) return false;
  const bool integral = a->dtype >= DType::kBool && a->dtype <= DType::kInt64;  // bool and the integer types
  return isclose_wide_floating(a->dtype) || (integral && !isclose_tolerant(f));
}
Counts isclose_counts(const OpFacts& f) {
  const bool floating = isclose_wide_floating(f.input(0)->dtype);
  const int nan_test = floating && f.bool_arg("equal_nan", false) ? 4 : 0;
  return {1 + nan_test + (isclose_tolerant(f) ? 12 : 0), 0, 0, 0};
}
// nanmean = nansum(x, dim) / logical_not(isnan(x)).sum(dim): isnan, logical_not, the bool count
// (a cast to int64, then its sum), nansum, div.
Counts nanmean_counts(const OpFacts& f) {
  const Value& x = *f.input(0);
  const auto dims = dims_arg(f, "dim");
  return {6, 0, 2 * split_memset(f, x.sizes, dims), 0};
}
// trapezoid(y, x, dim) = ((x[1:] - x[:-1]) * (y[1:] + y[:-1])).sum(dim) / 2 along dim: sub, add,
// mul, sum, div; cumulative_trapezoid takes a cumsum instead of the sum (two kernels when it
// scans every element).
Counts trapezoid_counts(const OpFacts& f) {
  const Value& y = *f.input(0);
  int64_t dim = f.int_arg("dim", -1);
  const int64_t rank = static_cast<int64_t>(y.sizes.size());
  if (dim < 0) dim += rank;
  std::vector<int64_t> sliced = broadcast_shape(y.sizes, f.input(1)->sizes);
  if (dim >= 0 && dim < static_cast<int64_t>(sliced.size())) sliced[dim] = std::max<int64_t>(sliced[dim] - 1, 0);
  if (f.op->name == "aten::cumulative_trapezoid") {
    int64_t n = 1;
    for (int64_t s : sliced) n *= s;
    const bool whole = dim >= 0 && dim < static_cast<int64_t>(sliced.size()) && sliced[dim] == n && n > 1;
    return {whole ? 6 : 5, 0, 0, 0};
  }
  return {5, 0, split_memset(f, sliced, {dim}), 0};
}
// trapezoid(y, dx, dim) (Integration.cpp do_trapezoid with a scalar spacing) = (y.sum(dim) -
// (y[0] + y[-1]) * 0.5) * dx: the edges' add and halving, the sum, the difference, the scaling by dx
// (even dx = 1); cumulative_trapezoid = cumsum((y[1:] + y[:-1]) * (dx / 2)): add, mul, the cumsum
// (two kernels when it scans every element).
bool trapezoid_dx_fits(const OpFacts& f) {
  const Value* y = f.input(0);
  if (f.op->overload != "dx" || !y || y->sizes.empty()) return false;
  const int64_t rank = static_cast<int64_t>(y->sizes.size());
  int64_t dim = f.int_arg("dim", -1);
  if (dim < 0) dim += rank;
  return dim >= 0 && dim < rank && y->sizes[dim] > 0;
}
Counts trapezoid_dx_counts(const OpFacts& f) {
  const Value& y = *f.input(0);
  const int64_t rank = static_cast<int64_t>(y.sizes.size());
  int64_t dim = f.int_arg("dim", -1);
  if (dim < 0) dim += rank;
  if (f.op->name == "aten::cumulative_trapezoid") {
    std::vector<int64_t> sliced = y.sizes;
    sliced[dim] -= 1;
    int64_t n = 1;
    for (int64_t s : sliced) n *= s;
    if (n == 0) return {};
    return {sliced[dim] == n && n > 1 ? 4 : 3, 0, 0, 0};
  }
  return {5, 0, split_memset(f, y.sizes, {dim}), 0};
}
bool trapezoid_shapes(const OpFacts& f) {
  const Value* y = f.input(0);
  const Value* x = f.input(1);
  return y && x && !y->sizes.empty() && y->numel() > 0;
}
// diagonal_scatter / as_strided_scatter: a clone of the input (a memcpy when dense), then src
// copied into the view: a memcpy where the view and src are both dense alike, else a kernel.
Counts scatter_into_view_counts(const OpFacts& f) {
  const Value& self = *f.input(0);
  const Value& src = *f.input(1);
  Counts c = self.contiguous() ? Counts{0, 1, 0, 0} : Counts{1, 0, 0, 0};
  if (src.numel() == 0) return c;
  bool dense_view = src.numel() == 1;
  if (f.op->name == "aten::as_strided_scatter") {
    const Arg* size = f.arg("size");
    const Arg* stride = f.arg("stride");
    dense_view = size && stride && stride->ints == contiguous_strides(size->ints);
    if (size && size->ints.size() <= 1 && src.numel() <= 1) dense_view = true;
  }
  if (dense_view && src.contiguous() && src.dtype == self.dtype)
    c.memcpy += 1;
  else
    c.kernels += 1;
  return c;
}

// all / any of one element (allany_impl): result.copy_(self.view_as(result).to(kBool)), a cast
// kernel unless the input is bool, then a device-to-device memcpy.
bool one_element(const OpFacts& f) {
  return f.input(0) && f.input(0)->numel() == 1;
}

// Dropout.cpp's _dropout_impl for alpha dropout in training: p = 1 multiplies by a zero scalar
// (a fill, the product); 0 < p < 1 draws the mask (bernoulli_), builds the offset b (add, mul_,
// add_), scales the mask (mul_), then input * mask + b: seven kernels.
Counts alpha_dropout_counts(const OpFacts& f) {
  const Arg* p = f.arg("p");
  const double prob = p && !p->floats.empty() ? p->floats[0] : 0.5;
  if (f.out_numel == 0 || prob == 0.0) return {};
  return prob >= 1.0 ? Counts{2, 0, 0, 0} : Counts{7, 0, 0, 0};
}
// sum_to_size (ExpandUtils.h's sum_to): an empty size sums everything, a 0-dim input too; else
// the input itself when it already has the size, else one sum (keepdim) over the leading
// dimensions and those the size holds at 1.
Counts sum_to_size_counts(const OpFacts& f) {
  const Value* in = f.input(0);
  const std::vector<int64_t> size = dims_arg(f, "size");
  if (size.empty()) return {1, 0, in->numel() > 0 ? split_memset(f, in->sizes, {}) : 0, 0};
  if (in->sizes == size) return {};
  std::vector<int64_t> dims;
  const size_t lead = in->sizes.size() - std::min(in->sizes.size(), size.size());
  for (size_t i = 0; i < in->sizes.size(); ++i)
    if (i < lead || (size[i - lead] == 1 && in->sizes[i] != 1)) dims.push_back(static_cast<int64_t>(i));
  return {1, 0, in->numel() > 0 ? split_memset(f, in->sizes, dims) : 0, 0};
}

// gradient with a scalar spacing, or one scalar a dim (ReduceOps.cpp, gradient_helper_float: the
// same steps either way), for each dim (every dim when none is given, each listed one otherwise): the centre difference
// (sub, div), each edge (edge_order 1: sub, div; edge_order 2: three scaled terms combined and divided, 6), the centre
// halved, and a cat of edge, centre, edge: 8 kernels a dim for edge_order 1, 16 for 2.
bool gradient_scalar(const OpFacts& f) {
  const Value* x = f.input(0);
  const int64_t e = f.int_arg("edge_order", 1);
  const std::string& o = f.op->overload;
  const bool scalars =
      o == "scalarint" || o == "scalararray" || o == "scalarrayint" || o == "scalarrayarray" || o == "array";
  return scalars && x && !x->sizes.empty() && (e == 1 || e == 2);
}
int64_t gradient_dims(const OpFacts& f) {
  const Arg* d = f.arg("dim");
  if (d && d->kind == Arg::Kind::kInt) return 1;
  if (d && d->kind == Arg::Kind::kIntList) return static_cast<int64_t>(d->ints.size());
  return static_cast<int64_t>(f.input(0)->sizes.size());
}
Counts gradient_counts(const OpFacts& f) {
  const int per_dim = f.int_arg("edge_order", 1) == 2 ? 16 : 8;
  return {static_cast<int>(gradient_dims(f)) * per_dim, 0, 0, 0};
}
// gradient with a coordinate tensor a dim (gradient_helper): per dim the coordinates' diff, its
// two slices combined into the three weights a, b, c (a dozen elementwise kernels, whatever the
// values), the centre as a * prepend + b * self + c * append, each edge from the spacing, and the
// cat: 21 kernels a dim with edge_order 1, 52 with edge_order 2.
bool gradient_tensors(const OpFacts& f) {
  const Value* x = f.input(0);
  const int64_t e = f.int_arg("edge_order", 1);
  const std::string& o = f.op->overload;
  return (o == "tensorarrayint" || o == "tensorarray") && x && !x->sizes.empty() && (e == 1 || e == 2);
}
Counts gradient_tensors_counts(const OpFacts& f) {
  const int per_dim = f.int_arg("edge_order", 1) == 2 ? 52 : 21;
  return {static_cast<int>(gradient_dims(f)) * per_dim, 0, 0, 0};
}

// _chunk_cat_cuda takes its one-kernel path only when every input is contiguous; otherwise the
// composite (TensorShape.cpp's _pad_chunk, then cat): each input whose size along `dim` is no
// multiple of num_chunks is padded into a new zeroed tensor (a fill and a copy), then reshaped to
// [sizes before dim, num_chunks, -1] (a copy kernel when that is no view), and the pieces are
// concatenated along dim + 1 (one batched cat kernel for several inputs of rank <= 4).
std::vector<const Value*> chunk_cat_inputs(const OpFacts& f) {
  std::vector<const Value*> ins;
  const Arg* ts = f.arg("tensors");
  if (!ts) return ins;
  for (int v : ts->tensors)
    if (v >= 0) ins.push_back(&f.graph->values[v]);
  return ins;
}
bool chunk_cat_fast(const OpFacts& f) {
  const std::vector<const Value*> ins = chunk_cat_inputs(f);
  return !ins.empty() && std::all_of(ins.begin(), ins.end(), [](const Value* v) { return v->contiguous(); });
}
bool chunk_cat_composite(const OpFacts& f) {
  const std::vector<const Value*> ins = chunk_cat_inputs(f);
  const int64_t chunks = f.int_arg("num_chunks", 0);
  if (ins.size() < 2 || chunks < 1 || chunk_cat_fast(f)) return false;
  const int64_t rank = static_cast<int64_t>(ins[0]->sizes.size());
  int64_t dim = f.int_arg("dim", 0);
  if (dim < 0) dim += rank;
  if (dim < 0 || dim >= rank || dim + 2 > 4 || ins.size() > 64) return false;
  // Inputs may differ in rank past dim (preprocess_chunk_cat_inputs checks the dims before it).
  for (const Value* v : ins)
    if (static_cast<int64_t>(v->sizes.size()) <= dim || v->strides.size() != v->sizes.size() || v->numel() == 0 ||
        v->dtype != ins[0]->dtype)
      return false;
  return true;
}
Counts chunk_cat_composite_counts(const OpFacts& f) {
  const std::vector<const Value*> ins = chunk_cat_inputs(f);
  const int64_t chunks = f.int_arg("num_chunks", 0);
  const int64_t rank = static_cast<int64_t>(ins[0]->sizes.size());
  int64_t dim = f.int_arg("dim", 0);
  if (dim < 0) dim += rank;
  Counts c{1, 0, 0, 0};  // the cat
  for (const Value* v : ins) {
    const int64_t vrank = static_cast<int64_t>(v->sizes.size());
    if (v->sizes[dim] % chunks != 0) {
      // new_zeros, then the input copied into its narrow along dim: a memcpy when the input is
      // contiguous and the narrow is too (every dim before dim of size 1), else a copy kernel.
      bool narrow_dense = true;
      for (int64_t d = 0; d < dim; ++d) narrow_dense &= v->sizes[d] == 1;
      c += Counts{1, 0, 0, 0};
      c += narrow_dense && v->contiguous() ? Counts{0, 1, 0, 0} : Counts{1, 0, 0, 0};
      continue;
    }
    std::vector<int64_t> view(v->sizes.begin(), v->sizes.begin() + dim);
    int64_t rest = 1;
    for (int64_t d = dim; d < vrank; ++d) rest *= v->sizes[d];
    view.push_back(chunks);
    view.push_back(rest / chunks);
    if (!view_is_possible(v->sizes, v->strides, view)) c += Counts{1, 0, 0, 0};
  }
  return c;
}

}  // namespace

void add_numeric_composite_rules(std::vector<LaunchRule>& r) {
  r.push_back(rule("histc")
                  .ops({"aten::histc"})
                  .when("a zero fill of the bins and one histogram kernel; min == max (the default 0, 0): the range is "
                        "first read from the data (min and max reductions, each read back: 2 memcpy, 2 host syncs)",
                        [](const OpFacts& f) { return f.input(0) && f.in_numel > 0; })
                  .compute([](const OpFacts& f) -> Counts {
                    // SummaryOps.cu _histc_cuda_template: self.min().item() and self.max().item() when min == max.
                    const Arg* lo = f.arg("min");
                    const Arg* hi = f.arg("max");
                    auto value = [](const Arg* a) {
                      if (!a) return 0.0;
                      if (a->kind == Arg::Kind::kFloat && !a->floats.empty()) return a->floats[0];
                      if (a->kind == Arg::Kind::kInt && !a->ints.empty()) return static_cast<double>(a->ints[0]);
                      return 0.0;
                    };
                    const bool data_range = value(lo) == value(hi);
                    return data_range ? Counts{4, 2, 0, 2} : Counts{2, 0, 0, 0};
                  })
                  .evidence("opinfo: histc with the default range (fill, min, max, kernelHistogram1D; 2 DtoH memcpy; "
                            "bins 1, 3 and 100)")
                  .why("histc zeroes its bins and counts every element into them with one kernel; with no range given "
                       "it first finds the data's minimum and maximum and reads them back to the host."));
  r.push_back(
      rule("isin.brute_force")
          .ops({"aten::isin"})
          .when("few test elements (fewer than 10 * elements^0.145): elements compared with every test element and "
                "reduced with any, written into the result: a fill, the comparison, the reduction and a memcpy",
                [](const OpFacts& f) {
                  const Value* e = f.input(0);
                  const Value* t = f.input(1);
                  if (f.op->overload != "Tensor_Tensor" || !e || !t || e->numel() == 0) return false;
                  return static_cast<double>(t->numel()) < 10.0 * std::pow(static_cast<double>(e->numel()), 0.145);
                })
          .counts({3, 1, 0, 0})
          .evidence(
              "opinfo: isin.Tensor_Tensor (20 elements, 5 test elements: FillFunctor, eq, any-reduce, 1 DtoD memcpy)")
          .why("isin with few test elements compares every element with each of them and reduces with any, copying the "
               "answer into the result."));
  r.push_back(
      rule("isin.sort")
          .ops({"aten::isin"})
          .when(
              "more test elements (at least 10 * elements^0.145), 1-D operands of at most 20 elements, not assumed "
              "unique: unique of the elements with their inverse (8 kernels) and of the test elements (3), each count "
              "read back; a cat, a stable sort (2), the neighbours compared, the last flag filled from the host, the "
              "flags put back in order (index_copy, index): 17 kernels, 8 memcpy",
              [](const OpFacts& f) {
                const Value* e = f.input(0);
                const Value* t = f.input(1);
                if (f.op->overload != "Tensor_Tensor" || !e || !t || e->numel() == 0) return false;
                if (e->sizes.size() != 1 || t->sizes.size() != 1 || e->numel() > 20 || t->numel() > 20) return false;
                if (f.bool_arg("assume_unique", false)) return false;
                return static_cast<double>(t->numel()) >= 10.0 * std::pow(static_cast<double>(e->numel()), 0.145);
              })
          .counts({17, 8, 0, 2})
          .evidence("opinfo: isin.Tensor_Tensor (5 elements, 20 test elements, float32 and bfloat16: 17 kernels; DtoH "
                    "x2, DtoD x5, HtoD)")
          .why("isin with many test elements sorts the distinct elements and test elements together and marks the "
               "elements equal to their sorted neighbour; each unique reads its count back to the host."));
  r.push_back(
      rule("gradient.scalar")
          .ops({"aten::gradient"})
          .when("scalar spacing (or one a dim), edge_order 1 or 2: per dim 8 kernels (centre and edge differences, the "
                "halving, a cat), 16 with edge_order 2",
                gradient_scalar)
          .compute(gradient_counts)
          .evidence("opinfo: gradient.scalarint ([5]: 8 with and without spacing; [5,5] edge_order 2: 32); "
                    "opinfo_heldout: gradient.scalarrayint, gradient.scalarrayarray ([5, 5], spacing (2.0, "
                    "2.1), all dims and dims (0, 1): 16); sweep:opinfo_edges (gradient.array: dims (0, -1) of "
                    "[3, 3, 3] and [4, 6], edge_order 1 and 2)")
          .why("torch.gradient takes central differences inside and one-sided ones at the edges of each "
               "dimension, each a few elementwise kernels, and joins them with a cat."));
  r.push_back(
      rule("gradient.tensors")
          .ops({"aten::gradient"})
          .when("a coordinate tensor a dim, edge_order 1 or 2: per dim 21 kernels (the weights from the "
                "coordinates' differences, the centre and edge differences, a cat), 52 with edge_order 2",
                gradient_tensors)
          .compute(gradient_tensors_counts)
          .evidence("sweep:opinfo_edges (gradient.tensorarrayint, gradient.tensorarray of [5], [4, 6], [3, 3, 3]: "
                    "all dims, dim 0, dims (0, -1); edge_order 1 and 2; f32 and bf16)")
          .why("With coordinates as tensors, torch.gradient first turns their differences into three weights per "
               "point (a chain of elementwise kernels on the device, no values read back), then combines the "
               "neighbours with them and joins centre and edges with a cat, dim by dim."));
  r.push_back(
      rule("alpha_dropout.train")
          .ops({"aten::alpha_dropout", "aten::feature_alpha_dropout"})
          .when("train: 0 < p < 1 a mask, its offset and scale, the product and the offset added; p = 1 a product with "
                "zero",
                [](const OpFacts& f) { return f.bool_arg("train", true); })
          .compute(alpha_dropout_counts)
          .evidence("opinfo: alpha_dropout, feature_alpha_dropout with train = True (7 kernels; 2 at p = 1)")
          .why("Alpha dropout keeps the activations' mean and variance: a Bernoulli mask, an offset built from it with "
               "three elementwise kernels, the mask scaled, then the input times the mask plus the offset."));
  r.push_back(
      rule("sum_to_size")
          .ops({"aten::sum_to_size"})
          .when("the input when it has the size; else one sum over the dimensions the size reduces",
                [](const OpFacts& f) {
                  return f.input(0) && f.arg("size") && dims_arg(f, "size").size() <= f.input(0)->sizes.size();
                })
          .compute(sum_to_size_counts)
          .evidence("opinfo: sum_to_size (6 of 6: one reduce kernel)")
          .why("sum_to_size is a sum with keepdim over the dimensions it removes or shrinks to 1: one reduce kernel."));
  r.push_back(
      rule("trace")
          .ops({"aten::trace"})
          .when("the diagonal's sum: one reduce kernel",  // An empty diagonal was never measured: left unknown.
                [](const OpFacts& f) { return f.input(0) && f.input(0)->sizes.size() == 2 && f.input(0)->numel() > 0; })
          .compute([](const OpFacts& f) {
            const Value* in = f.input(0);
            const int64_t n = std::min(in->sizes[0], in->sizes[1]);
            const bool split = reduce_splits_across_blocks(f.target->device, {n}, {in->sizes[1] + 1}, {});
            return Counts{1, 0, split ? 1 : 0, 0};
          })
          .evidence("opinfo: trace (2 of 2)")
          .why("trace sums the matrix's diagonal, a strided view, with one reduce kernel."));
  r.push_back(
      rule("special_ndtr")
          .ops({"aten::special_ndtr"})
          .when("x * sqrt(1/2), erf, + 1, * 0.5: four elementwise kernels (none for an empty input)")
          .compute([](const OpFacts& f) {
            return f.out_numel > 0 ? Counts{4, 0, 0, 0} : Counts{};
          })
          .evidence("opinfo: special_ndtr (6 of 6: 4 kernels, 0 for the empty sample)")
          .why("The normal distribution's CDF is written as (1 + erf(x / sqrt(2))) / 2, each step its own kernel."));
  r.push_back(rule("safe_softmax")
                  .ops({"aten::_safe_softmax"})
                  .when("softmax, isneginf, all over the dimension, a zero fill, where",
                        [](const OpFacts& f) { return f.input(0) && f.input(0)->numel() > 0; })
                  .compute([](const OpFacts& f) {
                    const Value* in = f.input(0);
                    return Counts{5, 0, split_memset(f, in->sizes, {f.int_arg("dim", -1)}), 0};
                  })
                  .evidence("opinfo: _safe_softmax (6 of 6: 5 kernels)")
                  .why("_safe_softmax gives zeros for rows that are entirely -inf: the softmax, then a mask of -inf "
                       "inputs, its all() over the dimension, a tensor of zeros and a where."));
  r.push_back(rule("allany.one_element")
                  .ops({"aten::all", "aten::any"})
                  .when("an input of one element: a cast to bool (none for a bool input), then a memcpy", one_element)
                  .compute([](const OpFacts& f) {
                    return Counts{f.input(0)->dtype == DType::kBool ? 0 : 1, 1, 0, 0};
                  })
                  .evidence("opinfo: all, any of 0-d tensors (12 of 12)")
                  .why("all and any of a single element skip the reduction: the element is converted to bool and "
                       "copied into the result."));
  r.push_back(rule("dist")
                  .ops({"aten::dist"})
                  .when("the difference, then one norm reduction over every element",
                        [](const OpFacts& f) { return f.input(0) && f.input(1); })
                  .compute(dist_counts)
                  .evidence("opinfo: dist (p 2 and 4, broadcast; 6 of 6)")
                  .why("dist subtracts the tensors with one kernel and reduces the difference's norm with another."));
  r.push_back(
      rule("pairwise_distance")
          .ops({"aten::pairwise_distance"})
          .when("sub, add eps, a norm over the last dim", [](const OpFacts& f) { return f.input(0) && f.input(1); })
          .compute(pairwise_distance_counts)
          .evidence("opinfo: pairwise_distance, triplet_margin_with_distance_loss (18 of 18)")
          .why("The distance is x1 - x2 + eps (two elementwise kernels) and its norm along the last dimension."));
  r.push_back(
      rule("isclose")
          .ops({"aten::isclose"})
          .when("same dtypes, floating or zero tolerances: eq, the NaN test (4) with equal_nan on floats, the "
                "error test (12) with a tolerance",
                isclose_fits)
          .compute(isclose_counts)
          .evidence("opinfo: isclose (0-d, 1-d, broadcast; 6 of 6); opinfo_heldout4: isclose with rtol = atol = 0 "
                    "(1 CompareEq; with equal_nan 3 CompareEq + BitwiseAnd + BitwiseOr; 4 of 4)")
          .why("isclose compares, or-s in the NaN test when equal_nan holds for floats, returns there with zero "
               "tolerances, else builds the allowed and the actual error and combines the tests, one elementwise "
               "kernel per step."));
  r.push_back(rule("nanmean")
                  .ops({"aten::nanmean"})
                  .when("isnan, logical_not, a cast and a sum for the count, nansum, div",
                        [](const OpFacts& f) { return f.input(0) && f.input(0)->numel() > 0; })
                  .compute(nanmean_counts)
                  .evidence("opinfo: nanmean (6 of 6)")
                  .why("nanmean sums the non-NaN values and divides by their count, which takes its own elementwise "
                       "kernels and sum."));
  r.push_back(rule("trapezoid")
                  .ops({"aten::trapezoid", "aten::trapz", "aten::cumulative_trapezoid"})
                  .when("with x: sub, add, mul, the sum (cumulative: cumsum, two kernels over a whole 1-d input), div",
                        [](const OpFacts& f) { return f.op->overload == "x" && trapezoid_shapes(f); })
                  .compute(trapezoid_counts)
                  .evidence("opinfo: trapezoid.x, trapz.x, cumulative_trapezoid.x (18 of 18)")
                  .why("The trapezoid rule takes the spacing and the pairwise sums with elementwise kernels, "
                       "multiplies them and sums (or scans) the products, then halves them."));
  r.push_back(rule("trapezoid.dx")
                  .ops({"aten::trapezoid", "aten::trapz", "aten::cumulative_trapezoid"})
                  .when("a scalar spacing: the edges' add and halving, the sum, the difference, the scaling (5); "
                        "cumulative: add, mul, cumsum (two kernels over a whole 1-d input)",
                        trapezoid_dx_fits)
                  .compute(trapezoid_dx_counts)
                  .evidence("opinfo_heldout: trapezoid.dx, trapz.dx ([6]: 5), cumulative_trapezoid.dx ([6]: 4)")
                  .why("With a scalar spacing the trapezoid rule is the sum less half the two edge values, scaled; "
                       "the cumulative form scans the scaled pairwise sums."));
  r.push_back(
      rule("softmax.backward_data")
          .ops({"aten::_softmax_backward_data"})
          .when("grad * output, then the softmax backward kernel")
          .compute([](const OpFacts& f) {
            return f.out_numel > 0 ? Counts{2, 0, 0, 0} : Counts{};
          })
          .evidence("opinfo: _softmax_backward_data (6 of 6)")
          .why("Softmax's backward multiplies the gradient by the output, then reduces and scales in one kernel."));
  r.push_back(
      rule("chunk_cat.strided")
          .ops({"aten::_chunk_cat"})
          .when("an input not contiguous, 2 to 64 non-empty inputs of one dtype, dim <= 2: per input a fill and a copy "
                "(a memcpy when the input and its slice of the padded tensor are dense) when its size along dim is "
                "no multiple of num_chunks, else a copy when its reshape to [.., num_chunks, -1] is no view; then "
                "one cat kernel",
                chunk_cat_composite)
          .compute(chunk_cat_composite_counts)
          .evidence("sweep:opinfo_edges (_chunk_cat of [2, 3, 3], [2, 3, 4], [2, 3, 271] transposed in their "
                    "last two dims, dims 0 and 1, num_chunks 1, 3, 8: 1, 4 and 7 kernels; f32 and bf16), "
                    "opinfo_heldout2:_chunk_cat (five inputs of ranks 2 to 4, one contiguous, dim 0, 3 chunks: 10 "
                    "kernels + 1 memcpy)")
          .why("chunk_cat's fused kernel needs contiguous inputs; otherwise ATen pads each input to a multiple "
               "of the chunk count (zeroes, then a copy), reshapes it (a copy when strided) and concatenates."));
  r.push_back(rule("chunk_cat")
                  .ops({"aten::_chunk_cat"})
                  .when("contiguous inputs: the inputs' pointers and sizes copied to the device, one chunk_cat kernel",
                        chunk_cat_fast)
                  .counts({1, 1, 0, 0})
                  .evidence("opinfo: _chunk_cat (6 of 6)")
                  .why("chunk_cat sends a table of its inputs to the GPU (a host-to-device memcpy), then copies every "
                       "chunk with one kernel."));
  r.push_back(rule("scatter_into_view")
                  .ops({"aten::diagonal_scatter", "aten::as_strided_scatter"})
                  .when("a clone of the input (memcpy when dense), then src copied into the view (memcpy when both are "
                        "dense, else a kernel)",
                        [](const OpFacts& f) { return f.input(0) && f.input(1); })
                  .compute(scatter_into_view_counts)
                  .evidence("opinfo: diagonal_scatter, as_strided_scatter (12 of 12)")
                  .why("The scatter copies its input, then copies src into a view of the copy."));
}

}  // namespace kc::torch2_11
