// Losses, empty results and the *_copy views: counts read off ATen's composites, as measured on
// the H200 for PyTorch's OpInfo samples and the opset corpus.
#include <catch2/catch.hpp>

#include "passes/graph_builder.h"
#include "passes/launches.h"
#include "passes/target.h"

using kc::DType;
using kc::test::GraphBuilder;
using kc::test::rules_only;

TEST_CASE("losses: the elementwise chain, then the reduction and its memset where it splits") {
  GraphBuilder b;
  int x = b.input({256, 1024}), t = b.input({256, 1024});
  b.op("aten::mse_loss", {x, t}, {}, std::vector<int64_t>{});
  auto mean = rules_only(b);
  CHECK(mean.rule == "loss.pointwise");
  CHECK(mean.counts.kernels == 2);
  CHECK(mean.counts.memset == 1);  // a mean of 262,144 values splits across blocks
  b.arg_int("reduction", 0);
  auto none = rules_only(b);
  CHECK(none.counts.kernels == 1);
  CHECK(none.counts.memset == 0);

  GraphBuilder s;
  int a = s.input({5}), c = s.input({5});
  s.op("aten::soft_margin_loss", {a, c}, {}, std::vector<int64_t>{});
  auto soft = rules_only(s);
  CHECK(soft.counts.kernels == 5);  // neg, mul, exp, log1p, mean
  CHECK(soft.counts.memcpy == 1);   // the reduced value copied into the output
  CHECK(soft.counts.memset == 0);
  s.op("aten::l1_loss", {a, c}, {}, std::vector<int64_t>{});
  CHECK(rules_only(s).counts.kernels == 3);
  s.op("aten::binary_cross_entropy_with_logits", {a, c}, {}, std::vector<int64_t>{});
  CHECK(rules_only(s).counts.kernels == 6);
}

TEST_CASE("losses: cross entropy with label smoothing over class indices: the smoothing term's chain") {
  GraphBuilder b;
  int x = b.input({32, 1000}), idx = b.input({32}, DType::kInt64);
  kc::Arg ls;
  ls.name = "label_smoothing";
  ls.kind = kc::Arg::Kind::kFloat;
  ls.floats = {0.1};
  for (auto [reduction, kernels] : {std::pair{1, 14}, {2, 10}, {0, 10}}) {
    b.op("aten::cross_entropy_loss", {x, idx}, {}, reduction == 0 ? std::vector<int64_t>{32} : std::vector<int64_t>{});
    kc::Arg red;
    red.name = "reduction";
    red.kind = kc::Arg::Kind::kInt;
    red.ints = {reduction};
    b.g.ops.back().args.push_back(red);
    b.g.ops.back().args.push_back(ls);
    auto l = rules_only(b);
    CHECK(l.rule == "cross_entropy.smoothing");
    CHECK(l.counts.kernels == kernels);  // mean: 14, as the opset block measured
    CHECK(l.counts.memset == 0);         // 32 rows of 1000: no reduce splits
  }
}

TEST_CASE("losses: cross entropy by its target: class indices or probabilities") {
  GraphBuilder b;
  int x = b.input({8, 10}), idx = b.input({8}, DType::kInt64), p = b.input({8, 10});
  b.op("aten::cross_entropy_loss", {x, idx}, {}, std::vector<int64_t>{});
  CHECK(rules_only(b).counts.kernels == 2);
  b.op("aten::cross_entropy_loss", {x, p}, {}, std::vector<int64_t>{});
  CHECK(rules_only(b).counts.kernels == 5);
  kc::Arg ls;
  ls.name = "label_smoothing";
  ls.kind = kc::Arg::Kind::kFloat;
  ls.floats = {0.1};
  b.g.ops.back().args.push_back(ls);
  CHECK(rules_only(b).counts.kernels == 7);  // the smoothed target: a multiply and an add first
}

TEST_CASE("losses: multi_margin_loss of a batch writes each sample's loss, then reduces unless reduction is none") {
  auto multi_margin = [](std::vector<int64_t> sizes, int64_t reduction) {
    GraphBuilder b;
    b.op("aten::multi_margin_loss", {b.input(sizes), b.input({sizes[0]}, DType::kInt64)}, {}, std::vector<int64_t>{});
    b.arg_int("reduction", reduction);
    return rules_only(b).counts.kernels;
  };
  CHECK(multi_margin({5, 10}, 1) == 2);
  CHECK(multi_margin({5, 10}, 0) == 1);
  CHECK(multi_margin({5}, 1) == 1);
}

TEST_CASE("losses: cosine_embedding_loss of two vectors runs the rows' chain once") {
  for (int64_t reduction : {0, 1}) {
    GraphBuilder b;
    b.op("aten::cosine_embedding_loss", {b.input({5}), b.input({5}), b.input({})}, {}, std::vector<int64_t>{});
    b.arg_int("reduction", reduction);
    CHECK(rules_only(b).counts.kernels == (reduction == 0 ? 21 : 22));
  }
}

TEST_CASE("empty results launch nothing; a selection whose size the data decides still counts") {
  GraphBuilder b;
  int x = b.input({0, 5});
  b.pointwise("aten::exp", {x});
  auto l = rules_only(b);
  CHECK(l.rule == "empty");
  CHECK(l.counts.kernels == 0);
  int y = b.input({5, 5});
  b.op("aten::nonzero", {y}, {}, {0, 2}, DType::kInt64);
  CHECK(rules_only(b).rule != "empty");
}

TEST_CASE("nll_loss: only an unreduced batch takes the per-sample path; one sample reduces in one kernel") {
  auto nll = [](std::vector<int64_t> scores, std::vector<int64_t> target, int64_t reduction) {
    GraphBuilder b;
    std::vector<int64_t> out;
    if (reduction == 0 && scores.size() == 2) out = {scores[0]};
    b.op("aten::nll_loss_nd", {b.input(scores), b.input(target, DType::kInt64)}, {}, out, DType::kFloat32);
    b.arg_int("reduction", reduction);
    return rules_only(b);
  };
  CHECK(nll({2, 3}, {2}, 0).counts.kernels == 2);  // total weight zeroed, the per-sample kernel
  CHECK(nll({2, 3}, {2}, 1).counts.kernels == 1);
  CHECK(nll({3}, {}, 0).counts.kernels == 1);  // nll_loss_forward_reduce_cuda_kernel_1d
  CHECK(nll({3}, {}, 1).counts.kernels == 1);
}

TEST_CASE("norms of an empty input launch nothing; a norm with elements still launches") {
  for (const char* op : {"aten::layer_norm", "aten::rms_norm"}) {
    GraphBuilder b;
    b.op(op, {b.input({0, 5}, DType::kBFloat16)}, {}, {0, 5}, DType::kBFloat16);
    const auto l = rules_only(b);
    CHECK(l.rule == "empty");
    CHECK(l.counts.kernels == 0);
    GraphBuilder full;
    full.op(op, {full.input({2, 5}, DType::kBFloat16)}, {}, {2, 5}, DType::kBFloat16);
    CHECK(rules_only(full).rule != "empty");
  }
  GraphBuilder bn;
  bn.op("aten::batch_norm", {bn.input({0})}, {}, {0});
  CHECK(rules_only(bn).rule == "empty");
}

TEST_CASE("*_copy ops: a memcpy per output whose view is contiguous, else a copy kernel") {
  GraphBuilder b;
  int x = b.input({5, 5});
  b.op("aten::unbind_copy", {x}, {}, {5});
  // unbind along dim 0 of a row-major tensor: each row is contiguous (five outputs in ATen; one
  // here is enough to read the rule).
  CHECK(rules_only(b).counts.memcpy == 1);
  b.arg_int("dim", 1);
  auto cols = rules_only(b);
  CHECK(cols.counts.kernels == 1);
  CHECK(cols.counts.memcpy == 0);
  b.op("aten::t_copy", {x}, {}, {5, 5});
  CHECK(rules_only(b).counts.kernels == 1);
  int row = b.input({1, 5});
  b.op("aten::t_copy", {row}, {}, {5, 1});
  CHECK(rules_only(b).counts.memcpy == 1);  // a size-1 dim moves without changing the order
}

TEST_CASE("losses: class weights are read inside nll_loss's kernel; scores with extra dims take nll_loss2d") {
  GraphBuilder b;
  int x = b.input({2, 3}), idx = b.input({2}, DType::kInt64), w = b.input({3});
  b.op("aten::cross_entropy_loss", {x, idx, w}, {}, std::vector<int64_t>{});
  b.name_arg(0, "self");
  b.name_arg(1, "target");
  b.name_arg(2, "weight");
  auto weighted = rules_only(b);
  CHECK(weighted.rule == "cross_entropy.weighted");
  CHECK(weighted.counts.kernels == 2);  // log_softmax, nll_loss

  GraphBuilder n;
  int s = n.input({2, 3, 2, 2}), t = n.input({2, 2, 2}, DType::kInt64);
  n.op("aten::nll_loss_nd", {s, t}, {}, std::vector<int64_t>{2, 2, 2});
  n.arg_int("reduction", 0);
  auto none = rules_only(n);
  CHECK(none.rule == "loss.nll2d");
  CHECK(none.counts.kernels == 1);  // nll_loss2d_forward_no_reduce_kernel
  n.op("aten::nll_loss_nd", {s, t}, {}, std::vector<int64_t>{});
  n.arg_int("reduction", 1);
  CHECK(rules_only(n).counts.kernels == 4);  // two fills, the loss, its mean
  n.op("aten::nll_loss_nd", {s, t}, {}, std::vector<int64_t>{});
  n.arg_int("reduction", 2);
  CHECK(rules_only(n).counts.kernels == 3);  // the sum: no division
}

TEST_CASE("losses: cross entropy over class probabilities multiplies by a class weight and smooths the target") {
  auto run = [](bool weight, double smoothing, int64_t reduction) {
    GraphBuilder b;
    int x = b.input({2, 3}), p = b.input({2, 3});
    std::vector<int> in{x, p};
    if (weight) in.push_back(b.input({3}));
    b.op("aten::cross_entropy_loss", in, {}, std::vector<int64_t>{});
    b.name_arg(0, "self");
    b.name_arg(1, "target");
    if (weight) b.name_arg(2, "weight");
    b.arg_int("reduction", reduction);
    if (smoothing > 0) b.arg_float("label_smoothing", smoothing);
    auto l = rules_only(b);
    CHECK(l.rule == "loss.cross_entropy.probs");
    return l.counts.kernels;
  };
  CHECK(run(false, 0, 1) == 5);  // log_softmax, mul, sum, neg, the mean's scaling
  CHECK(run(true, 0, 1) == 6);   // + the weight's multiply
  CHECK(run(true, 0, 2) == 5);
  CHECK(run(true, 0, 0) == 5);
  CHECK(run(false, 0.1, 1) == 7);  // + target * (1 - s) + s / C
}
