// Evaluates the sympy expressions torch.export writes for symbolic sizes
// ("Symbol('s77', positive=True, integer=True)", "2*s0 + 1", "FloorDiv(s0, 2)").
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace kc {

// Value of expr with the given symbol values; nullopt when it names a symbol not in `symbols`
// or uses syntax outside the integer subset torch.export emits. Never throws.
std::optional<int64_t> eval_sym_expr(const std::string& expr, const std::map<std::string, int64_t>& symbols);
// Symbols the expression names, in order of first appearance.
std::vector<std::string> sym_expr_symbols(const std::string& expr);

}  // namespace kc
