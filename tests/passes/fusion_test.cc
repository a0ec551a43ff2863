#include "passes/fusion.h"

#include <catch2/catch.hpp>

#include "passes/graph_builder.h"
#include "passes/hbm_traffic.h"
#include "passes/launches.h"
#include "passes/target.h"

using kc::FusionVariant;
using kc::test::GraphBuilder;

namespace {
kc::FusionPlan plan(const kc::Graph& g, FusionVariant v = FusionVariant::kPointwise) {
  auto l = kc::run_launches(g, kc::default_target());
  return kc::run_fusion(g, l, kc::run_hbm_traffic(g, l), v);
}
int fused_kernels(const kc::FusionPlan& p) {
  int n = 0;
  for (const auto& grp : p.groups) n += grp.fused_kernels;
  return n;
}
int fused_transfers(const kc::FusionPlan& p) {
  int n = 0;
  for (const auto& grp : p.groups) n += grp.fused.transfers();
  return n;
}
}  // namespace

TEST_CASE("fusion: (a + b).relu() fuses to 1 kernel and 3 transfers") {
  GraphBuilder b;
  int x = b.input({1000}), y = b.input({1000});
  b.output(b.pointwise("aten::relu", {b.pointwise("aten::add", {x, y})}));
  auto p = plan(b.g);
  CHECK(fused_kernels(p) == 1);
  CHECK(fused_transfers(p) == 3);
  REQUIRE(p.groups.size() == 1);
  CHECK(p.groups[0].eager_kernels == 2);
}

TEST_CASE("fusion: gelu(a * b + 1) is 3 kernels eager, 1 fused") {
  GraphBuilder b;
  int x = b.input({1000}), y = b.input({1000});
  b.output(b.pointwise("aten::gelu", {b.pointwise("aten::add", {b.pointwise("aten::mul", {x, y})})}));
  auto p = plan(b.g);
  CHECK(p.groups[0].eager_kernels == 3);
  CHECK(fused_kernels(p) == 1);
}

TEST_CASE("fusion: a lone op changes nothing") {
  GraphBuilder b;
  int x = b.input({1000}), y = b.input({1000});
  b.output(b.pointwise("aten::add", {x, y}));
  auto p = plan(b.g);
  CHECK(fused_kernels(p) == 1);
  CHECK(fused_transfers(p) == 3);
}

TEST_CASE("fusion: a GEMM stays its own kernel between pointwise ops") {
  GraphBuilder b;
  // 1024 rows: one GEMM kernel (fewer rows would split K, see tests/passes/rules_gemm_test.cc).
  int x = b.input({1024, 64}), w = b.input({64, 64}, kc::DType::kFloat32, kc::ValueRole::kParameter);
  int h = b.pointwise("aten::relu", {x});
  int m = b.op("aten::linear", {h, w}, {}, {1024, 64});
  b.output(b.pointwise("aten::gelu", {m}));
  auto p = plan(b.g);
  CHECK(p.groups.size() == 3);
  CHECK(fused_kernels(p) == 3);
}

TEST_CASE("fusion: an intermediate used outside the group is still written") {
  GraphBuilder b;
  int x = b.input({1000});
  int h = b.pointwise("aten::relu", {x});
  int g2 = b.pointwise("aten::gelu", {h});
  int s = b.reduction("aten::sum", h, {});
  b.output(g2);
  b.output(s);
  auto p = plan(b.g);
  const auto& grp = p.groups[p.group_of[0]];
  CHECK(grp.ops.size() == 2);
  CHECK(grp.fused.writes == 2);  // h for the sum, gelu's result for the caller
}

TEST_CASE("fusion: pointwise ops over different sizes stay apart") {
  GraphBuilder b;
  int x = b.input({64, 1000});
  int s = b.reduction("aten::sum", x, {64});
  b.output(b.pointwise("aten::relu", {b.pointwise("aten::exp", {x})}));
  b.output(b.pointwise("aten::neg", {s}));
  auto p = plan(b.g);
  CHECK(p.group_of[0] != p.group_of[3]);
  CHECK(p.group_of[1] == p.group_of[2]);
}

TEST_CASE("fusion: the reduction variant takes a pointwise prologue and epilogue") {
  GraphBuilder b;
  int x = b.input({64, 1000});
  int e = b.pointwise("aten::exp", {x});
  int s = b.reduction("aten::sum", e, {64});
  b.output(b.pointwise("aten::log", {s}));
  CHECK(fused_kernels(plan(b.g, FusionVariant::kPointwise)) == 3);
  auto p = plan(b.g, FusionVariant::kPointwiseReduction);
  CHECK(fused_kernels(p) == 1);
  CHECK(p.groups[0].kind == "reduction");
}

TEST_CASE("fusion: joining cannot route a group through an outside op") {
  // a = relu(x); m = linear(a); c = add(a, m): c may not join a's group, which m depends on.
  GraphBuilder b;
  int x = b.input({32, 64}), w = b.input({64, 64}, kc::DType::kFloat32, kc::ValueRole::kParameter);
  int a = b.pointwise("aten::relu", {x});
  int m = b.op("aten::linear", {a, w}, {}, {32, 64});
  b.output(b.pointwise("aten::add", {a, m}));
  auto p = plan(b.g);
  CHECK(p.group_of[0] != p.group_of[2]);
}

TEST_CASE("fusion: a fused group names the arrays its one kernel reads and writes") {
  GraphBuilder b;
  int a = b.input({256, 1024}), c = b.input({256, 1024});
  int sum = b.pointwise("aten::add", {a, c});
  int out = b.pointwise("aten::relu", {sum});
  b.output(out);
  auto p = plan(b.g);
  REQUIRE(p.groups.size() == 1);
  CHECK(p.groups[0].fused_reads == std::vector<int>{a, c});
  CHECK(p.groups[0].fused_writes == std::vector<int>{out});  // the sum never leaves the chip
}

TEST_CASE("a loop body's ops count once per trip: launches, traffic and fusion scale with Op::repeat") {
  GraphBuilder b;
  int x = b.input({1000}), y = b.input({1000});
  int s = b.pointwise("aten::add", {x, y});  // before the loop: runs once
  int t = b.pointwise("aten::mul", {s, y});  // the loop body: two ops, ten trips
  int u = b.pointwise("aten::relu", {t});
  b.g.ops[1].repeat = 10;
  b.g.ops[2].repeat = 10;
  b.output(u);
  auto l = kc::run_launches(b.g, kc::default_target());
  CHECK(l[0].counts.kernels == 1);
  CHECK(l[1].counts.kernels == 10);
  auto traffic = kc::run_hbm_traffic(b.g, l);
  CHECK(traffic[1].transfers() == 30);  // 2 reads + 1 write, ten times
  CHECK(traffic[1].bytes() == 10 * 3 * 4000);
  auto p = kc::run_fusion(b.g, l, traffic, FusionVariant::kPointwise);
  // The body fuses within a trip (one kernel a trip), never with the op before the loop.
  CHECK(p.group_of[0] != p.group_of[1]);
  CHECK(p.group_of[1] == p.group_of[2]);
  const kc::FusionGroup& body = p.groups[p.group_of[1]];
  CHECK(body.eager_kernels == 20);
  CHECK(body.fused_kernels == 10);
  CHECK(body.fused.transfers() == 30);  // s and y in, u out, per trip
  CHECK(fused_kernels(p) == 11);
}

TEST_CASE("fusion: the pointwise plan stands in for pointwise+reduction only where nothing reduces") {
  for (bool reduce : {false, true}) {
    GraphBuilder b;
    int x = b.input({64, 1000}), y = b.input({64, 1000});
    x = b.pointwise("aten::relu", {b.pointwise("aten::add", {x, y})});
    if (reduce) x = b.reduction("aten::sum", x, {64});
    b.output(x);
    auto l = kc::run_launches(b.g, kc::default_target());
    auto t = kc::run_hbm_traffic(b.g, l);
    const auto pointwise = kc::run_fusion(b.g, l, t, FusionVariant::kPointwise);
    const auto alone = kc::run_fusion(b.g, l, t, FusionVariant::kPointwiseReduction);
    const auto reused = kc::run_fusion(b.g, l, t, FusionVariant::kPointwiseReduction, &pointwise);
    CHECK(reused.variant == "pointwise+reduction");
    CHECK(reused.group_of == alone.group_of);
    REQUIRE(reused.groups.size() == alone.groups.size());
    for (size_t k = 0; k < alone.groups.size(); ++k) {
      CHECK(reused.groups[k].kind == alone.groups[k].kind);
      CHECK(reused.groups[k].fused_kernels == alone.groups[k].fused_kernels);
      CHECK(reused.groups[k].fused.bytes() == alone.groups[k].fused.bytes());
    }
    CHECK(fused_kernels(alone) == (reduce ? 1 : fused_kernels(pointwise)));
  }
}
