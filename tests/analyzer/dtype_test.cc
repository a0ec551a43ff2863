#include "analyzer/dtype.h"

#include <catch2/catch.hpp>

TEST_CASE("dtype: every name and short name the reports print parses back") {
  using kc::DType;
  for (DType t : {DType::kBool, DType::kUInt8, DType::kInt8, DType::kInt16, DType::kInt32, DType::kInt64,
                  DType::kFloat16, DType::kBFloat16, DType::kFloat32, DType::kFloat64, DType::kFloat8E4M3FN}) {
    CHECK(kc::parse_dtype(kc::dtype_name(t)) == t);
    CHECK(kc::parse_dtype(kc::dtype_short_name(t)) == t);
    CHECK(kc::parse_dtype(std::string("torch.") + kc::dtype_name(t)) == t);
  }
  CHECK(kc::parse_dtype("f32") == DType::kFloat32);
  CHECK(kc::parse_dtype("bf16") == DType::kBFloat16);
  CHECK(kc::parse_dtype("fp16") == DType::kFloat16);
  CHECK_FALSE(kc::parse_dtype("float99").has_value());
  CHECK_FALSE(kc::parse_dtype("unknown").has_value());
}
