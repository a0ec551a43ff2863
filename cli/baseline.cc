#include "cli/baseline.h"

#include <algorithm>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

#include "analyzer/error.h"
#include "analyzer/json_limits.h"
#include "analyzer/load.h"

namespace kc {
namespace {

std::vector<std::pair<std::string, int64_t>> totals_of(const Totals& t) {
  std::vector<std::pair<std::string, int64_t>> out;
  for (const auto& [key, value] : t.counts()) out.emplace_back(key, value);
  return out;
}

}  // namespace

Summary read_report_summary(const std::string& path) {
  check_regular_file(path, kMaxReportJsonBytes);
  std::ifstream f(path, std::ios::binary);
  check(f.good(), path + ": cannot open file");
  std::stringstream text;
  text << f.rdbuf();
  const nlohmann::json j = parse_json_limited(text.str(), path);
  const auto str = [](const nlohmann::json& v) { return v.is_string() ? v.get<std::string>() : std::string(); };
  check(j.is_object() && str(j.value("schema", nlohmann::json())) == "kernelcount.report/1",
        path + ": not a kernelcount JSON report (no \"schema\": \"kernelcount.report/1\")");
  Summary s;
  s.path = path;
  auto totals = j.find("totals");
  check(totals != j.end() && totals->is_object(), path + ": totals is missing");
  // Counts are never negative and fit int64: anything else is a damaged or edited report.
  auto count = [&](const nlohmann::json& v, const std::string& what) {
    check(v.is_number_integer(), path + ": " + what + " is missing or not an integer");
    check(v.is_number_unsigned() || v.get<int64_t>() >= 0, path + ": " + what + " is negative");
    check(!v.is_number_unsigned() || v.get<uint64_t>() <= static_cast<uint64_t>(INT64_MAX),
          path + ": " + what + " is out of range");
    return v.get<int64_t>();
  };
  for (const auto& entry : totals_of(Totals{})) {
    const std::string& name = entry.first;
    auto it = totals->find(name);
    check(it != totals->end(), path + ": totals." + name + " is missing");
    s.totals.emplace_back(name, count(*it, "totals." + name));
  }
  auto modules = j.find("by_module");
  if (modules != j.end()) {
    check(modules->is_array(), path + ": by_module is not a list");
    for (const auto& row : *modules) {
      check(row.is_object(), path + ": a by_module row is not an object");
      auto get = [&](const char* key) {
        auto it = row.find(key);
        return it == row.end() ? int64_t{0} : count(*it, std::string("by_module.") + key);
      };
      auto module = row.find("module");
      check(module == row.end() || module->is_string(), path + ": a by_module row's module is not a string");
      s.modules.push_back({module == row.end() ? "" : module->get<std::string>(), get("eager_kernels"), get("hbm_bytes")});
    }
  }
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
