// libFuzzer target: the symbolic-size expression parser. It never throws and never traps.
#include <cstddef>
#include <cstdint>
#include <string>

#include "analyzer/sym_expr.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string expr(reinterpret_cast<const char*>(data), size);
  static const std::map<std::string, int64_t> symbols = {
      {"s0", 8}, {"s1", 0}, {"s77", -1}, {"s2", INT64_MIN}, {"s3", INT64_MAX}};
  std::string why;
  kc::eval_sym_expr(expr, symbols, &why);
  for (const auto& s : kc::sym_expr_symbols(expr)) kc::eval_sym_expr(expr, {{s, 3}});
  return 0;
}
