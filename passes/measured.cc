#include "passes/measured.h"

#include "passes/target.h"

namespace kc {

bool measured_only_in(const MeasuredLaunch& m, const std::vector<std::string>& exclude) {
  std::string list = m.models;
  size_t start = 0;
  while (start <= list.size()) {
    size_t end = list.find(',', start);
    std::string model = list.substr(start, end == std::string::npos ? std::string::npos : end - start);
    bool excluded = false;
    for (const auto& e : exclude) excluded |= model.rfind(e, 0) == 0;
    if (!excluded) return false;
    if (end == std::string::npos) break;
    start = end + 1;
  }
  return true;
}

void Target::index_measured() {
  measured_index_.clear();
  for (size_t i = 0; i < measured.size(); ++i) measured_index_.emplace(measured[i].key, i);
}

const MeasuredLaunch* Target::find_measured(const std::string& key, const std::vector<std::string>& exclude) const {
  auto it = measured_index_.find(key);
  if (it == measured_index_.end()) return nullptr;
  const MeasuredLaunch& m = measured[it->second];
  return !exclude.empty() && measured_only_in(m, exclude) ? nullptr : &m;
}

}  // namespace kc
