#include "passes/launches.h"

#include <catch2/catch.hpp>

#include "passes/graph_builder.h"
#include "passes/launch_rules.h"
#include "passes/target.h"

using kc::DType;
using kc::test::GraphBuilder;

namespace {
const kc::Target& h200() { return kc::find_target("torch2.11-h200"); }
}

TEST_CASE("launches: a + b is one kernel") {
  GraphBuilder b;
  int x = b.input({1024}), y = b.input({1024});
  b.output(b.pointwise("aten::add", {x, y}));
  auto l = kc::run_launches(b.g, h200());
  REQUIRE(l.size() == 1);
  CHECK(l[0].known);
  CHECK(l[0].kernels == 1);
  CHECK(l[0].memcpy == 0);
  CHECK(l[0].rule == "pointwise");
}

TEST_CASE("launches: views launch nothing") {
  GraphBuilder b;
  int x = b.input({64, 512, 768});
  b.output(b.view("aten::permute", b.view("aten::view", x, {64, 512, 12, 64}), {64, 12, 512, 64}));
  for (const auto& l : kc::run_launches(b.g, h200())) {
    CHECK(l.known);
    CHECK(l.kernels == 0);
  }
}

TEST_CASE("launches: an op no rule covers is unknown, not zero") {
  GraphBuilder b;
  int x = b.input({16, 64, 256});
  b.output(b.op("aten::lstm", {x}));
  auto l = kc::run_launches(b.g, h200());
  CHECK_FALSE(l[0].known);
  CHECK(l[0].rule.find("no rule") != std::string::npos);
}

TEST_CASE("launches: bf16 linear carries a memset, fp32 does not") {
  for (DType dt : {DType::kFloat32, DType::kBFloat16}) {
    GraphBuilder b;
    int x = b.input({64, 512, 768}, dt);
    int w = b.input({3072, 768}, dt, kc::ValueRole::kParameter);
    b.output(b.op("aten::linear", {x, w}, {}, {64, 512, 3072}));
    auto l = kc::run_launches(b.g, h200());
    CHECK(l[0].kernels == 1);
    CHECK(l[0].memset == (dt == DType::kBFloat16 ? 1 : 0));
  }
}

TEST_CASE("launches: dropout is free in eval and one kernel in training") {
  for (bool train : {false, true}) {
    GraphBuilder b;
    int x = b.input({1024});
    b.output(b.op("aten::dropout", {x}));
    b.arg_bool("train", train);
    CHECK(kc::run_launches(b.g, h200())[0].kernels == (train ? 1 : 0));
  }
}

TEST_CASE("launches: reshape copies only when no view fits") {
  CHECK(kc::view_is_possible({4, 6}, {6, 1}, {24}));
  CHECK(kc::view_is_possible({4, 6}, {6, 1}, {2, 2, 6}));
  // A transposed matrix cannot be flattened without a copy.
  CHECK_FALSE(kc::view_is_possible({6, 4}, {1, 6}, {24}));
  // Splitting a dim of a transposed tensor is still a view.
  CHECK(kc::view_is_possible({6, 4}, {1, 6}, {2, 3, 4}));
}

TEST_CASE("launches: every rule names its evidence") {
  for (const auto& r : kc::launch_rules("torch2.11-h200")) {
    INFO(r.id);
    CHECK_FALSE(r.evidence.empty());
    CHECK((r.ops.empty() != r.generic.empty()));
  }
}
