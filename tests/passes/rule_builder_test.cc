#include "passes/rule_builder.h"

#include <catch2/catch.hpp>
#include <stdexcept>
#include <string>

namespace {

bool is_bf16(const kc::OpFacts& f) {
  return f.dtype == kc::DType::kBFloat16;
}
kc::Counts two(const kc::OpFacts&) {
  return {2, 0, 0, 0};
}

// A rule with every field it needs; each test takes one away or adds a conflicting one.
kc::RuleBuilder complete() {
  kc::RuleBuilder b("gemm.test");
  b.ops({"aten::mm"}).when("bf16", is_bf16).counts({1, 0, 1, 0}).evidence("sweep:x").why("One GEMM.");
  return b;
}

std::string failure(const kc::RuleBuilder& b) {
  try {
    kc::LaunchRule r = b;
    return "";
  } catch (const std::logic_error& e) {
    return e.what();
  }
}

}  // namespace

TEST_CASE("rule builder: named fields land in the rule's fields") {
  const kc::LaunchRule r = complete().reads_graph();
  CHECK(r.id == "gemm.test");
  CHECK(r.ops == std::vector<std::string>{"aten::mm"});
  CHECK(!r.cls);
  CHECK(r.when == "bf16");
  CHECK(r.matches == is_bf16);
  CHECK(r.counts.kernels == 1);
  CHECK(r.counts.memset == 1);
  CHECK(r.compute == nullptr);
  CHECK(r.evidence == "sweep:x");
  CHECK(r.why == "One GEMM.");
  CHECK(r.reads_graph);
  const kc::LaunchRule by_class =
      kc::rule("c").cls(kc::OpClass::kReduction).when("always").compute(two).evidence("e").why("w");
  CHECK(by_class.ops.empty());
  CHECK(by_class.cls == kc::OpClass::kReduction);
  CHECK(by_class.matches == nullptr);
  CHECK(by_class.compute == two);
  CHECK(!by_class.reads_graph);
}

TEST_CASE("rule builder: a rule missing a required field names the rule and the field") {
  CHECK(failure(complete()).empty());
  CHECK(failure(kc::rule("").ops({"aten::mm"}).when("w").counts({}).evidence("e").why("w")) == "rule : no id");
  CHECK(failure(kc::rule("a").when("w").counts({}).evidence("e").why("w")) == "rule a: no ops, class or every_op()");
  CHECK(failure(kc::rule("a").every_op().when("w").counts({}).evidence("e").why("w")).empty());
  CHECK(failure(complete().cls(kc::OpClass::kPointwise)) ==
        "rule gemm.test: more than one of ops, class and every_op()");
  CHECK(failure(complete().when("")) == "rule gemm.test: no words for its condition (when)");
  CHECK(failure(kc::rule("a").ops({"aten::mm"}).when("w").evidence("e").why("w")) == "rule a: no counts or compute");
  CHECK(failure(complete().compute(two)) == "rule gemm.test: both counts and compute");
  CHECK(failure(complete().evidence("")) == "rule gemm.test: no evidence");
  CHECK(failure(complete().why("")) == "rule gemm.test: no why");
}
