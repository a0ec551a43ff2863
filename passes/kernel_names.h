// Kernel name families the GPU really ran for the ops a launch rule covers: measured by
// kernelcount-validate and tabled per target (generators/make_kernel_names.py), so that a
// prediction can be read beside a profiler's kernel list row by row.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <tuple>
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
const KernelNames* find_kernel_names(const std::vector<KernelNames>& table, std::string_view rule,
                                     std::string_view dtype, int launches);
// "a | b | c" as {"a", "b", "c"}, views into `families`.
std::vector<std::string_view> split_families(std::string_view families);

// find_kernel_names and split_families with each answer kept, for a pass that asks for every
// op: a graph repeats a few rules, dtypes and launch counts many times, and the table is a
// list to search. What it returns points into `table` and into the rule ids it is asked with,
// which must outlive it.
class KernelNamesLookup {
 public:
  struct Found {
    const KernelNames* names = nullptr;      // find_kernel_names' row; none where nothing like it was measured
    std::vector<std::string_view> families;  // the row's families, split; empty without a row
  };
  explicit KernelNamesLookup(const std::vector<KernelNames>& table) : table_(table) {}
  // `dtype` as dtype_name() returns it: the answers are keyed by its pointer, one per dtype.
  const Found& find(std::string_view rule, const char* dtype, int launches);

 private:
  const std::vector<KernelNames>& table_;
  std::map<std::tuple<std::string_view, const char*, int>, Found> found_;
};

}  // namespace kc
