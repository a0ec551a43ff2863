// Evaluates the sympy expressions torch.export writes for symbolic sizes
// ("Symbol('s77', positive=True, integer=True)", "2*s0 + 1", "FloorDiv(s0, 2)").
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace kc {

// Limits on one expression, so that a hostile file costs bounded time and stack: longer or
// deeper expressions are refused (torch.export's own are a few hundred characters deep 10).
constexpr size_t kMaxSymExprLength = 65536;
constexpr int kMaxSymExprDepth = 200;

// Value of expr with the given symbol values; nullopt when it names a symbol not in `symbols`,
// uses syntax outside the integer subset torch.export emits, or its arithmetic is undefined.
// In the last case (division or modulo by zero, a result beyond int64, an expression over the
// limits above) `error`, when given, says why; it stays empty otherwise. Never throws or traps.
std::optional<int64_t> eval_sym_expr(const std::string& expr, const std::map<std::string, int64_t>& symbols,
                                     std::string* error = nullptr);
// Symbols the expression names, in order of first appearance.
std::vector<std::string> sym_expr_symbols(const std::string& expr);

}  // namespace kc
