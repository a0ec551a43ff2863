#include "passes/target.h"

#include <catch2/catch.hpp>

#include "analyzer/error.h"
#include "passes/graph_builder.h"
#include "passes/launches.h"
#include "passes/pipeline.h"
#include "tests/passes/test_target.h"

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
  REQUIRE(!all.empty());
  CHECK(&kc::default_target() == &all.front());
  CHECK(&kc::find_target(all.front().name) == &all.front());
  for (size_t i = 0; i < all.size(); ++i)
    for (size_t j = i + 1; j < all.size(); ++j) CHECK(all[i].name != all[j].name);
  CHECK_THROWS_AS(kc::find_target("no-such-target"), kc::Error);
}

TEST_CASE("targets: two targets' reports come out of one binary and differ where their rules do") {
  kc::Graph g = conv_bn_relu();
  const kc::Target& h200 = kc::default_target();
  const kc::Target& test = kc::test::torch2_11_test();
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

TEST_CASE("targets: the test target is the tests' own, not the product's") {
  CHECK_THROWS_AS(kc::find_target(kc::test::torch2_11_test().name), kc::Error);
}

TEST_CASE("targets: a target's device comes from its device.json, as cuDNN serializes it") {
  const kc::Device& d = kc::default_target().device;
  CHECK(d.name == "NVIDIA H200");
  CHECK(d.sms == 132);
  CHECK(d.max_threads_per_sm == 2048);
  CHECK(d.warp_size == 32);
  CHECK(d.l2_bytes == 62914560);
  CHECK(d.arch == "sm_90");
  CHECK(kc::default_target().gpu == d.name);
  CHECK(kc::default_target().arch == d.arch);
  CHECK(d.cudnn_properties.front() == '{');
  CHECK(d.cudnn_properties.back() == '}');  // as cuDNN wrote it: no trailing newline
  const kc::Device parsed = kc::device_from_cudnn_properties(d.cudnn_properties + "\n");
  CHECK(parsed.cudnn_properties == d.cudnn_properties);
  CHECK(parsed.sms == d.sms);
  CHECK_THROWS_AS(kc::device_from_cudnn_properties("{\"deviceName\": \"x\"}"), kc::Error);
  CHECK_THROWS_AS(kc::device_from_cudnn_properties("not json"), kc::Error);
}

TEST_CASE("targets: the rules read the target's device (ATen's reduce config and its SM count)") {
  // sum over the last dim of [64, 2^20]: 64 blocks of 512 threads. ATen splits each row across
  // blocks (zeroing a semaphore buffer first) while the grid fills less than the SMs can hold:
  // on the H200's 132 SMs it does; on a device of one SM the 64 blocks already fill it.
  GraphBuilder b;
  int x = b.input({64, 1 << 20});
  int s = b.reduction("aten::sum.dim_IntList", x, {64});
  b.arg_ints("dim", {1});
  b.output(s);
  kc::Target one_sm = kc::default_target();
  one_sm.device.sms = 1;
  const kc::LaunchOptions rules_only{false, {}};
  const auto h200 = kc::run_launches(b.g, kc::default_target(), rules_only);
  const auto small = kc::run_launches(b.g, one_sm, rules_only);
  CHECK(h200[0].counts.kernels == 1);
  CHECK(h200[0].counts.memset == 1);
  CHECK(small[0].counts.kernels == 1);
  CHECK(small[0].counts.memset == 0);
}
