// Ops that rearrange elements without computing on them, written by ATen as compositions of
// views and one copying kernel (TensorShape.cpp, TensorTransformations.cpp, Indexing.cu):
// the stacks, rot90, diag, fftshift's rolls, take and put.
#include <set>

#include "passes/torch2_11/rules.h"

namespace kc::torch2_11 {
namespace {

// hstack, vstack, dstack, column_stack, row_stack: atleast_Nd (views; column_stack reshapes 1-d
// inputs into columns) and one cat: one batched copy kernel for two or more inputs of one dtype
// and a result of rank <= 4 (cat_out_cuda's CatArrayBatchedCopy).
bool batched_stack(const OpFacts& f) {
  const Arg* ts = f.arg("tensors");
  const Value* out = f.output(0);
  if (!ts || !out || ts->tensors.size() < 2 || out->sizes.size() > 4) return false;
  for (int v : ts->tensors)
    if (v < 0 || f.graph->values[v].dtype != out->dtype) return false;
  return true;
}

// rot90 (TensorTransformations.cpp): k % 4 == 0 clones the input (a memcpy when dense), any other
// turn is one flip kernel (a transpose view after it for odd turns).
Counts rot90_counts(const OpFacts& f) {
  const int64_t k = ((f.int_arg("k", 1) % 4) + 4) % 4;
  if (k == 0) return clone_counts(f);
  return {1, 0, 0, 0};
}

// diag of a 1-d input of n: zeros of [n + |d|]^2 (a fill), then the vector copied into the
// diagonal view (a memcpy when it holds one element, else a copy kernel); of a 2-d input: the
// diagonal view copied into a new vector (likewise). diagflat flattens its input first (a view
// of a contiguous input) and takes the 1-d path.
Counts diag_counts(const OpFacts& f) {
  const Value* x = f.input(0);
  const Value* out = f.output(0);
  const bool vector = f.op->name == "aten::diagflat" || x->sizes.size() <= 1;
  const int64_t copied = vector ? x->numel() : out->numel();
  Counts c{vector ? 1 : 0, 0, 0, 0};
  if (f.op->name == "aten::diagflat" && !x->contiguous()) c.kernels += 1;
  if (copied == 1)
    c.memcpy += 1;
  else if (copied > 1)
    c.kernels += 1;
  return c;
}
bool diag_shapes(const OpFacts& f) {
  const Value* x = f.input(0);
  return x && f.output(0) && (f.op->name == "aten::diagflat" || x->sizes.size() <= 2);
}

// fftshift / ifftshift: roll by half of each listed dim (all of them by default); roll over
// several dims rolls one dim at a time (roll_common): one kernel per dim.
Counts fftshift_counts(const OpFacts& f) {
  const Value* x = f.input(0);
  const Arg* dims = f.arg("dim");
  const size_t n = dims && !dims->ints.empty() ? dims->ints.size() : x->sizes.size();
  return {static_cast<int>(std::max<size_t>(n, 1)), 0, 0, 0};
}

// take: one index kernel over the indices (take_kernel); put: a clone of the input (a memcpy of
// a dense input), then put_'s index kernel.
bool dense_self(const OpFacts& f) {
  return f.input(0) && f.input(0)->contiguous();
}
Counts put_counts(const OpFacts& f) {
  Counts c = clone_counts(f);
  const Value* idx = f.input(1);
  if (idx && idx->numel() > 0) c.kernels += 1;
  return c;
}

// block_diag (TensorShape.cpp): a zero-filled [sum of rows, sum of columns] result, then each
// non-empty block copied into its slice (1-d and 0-d tensors count as one row). A copy is one
// memcpy when both sides are dense: a source of the result's dtype, contiguous, into a slice of
// one row or of the full width; otherwise a copy kernel.
Counts block_diag_counts(const OpFacts& f) {
  const Arg* ts = f.arg("tensors");
  const Value* out = f.output(0);
  if (!ts || !out || out->numel() == 0) return {};
  const int64_t width = out->sizes.size() == 2 ? out->sizes[1] : 0;
  Counts c{1, 0, 0, 0};
  for (int v : ts->tensors) {
    if (v < 0) continue;
    const Value& t = f.graph->values[v];
    const int64_t rows = t.sizes.size() == 2 ? t.sizes[0] : 1;
    const int64_t cols = t.sizes.size() == 2 ? t.sizes[1] : t.sizes.size() == 1 ? t.sizes[0] : 1;
    if (rows == 0 || cols == 0) continue;
    const bool dense = t.dtype == out->dtype && t.contiguous() && (rows == 1 || cols == width);
    c += dense ? Counts{0, 1, 0, 0} : Counts{1, 0, 0, 0};
  }
  return c;
}
// cartesian_prod (Itertools.cpp): one tensor is returned as it is; several are spread by
// meshgrid (expanded views), each flattened (a copy kernel where no view can flatten its
// expanded strides) and stacked as columns (one cat kernel).
Counts cartesian_prod_counts(const OpFacts& f) {
  const Arg* ts = f.arg("tensors");
  const Value* out = f.output(0);
  if (!ts || !out || out->numel() == 0 || out->sizes.empty()) return {};
  std::vector<const Value*> in;
  for (int v : ts->tensors)
    if (v >= 0) in.push_back(&f.graph->values[v]);
  if (in.size() < 2) return {};
  std::vector<int64_t> sizes;
  for (const Value* t : in) sizes.push_back(t->numel());
  Counts c{1, 0, 0, 0};
  for (size_t i = 0; i < in.size(); ++i) {
    std::vector<int64_t> strides(in.size(), 0);
    strides[i] = in[i]->strides.empty() ? 1 : in[i]->strides[0];
    if (!view_is_possible(sizes, strides, {out->sizes[0]})) c.kernels += 1;
  }
  return c;
}

}  // namespace

void add_rearrange_rules(std::vector<LaunchRule>& r) {
  r.push_back(
      rule("block_diag")
          .ops({"aten::block_diag"})
          .when("a zero fill of the result, then per non-empty block a memcpy (dense source into one row or the full "
                "width) or a copy kernel",
                [](const OpFacts& f) { return f.output(0) && f.output(0)->sizes.size() == 2; })
          .compute(block_diag_counts)
          .evidence("opinfo: block_diag ([1,5], [2,5], [3,5]: 3 + 1 memcpy; [5,1], [5,2], [5,3]: 4; 1-d: 1 + 3 memcpy)")
          .why("block_diag zeroes its result with one kernel and copies each block into place: a plain memory copy "
               "when the block's rows lie back to back in the result, a copy kernel otherwise."));
  r.push_back(rule("cartesian_prod")
                  .ops({"aten::cartesian_prod"})
                  .when("one tensor: nothing; several: a copy per meshgrid view that no view can flatten, then one cat",
                        [](const OpFacts& f) { return f.output(0) != nullptr; })
                  .compute(cartesian_prod_counts)
                  .evidence("opinfo: cartesian_prod (1 tensor: 0; 2: 1 cat; 3: 2 copies + 1 cat)")
                  .why("cartesian_prod spreads its inputs over a grid of broadcast views, copies those that cannot be "
                       "flattened in place, and stacks the columns with one kernel."));
  r.push_back(
      rule("stack.batched")
          .ops({"aten::hstack", "aten::vstack", "aten::dstack", "aten::column_stack", "aten::row_stack"})
          .when("two or more inputs of the result's dtype, result of rank <= 4: one batched cat kernel", batched_stack)
          .compute(one_kernel_unless_empty)
          .evidence("opinfo: hstack, vstack, dstack, column_stack (22 of 22)")
          .why("The stacks view their inputs at the needed rank and concatenate them with one batched copy."));
  r.push_back(
      rule("rot90")
          .ops({"aten::rot90"})
          .when("a turn: one flip kernel; k % 4 == 0: a clone", [](const OpFacts& f) { return f.input(0) != nullptr; })
          .compute(rot90_counts)
          .evidence("opinfo: rot90 (k = 1, -5)")
          .why("A quarter or half turn is a flip (with a transposed view): one gather kernel."));
  r.push_back(rule("diag")
                  .ops({"aten::diag", "aten::diagflat"})
                  .when("from a vector: a fill of the matrix and a copy into its diagonal; from a matrix: a copy of "
                        "the diagonal; a copy of one element is a memcpy",
                        diag_shapes)
                  .compute(diag_counts)
                  .evidence("opinfo: diag, diagflat (0-d input: a fill and a memcpy)")
                  .why("Building a diagonal matrix zero-fills it, then copies the vector into the diagonal; reading "
                       "one copies the diagonal out."));
  r.push_back(rule("fftshift")
                  .ops({"aten::fft_fftshift", "aten::fft_ifftshift"})
                  .when("one roll kernel per shifted dim (all dims by default)",
                        [](const OpFacts& f) { return f.input(0) != nullptr; })
                  .compute(fftshift_counts)
                  .evidence("opinfo: fft_fftshift, fft_ifftshift (2-d default: 2; one dim: 1)")
                  .why("A shift of the spectrum rolls each dimension in turn: one kernel per dimension."));
  r.push_back(rule("take")
                  .ops({"aten::take"})
                  .when("a contiguous input: one index kernel", dense_self)
                  .compute(one_kernel_unless_empty)
                  .evidence("opinfo: take")
                  .why("take gathers the flat positions it is given with one index kernel."));
  r.push_back(rule("put")
                  .ops({"aten::put"})
                  .when("a contiguous input: a clone (memcpy), then one index kernel", dense_self)
                  .compute(put_counts)
                  .evidence("opinfo: put (with and without accumulate)")
                  .why("put copies its input, then writes the values at the flat positions with one index kernel."));
}

}  // namespace kc::torch2_11
