// CI budgets (--max-kernels, --max-kernel-increase, ...): which hold and which are exceeded.
// Computed before rendering so that every format can state the verdict.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "cli/baseline.h"
#include "cli/options.h"
#include "passes/report.h"

namespace kc {

// One budget the user set, and the report's value for it.
struct BudgetCheck {
  std::string option;  // "--max-kernels"
  std::string what;    // "eager kernels (each unknown op counted as one)"
  std::string unit;    // "kernels", "bytes", "ops", "syncs"
  int64_t limit = 0;
  int64_t value = 0;
  std::string unproven;  // why the budget cannot be shown to hold whatever the value (fails it)
  bool exceeded() const { return value > limit || !unproven.empty(); }
};

// Every budget given in the options. Kernel budgets count each op without a launch rule as
// one kernel, so that replacing a known op with an unknown one cannot lower the count; and
// --max-kernel-increase fails when the change adds unknown ops, whose kernels nobody knows.
std::vector<BudgetCheck> check_budgets(const Options& o, const Totals& t, const BaselineDiff* base);
// One sentence with one verdict: "eager kernels: 12, over the budget of 10 (--max-kernels)",
// "...: 8, within the budget of 10 (...)", or "...: not known, so over the budget ...: why".
std::string describe(const BudgetCheck& b);
// The value as a table cell: "12 kernels", "1.20 MB", or "not known" (an unproven budget).
std::string describe_value(const BudgetCheck& b);

}  // namespace kc
