// Kernel name families the GPU really ran for the ops a launch rule covers: measured by
// kernelcount-validate and tabled per target (generators/make_kernel_names.py), so that a
// prediction can be read beside a profiler's kernel list row by row.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace kc {

struct KernelNames {
  const char* rule;      // launch rule id (the rule that fits even where the measured table decided)
  const char* dtype;     // dtype of the op's first tensor, "float32"
  int launches;          // kernels + memcpy + memset of the op
  const char* families;  // "nchwToNhwcKernel | xmma_fprop_implicit_gemm | nhwcToNchwKernel"
  int seen;              // measured op instances that ran exactly this sequence
  int of;                // measured op instances of this rule, dtype and launch count
};

// The row for an op: same rule, dtype and launch count, else same rule and launch count (the
// most seen), else nullptr: nothing like it was measured.
const KernelNames* find_kernel_names(const std::vector<KernelNames>& table, const std::string& rule,
                                     const std::string& dtype, int launches);
// "a | b | c" as {"a", "b", "c"}, views into `families`.
std::vector<std::string_view> split_families(std::string_view families);

}  // namespace kc
