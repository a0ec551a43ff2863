#include "passes/kernel_names.h"

namespace kc {

const KernelNames* find_kernel_names(const std::vector<KernelNames>& table, const std::string& rule,
                                     const std::string& dtype, int launches) {
  const KernelNames* best = nullptr;
  for (const KernelNames& k : table) {
    if (rule != k.rule || launches != k.launches) continue;
    if (dtype == k.dtype) return &k;
    if (!best || k.of > best->of) best = &k;
  }
  return best;
}

std::vector<std::string_view> split_families(std::string_view families) {
  std::vector<std::string_view> out;
  size_t start = 0;
  while (start <= families.size()) {
    size_t end = families.find(" | ", start);
    out.push_back(families.substr(start, end == std::string::npos ? std::string::npos : end - start));
    if (end == std::string::npos) break;
    start = end + 3;
  }
  return out;
}

}  // namespace kc
