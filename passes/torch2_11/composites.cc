// ATen composites (ops implemented in C++ as a sequence of other ops, so one call launches
// several kernels) and single-kernel ops that carry no pointwise tag, on the H200
// (aten/src/ATen/native/ReduceOps.cpp logsumexp, TensorCompare.cpp isinf/isfinite,
// Distance.cpp cdist/cosine_similarity, AffineGridGenerator.cpp, Linear.cpp bilinear,
// PadNd.cpp _pad_circular, TensorFactories.cpp eye, SpectralOps.cpp).
// Evidence `opset:` names the blocks of data/corpus/opset measured in data/results/opset.
#include <cmath>

#include "analyzer/tensor_geometry.h"
#include "passes/layout.h"
#include "passes/torch2_11/reduce_config.h"
#include "passes/torch2_11/rules.h"

namespace kc::torch2_11 {
namespace {

bool floating_input(const OpFacts& f) {
  const Value* x = f.input(0);
  return x && is_floating(x->dtype);
}
// logsumexp reduces twice over the same dims (amax, then the sum of exp(x - max)), count_nonzero
// once (the sum of x != 0); their temporaries keep the input's layout (TensorIterator), so each
// reduction splits across blocks as the input's would.
Counts logsumexp_counts(const OpFacts& f) {
  return {9, 0, reduction_splits(f) ? 2 : 0, 0};
}
Counts count_nonzero_counts(const OpFacts& f) {
  return {3, 0, reduction_splits(f) ? 1 : 0, 0};
}
// max()/min() of all elements and argmax/argmin without a dim reduce a flattened input: ATen
// takes input.contiguous() (max_all) or input.reshape(-1) (argmax), which copies a tensor that is
// not contiguous first; the reduction then runs on dense memory.
// (max and min name their overloads over a dim and against another tensor too; the reduction of
// all elements is the default one.)
bool reduces_flattened(const OpFacts& f) {
  const std::string& n = f.op->name;
  if (!f.input(0)) return false;
  if (n == "aten::max" || n == "aten::min") return f.op->overload.empty() || f.op->overload == "default";
  if (n != "aten::argmax" && n != "aten::argmin") return false;
  const Arg* dim = f.arg("dim");
  return !dim || dim->kind == Arg::Kind::kNone;
}
Counts flattened_reduction(const OpFacts& f) {
  const Value* x = f.input(0);
  const bool copy = !x->contiguous();
  std::vector<int64_t> dense(x->sizes.size(), 1);
  for (size_t i = dense.size(); i-- > 1;) dense[i - 1] = dense[i] * x->sizes[i];
  const bool split = reduce_splits_across_blocks(f.target->device, x->sizes, copy ? dense : x->strides, {});
  return {1 + (copy ? 1 : 0), 0, split ? 1 : 0, 0};
}
// _pad_circular: the centre is copied, then each side with a non-zero pad is copied from the
// opposite edge: 1 + one copy per non-zero pad entry.
bool pad_circular(const OpFacts& f) {
  return f.text_arg("mode", "") == "circular";
}
Counts pad_circular_counts(const OpFacts& f) {
  const Arg* p = f.arg("pad");
  int n = 1;
  if (p && p->kind == Arg::Kind::kIntList)
    for (int64_t v : p->ints) n += v > 0 ? 1 : 0;
  return {n, 0, 0, 0};
}
// bilinear (Linear.cpp, via _trilinear): a zero fill, then per output feature a GEMM, a
// reduction and an accumulate.
bool bilinear_shapes(const OpFacts& f) {
  const Value* x = f.input(0);
  const Value* w = f.input(2);
  return x && !x->sizes.empty() && w && w->sizes.size() == 3 && w->sizes[0] <= 100000;  // the count stays an int
}
// + the bias, added to the result by one more kernel (opinfo: [8,3] x [8,4], 5 features: 17).
// Unbatched 1-d inputs are one row: cuBLAS runs each feature's one-row products with an extra
// reduction (float32: two gemvx and a split-K reduce; bf16: gemv, dot and its one-block
// reduction), 4 kernels a feature with the accumulate (opinfo: [3] and [4], 5 features: 22).
Counts bilinear_counts(const OpFacts& f) {
  const int per_feature = f.input(0)->sizes.size() == 1 ? 4 : 3;
  return {1 + per_feature * static_cast<int>(f.input(2)->sizes[0]) + (f.has_tensor_arg("bias") ? 1 : 0), 0, 0, 0};
}
// _cdist_forward's cdist_impl (Distance.cpp): both inputs are expanded to the broadcast of their
// batch dims and made contiguous (x.expand(...).contiguous()): a copy kernel for an input whose
// batch the broadcast grows (a stride-0 dim) or that is strided. Then nothing when a side has no
// rows, a zero fill when the points have no coordinates, the Euclidean distance as a matrix
// product (p = 2 with compute_mode 1, or compute_mode 0 and more than 25 rows on a side), else one
// cdist kernel (every other p, and p = 2 on few rows or with compute_mode 2).
struct CdistPlan {
  int64_t batch = 1, rows_a = 0, rows_b = 0, cols = 0;
  int copies = 0;
};
CdistPlan cdist_plan(const OpFacts& f) {
  const Value* a = f.input(0);
  const Value* b = f.input(1);
  const size_t ra = a->sizes.size(), rb = b->sizes.size();
  CdistPlan p;
  for (int64_t d : broadcast_shape({a->sizes.begin(), a->sizes.end() - 2}, {b->sizes.begin(), b->sizes.end() - 2}))
    p.batch *= d;
  p.rows_a = a->sizes[ra - 2];
  p.rows_b = b->sizes[rb - 2];
  p.cols = a->sizes[ra - 1];
  for (const Value* v : {a, b}) {
    const size_t r = v->sizes.size();
    const int64_t own = r > 2 ? v->numel() / (v->sizes[r - 2] * v->sizes[r - 1]) : 1;
    if (own != p.batch || !v->contiguous()) ++p.copies;
  }
  return p;
}
double cdist_p(const OpFacts& f) {
  const Arg* p = f.arg("p");
  return p && p->kind == Arg::Kind::kFloat && !p->floats.empty() ? p->floats[0] : 2.0;
}
bool cdist_inputs(const OpFacts& f) {
  const Value* a = f.input(0);
  const Value* b = f.input(1);
  return a && b && a->sizes.size() >= 2 && b->sizes.size() >= 2 && a->numel() > 0 && b->numel() > 0;
}
// cdist_impl's test for the matrix-product formulation (compute_mode None is 0).
bool cdist_euclid_by_mm(const OpFacts& f) {
  const Value* a = f.input(0);
  const Value* b = f.input(1);
  const int64_t mode = f.int_arg("compute_mode", 0);
  const int64_t ra = a->sizes[a->sizes.size() - 2], rb = b->sizes[b->sizes.size() - 2];
  return cdist_p(f) == 2.0 && (mode == 1 || (mode == 0 && (ra > 25 || rb > 25)));
}
Counts cdist_direct_counts(const OpFacts& f) {
  const CdistPlan p = cdist_plan(f);
  if (p.rows_a == 0 || p.rows_b == 0 || p.batch == 0) return {};
  if (p.cols == 0) return {1, 0, 0, 0};  // result.zero_()
  return {p.copies + 1, 0, 0, 0};
}
// The matrix-product formulation (_euclidean_dist, on the expanded inputs when the batch is more
// than one matrix): x.pow(2).sum(-1) and ones_like for each side (6 kernels), x1.mul(-2) and the
// two cats (3), x1_.matmul(x2_.transpose(-2, -1)) (one mm of 2-D inputs, else one bmm, the right
// operand read transposed: the GEMM rules' count), clamp_min_ and sqrt_ (2).
Counts cdist_mm_counts(const OpFacts& f) {
  const CdistPlan p = cdist_plan(f);
  Counts c{p.copies + 11, 0, 0, 0};
  const bool two_d = f.input(0)->sizes.size() == 2 && f.input(1)->sizes.size() == 2;
  c += two_d ? mm_launches(*f.target, p.rows_a, p.cols + 2, p.rows_b, f.dtype)
             : bmm_launches(*f.target, p.batch, p.rows_a, p.cols + 2, p.rows_b, f.dtype);
  return c;
}

// max_unpooling2d/3d_forward_out_cuda (cuda/MaxUnpooling.cu): self.contiguous() and
// indices.contiguous() (a copy kernel each for a strided layout, channels-last among them), the
// output zeroed, then the kernel over the input's elements.
Counts max_unpool_counts(const OpFacts& f) {
  const Value* in = f.input(0);
  const Value* out = f.output(0);
  Counts c;
  for (const Value* v : {in, f.input(1)})
    if (v && v->numel() > 0 && !v->contiguous()) c.kernels += 1;
  if (out && out->numel() > 0) c.kernels += 1;
  if (in && in->numel() > 0) c.kernels += 1;
  return c;
}
bool power_of_two(int64_t n) {
  return n > 0 && (n & (n - 1)) == 0;
}
bool fft_last_dims_pow2(const OpFacts& f, int dims) {
  const Value* x = f.input(0);
  if (!x || static_cast<int>(x->sizes.size()) < dims) return false;
  for (int i = 0; i < dims; ++i)
    if (!power_of_two(x->sizes[x->sizes.size() - 1 - i]) || x->sizes[x->sizes.size() - 1 - i] > 4096) return false;
  return f.dtype == DType::kFloat32 || f.dtype == DType::kComplex64;
}
// cuBLAS level 1/2 on few rows: f32 dot products and 8-row matrix-vector products run
// cuBLAS's dot kernel and a one-block reduction; half precision runs one nvjet GEMM.
// Measured f32 row counts: 8 (dot kernels) and 4096 (gemv2T); between them cuBLAS's switch
// point is not measured and the op stays unknown.
// A short row (at most 10 columns, opinfo's 5x10) is one gemv kernel at any row count measured.
bool mv_rows(const OpFacts& f, int mat_input) {
  const Value* m = f.input(mat_input);
  return m && m->sizes.size() == 2 &&
         (is_half(m->dtype) ||
          (m->dtype == DType::kFloat32 && (m->sizes[0] <= 8 || m->sizes[0] >= 4096 || m->sizes[1] <= 10)));
}
Counts mv_counts(const OpFacts& f, int mat_input) {
  const Value* m = f.input(mat_input);
  return {is_half(m->dtype) || m->sizes[0] >= 4096 || m->sizes[1] <= 10 ? 1 : 2, 0, 0, 0};
}
// addmv / addbmm write self into the result first: a memcpy when it has the result's shape and is
// contiguous, a copy kernel expanding it when broadcast (opinfo: self [1]).
Counts self_into_result(const OpFacts& f) {
  const Value* self = f.input(0);
  const Value* out = f.output(0);
  if (!self || !out || out->numel() == 0) return {};
  return self->sizes == out->sizes && self->contiguous() ? Counts{0, 1, 0, 0} : Counts{1, 0, 0, 0};
}
// addbmm: the added matrix copied into the result, then one GEMM per batch accumulating into it
// (f32: each with its split-K reduction or two tiles: 2 per batch in both measured shapes).
bool addbmm_shapes(const OpFacts& f) {
  const Value* b1 = f.input(1);
  return b1 && b1->sizes.size() == 3 && b1->sizes[0] <= 4096 && (is_half(b1->dtype) || b1->dtype == DType::kFloat32);
}
Counts addbmm_counts(const OpFacts& f) {
  const Value* b1 = f.input(1);
  const Value* b2 = f.input(2);
  Counts c = self_into_result(f);
  if (!b2 || b2->sizes.size() != 3) return c;
  const Counts per_batch = mm_launches(*f.target, b1->sizes[1], b1->sizes[2], b2->sizes[2], b1->dtype);
  for (int64_t i = 0; i < b1->sizes[0]; ++i) c += per_batch;
  return c;
}
bool complex_input(const OpFacts& f) {
  const Value* x = f.input(0);
  return x && (x->dtype == DType::kComplex64 || x->dtype == DType::kComplex128);
}

// gru_cell / lstm_cell (aten/src/ATen/native/RNN.cpp, CUDA): igates = linear(input, w_ih),
// hgates = linear(hx, w_hh), both without bias, then _thnn_fused_{gru,lstm}_cell adds the
// biases and applies the gates in one kernel.
const Value* cell_hidden(const OpFacts& f) {
  const Arg* hx = f.arg("hx");
  if (!hx || hx->tensors.empty() || hx->tensors[0] < 0) return nullptr;
  return &f.graph->values[hx->tensors[0]];
}
bool rnn_cell_shapes(const OpFacts& f) {
  const Value* x = f.input(0);
  const Value* h = cell_hidden(f);
  const Arg* w_ih = f.arg("w_ih");
  const Arg* w_hh = f.arg("w_hh");
  if (!x || !h || !w_ih || !w_hh || w_ih->tensors.empty() || w_hh->tensors.empty()) return false;
  const Value& wi = f.graph->values[w_ih->tensors[0]];
  const Value& wh = f.graph->values[w_hh->tensors[0]];
  return x->sizes.size() == 2 && h->sizes.size() == 2 && wi.sizes.size() == 2 && wh.sizes.size() == 2 &&
         (fp32(f) || is_half(f.dtype));
}
Counts rnn_cell_counts(const OpFacts& f) {
  const Value* x = f.input(0);
  const Value* h = cell_hidden(f);
  const Value& wi = f.graph->values[f.arg("w_ih")->tensors[0]];
  const Value& wh = f.graph->values[f.arg("w_hh")->tensors[0]];
  Counts c{1, 0, 0, 0};
  c += mm_launches(*f.target, x->sizes[0], x->sizes[1], wi.sizes[0], f.dtype);
  c += mm_launches(*f.target, h->sizes[0], h->sizes[1], wh.sizes[0], f.dtype);
  return c;
}

}  // namespace

void add_composite_rules(std::vector<LaunchRule>& r) {
  r.push_back(rule("logsumexp.empty_input")
                  .ops({"aten::logsumexp"})
                  .when("an input of no elements, a result of some: sum of exp of nothing (a fill), then log_",
                        [](const OpFacts& f) {
                          const Value* out = f.output(0);
                          return f.in_numel == 0 && out && out->numel() > 0;
                        })
                  .counts({2, 0, 0, 0})
                  .evidence("opinfo_reference: logsumexp of a bfloat16 [0] over dim 0 (FillFunctor, log_kernel)")
                  .why("With nothing to take the maximum of, logsumexp sums exp of the empty input into its result "
                       "(a fill of zeros) and takes its log in place: two kernels."));
  r.push_back(rule("logsumexp")
                  .ops({"aten::logsumexp"})
                  .when("floating input: amax, the infinite-max guard (abs, compare, where), subtract, exp, sum, log, "
                        "add = 9; amax and sum each zero a semaphore buffer where the reduction splits across blocks",
                        floating_input)
                  .compute(logsumexp_counts)
                  .evidence("opset:logsumexp (4-D and rows), sweep:reduction/logsumexp (all dims, f32 and bf16)")
                  .why("logsumexp is computed as max + log(sum(exp(x - max))) with a guard for infinite maxima: nine "
                       "separate kernels."));
  r.push_back(rule("isinf")
                  .ops({"aten::isinf"})
                  .when("floating input: abs + compare", floating_input)
                  .counts({2, 0, 0, 0})
                  .evidence("opset:isinf")
                  .why("isinf is abs(x) == inf: two kernels."));
  r.push_back(rule("isfinite")
                  .ops({"aten::isfinite"})
                  .when("floating input: x == x, abs, != inf, and", floating_input)
                  .counts({4, 0, 0, 0})
                  .evidence("opset:isfinite")
                  .why("isfinite is (x == x) & (abs(x) != inf): four kernels."));
  r.push_back(rule("count_nonzero")
                  .ops({"aten::count_nonzero"})
                  .when("x != 0, a cast to int64, a sum (and its semaphore memset where the sum splits across blocks)")
                  .compute(count_nonzero_counts)
                  .evidence("opset:count_nonzero, sweep:reduction/count_nonzero")
                  .why("count_nonzero compares with zero, casts the result to integers and sums them: three kernels."));
  r.push_back(rule("reduction.flatten")
                  .cls(OpClass::kReduction)
                  .when("over all elements (max()/min(), argmax/argmin without a dim): a copy when the input is not "
                        "contiguous, the reduce kernel, a memset where it splits across blocks",
                        reduces_flattened)
                  .compute(flattened_reduction)
                  .evidence("sweep:reduction_random (max and argmax of permuted inputs: 98 of 98 copy first)")
                  .why("max() and argmax() of all elements reduce the input flattened; ATen makes a contiguous copy of "
                       "a tensor that is not contiguous first (one more kernel)."));
  r.push_back(
      rule("cosine_similarity")
          .ops({"aten::cosine_similarity"})
          .when(
              "squared norms of both inputs, their product, clamp, rsqrt, the dot product and the scale: 9, + 2 memcpy")
          .counts({9, 2, 0, 0})
          .evidence("opset:cosine_similarity (4-D, dim 1)")
          .why("cosine_similarity computes both squared norms, the dot product and the scaling as separate kernels: "
               "nine of them."));
  r.push_back(rule("cdist.direct")
                  .ops({"aten::cdist", "aten::_cdist_forward"})
                  .when("p != 2, or p = 2 on at most 25 rows a side (compute_mode 0) or with compute_mode 2; "
                        "contiguous non-empty inputs: one cdist kernel, after a contiguous copy of each input that "
                        "the broadcast batch expands",
                        [](const OpFacts& f) {
                          // Strided or empty inputs (a copy; nothing or a zero fill) are ATen's code
                          // path but unmeasured: left to no rule.
                          return cdist_inputs(f) && !cdist_euclid_by_mm(f) && f.input(0)->contiguous() &&
                                 f.input(1)->contiguous();
                        })
                  .compute(cdist_direct_counts)
                  .evidence("opinfo: cdist p=0 (2-d and batched 3-d: cdist_kernel_cuda_impl, 3 of 3), "
                            "opinfo_heldout6: cdist p=0 of [2, 1, 1, 2] by [1, 2, 2] (the second input's batch "
                            "expanded and copied: 2 kernels); p = 2 on few rows or with compute_mode 2 (OpInfo "
                            "samples 15 and up, not measured) takes the same branch of cdist_impl")
                  .why("cdist computes every pairwise distance in one kernel (cdist_impl) over inputs expanded to "
                       "one batch shape and made contiguous; only the Euclidean distance on many rows, or where "
                       "compute_mode asks for it, is rewritten as a matrix product."));
  r.push_back(
      rule("cdist.mm")
          .ops({"aten::cdist", "aten::_cdist_forward"})
          .when("p = 2, f32, > 25 rows a side (compute_mode 0) or compute_mode 1, non-empty: a copy of each input "
                "the broadcast batch expands, norms, ones padding, the scaled input and two cats (9), one GEMM as "
                "the GEMM rules count it, clamp, sqrt",
                [](const OpFacts& f) { return cdist_inputs(f) && f.dtype == DType::kFloat32 && cdist_euclid_by_mm(f); })
          .compute(cdist_mm_counts)
          .evidence("opset:cdist (2x256x64 vs 2x128x64: 12); compute_mode 1 on few rows (OpInfo samples 15 and up, "
                    "not measured) takes the same branch of cdist_impl")
          .why("Euclidean cdist on many points is rewritten as one matrix product of padded inputs around which norms, "
               "concatenations, a clamp and a square root each launch a kernel."));
  r.push_back(rule("pdist")
                  .ops({"aten::pdist", "aten::_pdist_forward"})
                  .when("one kernel")
                  .counts({1, 0, 0, 0})
                  .evidence("opset:pdist")
                  .why("pdist computes every pairwise distance with one kernel."));
  r.push_back(rule("affine_grid.2d")
                  .ops({"aten::affine_grid_generator"})
                  .when("4-d size: two linspaces and their scaling (8), fill, copy, one batched GEMM = 11",
                        [](const OpFacts& f) {
                          const Arg* s = f.arg("size");
                          return s && s->kind == Arg::Kind::kIntList && s->ints.size() == 4;
                        })
                  .counts({11, 0, 0, 0})
                  .evidence("opset:affine_grid")
                  .why("affine_grid builds the base grid from linspaces (each with its scaling and copy), then "
                       "multiplies it by theta with one batched GEMM: eleven kernels."));
  r.push_back(rule("bilinear")
                  .ops({"aten::bilinear"})
                  .when("zero fill + per output feature a GEMM, a reduction and an accumulate (1 + 3 x out_features; "
                        "1-d inputs 4 a feature), + the bias add",
                        bilinear_shapes)
                  .compute(bilinear_counts)
                  .evidence("opset:bilinear_layer (16 output features, no bias: 49), opinfo: bilinear (5 features with "
                            "a bias: 17; unbatched [3] and [4]: 22, float32 and bfloat16)")
                  .why("A bilinear layer is evaluated one output feature at a time: a GEMM, a sum and an accumulate "
                       "each, after zeroing the result."));
  r.push_back(rule("pad.circular")
                  .ops({"aten::pad"})
                  .when("mode circular: the centre + one copy per non-zero pad entry", pad_circular)
                  .compute(pad_circular_counts)
                  .evidence("opset:pad_circular (pad 1,1,2,2: 5)")
                  .why("Circular padding copies the input into the centre, then copies each padded border from the "
                       "opposite edge: one kernel per side."));
  r.push_back(rule("diag_embed")
                  .ops({"aten::diag_embed"})
                  .when("zeros + copy into the diagonal")
                  .counts({2, 0, 0, 0})
                  .evidence("opset:diag_embed")
                  .why("diag_embed zeroes the result and copies the input onto its diagonal: two kernels."));
  r.push_back(rule("eye")
                  .ops({"aten::eye"})
                  .when("zero fill + diagonal fill")
                  .counts({2, 0, 0, 0})
                  .evidence("opset:eye, opset:triangular_solve")
                  .why("eye zeroes the matrix and fills its diagonal with ones: two kernels."));
  r.push_back(rule("broadcast_product")
                  .ops({"aten::outer", "aten::kron"})
                  .when("one multiplication of broadcast views")
                  .compute(one_kernel_unless_empty)
                  .evidence("opset:outer, opset:kron")
                  .why("outer and kron multiply broadcast views of their inputs: one kernel."));
  r.push_back(rule("pixel_shuffle.identity")
                  .ops({"aten::pixel_shuffle", "aten::pixel_unshuffle"})
                  .when("a factor of 1: a clone (a memcpy of a contiguous input)",
                        [](const OpFacts& f) {
                          return f.int_arg(f.op->name == "aten::pixel_shuffle" ? "upscale_factor" : "downscale_factor",
                                           0) == 1;
                        })
                  .compute(clone_counts)
                  .evidence("opinfo: pixel_shuffle, pixel_unshuffle with factor 1 (1 memcpy)")
                  .why("With a factor of 1 the shuffle moves nothing: ATen returns a clone of the input."));
  r.push_back(rule("flip.no_dims")
                  .ops({"aten::flip"})
                  .when("no dims to flip: a clone (a memcpy of a contiguous input)",
                        [](const OpFacts& f) {
                          const Arg* d = f.arg("dims");
                          return d && d->kind == Arg::Kind::kIntList && d->ints.empty();
                        })
                  .compute(clone_counts)
                  .evidence("opinfo_heldout: flip with dims () of [5, 10, 5] (1 memcpy)")
                  .why("Flipping no dimension moves nothing: ATen's flip returns a clone of the input."));
  r.push_back(rule("elementwise.untagged")
                  .ops({"aten::glu", "aten::log_sigmoid", "aten::prelu", "aten::flip", "aten::fliplr", "aten::flipud",
                        "aten::tril", "aten::triu", "aten::pixel_shuffle", "aten::pixel_unshuffle",
                        "aten::channel_shuffle", "aten::rand_like", "aten::randn_like", "aten::complex", "aten::polar"})
                  .when("one kernel (nothing for an empty result)")
                  .compute(one_kernel_unless_empty)
                  .evidence("opset:glu, opset:logsigmoid, opset:prelu, opset:flip, opset:flip2, opset:tril, "
                            "opset:triu, opset:tril_mask, opset:pixel_shuffle, opset:pixel_unshuffle, "
                            "opset:channel_shuffle, opset:rand_like, opset:randn_like, opinfo:fliplr, opinfo:flipud (1 "
                            "kernel; 0 for the empty sample), opinfo:complex, opinfo:polar")
                  .why("This op reads each input element once and writes its result with one kernel (a gather for "
                       "flips and shuffles, a generator for random and spaced values)."));
  r.push_back(rule("bernoulli.tensor")
                  .ops({"aten::bernoulli"})
                  .when("probabilities from a tensor: one kernel, + a conversion of half-precision probabilities",
                        [](const OpFacts& f) { return f.op->overload.empty() || f.op->overload == "default"; })
                  .compute([](const OpFacts& f) -> Counts {
                    return {is_half(f.dtype) ? 2 : 1, 0, 0, 0};
                  })
                  .evidence("opset:bernoulli (fp32 1, bf16 2)")
                  .why("bernoulli draws one random bit per element with one kernel; half-precision probabilities are "
                       "first converted."));
  r.push_back(
      rule("max_unpool")
          .ops({"aten::max_unpool2d", "aten::max_unpool3d"})
          .when("a copy of the input and of the indices where not contiguous, a zero fill of the output, then "
                "the unpooling kernel")
          .compute(max_unpool_counts)
          .evidence("opinfo: max_unpool1d, max_unpool2d, max_unpool3d (36 of 36), opinfo_heldout3: max_unpool2d "
                    "of a channels-last [1, 2, 1, 2] input and indices (2 direct_copy kernels, the fill, the kernel)")
          .why("Unpooling makes its input and indices contiguous, zero-fills the output, then scatters each pooled "
               "value back to its recorded position."));
  r.push_back(
      rule("upsample_aa")
          .ops({"aten::_upsample_bilinear2d_aa", "aten::_upsample_bicubic2d_aa"})
          .when("the kernel, after a copy of an input that is not contiguous and before a copy into a result laid "
                "out channels last (the input's suggested format)")
          .compute([](const OpFacts& f) -> Counts {
            const Value* in = f.input(0);
            if (!in || f.out_numel == 0) return {};
            const bool rank4 = in->sizes.size() == 4 && in->strides.size() == 4;
            const bool cl = rank4 && channels_last_strides(in->sizes, in->strides);
            return {1 + (in->contiguous() ? 0 : 1) + (cl ? 1 : 0), 0, 0, 0};
          })
          .evidence("opset:bilinear_aa, fresh2:hiera (bicubic with antialias: upsample_gen2d_aa_out_frame, as "
                    "bilinear's), opinfo_reference: bilinear with antialias of a channels-last [2, 3, 345, 456] "
                    "(direct_copy, the kernel, direct_copy)")
          .why("The antialiased resampling kernel reads a contiguous input and writes a contiguous result: a "
               "strided input is copied first, and a result allocated channels last (as a channels-last input "
               "suggests) is written through a contiguous buffer, copied back after."));
  r.push_back(
      rule("pool.indices")
          .ops({"aten::max_pool1d", "aten::max_pool2d_with_indices", "aten::adaptive_max_pool2d",
                "aten::max_pool1d_with_indices", "aten::max_pool3d_with_indices", "aten::adaptive_max_pool1d",
                "aten::adaptive_max_pool3d", "aten::fractional_max_pool2d", "aten::fractional_max_pool3d"})
          .when("one kernel")
          .compute(one_kernel_unless_empty)
          .evidence(
              "opset:max_pool1d, opset:max_pool2d_idx, opset:adaptive_max_pool2d, opinfo: max_pool1d, max_pool3d, "
              "adaptive_max_pool1d, adaptive_max_pool3d, fractional_max_pool2d, fractional_max_pool3d")
          .why("This pool or resampling reads each window once with one kernel."));
  r.push_back(rule("fft.r2c")
                  .ops({"aten::fft_rfft"})
                  .when("f32, power-of-two length <= 4096: one cuFFT kernel",
                        [](const OpFacts& f) { return fft_last_dims_pow2(f, 1); })
                  .counts({1, 0, 0, 0})
                  .evidence("opset:fft_rfft, opset:fft_irfft")
                  .why("A real-to-complex FFT of a power-of-two length is one cuFFT kernel."));
  r.push_back(rule("fft.c2r")
                  .ops({"aten::fft_irfft"})
                  .when("complex64 input with power-of-two length: a copy of the input (cuFFT overwrites it), one "
                        "cuFFT kernel, the 1/n scaling",
                        [](const OpFacts& f) {
                          const Value* out = f.output(0);
                          return f.dtype == DType::kComplex64 && out && !out->sizes.empty() &&
                                 power_of_two(out->sizes.back()) && out->sizes.back() <= 4096;
                        })
                  .counts({2, 1, 0, 0})
                  .evidence("opset:fft_irfft")
                  .why("A complex-to-real FFT copies its input (cuFFT overwrites it), runs one cuFFT kernel and scales "
                       "the result."));
  r.push_back(rule("fft.fft2.real")
                  .ops({"aten::fft_fft2"})
                  .when("f32 input, power-of-two sizes: conversion to complex + two cuFFT kernels",
                        [](const OpFacts& f) { return f.dtype == DType::kFloat32 && fft_last_dims_pow2(f, 2); })
                  .counts({3, 0, 0, 0})
                  .evidence("opset:fft_fft2")
                  .why("A 2-d FFT of a real input converts it to complex and runs two cuFFT kernels."));
  r.push_back(rule("dot")
                  .ops({"aten::dot", "aten::vdot"})
                  .when("cuBLAS dot kernel + one-block reduction",
                        [](const OpFacts& f) { return f.input(0) && f.input(0)->sizes.size() == 1; })
                  .counts({2, 0, 0, 0})
                  .evidence("opset:dot (f32 and bf16)")
                  .why("A dot product is cuBLAS's dot kernel and a one-block reduction of its partial sums."));
  r.push_back(
      rule("inner")
          .ops({"aten::inner"})
          .when("a 0-d operand: one multiply; two vectors: a 1x1 product, which cuBLAS runs as its dot kernel and a "
                "one-block reduction (2)",
                [](const OpFacts& f) {
                  const Value* a = f.input(0);
                  const Value* b = f.input(1);
                  return a && b &&
                         (a->sizes.empty() || b->sizes.empty() || (a->sizes.size() == 1 && b->sizes.size() == 1));
                })
          .compute([](const OpFacts& f) -> Counts {
            // LinearAlgebra.cpp inner: self * other for a scalar, else tensordot over the last dims.
            if (f.out_numel == 0) return {};
            return {f.input(0)->sizes.empty() || f.input(1)->sizes.empty() ? 1 : 2, 0, 0, 0};
          })
          .evidence("opinfo: inner ([5]·[5]: dot_kernel + reduce_1Block_kernel, f32 and bf16; 0-d with [5,5]: one mul)")
          .why("inner multiplies by a scalar with one kernel; of two vectors it is one cuBLAS dot product, which runs "
               "a dot kernel and a one-block reduction."));
  r.push_back(rule("mv")
                  .ops({"aten::mv"})
                  .when("half precision: one GEMM; f32 with at most 8 rows: dot kernel + reduction; f32 from 4096 "
                        "rows: one gemv; f32 rows of at most 10: one gemv",
                        [](const OpFacts& f) { return mv_rows(f, 0); })
                  .compute([](const OpFacts& f) { return mv_counts(f, 0); })
                  .evidence("opset:mv (8x1024), opset:mv_large (4096x1024: gemv), opinfo: mv (5x10: gemv)")
                  .why("A matrix-vector product is one cuBLAS GEMM in half precision; in float32 with few rows cuBLAS "
                       "computes it as dot products plus a reduction."));
  r.push_back(
      rule("addmv")
          .ops({"aten::addmv"})
          .when(
              "the added vector copied into the result (1 memcpy; a copy kernel when broadcast), then mv with beta = 1",
              [](const OpFacts& f) { return mv_rows(f, 1); })
          .compute([](const OpFacts& f) {
            Counts c = mv_counts(f, 1);
            c += self_into_result(f);
            return c;
          })
          .evidence("opset:addmv (8x1024), opinfo: addmv (5x10: 1 + 1 memcpy; self [1]: copy + gemv)")
          .why("addmv copies the added vector into the result and accumulates the matrix-vector product into it."));
  r.push_back(
      rule("addbmm")
          .ops({"aten::addbmm"})
          .when("the added matrix copied into the result (1 memcpy; a copy kernel when broadcast) + one mm per batch, "
                "counted as the mm rules count it",
                addbmm_shapes)
          .compute(addbmm_counts)
          .evidence("opset:addbmm (4 batches), opset:addbmm_large (8 batches), opinfo: addbmm (5 batches of 5x5x10: "
                    "one gemmSN each)")
          .why("addbmm copies the added matrix into the result and accumulates one matrix product per batch into it."));
  r.push_back(
      rule("rnn_cell")
          .ops({"aten::gru_cell", "aten::lstm_cell"})
          .when("two GEMMs without bias (input x w_ih^T, hidden x w_hh^T, counted as the mm rules count them) + one "
                "fused cell kernel that adds the biases and applies the gates",
                rnn_cell_shapes)
          .compute(rnn_cell_counts)
          .evidence("opset:gru_cell, opset:lstm_cell (8 rows: f32 3 + 1 memset, not predicted), opset:gru_cell_b32, "
                    "opset:lstm_cell_b32 (f32 4: one split-K GEMM), opset:lstm_cell_b1 (GEMVs: 3)")
          .why("A GRU or LSTM cell multiplies the input and the hidden state by their weights (two GEMMs) and applies "
               "the gates in one fused kernel."));
  r.push_back(rule("rnn_tanh_cell")
                  .ops({"aten::rnn_tanh_cell"})
                  .when("two GEMMs with their biases + the sum + the activation")
                  .counts({4, 0, 0, 0})
                  .evidence("opset:rnn_tanh_cell")
                  .why("A vanilla RNN cell is two GEMMs, their sum and the tanh: four kernels."));
  r.push_back(rule("cross")
                  .ops({"aten::linalg_cross", "aten::cross"})
                  .when("one kernel")
                  .compute(one_kernel_unless_empty)
                  .evidence("opset:cross")
                  .why("A cross product is one kernel over the vectors."));
  r.push_back(rule("linalg_norm")
                  .ops({"aten::linalg_norm"})
                  .when("default (2 / Frobenius) order: one reduce kernel",
                        [](const OpFacts& f) {
                          const Arg* o = f.arg("ord");
                          return !o || o->kind == Arg::Kind::kNone;
                        })
                  .counts({1, 0, 0, 0})
                  .evidence("opset:linalg_norm")
                  .why("A 2-norm over some dimensions is one reduction kernel."));
  r.push_back(rule("renorm")
                  .ops({"aten::renorm"})
                  .when("norms, the scale factors, the scaling")
                  .counts({3, 0, 0, 0})
                  .evidence("opset:renorm")
                  .why("renorm computes each slice's norm, the scale that caps it and applies it: three kernels."));
  r.push_back(rule("abs.complex")
                  .ops({"aten::abs"})
                  .when("complex input: the magnitude kernel + a copy into the real result", complex_input)
                  .counts({2, 0, 0, 0})
                  .evidence("opset:fft_rfft, opset:stft")
                  .why("The magnitude of a complex tensor is computed by one kernel and copied into the real result."));
  r.push_back(rule("solve_triangular")
                  .ops({"aten::linalg_solve_triangular"})
                  .when("f32: a copy of B into the result + one cuBLAS trsm",
                        [](const OpFacts& f) { return f.dtype == DType::kFloat32; })
                  .counts({2, 0, 0, 0})
                  .evidence("opset:triangular_solve (64x64, 16 right-hand sides)")
                  .why("A triangular solve copies the right-hand side into the result and solves in place with one "
                       "cuBLAS kernel."));
}

}  // namespace kc::torch2_11
