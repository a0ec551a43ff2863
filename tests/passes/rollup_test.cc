#include "passes/rollup.h"

#include <catch2/catch.hpp>

#include "passes/graph_builder.h"
#include "passes/pipeline.h"
#include "passes/target.h"

using kc::test::GraphBuilder;

namespace {
// add, relu in layer1.0; linear in layer1.1; gelu at the top level.
kc::Graph nested() {
  GraphBuilder b;
  int x = b.input({32, 64}), w = b.input({64, 64}, kc::DType::kFloat32, kc::ValueRole::kParameter);
  int h = b.pointwise("aten::relu", {b.pointwise("aten::add", {x, x})});
  int m = b.op("aten::linear", {h, w}, {}, {32, 64});
  b.output(b.pointwise("aten::gelu", {m}));
  b.g.ops[0].module = b.g.ops[1].module = "layer1.0";
  b.g.ops[2].module = "layer1.1";
  b.g.ops[2].module_type = "torch.nn.modules.linear.Linear";
  return b.g;
}
}  // namespace

TEST_CASE("module tree: each module's totals include its submodules'") {
  kc::Graph g = nested();
  auto r = kc::analyze(g, kc::default_target());
  const auto& t = r.module_tree;
  REQUIRE(t.size() == 4);  // (model), layer1, layer1.0, layer1.1 in depth-first order
  CHECK(t[0].total.key == "");
  CHECK(t[0].total.ops == 4);
  CHECK(t[0].total.counts.kernels == r.totals.eager.kernels);
  CHECK(t[0].total.bytes == r.totals.eager_hbm_bytes);
  CHECK((t[1].total.key == "layer1" && t[1].depth == 1 && t[1].parent == 0));
  CHECK(t[1].total.ops == 3);
  CHECK((t[2].total.key == "layer1.0" && t[2].parent == 1 && t[2].total.ops == 2));
  CHECK((t[3].total.key == "layer1.1" && t[3].parent == 1 && t[3].total.ops == 1));
  CHECK(t[3].total.code == "torch.nn.modules.linear.Linear");
  CHECK(t[1].total.counts.kernels == t[2].total.counts.kernels + t[3].total.counts.kernels);
}

TEST_CASE("module tree: a model without modules is one node") {
  GraphBuilder b;
  b.output(b.pointwise("aten::relu", {b.input({8})}));
  auto r = kc::analyze(b.g, kc::default_target());
  REQUIRE(r.module_tree.size() == 1);
  CHECK(r.module_tree[0].total.ops == 1);
}

TEST_CASE("rollup by op type: one row per aten op and overload, summing to the totals") {
  kc::Graph g = nested();
  auto r = kc::analyze(g, kc::default_target());
  REQUIRE(r.by_op_type.size() == 4);
  CHECK(r.by_op_type[0].key == "add");
  int kernels = 0;
  for (const auto& row : r.by_op_type) kernels += row.counts.kernels;
  CHECK(kernels == r.totals.eager.kernels);
}

TEST_CASE("totals: fused bytes never exceed eager bytes") {
  kc::Graph g = nested();
  auto r = kc::analyze(g, kc::default_target());
  CHECK(r.totals.fused_hbm_bytes <= r.totals.eager_hbm_bytes);
  CHECK(r.totals.fused_hbm_bytes_reduction <= r.totals.eager_hbm_bytes);
  for (const auto& grp : r.fusion.groups) CHECK(grp.fused.bytes() <= grp.eager.bytes());
}
