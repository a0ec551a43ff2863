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

Entry entry_of(const RollupRow& row, int depth = 0) {
  return {row.key, row.ops, row.counts.kernels, row.unknown_ops, row.bytes, depth};
}

// Reads a rollup array of a JSON report; reports older than the key give none.
// The rows of one rollup list of a report; a row or field of the wrong type, or a negative
// count, is a damaged or edited report.
std::vector<Entry> entries(const nlohmann::json& j, const char* key, const char* name, const std::string& path) {
  std::vector<Entry> out;
  auto list = j.find(key);
  if (list == j.end()) return out;
  const std::string where = path + ": " + key;
  check(list->is_array(), where + " is not a list");
  for (const auto& row : *list) {
    check(row.is_object(), where + " has a row that is not an object");
    auto count = [&](const char* field) -> int64_t {
      auto it = row.find(field);
      if (it == row.end()) return 0;
      check(it->is_number_integer() && (it->is_number_unsigned() || it->get<int64_t>() >= 0) &&
                (!it->is_number_unsigned() || it->get<uint64_t>() <= static_cast<uint64_t>(INT64_MAX)),
            where + "." + field + " is not a count");
      return it->get<int64_t>();
    };
    auto label = row.find(name);
    check(label == row.end() || label->is_string(), where + "." + name + " is not a string");
    out.push_back({label == row.end() ? "" : label->get<std::string>(), count("ops"), count("eager_kernels"),
                   count("unknown_ops"), count("hbm_bytes"),
                   static_cast<int>(std::min<int64_t>(count("depth"), 1 << 20))});
  }
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
  s.version = str(j.value("kernelcount_version", nlohmann::json()));
  if (j.contains("target") && j["target"].is_object()) s.target = str(j["target"].value("name", nlohmann::json()));
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
      s.modules.push_back(
          {module == row.end() ? "" : module->get<std::string>(), get("eager_kernels"), get("hbm_bytes")});
    }
  }
  s.op_types = entries(j, "by_op_type", "op_type", path);
  s.module_tree = entries(j, "module_tree", "module", path);
  s.lines = entries(j, "by_line", "line", path);
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

// Rows present on either side that changed. With `keep_order` (the module tree) rows stay in
// the after side's order, then the removed ones, so the tree reads as a tree.
std::vector<EntryDelta> entry_deltas(const std::vector<Entry>& a, const std::vector<Entry>& b, bool keep_order) {
  std::map<std::string, EntryDelta> by_name;
  std::vector<std::string> order;
  for (const Entry& e : b) {
    by_name[e.name].after = e;
    order.push_back(e.name);
  }
  for (const Entry& e : a) {
    auto [it, fresh] = by_name.try_emplace(e.name);
    it->second.before = e;
    if (fresh) order.push_back(e.name);
  }
  std::vector<EntryDelta> out;
  for (const std::string& name : order) {
    EntryDelta d = by_name[name];
    d.before.name = d.after.name = name;
    if (d.before.ops == 0 && d.after.ops == 0) continue;
    if (d.before.ops == d.after.ops && d.before.kernels == d.after.kernels && d.before.unknown == d.after.unknown &&
        d.before.bytes == d.after.bytes)
      continue;
    const int64_t more = (d.after.kernels + d.after.unknown) - (d.before.kernels + d.before.unknown);
    d.status = d.before.ops == 0  ? "added"
               : d.after.ops == 0 ? "removed"
               : more > 0         ? "increased"
               : more < 0         ? "decreased"
                                  : "changed";
    if (d.after.ops == 0) d.after.depth = d.before.depth;
    out.push_back(d);
  }
  if (!keep_order)
    std::stable_sort(out.begin(), out.end(), [](const EntryDelta& x, const EntryDelta& y) {
      auto dk = [](const EntryDelta& d) {
        return std::llabs(d.after.kernels + d.after.unknown - d.before.kernels - d.before.unknown);
      };
      auto db = [](const EntryDelta& d) { return std::llabs(d.after.bytes - d.before.bytes); };
      return dk(x) != dk(y) ? dk(x) > dk(y) : db(x) > db(y);
    });
  return out;
}

}  // namespace

int64_t BaselineDiff::total(const std::string& name, bool after) const {
  for (const auto& d : totals)
    if (d.name == name) return after ? d.after : d.before;
  return 0;
}

Summary summarize(const Graph& g, const Report& r, const std::string& version) {
  Summary s;
  s.path = g.info.path;
  s.target = r.target->name;
  s.version = version;
  s.totals = totals_of(r.totals);
  for (const RollupRow& row : r.by_module) s.modules.push_back({row.key, row.counts.kernels, row.bytes});
  for (const RollupRow& row : r.by_op_type) s.op_types.push_back(entry_of(row));
  for (const ModuleNode& n : r.module_tree) s.module_tree.push_back(entry_of(n.total, n.depth));
  for (const RollupRow& row : r.by_line) s.lines.push_back(entry_of(row));
  return s;
}

bool is_report_path(const std::string& path) {
  return path.size() > 5 && path.compare(path.size() - 5, 5, ".json") == 0;
}

BaselineDiff diff(const Summary& before, const Summary& after) {
  BaselineDiff d;
  d.baseline_path = before.path;
  if (!before.target.empty() && before.target != after.target)
    d.warnings.push_back("the baseline was predicted for target " + before.target + ", this report for " +
                         after.target + ": differences may come from the targets, not the change");
  if (!before.version.empty() && before.version != after.version)
    d.warnings.push_back("the baseline was made by kernelcount " + before.version + ", this report by " +
                         after.version + ": differences may come from the rules, not the change");
  if (before.op_types.empty() && !after.op_types.empty())
    d.warnings.push_back(
        "the baseline report has no op types, module tree or lines (an older kernelcount): "
        "only totals and modules are compared");
  for (size_t i = 0; i < after.totals.size(); ++i)
    d.totals.push_back({after.totals[i].first, before.totals[i].second, after.totals[i].second});
  d.module_kernels = module_deltas(before, after, &Summary::Module::kernels);
  d.module_bytes = module_deltas(before, after, &Summary::Module::bytes);
  if (!before.op_types.empty()) {
    d.op_types = entry_deltas(before.op_types, after.op_types, false);
    d.module_tree = entry_deltas(before.module_tree, after.module_tree, true);
    d.lines = entry_deltas(before.lines, after.lines, false);
  }
  return d;
}

}  // namespace kc
