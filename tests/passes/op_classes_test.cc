#include "passes/op_classes.h"

#include <catch2/catch.hpp>
#include <set>

#include "passes/graph_builder.h"
#include "passes/target.h"

using kc::test::GraphBuilder;

TEST_CASE("op classes: every op a launch rule names has a class, and every class entry has a rule") {
  std::set<std::string> in_rules;
  std::set<kc::OpClass> rule_classes;
  for (const kc::LaunchRule& r : kc::default_target().rules) {
    in_rules.insert(r.ops.begin(), r.ops.end());
    if (r.cls) rule_classes.insert(*r.cls);
  }
  std::set<std::string> in_table;
  for (const auto& [name, cls] : kc::op_class_table()) {
    INFO(name);
    CHECK(in_table.insert(name).second);  // listed once
    CHECK(cls != kc::OpClass::kOther);
    // Reverse: named by a rule, or of a class a rule covers.
    CHECK((in_rules.count(name) > 0 || rule_classes.count(cls) > 0));
  }
  for (const std::string& name : in_rules) {
    INFO(name);
    CHECK(in_table.count(name) == 1);
  }
}

TEST_CASE("op classes: FLOPs follow the class, whatever the op's name") {
  GraphBuilder b;
  int x = b.input({8, 16, 32, 32}, kc::DType::kFloat32);
  int w = b.input({32, 16, 3, 3}, kc::DType::kFloat32, kc::ValueRole::kParameter);
  const int64_t conv = 2LL * 8 * 32 * 32 * 32 * 16 * 3 * 3;
  for (const char* name : {"aten::conv2d", "aten::convolution", "aten::_convolution", "aten::cudnn_convolution"}) {
    INFO(name);
    b.op(name, {x, w}, {}, {8, 32, 32, 32});
    CHECK(kc::op_class(b.g.ops.back()) == kc::OpClass::kConv);
    CHECK(kc::op_flops(b.g, b.g.ops.back()) == conv);
  }
  // Outside the table, libtorch's tags decide; with neither, the class is "other".
  kc::Op tagged;
  tagged.name = "aten::some_pointwise";
  tagged.traits.pointwise = true;
  CHECK(kc::op_class(tagged) == kc::OpClass::kPointwise);
  kc::Op untagged;
  untagged.name = "aten::some_op";
  CHECK(kc::op_class(untagged) == kc::OpClass::kOther);
  CHECK(kc::on_matrix_units(kc::OpClass::kConv));
  CHECK_FALSE(kc::on_matrix_units(kc::OpClass::kPointwise));
}
