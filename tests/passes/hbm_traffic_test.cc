#include "passes/hbm_traffic.h"

#include <catch2/catch.hpp>

#include "passes/graph_builder.h"
#include "passes/launches.h"
#include "passes/op_classes.h"
#include "passes/target.h"

using kc::test::GraphBuilder;

namespace {
std::vector<kc::Traffic> traffic(const kc::Graph& g) {
  return kc::run_hbm_traffic(g, kc::run_launches(g, kc::default_target()));
}
}  // namespace

TEST_CASE("hbm: c = a + b is 3 array-sized transfers") {
  GraphBuilder b;
  int x = b.input({1000}), y = b.input({1000});
  b.output(b.pointwise("aten::add", {x, y}));
  auto t = traffic(b.g);
  CHECK(t[0].reads == 2);
  CHECK(t[0].writes == 1);
  CHECK(t[0].bytes() == 3 * 4000);
}

TEST_CASE("hbm: (a + b).relu() is 5 transfers") {
  GraphBuilder b;
  int x = b.input({1000}), y = b.input({1000});
  b.output(b.pointwise("aten::relu", {b.pointwise("aten::add", {x, y})}));
  auto t = traffic(b.g);
  CHECK(t[0].transfers() + t[1].transfers() == 5);
}

TEST_CASE("hbm: views move nothing") {
  GraphBuilder b;
  int x = b.input({8, 16});
  b.output(b.view("aten::view", x, {128}));
  auto t = traffic(b.g);
  CHECK(t[0].transfers() == 0);
  CHECK(t[0].bytes() == 0);
}

TEST_CASE("hbm: a broadcast input counts its own size") {
  GraphBuilder b;
  int x = b.input({64, 768}), bias = b.input({768});
  b.output(b.pointwise("aten::add", {x, bias}));
  auto t = traffic(b.g);
  CHECK(t[0].read_bytes == (64 * 768 + 768) * 4);
  CHECK(t[0].write_bytes == 64 * 768 * 4);
}

TEST_CASE("hbm: an in-place op reads and writes the same array") {
  GraphBuilder b;
  int x = b.input({1000});
  kc::OpTraits inplace;
  inplace.pointwise = inplace.inplace = true;
  inplace.mutated_args = {0};
  b.pointwise("aten::relu", {x});
  // Turn the op in place: its output is its input.
  b.g.ops[0].traits = inplace;
  b.g.ops[0].outputs = {x};
  b.g.values.pop_back();
  auto t = traffic(b.g);
  CHECK(t[0].reads == 1);
  CHECK(t[0].writes == 1);
  CHECK(t[0].bytes() == 8000);
}

TEST_CASE("hbm: a repeated input is read once") {
  GraphBuilder b;
  int x = b.input({1000});
  b.output(b.pointwise("aten::mul", {x, x}));
  CHECK(traffic(b.g)[0].reads == 1);
}

TEST_CASE("hbm: GEMM flops are 2*M*N*K") {
  GraphBuilder b;
  int x = b.input({32, 64}), w = b.input({128, 64}, kc::DType::kFloat32, kc::ValueRole::kParameter);
  b.output(b.op("aten::linear", {x, w}, {}, {32, 128}));
  CHECK(kc::op_flops(b.g, b.g.ops[0]) == 2 * 32 * 128 * 64);
}
