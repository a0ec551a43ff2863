// Pass "inductor", its verdict on a pair of ops: one case per rule that keeps two ops' kernels
// apart (or puts them together), each built so that only that rule decides.
#include <catch2/catch.hpp>

#include "passes/graph_builder.h"
#include "passes/hbm_traffic.h"
#include "passes/inductor.h"
#include "passes/launches.h"
#include "passes/target.h"

using kc::DType;
using kc::OpTraits;
using kc::test::GraphBuilder;

namespace {
kc::FusionVerdict verdict(const kc::Graph& g, int a, int b) {
  auto l = kc::run_launches(g, kc::default_target(), {false, {}});
  return kc::inductor_fusion_verdict(g, l, kc::run_hbm_traffic(g, l), kc::default_target(), a, b);
}
kc::FusionPlan plan(const kc::Graph& g) {
  auto l = kc::run_launches(g, kc::default_target(), {false, {}});
  return kc::run_inductor(g, l, kc::run_hbm_traffic(g, l), kc::default_target());
}
bool mentions(const kc::FusionVerdict& v, const std::string& s) {
  return v.sentence.find(s) != std::string::npos;
}
}  // namespace

TEST_CASE("inductor verdict: ops of one compiled kernel share it, an inlined op named as such") {
  GraphBuilder b;
  int x = b.input({1000}), y = b.input({1000});
  b.output(b.pointwise("aten::relu", {b.pointwise("aten::add", {x, y})}));
  auto v = verdict(b.g, 0, 1);
  CHECK(v.fused);
  CHECK(v.rule == "fused");
  CHECK(mentions(v, "op 0 aten::add is inlined"));
}

TEST_CASE("inductor verdict: a view launches nothing, so there is no kernel to share") {
  GraphBuilder b;
  int x = b.input({10, 100});
  int e = b.pointwise("aten::exp", {x});
  b.output(b.view("aten::reshape", e, {1000}));
  auto v = verdict(b.g, 0, 1);
  CHECK_FALSE(v.fused);
  CHECK(v.rule == "view");
}

TEST_CASE("inductor verdict: a loop read by nothing is dead code") {
  GraphBuilder b;
  int x = b.input({1000});
  b.pointwise("aten::exp", {x});
  b.output(b.pointwise("aten::relu", {x}));
  CHECK(verdict(b.g, 0, 1).rule == "dead-code");
}

TEST_CASE("inductor verdict: a library call is never fused, whichever op is asked first") {
  GraphBuilder b;
  int x = b.input({1024, 64}), w = b.input({64, 64}, DType::kFloat32, kc::ValueRole::kParameter);
  int m = b.op("aten::mm", {x, w}, {}, {1024, 64});
  b.output(b.pointwise("aten::relu", {m}));
  CHECK(verdict(b.g, 0, 1).rule == "extern");
  CHECK(verdict(b.g, 1, 0).rule == "extern");
}

TEST_CASE("inductor verdict: a cat of more than 8 inputs is its copies, not a loop to fuse") {
  GraphBuilder b;
  std::vector<int> ins;
  for (int k = 0; k < 9; ++k) ins.push_back(b.input({4, 16}));
  int c = b.op("aten::cat", ins, {}, {36, 16});
  b.g.ops.back().args.clear();
  b.arg_tensors("tensors", ins);
  b.output(b.pointwise("aten::relu", {c}));
  auto p = plan(b.g);
  REQUIRE(p.group_of[0] >= 0);
  REQUIRE(p.groups[p.group_of[0]].kind == "concat");
  CHECK(verdict(b.g, 0, 1).rule == "concat");
}

TEST_CASE("inductor verdict: kernels that share no buffer are never scored") {
  GraphBuilder b;
  int x = b.input({1000}), y = b.input({1000});
  b.output(b.pointwise("aten::relu", {x}));
  b.output(b.pointwise("aten::relu", {y}));
  CHECK(verdict(b.g, 0, 1).rule == "no-shared-buffer");
}

TEST_CASE("inductor verdict: a reader of a transposed buffer reads in another order") {
  GraphBuilder b;
  int x = b.input({64, 32});
  int e = b.pointwise("aten::exp", {x});
  b.op("aten::mm", {e, b.input({32, 64}, DType::kFloat32, kc::ValueRole::kParameter)}, {}, {64, 64});
  OpTraits view;
  view.view = true;
  int t = b.op("aten::t", {e}, view, {32, 64});
  b.g.values[t].strides = {1, 32};
  b.output(b.pointwise("aten::relu", {t}));
  CHECK(verdict(b.g, 0, 3).rule == "view-order");
}

TEST_CASE("inductor verdict: more than 64 nodes never share a kernel") {
  // 70 reductions of one input, each returned: horizontal candidates, 64 to a kernel.
  GraphBuilder b;
  int x = b.input({64, 128});
  for (int k = 0; k < 70; ++k) {
    b.output(b.reduction("aten::sum", x, {64}));
    b.arg_ints("dim", {1});
  }
  auto p = plan(b.g);
  REQUIRE(p.group_of[0] != p.group_of[69]);
  auto v = verdict(b.g, 0, 69);
  CHECK(v.rule == "max-fusion-size");
  CHECK(mentions(v, "limit of 64"));
}

TEST_CASE("inductor verdict: a split reduction keeps its two kernels to itself") {
  GraphBuilder b;
  int x = b.input({1 << 20});
  b.output(b.reduction("aten::sum", x, {1}));
  b.output(b.pointwise("aten::relu", {x}));
  CHECK(verdict(b.g, 0, 1).rule == "split-reduction");
}

TEST_CASE("inductor verdict: readers of one buffer too far apart in Inductor's order stay apart") {
  GraphBuilder b;
  int x = b.input({1000});
  b.output(b.pointwise("aten::relu", {x}));
  for (int k = 0; k < 70; ++k) b.output(b.pointwise("aten::neg", {b.input({1000})}));
  const int last = b.pointwise("aten::exp", {x});
  b.output(last);
  auto v = verdict(b.g, 0, b.g.values[last].producer);
  CHECK(v.rule == "too-far-apart");
}

TEST_CASE("inductor verdict: a loop body's ops fuse only with ops of as many trips") {
  GraphBuilder b;
  int x = b.input({1000});
  b.output(b.pointwise("aten::relu", {x}));
  b.output(b.pointwise("aten::exp", {x}));
  b.g.ops.back().repeat = 4;
  auto v = verdict(b.g, 0, 1);
  CHECK(v.rule == "loop-trips");
  CHECK(mentions(v, "1 and 4 times"));
}

TEST_CASE("inductor verdict: pointwise loops over different sizes have no common iteration space") {
  GraphBuilder b;
  int x = b.input({1000}), y = b.input({2, 1000});
  b.output(b.pointwise("aten::relu", {x}));
  b.output(b.op("aten::add", {y, x}, [] {
    OpTraits t;
    t.pointwise = true;
    return t;
  }()));
  auto v = verdict(b.g, 0, 1);
  CHECK(v.rule == "iteration-space");
  CHECK(mentions(v, "1000 and 2000"));
}

TEST_CASE("inductor verdict: reductions of different sizes do not tile together") {
  GraphBuilder b;
  int x = b.input({64, 128});
  b.output(b.reduction("aten::sum", x, {64}));
  b.arg_ints("dim", {1});
  b.output(b.reduction("aten::amax", x, {128}));
  b.arg_ints("dim", {0});
  auto v = verdict(b.g, 0, 1);
  CHECK(v.rule == "reduction-size");
}

TEST_CASE("inductor verdict: a loop that covers neither a reduction's input nor its output stays apart") {
  GraphBuilder b;
  int x = b.input({64, 128}), z = b.input({2, 64, 128});
  b.output(b.reduction("aten::sum", x, {64}));
  b.arg_ints("dim", {1});
  b.output(b.op("aten::add", {z, x}, [] {
    OpTraits t;
    t.pointwise = true;
    return t;
  }()));
  auto v = verdict(b.g, 0, 1);
  CHECK(v.rule == "reduction-shape");
}

TEST_CASE("inductor verdict: fusing across a library kernel would make a cycle") {
  GraphBuilder b;
  int x = b.input({1024, 64}), w = b.input({64, 64}, DType::kFloat32, kc::ValueRole::kParameter);
  int h = b.pointwise("aten::relu", {x});
  int m = b.op("aten::mm", {h, w}, {}, {1024, 64});
  b.output(b.pointwise("aten::add", {h, m}));
  auto v = verdict(b.g, 0, 2);
  CHECK(v.rule == "cycle");
  CHECK(mentions(v, "op 1 aten::mm"));
}

TEST_CASE("inductor verdict: an op index outside the graph is a clear error") {
  GraphBuilder b;
  b.output(b.pointwise("aten::relu", {b.input({10})}));
  CHECK_THROWS_AS(verdict(b.g, 0, 5), kc::Error);
}
