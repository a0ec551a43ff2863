#include "passes/launches.h"

#include <catch2/catch.hpp>

#include "passes/graph_builder.h"
#include "passes/launch_rules.h"
#include "passes/target.h"

using kc::DType;
using kc::test::GraphBuilder;

namespace {
const kc::Target& h200() {
  return kc::default_target();
}
}  // namespace

TEST_CASE("launches: a + b is one kernel") {
  GraphBuilder b;
  int x = b.input({1024}), y = b.input({1024});
  b.output(b.pointwise("aten::add", {x, y}));
  auto l = kc::run_launches(b.g, h200());
  REQUIRE(l.size() == 1);
  CHECK(l[0].known);
  CHECK(l[0].counts.kernels == 1);
  CHECK(l[0].counts.memcpy == 0);
  CHECK(l[0].rule == "pointwise");
}

TEST_CASE("launches: views launch nothing") {
  GraphBuilder b;
  int x = b.input({64, 512, 768});
  b.output(b.view("aten::permute", b.view("aten::view", x, {64, 512, 12, 64}), {64, 12, 512, 64}));
  for (const auto& l : kc::run_launches(b.g, h200())) {
    CHECK(l.known);
    CHECK(l.counts.kernels == 0);
  }
}

TEST_CASE("launches: an op no rule covers is unknown, not zero") {
  GraphBuilder b;
  int x = b.input({16, 64, 256});
  b.output(b.op("aten::lstm", {x}));
  auto l = kc::run_launches(b.g, h200());
  CHECK_FALSE(l[0].known);
  CHECK(l[0].rule.str().find("no rule") != std::string::npos);
}

TEST_CASE("launches: bf16 linear carries a memset, fp32 does not") {
  for (DType dt : {DType::kFloat32, DType::kBFloat16}) {
    GraphBuilder b;
    int x = b.input({64, 512, 768}, dt);
    int w = b.input({3072, 768}, dt, kc::ValueRole::kParameter);
    b.output(b.op("aten::linear", {x, w}, {}, {64, 512, 3072}));
    auto l = kc::run_launches(b.g, h200());
    CHECK(l[0].counts.kernels == 1);
    CHECK(l[0].counts.memset == (dt == DType::kBFloat16 ? 1 : 0));
  }
}

TEST_CASE("launches: dropout is free in eval and one kernel in training") {
  for (bool train : {false, true}) {
    GraphBuilder b;
    int x = b.input({1024});
    b.output(b.op("aten::dropout", {x}));
    b.arg_bool("train", train);
    CHECK(kc::run_launches(b.g, h200())[0].counts.kernels == (train ? 1 : 0));
  }
}

TEST_CASE("launches: reshape copies only when no view fits") {
  CHECK(kc::view_is_possible({4, 6}, {6, 1}, {24}));
  CHECK(kc::view_is_possible({4, 6}, {6, 1}, {2, 2, 6}));
  // A transposed matrix cannot be flattened without a copy.
  CHECK_FALSE(kc::view_is_possible({6, 4}, {1, 6}, {24}));
  // Splitting a dim of a transposed tensor is still a view.
  CHECK(kc::view_is_possible({6, 4}, {1, 6}, {2, 3, 4}));
}

TEST_CASE("launches: every rule names its evidence") {
  for (const auto& r : kc::default_target().rules) {
    INFO(r.id);
    CHECK_FALSE(r.evidence.empty());
    // A rule names ops or a class; only the host rules and the empty-result rule, first, apply to
    // every op.
    CHECK((!r.ops.empty() || r.cls || r.id == "host" || r.id == "host.numbers" || r.id == "empty"));
  }
}

namespace {
// conv2d(x, w[, bias]) with stride and groups, as the export writes it.
kc::Launch conv(GraphBuilder& b, int x, std::vector<int64_t> w_sizes, bool bias, int64_t stride = 1,
                int64_t groups = 1) {
  int w = b.input(std::move(w_sizes), b.g.values[x].dtype, kc::ValueRole::kParameter);
  std::vector<int> ins{x, w};
  if (bias) ins.push_back(b.input({b.g.values[w].sizes[0]}, b.g.values[x].dtype, kc::ValueRole::kParameter));
  b.op("aten::conv2d", ins, {}, {32, 64, 28, 28});
  b.name_arg(0, "input");
  b.name_arg(1, "weight");
  if (bias) b.name_arg(2, "bias");
  b.arg_ints("stride", {stride, stride});
  const auto& ws = b.g.values[w].sizes;
  b.arg_ints("padding", {(ws[2] - 1) / 2, (ws[3] - 1) / 2});  // "same", as the sweeps measured
  if (groups > 1) {
    kc::Arg g;
    g.name = "groups";
    g.kind = kc::Arg::Kind::kInt;
    g.ints = {groups};
    b.g.ops.back().args.push_back(g);
  }
  kc::LaunchOptions rules_only{false, {}};
  return kc::run_launches(b.g, h200(), rules_only).back();
}
}  // namespace

TEST_CASE("launches: convolutions by kind") {
  GraphBuilder b;
  // Shapes of the conv_dense sweep, measured on the H200.
  int x = b.input({4, 320, 56, 56});
  CHECK(conv(b, x, {128, 320, 3, 3}, false).counts.kernels == 4);  // transforms + implicit GEMM
  CHECK(conv(b, x, {128, 320, 3, 3}, true).counts.kernels == 5);   // + bias add
  int y = b.input({2, 64, 12, 12});
  CHECK(conv(b, y, {256, 64, 1, 1}, false).counts.kernels == 1);  // 1x1: a plain GEMM
  int z = b.input({2, 16, 12, 12}, kc::DType::kBFloat16);
  CHECK(conv(b, z, {32, 16, 1, 1}, false, 2).counts.kernels == 3);           // strided 1x1: transforms again
  CHECK(conv(b, x, {320, 1, 3, 3}, false, 1, 320).counts.kernels == 1);      // depthwise: ATen's kernel
  int permuted = b.strided({32, 64, 28, 28}, {50176, 1, 64 * 28 * 32, 28});  // neither NCHW nor NHWC
  CHECK(conv(b, permuted, {128, 64, 1, 1}, false).counts.kernels == 2);      // + a copy to contiguous
  int nhwc = b.strided({32, 64, 28, 28}, {50176, 1, 28 * 64, 64});
  CHECK(conv(b, nhwc, {64, 1, 7, 7}, true, 1, 64).counts.kernels == 2);  // channels-last read as is
}

TEST_CASE("launches: matmul copies operands it cannot fold into a view") {
  GraphBuilder b;
  // q from a permute (B, L, H, D) -> (B, H, L, D) is not foldable into (B*H, L, D).
  int q = b.strided({8, 12, 49, 32}, {49 * 384, 32, 384, 1});
  int k = b.input({8, 12, 32, 49});
  b.output(b.op("aten::matmul", {q, k}, {}, {8, 12, 49, 49}));
  auto l = kc::run_launches(b.g, h200(), {false, {}});
  CHECK(l[0].counts.kernels == 2);
}

TEST_CASE("launches: a norm copies a non-contiguous input first") {
  GraphBuilder b;
  int x = b.strided({197, 32, 768}, {768, 197 * 768, 1});
  b.output(b.op("aten::layer_norm", {x}));
  CHECK(kc::run_launches(b.g, h200(), {false, {}})[0].counts.kernels == 2);
}

TEST_CASE("launches: the measured table overrides the rules, and can be held out") {
  // swin_t_fp32's MLP down-projection, measured on the H200: one GEMM whose workspace cuBLAS
  // zeroes (1 memset), which the GEMM tree does not predict.
  GraphBuilder b;
  int x = b.input({32, 14, 14, 768});
  int w = b.input({384, 768}, DType::kFloat32, kc::ValueRole::kParameter);
  b.output(b.op("aten::linear", {x, w}, {}, {32, 14, 14, 384}));
  b.name_arg(0, "input");
  b.name_arg(1, "weight");
  auto measured = kc::run_launches(b.g, h200())[0];
  CHECK(measured.rule == "measured");
  CHECK(measured.counts.kernels == 1);
  CHECK(measured.counts.memset == 1);
  auto held_out = kc::run_launches(b.g, h200(), {true, {"swin_t"}})[0];
  CHECK(held_out.rule != "measured");
  CHECK_FALSE(held_out.counts.same_work(measured.counts));
  // The table lists only what the rules miss: the rules alone give another answer here.
  auto rules = kc::run_launches(b.g, h200(), {false, {}})[0];
  CHECK(rules.rule == held_out.rule);
}

namespace {
// Runs the pass deciding each op alone and deciding each signature once; both must agree.
void check_reuse_changes_nothing(const kc::Graph& g) {
  kc::LaunchOptions alone;
  alone.reuse_by_signature = false;
  const auto a = kc::run_launches(g, h200(), alone);
  const auto b = kc::run_launches(g, h200());
  REQUIRE(a.size() == b.size());
  for (size_t i = 0; i < a.size(); ++i) {
    INFO("op " << i << " " << g.ops[i].full_name());
    CHECK(a[i].known == b[i].known);
    CHECK(a[i].counts.same_work(b[i].counts));
    CHECK(a[i].counts.host_syncs == b[i].counts.host_syncs);
    CHECK(a[i].rule == b[i].rule);
    CHECK(a[i].key == b[i].key);
    CHECK(a[i].fitting_rule == b[i].fitting_rule);
    CHECK(a[i].cudnn == b[i].cudnn);
  }
}
}  // namespace

TEST_CASE("launches: ops of one signature are decided once, as each alone would be") {
  GraphBuilder b;
  int x = b.input({256, 1024}), y = b.input({256, 1024});
  for (int i = 0; i < 4; ++i) x = b.pointwise(i % 2 ? "aten::relu" : "aten::add", {x, y});
  x = b.pointwise("aten::add", {x, x});  // one value twice: another signature than add(x, y)
  b.output(b.op("aten::lstm", {x}));     // unknown: its "no rule" reason is kept too
  check_reuse_changes_nothing(b.g);
  auto l = kc::run_launches(b.g, h200());
  CHECK(l[0].counts.kernels == 1);
  CHECK(l[2].key == l[0].key);
  CHECK_FALSE(l.back().known);
}

TEST_CASE("launches: a rule that reads other ops decides each op alone") {
  // copy_(a slice, the same slice of the same base) moves nothing; copy_ between slices of two
  // bases of the same shape is a copy. The two calls have one signature.
  GraphBuilder b;
  int a = b.input({8, 16}), c = b.input({8, 16});
  kc::OpTraits inplace;
  inplace.inplace = true;
  const int self1 = b.view("aten::slice", a, {4, 16}), src1 = b.view("aten::slice", a, {4, 16});
  b.op("aten::copy_", {self1, src1}, inplace);
  const int self2 = b.view("aten::slice", a, {4, 16}), src2 = b.view("aten::slice", c, {4, 16});
  b.output(b.op("aten::copy_", {self2, src2}, inplace));
  check_reuse_changes_nothing(b.g);
  auto l = kc::run_launches(b.g, h200());
  CHECK(l[2].key == l[5].key);
  CHECK(l[2].counts.none());
  CHECK_FALSE(l[5].counts.none());
}
