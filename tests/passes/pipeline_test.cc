#include "passes/pipeline.h"

#include <catch2/catch.hpp>

#include "passes/graph_builder.h"
#include "passes/rollup.h"
#include "passes/target.h"

using kc::test::GraphBuilder;

namespace {
kc::Graph mixed() {
  GraphBuilder b;
  int x = b.input({32, 64}), w = b.input({64, 64}, kc::DType::kFloat32, kc::ValueRole::kParameter);
  int h = b.pointwise("aten::relu", {b.pointwise("aten::add", {x, x})});
  int m = b.op("aten::linear", {h, w}, {}, {32, 64});
  b.output(b.pointwise("aten::gelu", {b.view("aten::view", m, {2048})}));
  b.g.ops[0].module = b.g.ops[1].module = "block";
  return b.g;
}
}  // namespace

TEST_CASE("pipeline: per-op numbers sum to the totals") {
  kc::Graph g = mixed();
  auto r = kc::analyze(g, kc::find_target("torch2.11-h200"));
  int kernels = 0;
  int64_t bytes = 0;
  for (size_t i = 0; i < g.ops.size(); ++i) {
    kernels += r.launches[i].kernels;
    bytes += r.traffic[i].bytes();
  }
  CHECK(r.totals.eager_kernels == kernels);
  CHECK(r.totals.eager_hbm_bytes == bytes);
  CHECK(r.totals.eager_kernels == 4);
  CHECK(r.totals.fused_kernels == 3);
  CHECK(r.totals.fused_kernels <= r.totals.eager_kernels);
  CHECK(r.totals.fused_hbm_bytes < r.totals.eager_hbm_bytes);
}

TEST_CASE("rollup: rows by module and line sum to the totals") {
  kc::Graph g = mixed();
  auto r = kc::analyze(g, kc::find_target("torch2.11-h200"));
  for (auto key : {kc::RollupKey::kLine, kc::RollupKey::kModule}) {
    int kernels = 0, ops = 0;
    for (const auto& row : kc::rollup(g, r, key)) {
      kernels += row.eager_kernels;
      ops += row.ops;
    }
    CHECK(kernels == r.totals.eager_kernels);
    CHECK(ops == r.totals.ops);
  }
  auto by_module = kc::rollup(g, r, kc::RollupKey::kModule);
  REQUIRE(by_module.size() == 2);
  CHECK(by_module[0].key == "block");
  CHECK(by_module[0].eager_kernels == 2);
  CHECK(by_module[1].key == "(none)");
}
