#include "cli/baseline.h"

#include <algorithm>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

#include "analyzer/error.h"

namespace kc {
namespace {

std::vector<std::pair<std::string, int64_t>> totals_of(const Totals& t) {
  std::vector<std::pair<std::string, int64_t>> out;
  for (const auto& [key, value] : t.counts()) out.emplace_back(key, value);
  return out;
}

}  // namespace

Summary read_report_summary(const std::string& path) {
  std::ifstream f(path);
  check(f.good(), path + ": cannot open file");
  std::stringstream text;
  text << f.rdbuf();
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(text.str());
  } catch (const nlohmann::json::exception& e) {
    throw Error(path + ": not a kernelcount JSON report (" + std::string(e.what()) + ")");
  }
  check(j.is_object() && j.value("schema", "") == "kernelcount.report/1",
        path + ": not a kernelcount JSON report (no \"schema\": \"kernelcount.report/1\")");
  Summary s;
  s.path = path;
  const auto& totals = j.at("totals");
  for (const auto& entry : totals_of(Totals{})) {
    const std::string& name = entry.first;
    check(totals.contains(name) && totals[name].is_number_integer(), path + ": totals." + name + " is missing");
    s.totals.emplace_back(name, totals[name].get<int64_t>());
  }
  for (const auto& row : j.value("by_module", nlohmann::json::array()))
    s.modules.push_back({row.value("module", ""), row.value("eager_kernels", int64_t{0}), row.value("hbm_bytes", int64_t{0})});
  return s;
}

namespace {

// Modules present on either side whose `field` changed, largest absolute change first.
std::vector<Delta> module_deltas(const Summary& a, const Summary& b, int64_t Summary::Module::*field) {
  std::map<std::string, Delta> by_name;
  for (const auto& m : a.modules) by_name[m.name] = {m.name, m.*field, 0};
  for (const auto& m : b.modules) {
    auto& d = by_name[m.name];
    d.name = m.name;
    d.after = m.*field;
  }
  std::vector<Delta> out;
  for (auto& [name, d] : by_name)
    if (d.before != d.after) out.push_back(d);
  std::stable_sort(out.begin(), out.end(), [](const Delta& x, const Delta& y) {
    return std::llabs(x.after - x.before) > std::llabs(y.after - y.before);
  });
  return out;
}

}  // namespace

int64_t BaselineDiff::total(const std::string& name, bool after) const {
  for (const auto& d : totals)
    if (d.name == name) return after ? d.after : d.before;
  return 0;
}

Summary summarize(const Graph& g, const Report& r) {
  Summary s;
  s.path = g.info.path;
  s.totals = totals_of(r.totals);
  for (const RollupRow& row : r.by_module) s.modules.push_back({row.key, row.counts.kernels, row.bytes});
  return s;
}

bool is_report_path(const std::string& path) {
  return path.size() > 5 && path.compare(path.size() - 5, 5, ".json") == 0;
}

BaselineDiff diff(const Summary& before, const Summary& after) {
  BaselineDiff d;
  d.baseline_path = before.path;
  for (size_t i = 0; i < after.totals.size(); ++i)
    d.totals.push_back({after.totals[i].first, before.totals[i].second, after.totals[i].second});
  d.module_kernels = module_deltas(before, after, &Summary::Module::kernels);
  d.module_bytes = module_deltas(before, after, &Summary::Module::bytes);
  return d;
}

}  // namespace kc
