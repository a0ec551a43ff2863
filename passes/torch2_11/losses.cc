// Loss functions: ATen writes most as composites (aten/src/ATen/native/Loss.cpp), a fixed chain of
// elementwise kernels, then apply_loss_reduction's mean or sum (one reduce kernel, with a memset
// where the reduce splits across blocks). The counts below are those chains read off the source
// and checked against PyTorch's OpInfo samples and the opset corpus on the H200.
#include "analyzer/tensor_geometry.h"
#include "passes/torch2_11/reduce_config.h"
#include "passes/torch2_11/rules.h"

namespace kc::torch2_11 {
namespace {

constexpr int64_t kNone = 0;  // at::Reduction::None; Mean is 1, Sum 2

int64_t reduction(const OpFacts& f) {
  return f.int_arg("reduction", 1);
}
// apply_loss_reduction over the loss tensor (the broadcast of the inputs, a new contiguous tensor):
// one reduce kernel, zeroing its semaphores first where it splits across blocks.
Counts reduce_loss(const OpFacts& f) {
  if (reduction(f) == kNone) return {};
  const Value* out_shape = nullptr;
  for (int id : f.inputs) {
    const Value& v = f.graph->values[id];
    if (!out_shape || v.numel() > out_shape->numel()) out_shape = &v;
  }
  if (!out_shape) return {1, 0, 0, 0};
  std::vector<int64_t> strides(out_shape->sizes.size(), 1);
  for (size_t i = strides.size(); i-- > 1;) strides[i - 1] = strides[i] * std::max<int64_t>(out_shape->sizes[i], 1);
  return {1, 0, reduce_splits_across_blocks(f.target->device, out_shape->sizes, strides, {}) ? 1 : 0, 0};
}
Counts chain(int elementwise, const OpFacts& f) {
  Counts c{elementwise, 0, 0, 0};
  c += reduce_loss(f);
  return c;
}

// mse_loss, smooth_l1_loss, huber_loss: one TensorIterator kernel for the loss.
Counts one_kernel_loss(const OpFacts& f) {
  return chain(1, f);
}
// l1_loss: (input - target).abs().
Counts l1_counts(const OpFacts& f) {
  return chain(2, f);
}
// soft_margin_loss_out: neg, mul_, exp_, log1p_; a reduced loss is copied into the output.
Counts soft_margin_counts(const OpFacts& f) {
  Counts c = chain(4, f);
  if (reduction(f) != kNone) c.memcpy += 1;
  return c;
}
// binary_cross_entropy_out_cuda: one kernel, mul_ by a weight; a reduced loss is copied into the
// output.
Counts bce_counts(const OpFacts& f) {
  Counts c = chain(f.has_tensor_arg("weight") ? 2 : 1, f);
  if (reduction(f) != kNone) c.memcpy += 1;
  return c;
}
// log_sigmoid, `1 - target` (C++'s Scalar - Tensor: fill then sub_), mul_, sub_; a pos_weight adds
// (pos_weight - 1).mul(target).add_(1) and a mul_, a weight one mul_.
Counts bce_logits_counts(const OpFacts& f) {
  int k = 5;
  if (f.has_tensor_arg("pos_weight")) k += 4;
  if (f.has_tensor_arg("weight")) k += 1;
  return chain(k, f);
}
// kl_div: exp(target) * (target - input) with log_target, else xlogy(target, target) - target *
// input: three kernels either way ('batchmean' divides in Python, a separate op).
Counts kl_div_counts(const OpFacts& f) {
  return chain(3, f);
}
// margin_ranking_loss: (-target).mul_(input1 - input2).add_(margin).clamp_min_(0).
Counts margin_ranking_counts(const OpFacts& f) {
  return chain(5, f);
}
// hinge_embedding_loss: zeros_like, (margin - self) (fill, sub_), clamp_min_, two (ne, where)
// pairs and their add.
Counts hinge_counts(const OpFacts& f) {
  return chain(9, f);
}
// triplet_margin_loss: pairwise_distance twice (sub, add eps, norm), a third with swap and their
// min, then margin + d_pos - d_neg clamped (add, sub, clamp_min).
Counts triplet_counts(const OpFacts& f) {
  return chain(f.bool_arg("swap", false) ? 3 + 3 + 3 + 1 + 3 : 3 + 3 + 3, f);
}
// poisson_nll_loss: exp(input) - target * input (log_input), else input - target * log(input +
// eps); `full` adds Stirling's term masked where target <= 1 (ten kernels and the masked_fill's
// clone, a memcpy).
Counts poisson_counts(const OpFacts& f) {
  Counts c = chain(f.bool_arg("log_input", true) ? 3 : 4, f);
  if (f.bool_arg("full", false)) {
    c.kernels += 10;
    c.memcpy += 1;
  }
  return c;
}
// cosine_embedding_loss on 2-D inputs (or one pair of 1-D vectors with a 0-d target, summed along
// dim 0 alike: Loss.cpp sums along target.dim()): the three row products and sums, the norms' eps,
// sqrt and division, then hinge_embedding's zeros, clamp and where pairs: 21 kernels.
bool two_d_inputs(const OpFacts& f) {
  const Value* a = f.input(0);
  return a && (a->sizes.size() == 2 || a->sizes.size() == 1) && a->numel() > 0;
}
Counts cosine_embedding_counts(const OpFacts& f) {
  return chain(21, f);
}
// cross_entropy with class probabilities (a floating-point target of the input's shape;
// cross_entropy_loss_prob_target in LossNLL.cpp): -(log_softmax(input) * target).sum(class dim),
// then the reduction (mean: a sum and a multiply by 1/N); a class weight is one more multiply
// (input * target * weight_), label smoothing two before it (target * (1 - s) + s / C).
bool no_smoothing(const OpFacts& f) {
  const Arg* s = f.arg("label_smoothing");
  return !s || s->floats.empty() || s->floats[0] == 0.0;
}
bool probability_target(const OpFacts& f) {
  const Value* in = f.input(0);
  const Value* t = f.input(1);
  // An empty input with a weight or smoothing: not measured (its mean is a NaN fill, not a division).
  const bool plain = no_smoothing(f) && !f.has_tensor_arg("weight");
  return in && t && t->sizes == in->sizes && is_floating(t->dtype) && (plain || in->numel() > 0);
}
// Class indices with a contiguous weight per class: nll_loss reads the weights inside its kernel.
bool weighted_index_target(const OpFacts& f) {
  const Value* in = f.input(0);
  const Value* t = f.input(1);
  const Value* w = f.input(2);
  return in && t && w && !is_floating(t->dtype) && f.has_tensor_arg("weight") && w->contiguous() && no_smoothing(f);
}
bool index_target(const OpFacts& f) {
  const Value* in = f.input(0);
  const Value* t = f.input(1);
  return in && t && !is_floating(t->dtype) && !f.has_tensor_arg("weight") && no_smoothing(f);
}
// cross_entropy_loss_label_smoothing, class indices, no weight: log_softmax and nll_loss, then
// smooth_loss = -input.sum(class dim) (sum, neg), ignore_mask = target == ignore_index (eq),
// smooth_loss.masked_fill_(ignore_mask, 0); mean: ~ignore_mask (bitwise_not), smooth_loss.sum(),
// true_mask.sum() (a bool sum casts to int64 first: a copy, then the sum) and the division; sum:
// smooth_loss.sum(); then (1 - s) * nll + ret * (s / C): two multiplies and an add. Each
// reduction zeroes its semaphores where it splits across blocks.
bool smoothed_index_target(const OpFacts& f) {
  const Value* in = f.input(0);
  const Value* t = f.input(1);
  return in && t && !in->sizes.empty() && !is_floating(t->dtype) && !f.has_tensor_arg("weight") && !no_smoothing(f);
}
Counts cross_entropy_smoothing_counts(const OpFacts& f) {
  const Value& in = *f.input(0);
  const int64_t r = reduction(f);
  auto splits = [&](const std::vector<int64_t>& sizes, const std::vector<int64_t>& dims) {
    return reduce_splits_across_blocks(f.target->device, sizes, contiguous_strides(sizes), dims) ? 1 : 0;
  };
  const int64_t class_dim = in.sizes.size() == 1 ? 0 : 1;
  std::vector<int64_t> rows = in.sizes;  // smooth_loss: the input without its class dim
  rows.erase(rows.begin() + class_dim);
  Counts c{1 + (r == kNone ? 2 : 1), 0, 0, 0};          // log_softmax, nll_loss
  c += Counts{2, 0, splits(in.sizes, {class_dim}), 0};  // sum over the classes, neg
  c.kernels += 2;                                       // eq, masked_fill_
  if (r == 1) c += Counts{5, 0, 2 * splits(rows, {}), 0};
  if (r == 2) c += Counts{1, 0, splits(rows, {}), 0};
  c.kernels += 3;
  return c;
}
Counts cross_entropy_probs_counts(const OpFacts& f) {
  const int64_t r = reduction(f);
  const int weight = f.has_tensor_arg("weight") ? 1 : 0;
  const int smoothing = no_smoothing(f) ? 0 : 2;
  return {4 + weight + smoothing + (r == 1 ? 1 : 0), 0, 0, 0};
}
// nll_loss on (N, C) or (C) scores: with no reduction a fill of the output and the per-sample
// kernel; reduced, one kernel that reduces as it goes.
bool nll_2d(const OpFacts& f) {
  const Value* in = f.input(0);
  return in && in->sizes.size() <= 2;
}
// nll_loss_forward_out_cuda_template (cuda/Loss.cu): only unreduced scores of rank 2 take the
// per-sample path (total_weight zeroed, then the kernel over a non-empty batch); a 1-d input
// (one sample), reduced or not, and a reduced batch take one reducing kernel, after zeroing
// both outputs instead when there is no target.
// nll_loss2d_forward_out_cuda_template (cuda/NLLLoss2d.cu), for scores of rank 3+ [N, C, d...]:
// unreduced, one kernel over the output's elements (none when it is empty); reduced, the output
// and total weight zeroed, the accumulating kernel and, for the mean, its division (a NaN fill
// and the weight's zero when there is no target).
Counts nll_nd_counts(const OpFacts& f) {
  const Value* target = f.input(1);
  const Value* out = f.output(0);
  if (reduction(f) == kNone) return {out && out->numel() > 0 ? 1 : 0, 0, 0, 0};
  if (target && target->numel() == 0) return {2, 0, 0, 0};
  return {reduction(f) == 1 ? 4 : 3, 0, 0, 0};
}
Counts nll_counts(const OpFacts& f) {
  const Value* in = f.input(0);
  const Value* target = f.input(1);
  if (reduction(f) == kNone && in->sizes.size() == 2) return {in->sizes[0] > 0 ? 2 : 1, 0, 0, 0};
  if (target && target->numel() == 0) return {2, 0, 0, 0};
  return {1, 0, 0, 0};
}
// cross_entropy_loss over class indices: log_softmax (one kernel), then nll_loss as above.
Counts cross_entropy_counts(const OpFacts& f) {
  Counts c{1, 0, 0, 0};
  c += nll_counts(f);
  return c;
}
// multilabel_margin_loss: one kernel; a reduced loss over a batch (2-D input) sums its per-sample
// values in a second.
Counts multilabel_margin_counts(const OpFacts& f) {
  const Value* in = f.input(0);
  return {1 + (reduction(f) != kNone && in && in->sizes.size() == 2 ? 1 : 0), 0, 0, 0};
}

}  // namespace

void add_loss_rules(std::vector<LaunchRule>& r) {
  r.push_back(rule("loss.pointwise")
                  .ops({"aten::mse_loss", "aten::smooth_l1_loss", "aten::huber_loss"})
                  .when("one loss kernel, then the reduction (none: nothing; mean, sum: a reduce kernel, and a memset "
                        "where it splits across blocks)")
                  .compute(one_kernel_loss)
                  .evidence("opinfo: mse_loss, smooth_l1_loss, huber_loss (18: 2 kernels reduced, 1 with none), "
                            "opset:mse_loss (2 kernels and a memset for 256x1024)")
                  .why("The loss is one elementwise kernel over input and target; mean or sum then reduces it with one "
                       "more kernel."));
  r.push_back(rule("loss.l1")
                  .ops({"aten::l1_loss"})
                  .when("sub and abs, then the reduction")
                  .compute(l1_counts)
                  .evidence("opinfo: l1_loss (6: 3 kernels), opset:l1_loss (3 kernels and a memset)")
                  .why("ATen computes (input - target).abs() as two elementwise kernels, then reduces."));
  r.push_back(rule("loss.soft_margin")
                  .ops({"aten::soft_margin_loss"})
                  .when("neg, mul, exp, log1p, then the reduction and a copy of the reduced value into the output")
                  .compute(soft_margin_counts)
                  .evidence("opinfo: soft_margin_loss (6: 5 kernels, 1 memcpy), opset:soft_margin_loss")
                  .why("Four elementwise kernels build the loss; a reduced loss is reduced, then copied into the "
                       "output tensor (a device-to-device memcpy)."));
  r.push_back(
      rule("loss.bce")
          .ops({"aten::binary_cross_entropy"})
          .when("one loss kernel (and a multiply by weight), then the reduction and a copy into the output")
          .compute(bce_counts)
          .evidence("opinfo: binary_cross_entropy (6: 2 kernels, 1 memcpy)")
          .why("One elementwise kernel computes the loss; a reduced loss is reduced, then copied into the output."));
  r.push_back(rule("loss.bce_with_logits")
                  .ops({"aten::binary_cross_entropy_with_logits"})
                  .when("log_sigmoid, fill and sub for 1 - target, mul, sub (pos_weight: four more, weight: one), then "
                        "the reduction")
                  .compute(bce_logits_counts)
                  .evidence("opinfo: binary_cross_entropy_with_logits (6: 6 kernels), opset:bce_with_logits")
                  .why("A chain of five elementwise kernels (C++'s 1 - target is a fill and a subtraction), then the "
                       "reduction."));
  r.push_back(
      rule("loss.kl_div")
          .ops({"aten::kl_div"})
          .when("three elementwise kernels, then the reduction")
          .compute(kl_div_counts)
          .evidence("opinfo: kl_div (6: 3 with none, 4 reduced), opset:kl_div (batchmean: sum, then a separate div)")
          .why("Three elementwise kernels (exp, sub, mul or xlogy, mul, sub), then the reduction."));
  r.push_back(rule("loss.margin_ranking")
                  .ops({"aten::margin_ranking_loss"})
                  .when("sub, neg, mul, add, clamp_min, then the reduction")
                  .compute(margin_ranking_counts)
                  .evidence("opinfo: margin_ranking_loss (6: 5 with none, 6 reduced), opset:margin_ranking_loss")
                  .why("Five elementwise kernels, then the reduction."));
  r.push_back(
      rule("loss.hinge_embedding")
          .ops({"aten::hinge_embedding_loss"})
          .when("zeros, the margin's fill, sub and clamp, two compare-and-where pairs and an add, then the reduction")
          .compute(hinge_counts)
          .evidence("opinfo: hinge_embedding_loss (6: 9 with none, 10 reduced), opset:hinge_embedding_loss")
          .why("Nine elementwise kernels, then the reduction."));
  r.push_back(rule("loss.triplet_margin")
                  .ops({"aten::triplet_margin_loss"})
                  .when("two pairwise distances (three with swap, and their min), the margin's add, sub, clamp, then "
                        "the reduction")
                  .compute(triplet_counts)
                  .evidence("opinfo: triplet_margin_loss (6: 10 kernels), opset:triplet_margin_loss")
                  .why("Each pairwise distance is a sub, an add of eps and a norm; the margin is an add, a sub and a "
                       "clamp; then the reduction."));
  r.push_back(
      rule("loss.poisson_nll")
          .ops({"aten::poisson_nll_loss"})
          .when("three kernels (log_input) or four, ten and a memcpy for the full Stirling term, then the reduction")
          .compute(poisson_counts)
          .evidence("opinfo: poisson_nll_loss (6: 3, and 13 with 1 memcpy when full), opset:poisson_nll_loss (4)")
          .why("exp, mul and sub (or add, log, mul, sub) build the loss; the full loss adds Stirling's term, masked "
               "where target <= 1; then the reduction."));
  r.push_back(
      rule("loss.cosine_embedding")
          .ops({"aten::cosine_embedding_loss"})
          .when("2-D inputs or 1-D vectors: 21 elementwise and row-reduction kernels, then the reduction", two_d_inputs)
          .compute(cosine_embedding_counts)
          .evidence("opinfo: cosine_embedding_loss (6: 21 with none, 22 reduced), opset:cosine_embedding_loss (22), "
                    "opinfo_heldout: cosine_embedding_loss of [5] vectors (21 with none, 22 reduced)")
          .why("Three row products and sums, the norms and their quotient, then hinge-style zeros, clamps and wheres: "
               "21 kernels, then the reduction."));
  r.push_back(rule("loss.cross_entropy.probs")
                  .ops({"aten::cross_entropy_loss"})
                  .when("a floating-point target of the input's shape (class probabilities): "
                        "log_softmax, mul, sum, neg (mean: a multiply by 1/N); + 1 multiply by a class weight, + 2 "
                        "for label smoothing (mul, add), either only for a non-empty input",
                        probability_target)
                  .compute(cross_entropy_probs_counts)
                  .evidence("opinfo: cross_entropy (4: 5 kernels), opset:cross_entropy_probs (5); with a class "
                            "weight (OpInfo samples 15 and up, not measured): one elementwise multiply more on "
                            "the same path of cross_entropy_loss_prob_target")
                  .why("With probabilities for targets, cross entropy is -(log_softmax(x) * target).sum(classes): four "
                       "kernels, and a multiply for the mean."));
  r.push_back(
      rule("cross_entropy.nd")
          .ops({"aten::cross_entropy_loss"})
          .when("class indices, no weight, no smoothing, scores of rank 3+ [N, C, d...], mean: log_softmax, then "
                "nll_loss2d: fills of the output and the total weight, the loss kernel and its mean",
                [](const OpFacts& f) { return index_target(f) && f.input(0)->sizes.size() >= 3 && reduction(f) == 1; })
          .counts({5, 0, 0, 0})
          .evidence("opinfo: cross_entropy of [2,3,1] scores (softmax_warp_forward, 2 fills, "
                    "nll_loss2d_forward_kernel, nll_loss2d_forward_size_average_kernel)")
          .why("Cross entropy over scores with extra dims is log_softmax then nll_loss's 2-d form, which zeroes its "
               "output and total weight, accumulates the loss and divides by the weight: five kernels."));
  r.push_back(
      rule("cross_entropy")
          .ops({"aten::cross_entropy_loss"})
          .when("class indices, no weight, no smoothing, scores of rank 1 or 2: log_softmax then nll_loss (a "
                "reduced loss: 1 kernel; unreduced [N, C] scores: the total weight zeroed and the per-sample kernel)",
                [](const OpFacts& f) { return index_target(f) && f.input(0)->sizes.size() <= 2; })
          .compute(cross_entropy_counts)
          .evidence("truth:cross_entropy, opinfo: cross_entropy (2), opset:cross_entropy, opset:cross_entropy_seq, "
                    "opinfo_heldout5: cross_entropy of [2, 3] scores, reduction none (3)")
          .why("Cross entropy is log_softmax then nll_loss: two kernels, three unreduced over a batch."));
  r.push_back(rule("cross_entropy.weighted")
                  .ops({"aten::cross_entropy_loss"})
                  .when("class indices, a weight per class, no smoothing, scores of rank 1 or 2: log_softmax then "
                        "nll_loss, which reads the weights in its kernel (counted as without weights)",
                        [](const OpFacts& f) { return weighted_index_target(f) && f.input(0)->sizes.size() <= 2; })
                  .compute(cross_entropy_counts)
                  .evidence("opinfo_heldout6: cross_entropy of [2, 3] scores with a [3] weight, mean (2 kernels, "
                            "float32 and bfloat16)")
                  .why("Cross entropy with class weights is log_softmax then nll_loss, which weighs each sample's "
                       "loss inside its own kernel: the same two kernels as without weights."));
  r.push_back(
      rule("cross_entropy.smoothing")
          .ops({"aten::cross_entropy_loss"})
          .when("class indices, no weight, label smoothing: log_softmax, nll_loss, the smoothing term (sum, neg, eq, "
                "masked_fill; mean: bitwise_not, two sums, a cast, a div; sum: one sum) and the mix (mul, mul, add)",
                smoothed_index_target)
          .compute(cross_entropy_smoothing_counts)
          .evidence("opset:cross_entropy_smooth ([32,1000], mean: 14 kernels)")
          .why("Label smoothing adds a second loss over every class to cross entropy: its reductions and the "
               "elementwise ops that mix the two losses are separate kernels."));
  r.push_back(rule("loss.nll")
                  .ops({"aten::nll_loss_nd", "aten::nll_loss"})
                  .when("scores of rank 1 or 2: unreduced [N, C]: a fill and the per-sample kernel (the fill alone "
                        "for N = 0); one sample [C] or reduced: one kernel (two fills when there is no target)",
                        nll_2d)
                  .compute(nll_counts)
                  .evidence("opinfo: nll_loss (6: 2 with none), opset:nll_loss (1 reduced), opinfo_heldout3: "
                            "nll_loss of [3] scores, none (nll_loss_forward_reduce_cuda_kernel_1d alone, 4 of 4)")
                  .why("nll_loss reads one score per sample: reduced (or for a single sample), one kernel sums as "
                       "it goes; an unreduced batch zeroes its total weight, then writes each sample's loss."));
  r.push_back(
      rule("loss.nll2d")
          .ops({"aten::nll_loss_nd", "aten::nll_loss2d"})
          .when("contiguous non-empty scores of rank 3+ [N, C, d...]: unreduced, one kernel; reduced, the output "
                "and total weight zeroed and the loss kernel, + its division for the mean",
                [](const OpFacts& f) {
                  const Value* in = f.input(0);
                  const Value* t = f.input(1);
                  return in && t && in->sizes.size() >= 3 && in->contiguous() && t->contiguous() && in->numel() > 0 &&
                         t->numel() > 0;
                })
          .compute(nll_nd_counts)
          .evidence("opinfo_heldout6: nll_loss of [2, 3, 2, 2] scores, none (nll_loss2d_forward_no_reduce_"
                    "kernel, float32 and bfloat16), opinfo: cross_entropy of [2,3,1] scores, mean (the two "
                    "fills, nll_loss2d_forward_kernel, nll_loss2d_forward_size_average_kernel); the sum (OpInfo "
                    "samples 15 and up, not measured) is the mean's path without its division")
          .why("nll_loss over scores with extra dims is its 2-d form: unreduced, one kernel writes each "
               "element's loss; a mean zeroes its output and total weight, accumulates, then divides."));
  r.push_back(rule("loss.multilabel_margin")
                  .ops({"aten::multilabel_margin_loss"})
                  .when("one kernel; a reduced batch (2-D input) sums in a second")
                  .compute(multilabel_margin_counts)
                  .evidence("opinfo: multilabel_margin_loss (6: 1 for 1-D input, 2 for 10x5)")
                  .why("One kernel computes the loss per sample; a reduced batch is summed by a second."));
  r.push_back(rule("loss.multi_margin")
                  .ops({"aten::multi_margin_loss"})
                  .when("input of rank 0 or 1: one kernel; a batch (rank 2): the per-sample kernel, + the mean or sum "
                        "over the samples",
                        [](const OpFacts& f) {
                          const Value* in = f.input(0);
                          return in && (in->sizes.size() <= 1 || (in->sizes.size() == 2 && in->numel() > 0));
                        })
                  .compute(multilabel_margin_counts)
                  .evidence("opinfo: multi_margin_loss (6: 1 kernel), opinfo_heldout: multi_margin_loss ([5, 10], "
                            "mean: the kernel + a sum reduce)")
                  .why("The multi-margin loss is one kernel per call; for a batch it writes each sample's loss, then "
                       "reduces them."));
}

}  // namespace kc::torch2_11
