// What the fusion plans share (passes/fusion_groups.h) and what the reports put beside Inductor's
// plan: each group's kernels counted at one op, and the groups that launch more than eager.
#include "passes/fusion_groups.h"

#include <catch2/catch.hpp>

#include "passes/graph_builder.h"
#include "passes/hbm_traffic.h"
#include "passes/inductor.h"
#include "passes/launches.h"
#include "passes/pipeline.h"
#include "passes/target.h"

using kc::DType;
using kc::test::GraphBuilder;

namespace {
std::vector<kc::Launch> launches(const kc::Graph& g) {
  return kc::run_launches(g, kc::default_target(), {false, {}});
}
kc::FusionPlan inductor_plan(const kc::Graph& g) {
  auto l = launches(g);
  return kc::run_inductor(g, l, kc::run_hbm_traffic(g, l), kc::default_target());
}
// A 3x3 convolution of a graph input by a weight with a bias: Inductor runs it channels last,
// copying the input and the weight into that layout first.
int conv(GraphBuilder& b, int x, int64_t out_channels) {
  const int64_t in_channels = b.g.values[x].sizes[1];
  const int w = b.input({out_channels, in_channels, 3, 3}, DType::kFloat32, kc::ValueRole::kParameter);
  const int bias = b.input({out_channels}, DType::kFloat32, kc::ValueRole::kParameter);
  std::vector<int64_t> out = b.g.values[x].sizes;
  out[1] = out_channels;
  const int y = b.op("aten::conv2d", {x, w, bias}, {}, out);
  b.name_arg(0, "input");
  b.name_arg(1, "weight");
  b.name_arg(2, "bias");
  b.arg_ints("stride", {1, 1});
  b.arg_ints("padding", {1, 1});
  b.arg_int("groups", 1);
  return y;
}
}  // namespace

TEST_CASE("fusion groups: values of views alias their input's buffer; others are their own") {
  GraphBuilder b;
  int x = b.input({10, 100});
  int v = b.view("aten::reshape", x, {1000});
  int e = b.pointwise("aten::exp", {v});
  auto base = kc::alias_bases(b.g, [](int i) { return i == 0; });
  CHECK(base[v] == x);
  CHECK(base[e] == e);
  // Nothing free: every value is its own (the aliasing changes nothing).
  auto own = kc::alias_bases(b.g, [](int) { return false; });
  CHECK(own[v] == v);
}

TEST_CASE("fusion groups: a chain's kernels count at its first op, a library call's at the call") {
  GraphBuilder b;
  int x = b.input({8, 16, 28, 28});
  int y = conv(b, x, 32);
  b.output(b.pointwise("aten::relu", {b.pointwise("aten::mul", {y, y})}));
  auto l = launches(b.g);
  auto p = inductor_plan(b.g);
  auto anchors = kc::group_anchors(p, l);
  REQUIRE(p.group_of[0] >= 0);
  CHECK(anchors[p.group_of[0]] == 0);
  REQUIRE(p.group_of[1] >= 0);
  CHECK(anchors[p.group_of[1]] == 1);
  // The shares sum to the plan's totals, whatever the plan.
  auto share = kc::share_by_anchor(p, l, b.g.ops.size());
  int kernels = 0, shared = 0;
  int64_t bytes = 0, shared_bytes = 0;
  for (const auto& grp : p.groups) {
    kernels += grp.fused_kernels;
    bytes += grp.fused.bytes();
  }
  for (size_t i = 0; i < b.g.ops.size(); ++i) {
    shared += share.kernels[i];
    shared_bytes += share.bytes[i];
  }
  CHECK(shared == kernels);
  CHECK(shared_bytes == bytes);
  CHECK(share.kernels[2] == 0);  // relu shares mul's kernel, counted at mul
}

TEST_CASE("compiled: a convolution whose operands Inductor copies launches more than eager, and says why") {
  GraphBuilder b;
  int x = b.input({8, 16, 28, 28});
  b.output(b.pointwise("aten::relu", {conv(b, x, 32)}));
  auto l = launches(b.g);
  auto p = inductor_plan(b.g);
  auto more = kc::kernel_increases(p, l);
  REQUIRE(more.size() == 1);
  CHECK(more[0].op == 0);
  CHECK(more[0].group == p.group_of[0]);
  CHECK(more[0].compiled_kernels > more[0].eager_kernels);
  CHECK(more[0].why.find("copied to channels last") != std::string::npos);
}

TEST_CASE("compiled: a pointwise chain launches fewer kernels than eager, so nothing is called out") {
  GraphBuilder b;
  int x = b.input({1000}), y = b.input({1000});
  b.output(b.pointwise("aten::relu", {b.pointwise("aten::add", {x, y})}));
  CHECK(kc::kernel_increases(inductor_plan(b.g), launches(b.g)).empty());
}

TEST_CASE("compiled: the inductor report keeps the greedy plan beside Inductor's; rows sum to both") {
  GraphBuilder b;
  int x = b.input({8, 16, 28, 28});
  b.output(b.pointwise("aten::relu", {b.pointwise("aten::mul", {conv(b, x, 32), x})}));
  auto greedy = kc::analyze(b.g, kc::default_target());
  auto r = kc::analyze(b.g, kc::default_target(), {}, kc::FusionModel::kInductor);
  CHECK(greedy.pointwise.groups.empty());
  CHECK(greedy.more_than_eager.empty());
  CHECK(r.fusion.variant == "inductor");
  CHECK(r.pointwise.variant == "pointwise");
  CHECK(r.totals.pointwise_kernels == greedy.totals.fused_kernels);
  CHECK(r.totals.pointwise_hbm_bytes == greedy.totals.fused_hbm_bytes);
  CHECK_FALSE(r.more_than_eager.empty());
  int fused = 0, pointwise = 0;
  for (const auto& row : r.by_line) {
    fused += row.fused_kernels;
    pointwise += row.pointwise_kernels;
  }
  CHECK(fused == r.totals.fused_kernels);
  CHECK(pointwise == r.totals.pointwise_kernels);
}
