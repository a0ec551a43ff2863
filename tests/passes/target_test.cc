#include "passes/target.h"

#include <catch2/catch.hpp>

#include "analyzer/error.h"
#include "passes/graph_builder.h"
#include "passes/pipeline.h"

using kc::test::GraphBuilder;

namespace {

// conv -> batch_norm (inference) -> relu, fp32.
kc::Graph conv_bn_relu() {
  GraphBuilder b;
  int x = b.input({8, 16, 32, 32}, kc::DType::kFloat32);
  int w = b.input({16, 16, 1, 1}, kc::DType::kFloat32, kc::ValueRole::kParameter);
  int y = b.op("aten::conv2d", {x, w});
  int mean = b.input({16}, kc::DType::kFloat32, kc::ValueRole::kBuffer);
  int var = b.input({16}, kc::DType::kFloat32, kc::ValueRole::kBuffer);
  int bn = b.op("aten::_native_batch_norm_legit_no_training", {y, mean, var});
  b.pointwise("aten::relu", {bn});
  return b.g;
}

}  // namespace

TEST_CASE("targets: the registry's first target is the default and names are unique") {
  const auto& all = kc::known_targets();
  REQUIRE(all.size() >= 2);
  CHECK(&kc::default_target() == &all.front());
  CHECK_FALSE(kc::default_target().test_only);
  for (size_t i = 0; i < all.size(); ++i)
    for (size_t j = i + 1; j < all.size(); ++j) CHECK(all[i].name != all[j].name);
  CHECK_THROWS_AS(kc::find_target("no-such-target"), kc::Error);
}

TEST_CASE("targets: two targets' reports come out of one binary and differ where their rules do") {
  kc::Graph g = conv_bn_relu();
  const kc::Target& h200 = kc::default_target();
  const kc::Target& test = kc::find_target("torch2.11-test");
  kc::Report a = kc::analyze(g, h200);
  kc::Report b = kc::analyze(g, test);
  CHECK(a.target == &h200);
  CHECK(b.target == &test);
  CHECK(a.launches[1].counts.kernels == 1);  // cuDNN's fp32 inference batch norm
  CHECK(b.launches[1].counts.kernels == 2);  // the test target's changed rule
  CHECK(b.totals.eager.kernels == a.totals.eager.kernels + 1);
  // Everything else is the same.
  CHECK(a.launches[0].counts.kernels == b.launches[0].counts.kernels);
  CHECK(a.launches[2].counts.kernels == b.launches[2].counts.kernels);
  // Each target owns its measured table.
  CHECK(test.measured.empty());
  CHECK_FALSE(h200.measured.empty());
}
