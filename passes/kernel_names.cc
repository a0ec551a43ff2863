#include "passes/kernel_names.h"

namespace kc {

const KernelNames* find_kernel_names(const std::vector<KernelNames>& table, std::string_view rule,
                                     std::string_view dtype, int launches) {
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

const KernelNamesLookup::Found& KernelNamesLookup::find(std::string_view rule, const char* dtype, int launches) {
  auto [it, fresh] = found_.try_emplace({rule, dtype, launches});
  if (fresh) {
    Found& f = it->second;
    f.names = find_kernel_names(table_, rule, dtype ? dtype : "", launches);
    if (f.names) f.families = split_families(f.names->families);
  }
  return it->second;
}

}  // namespace kc
