#include "passes/explain.h"

#include <catch2/catch.hpp>

#include "passes/graph_builder.h"
#include "passes/hbm_traffic.h"
#include "passes/kernel_names.h"
#include "passes/launches.h"
#include "passes/pipeline.h"
#include "passes/target.h"

using kc::OpExplanation;
using kc::test::GraphBuilder;

TEST_CASE("explain: a pointwise op gets its rule's reason, its arrays and the kernel names measured for it") {
  GraphBuilder b;
  int a = b.input({256, 1024}), c = b.input({256, 1024});
  b.output(b.pointwise("aten::relu", {b.pointwise("aten::add", {a, c})}));
  const kc::Target& t = kc::default_target();
  auto e = kc::run_explain(b.g, kc::run_launches(b.g, t), t);
  REQUIRE(e.size() == 2);
  CHECK(e[0].kind == OpExplanation::Kind::kLaunch);
  CHECK(e[0].rule == "pointwise");
  CHECK(e[0].why.find("one elementwise kernel") != std::string::npos);
  CHECK(!e[0].evidence.empty());
  const auto launches = kc::run_launches(b.g, t);
  CHECK(kc::hbm_arrays(b.g, 0, launches[0]).reads == std::vector<int>{a, c});
  CHECK(kc::hbm_arrays(b.g, 0, launches[0]).writes.size() == 1);
  REQUIRE(e[0].kernel_names.size() == 1);
  CHECK(e[0].kernel_names[0].find("elementwise_kernel") != std::string::npos);
  CHECK(e[0].names_seen > 0);
  CHECK(e[0].names_seen <= e[0].names_of);
}

TEST_CASE("explain: a view launches nothing and moves no array") {
  GraphBuilder b;
  int x = b.input({64, 32});
  b.output(b.view("aten::view", x, {2048}));
  const kc::Target& t = kc::default_target();
  auto e = kc::run_explain(b.g, kc::run_launches(b.g, t), t);
  CHECK(e[0].kind == OpExplanation::Kind::kFree);
  CHECK(e[0].rule == "view");
  CHECK(!kc::hbm_arrays(b.g, 0, kc::run_launches(b.g, t)[0]).moves);
  CHECK(e[0].kernel_names.empty());
}

TEST_CASE("explain: an op no rule covers is unknown, with no reason invented") {
  GraphBuilder b;
  b.output(b.op("aten::made_up_op", {b.input({8})}));
  const kc::Target& t = kc::default_target();
  auto e = kc::run_explain(b.g, kc::run_launches(b.g, t), t);
  CHECK(e[0].kind == OpExplanation::Kind::kUnknown);
  CHECK(e[0].why.empty());
}

TEST_CASE("explain: the arrays an explanation shows are the ones the hbm pass counted") {
  GraphBuilder b;
  int a = b.input({256, 1024});
  b.output(b.pointwise("aten::gelu", {b.pointwise("aten::mul", {a, a})}));
  const kc::Target& t = kc::default_target();
  auto r = kc::analyze(b.g, t);
  REQUIRE(r.explain.size() == b.g.ops.size());
  for (size_t i = 0; i < b.g.ops.size(); ++i) {
    const kc::HbmArrays arrays = kc::hbm_arrays(b.g, static_cast<int>(i), r.launches[i]);
    CHECK(static_cast<int>(arrays.reads.size()) == r.traffic[i].reads);
    CHECK(static_cast<int>(arrays.writes.size()) == r.traffic[i].writes);
  }
}

TEST_CASE("explain: ops alike share one explanation, ops that differ do not") {
  GraphBuilder b;
  int a = b.input({256, 1024});
  int x = b.pointwise("aten::relu", {a});
  int y = b.pointwise("aten::relu", {x});
  b.output(b.op("aten::made_up_op", {y}));
  const kc::Target& t = kc::default_target();
  auto e = kc::run_explain(b.g, kc::run_launches(b.g, t), t);
  REQUIRE(e.size() == 3);
  CHECK(&e[0] == &e[1]);
  CHECK(e.distinct.size() == 2);
  CHECK(e[0].kind == OpExplanation::Kind::kLaunch);
  CHECK(e[2].kind == OpExplanation::Kind::kUnknown);
}

TEST_CASE("kernel names: every rule's rows name a rule of the target, and lookups fall back across dtypes") {
  const kc::Target& t = kc::default_target();
  REQUIRE(!t.kernel_names.empty());
  for (const kc::KernelNames& k : t.kernel_names) {
    bool known = false;
    for (const kc::LaunchRule& r : t.rules) known |= r.id == k.rule;
    CHECK(known);
    CHECK(static_cast<int>(kc::split_families(k.families).size()) == k.launches);
    CHECK(k.seen <= k.of);
  }
  const kc::KernelNames* exact = kc::find_kernel_names(t.kernel_names, "gemm", "bfloat16", 2);
  REQUIRE(exact != nullptr);
  CHECK(std::string(exact->families) == "nvjet | Memset");
  CHECK(kc::find_kernel_names(t.kernel_names, "pointwise", "float16", 1) != nullptr);  // no fp16 measured: any dtype
  CHECK(kc::find_kernel_names(t.kernel_names, "pointwise", "float32", 7) == nullptr);
}

TEST_CASE("every launch rule says why in plain words") {
  for (const kc::LaunchRule& r : kc::default_target().rules) {
    INFO(r.id);
    CHECK(r.why.size() > 20);
    CHECK(r.why.back() == '.');
  }
}

TEST_CASE("explain: a count the values decide carries its rule's words for that part; a shape-decided one none") {
  GraphBuilder b;
  int a = b.input({5, 5});
  b.output(b.op("aten::linalg_eigvals", {a}));
  b.output(b.pointwise("aten::relu", {a}));
  const kc::Target& t = kc::default_target();
  auto e = kc::run_explain(b.g, kc::run_launches(b.g, t), t);
  CHECK(e[0].rule == "linalg.eig");
  CHECK(e[0].data_dependent.find("balancing") != std::string_view::npos);
  CHECK(e[1].data_dependent.empty());
}
