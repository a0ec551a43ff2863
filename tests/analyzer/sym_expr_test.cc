#include "analyzer/sym_expr.h"

#include <catch2/catch.hpp>

TEST_CASE("sym_expr: export's symbol syntax and integer arithmetic") {
  std::map<std::string, int64_t> s{{"s77", 8}, {"s0", 5}};
  CHECK(kc::eval_sym_expr("Symbol('s77', positive=True, integer=True)", s) == 8);
  CHECK(kc::eval_sym_expr("2*s77 + 1", s) == 17);
  CHECK(kc::eval_sym_expr("FloorDiv(s0, 2)", s) == 2);
  CHECK(kc::eval_sym_expr("CeilDiv(s0, 2)", s) == 3);
  CHECK(kc::eval_sym_expr("Mod(s0, 3)", s) == 2);
  CHECK(kc::eval_sym_expr("s0**2 - s77", s) == 17);
  CHECK(kc::eval_sym_expr("Max(s0, s77)", s) == 8);
  CHECK(kc::eval_sym_expr("-(s0 - 7)", s) == 2);
}

TEST_CASE("sym_expr: unknown symbols, bad syntax and overflow give nothing") {
  std::map<std::string, int64_t> s{{"s0", 4611686018427387904}};
  CHECK_FALSE(kc::eval_sym_expr("s1 + 1", s));
  CHECK_FALSE(kc::eval_sym_expr("s0 +", s));
  CHECK_FALSE(kc::eval_sym_expr("4*s0", s));
  CHECK_FALSE(kc::eval_sym_expr("FloorDiv(s0, 0)", s));
}

TEST_CASE("sym_expr: lists the symbols an expression names") {
  CHECK(kc::sym_expr_symbols("Symbol('s3', integer=True)*s4 + s3") == std::vector<std::string>{"s3", "s4"});
}
