#include "passes/time_floor.h"

#include <catch2/catch.hpp>

#include "passes/graph_builder.h"
#include "passes/hbm_traffic.h"
#include "passes/launches.h"
#include "passes/target.h"

using kc::test::GraphBuilder;

TEST_CASE("time: a large add is memory-bound at bytes / bandwidth") {
  GraphBuilder b;
  int x = b.input({1 << 24}), y = b.input({1 << 24});
  b.output(b.pointwise("aten::add", {x, y}));
  const auto& t = kc::default_target();
  auto l = kc::run_launches(b.g, t);
  auto tr = kc::run_hbm_traffic(b.g, l);
  auto f = kc::run_time_floor(b.g, l, tr, t);
  CHECK(f[0].memory_bound());
  CHECK(std::string(f[0].bound()) == "memory");
  CHECK(f[0].floor_s() == Approx(3.0 * 4 * (1 << 24) / t.hbm_bytes_per_s));
}

TEST_CASE("time: a large bf16 GEMM is compute-bound") {
  GraphBuilder b;
  int x = b.input({8192, 8192}, kc::DType::kBFloat16);
  int w = b.input({8192, 8192}, kc::DType::kBFloat16, kc::ValueRole::kParameter);
  b.output(b.op("aten::mm", {x, w}, {}, {8192, 8192}));
  const auto& t = kc::default_target();
  auto l = kc::run_launches(b.g, t);
  auto f = kc::run_time_floor(b.g, l, kc::run_hbm_traffic(b.g, l), t);
  CHECK_FALSE(f[0].memory_bound());
  CHECK(std::string(f[0].bound()) == "compute");
  CHECK(f[0].compute_s == Approx(2.0 * 8192 * 8192 * 8192 / t.matmul_bf16_flops_per_s));
}

TEST_CASE("time: a view costs nothing") {
  GraphBuilder b;
  b.output(b.view("aten::view", b.input({1000}), {10, 100}));
  const auto& t = kc::default_target();
  auto l = kc::run_launches(b.g, t);
  CHECK(kc::run_time_floor(b.g, l, kc::run_hbm_traffic(b.g, l), t)[0].floor_s() == 0);
}

TEST_CASE("time: a tiny op is bound by its launch") {
  GraphBuilder b;
  b.output(b.pointwise("aten::relu", {b.input({16})}));
  const auto& t = kc::default_target();
  auto l = kc::run_launches(b.g, t);
  auto f = kc::run_time_floor(b.g, l, kc::run_hbm_traffic(b.g, l), t);
  CHECK(std::string(f[0].bound()) == "launch");
  CHECK(f[0].floor_s() == Approx(t.launch_s));
}
