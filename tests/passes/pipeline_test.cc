#include "passes/pipeline.h"

#include <catch2/catch.hpp>

#include "passes/graph_builder.h"
#include "passes/rollup.h"
#include "passes/target.h"

using kc::test::GraphBuilder;

namespace {
kc::Graph mixed() {
  GraphBuilder b;
  // 1024 rows: one GEMM kernel (fewer rows would split K).
  int x = b.input({1024, 64}), w = b.input({64, 64}, kc::DType::kFloat32, kc::ValueRole::kParameter);
  int h = b.pointwise("aten::relu", {b.pointwise("aten::add", {x, x})});
  int m = b.op("aten::linear", {h, w}, {}, {1024, 64});
  b.output(b.pointwise("aten::gelu", {b.view("aten::view", m, {65536})}));
  b.g.ops[0].module = b.g.ops[1].module = "block";
  return b.g;
}
}  // namespace

TEST_CASE("pipeline: per-op numbers sum to the totals") {
  kc::Graph g = mixed();
  auto r = kc::analyze(g, kc::default_target());
  int kernels = 0;
  int64_t bytes = 0;
  for (size_t i = 0; i < g.ops.size(); ++i) {
    kernels += r.launches[i].counts.kernels;
    bytes += r.traffic[i].bytes();
  }
  CHECK(r.totals.eager.kernels == kernels);
  CHECK(r.totals.eager_hbm_bytes == bytes);
  CHECK(r.totals.eager.kernels == 4);
  CHECK(r.totals.fused_kernels == 3);
  CHECK(r.totals.fused_kernels <= r.totals.eager.kernels);
  CHECK(r.totals.fused_hbm_bytes < r.totals.eager_hbm_bytes);
}

TEST_CASE("rollup: rows by module and line sum to the totals") {
  kc::Graph g = mixed();
  auto r = kc::analyze(g, kc::default_target());
  for (auto key : {kc::RollupKey::kLine, kc::RollupKey::kModule}) {
    int kernels = 0, ops = 0;
    for (const auto& row : key == kc::RollupKey::kLine ? r.by_line : r.by_module) {
      kernels += row.counts.kernels;
      ops += row.ops;
    }
    CHECK(kernels == r.totals.eager.kernels);
    CHECK(ops == r.totals.ops);
  }
  const auto& by_module = r.by_module;
  REQUIRE(by_module.size() == 2);
  CHECK(by_module[0].key == "block");
  CHECK(by_module[0].counts.kernels == 2);
  CHECK(by_module[1].key == "(none)");
}
