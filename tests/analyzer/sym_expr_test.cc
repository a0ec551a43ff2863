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

TEST_CASE("sym_expr: sympy's own spelling of sums, products, powers and integers (srepr)") {
  std::map<std::string, int64_t> s{{"u0", 500}, {"u1", 7}, {"big", 4611686018427387904}};
  CHECK(kc::eval_sym_expr(
            "Add(Min(Integer(300), Symbol('u0', integer=True)), Min(Integer(300), Symbol('u1', integer=True)))", s) ==
        307);
  CHECK(kc::eval_sym_expr("Mul(Integer(4), Add(Symbol('u1', integer=True), Integer(-2)))", s) == 20);
  CHECK(kc::eval_sym_expr("Pow(Integer(2), Integer(10))", s) == 1024);
  CHECK_FALSE(kc::eval_sym_expr("Pow(Integer(2), Integer(-1))", s));
  std::string why;
  CHECK_FALSE(kc::eval_sym_expr("Mul(Integer(4), big)", s, &why));
  CHECK(why == "the result overflows 64 bits");
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

TEST_CASE("sym_expr: undefined arithmetic is refused with a reason, never a trap") {
  std::map<std::string, int64_t> s{{"s0", 8}, {"zero", 0}, {"m1", -1}};
  const std::string min = "(-9223372036854775807 - 1)";
  for (const std::string e : {"s0 // zero", "FloorDiv(s0, 0)", "CeilDiv(s0, zero)", "s0 / 0", "IntTrueDiv(s0, 0)"}) {
    std::string why;
    CHECK_FALSE(kc::eval_sym_expr(e, s, &why));
    CHECK(why == "division by zero");
  }
  for (const std::string e : {"Mod(s0, 0)", "PythonMod(s0, zero)", "s0 % zero"}) {
    std::string why;
    CHECK_FALSE(kc::eval_sym_expr(e, s, &why));
    CHECK(why == "modulo by zero");
  }
  for (const std::string& e :
       std::vector<std::string>{min + " // m1", "FloorDiv(" + min + ", -1)", min + " / -1", "CeilDiv(" + min + ", -1)",
                                "Abs(" + min + ")", "-" + min, "2 ** 64", "s0 ** 70", "99999999999999999999"}) {
    std::string why;
    CHECK_FALSE(kc::eval_sym_expr(e, s, &why));
    CHECK(why.find("64 bits") != std::string::npos);
  }
  CHECK(kc::eval_sym_expr("Mod(" + min + ", -1)", s) == 0);
  CHECK(kc::eval_sym_expr("Mod(-7, 3)", s) == 2);
  CHECK(kc::eval_sym_expr("CeilDiv(-7, 2)", s) == -3);
  CHECK(kc::eval_sym_expr("1 ** 1000", s) == 1);
}

TEST_CASE("sym_expr: nesting and length are bounded") {
  std::map<std::string, int64_t> s{{"s0", 8}};
  std::string why;
  CHECK_FALSE(kc::eval_sym_expr(std::string(20000, '(') + "s0" + std::string(20000, ')'), s, &why));
  CHECK(why.find("nested deeper") != std::string::npos);
  std::string calls;
  for (int i = 0; i < 50000; ++i) calls += "FloorDiv(";
  calls += "s0";
  for (int i = 0; i < 50000; ++i) calls += ", 1)";
  CHECK_FALSE(kc::eval_sym_expr(calls, s, &why));
  CHECK(why.find("longer than") != std::string::npos);
  CHECK_FALSE(kc::eval_sym_expr(std::string(100000, '-') + "s0", s, &why));
  CHECK(kc::eval_sym_expr(std::string(100, '(') + "s0" + std::string(100, ')'), s) == 8);
  CHECK(kc::sym_expr_symbols("FloorDiv(s0, s1 - s1) + Symbol('s2', positive=True)") ==
        std::vector<std::string>{"s0", "s1", "s2"});
}
