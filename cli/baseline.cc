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

Entry entry_of(const RollupRow& row, int depth = 0) {
  return {row.key, row.ops, row.counts.kernels, row.unknown_ops, row.bytes, depth};
}

// Reads a rollup array of a JSON report; reports older than the key give none.
std::vector<Entry> entries(const nlohmann::json& j, const char* key, const char* name) {
  std::vector<Entry> out;
  for (const auto& row : j.value(key, nlohmann::json::array()))
    out.push_back({row.value(name, ""), row.value("ops", int64_t{0}), row.value("eager_kernels", int64_t{0}),
                   row.value("unknown_ops", int64_t{0}), row.value("hbm_bytes", int64_t{0}), row.value("depth", 0)});
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
  s.version = j.value("kernelcount_version", "");
  if (j.contains("target") && j["target"].is_object()) s.target = j["target"].value("name", "");
  const auto& totals = j.at("totals");
  for (const auto& entry : totals_of(Totals{})) {
    const std::string& name = entry.first;
    check(totals.contains(name) && totals[name].is_number_integer(), path + ": totals." + name + " is missing");
    s.totals.emplace_back(name, totals[name].get<int64_t>());
  }
  for (const auto& row : j.value("by_module", nlohmann::json::array()))
    s.modules.push_back(
        {row.value("module", ""), row.value("eager_kernels", int64_t{0}), row.value("hbm_bytes", int64_t{0})});
  s.op_types = entries(j, "by_op_type", "op_type");
  s.module_tree = entries(j, "module_tree", "module");
  s.lines = entries(j, "by_line", "line");
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
