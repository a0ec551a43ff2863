#include "cli/budgets.h"

#include "cli/table.h"

namespace kc {

std::vector<BudgetCheck> check_budgets(const Options& o, const Totals& t, const BaselineDiff* base) {
  std::vector<BudgetCheck> out;
  auto test = [&](const std::optional<int64_t>& limit, int64_t value, const char* option, const char* what,
                  const char* unit) {
    if (limit) out.push_back({option, what, unit, *limit, value, ""});
  };
  const char* kernels_what = "eager kernels (each unknown op counted as one)";
  test(o.max_kernels, t.eager.kernels + t.unknown_ops, "--max-kernels", kernels_what, "kernels");
  test(o.max_fused_kernels, t.fused_kernels + t.unknown_ops, "--max-fused-kernels",
       "fused kernels (each unknown op counted as one)", "kernels");
  test(o.max_bytes, t.eager_hbm_bytes, "--max-bytes", "eager HBM bytes", "bytes");
  test(o.max_unknown, t.unknown_ops, "--max-unknown", "unknown ops", "ops");
  test(o.max_host_syncs, t.eager.host_syncs, "--max-syncs", "host syncs", "syncs");
  if (base) {
    auto counted = [&](bool after) { return base->total("eager_kernels", after) + base->total("unknown_ops", after); };
    test(o.max_kernel_increase, counted(true) - counted(false), "--max-kernel-increase",
         "eager kernels added (each unknown op counted as one)", "kernels");
    const int64_t unknown_added = base->total("unknown_ops", true) - base->total("unknown_ops", false);
    if (o.max_kernel_increase && unknown_added > 0) {
      std::string names;
      for (const EntryDelta& d : base->op_types)
        if (d.after.unknown > d.before.unknown) names += (names.empty() ? "" : ", ") + d.after.name;
      out.back().unproven = "the change adds " + std::to_string(unknown_added) + " op(s) without a launch rule" +
                            (names.empty() ? "" : " (" + names + ")") + ", whose kernels nobody knows";
    }
    test(o.max_bytes_increase, base->total("eager_hbm_bytes", true) - base->total("eager_hbm_bytes", false),
         "--max-bytes-increase", "eager HBM bytes added", "bytes");
  }
  return out;
}

std::string describe(const BudgetCheck& b) {
  auto show = [&](int64_t v) {
    return b.unit == "bytes" ? std::to_string(v) + " bytes (" + format_bytes(v) + ")" : std::to_string(v);
  };
  const std::string budget = "the budget of " + show(b.limit) + " (" + b.option + ")";
  // One verdict, said once: a count that would hold never reads as a pass when the budget fails.
  if (!b.unproven.empty())
    return b.what + ": not known, so over " + budget + ": " + b.unproven +
           " (counting each as one kernel: " + show(b.value) + ")";
  return b.what + ": " + show(b.value) + (b.value > b.limit ? ", over " : ", within ") + budget;
}

std::string describe_value(const BudgetCheck& b) {
  auto show = [&](int64_t v) { return b.unit == "bytes" ? format_bytes(v) : std::to_string(v) + " " + b.unit; };
  return b.unproven.empty() ? show(b.value) : "not known";
}

}  // namespace kc
