#include "analyzer/op_registry.h"

#include <catch2/catch.hpp>

#include "analyzer/error.h"

using Catch::Matchers::Contains;

TEST_CASE("op table: an op's arguments, defaults, keyword-only arguments and tags") {
  const kc::OpSchema& add = kc::lookup_op("aten::add", "Tensor");
  REQUIRE(add.args.size() == 3);
  CHECK(add.args[0].name == "self");
  CHECK(add.args[0].type == "Tensor");
  CHECK(add.args[2].name == "alpha");
  CHECK(add.args[2].keyword_only);
  CHECK(add.args[2].has_default);
  CHECK(add.returns == std::vector<std::string>{"Tensor"});
  CHECK(add.traits.pointwise);
  CHECK_FALSE(add.traits.inplace);
  CHECK(kc::lookup_op("aten::sum", "dim_IntList").traits.reduction);
  CHECK_FALSE(kc::lookup_op("aten::sum", "dim_IntList").traits.pointwise);
}

TEST_CASE("op table: aliasing makes views, in-place ops and out= variants") {
  CHECK(kc::lookup_op("aten::view", "").traits.view);
  CHECK(kc::lookup_op("aten::transpose", "int").traits.view);
  const kc::OpSchema& add_ = kc::lookup_op("aten::add_", "Tensor");
  CHECK(add_.traits.inplace);
  CHECK(add_.traits.mutated_args == std::vector<int>{0});
  const kc::OpSchema& out = kc::lookup_op("aten::add", "out");
  CHECK(out.traits.out_variant);
  CHECK_FALSE(out.traits.inplace);
  CHECK(out.traits.mutated_args == std::vector<int>{3});
}

TEST_CASE("op table: the default overload is named '' or 'default'; an in-place op takes its functional form's tag") {
  CHECK(&kc::lookup_op("aten::relu", "default") == &kc::lookup_op("aten::relu", ""));
  // hardtanh_ has no pointwise tag of its own in the registry; hardtanh has.
  CHECK(kc::lookup_op("aten::hardtanh", "").traits.pointwise);
  CHECK(kc::lookup_op("aten::hardtanh_", "").traits.pointwise);
}

TEST_CASE("op table: an op the release does not have is an error naming the release") {
  CHECK_THROWS_WITH(kc::lookup_op("aten::no_such_op", ""), Contains("has no such operator"));
  CHECK_THROWS_WITH(kc::lookup_op("aten::add", "NoSuchOverload"), Contains("aten::add.NoSuchOverload"));
  CHECK(kc::libtorch_version() == "2.11.0");
}

TEST_CASE("op table: a line written from a schema reads back as the same schema") {
  const kc::OpSchema& conv = kc::lookup_op("aten::convolution", "");
  CHECK(kc::schema_table_line(conv).rfind("aten::convolution\t\t\tinput:Tensor;weight:Tensor;bias:Tensor?;", 0) == 0);
  const kc::OpSchema& out = kc::lookup_op("aten::add", "out");
  CHECK(kc::schema_table_line(out) ==
        "aten::add\tout\tpo:3\tself:Tensor;other:Tensor;*alpha:Scalar=;*out:Tensor\tTensor");
}
