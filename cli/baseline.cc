#include "cli/baseline.h"

#include <algorithm>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

#include "analyzer/error.h"
#include "analyzer/json_limits.h"
#include "analyzer/load.h"
#include "passes/rollup.h"

namespace kc {
namespace {

// "aten::add.Tensor" -> "add.Tensor", "aten::relu.default" -> "relu": op_type_name's form.
std::string op_type_of(const std::string& op) {
  std::string n = op.rfind("aten::", 0) == 0 ? op.substr(6) : op;
  if (n.size() > 8 && n.compare(n.size() - 8, 8, ".default") == 0) n.resize(n.size() - 8);
  return n;
}

std::vector<std::pair<std::string, int64_t>> totals_of(const Totals& t) {
  std::vector<std::pair<std::string, int64_t>> out;
  for (const auto& [key, value] : t.counts()) out.emplace_back(key, value);
  return out;
}

Entry entry_of(const RollupRow& row, int depth = 0) {
  return {row.key, row.ops, row.counts.kernels, row.unknown_ops, row.bytes, depth, "", {}};
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
    out.push_back({label == row.end() ? "" : label->get<std::string>(),
                   count("ops"),
                   count("eager_kernels"),
                   count("unknown_ops"),
                   count("hbm_bytes"),
                   static_cast<int>(std::min<int64_t>(count("depth"), 1 << 20)),
                   "",
                   {}});
    auto code = row.find("code");
    if (code != row.end() && code->is_string()) out.back().code = code->get<std::string>();
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
  if (j.contains("model") && j["model"].is_object()) s.format = str(j["model"].value("format", nlohmann::json()));
  if (j.contains("fusion") && j["fusion"].is_array() && !j["fusion"].empty() && j["fusion"][0].is_object())
    s.fusion = str(j["fusion"][0].value("variant", nlohmann::json()));
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
  // Each line's ops by type, from the report's ops (their source and op name).
  std::map<std::string, std::map<std::string, int64_t>> line_ops;
  auto ops = j.find("ops");
  if (ops != j.end() && ops->is_array())
    for (const auto& op : *ops) {
      if (!op.is_object()) continue;
      const std::string name = str(op.value("op", nlohmann::json()));
      const auto src = op.find("source");
      std::string key = "(none)";
      if (src != op.end() && src->is_object()) {
        const std::string file = str(src->value("file", nlohmann::json()));
        const auto line = src->find("line");
        if (!file.empty() && line != src->end() && line->is_number_integer())
          key = file + ":" + std::to_string(line->get<int64_t>());
      }
      ++line_ops[key][op_type_of(name)];
    }
  for (Entry& e : s.lines) {
    auto it = line_ops.find(e.name);
    if (it != line_ops.end()) e.op_types = it->second;
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

// The delta of one row on both sides; false when nothing of it changed.
bool make_delta(EntryDelta& d) {
  if (d.before.ops == 0 && d.after.ops == 0) return false;
  if (d.before.ops == d.after.ops && d.before.kernels == d.after.kernels && d.before.unknown == d.after.unknown &&
      d.before.bytes == d.after.bytes && d.before.op_types == d.after.op_types)
    return false;
  const int64_t more = (d.after.kernels + d.after.unknown) - (d.before.kernels + d.before.unknown);
  d.status = d.before.ops == 0  ? "added"
             : d.after.ops == 0 ? "removed"
             : more > 0         ? "increased"
             : more < 0         ? "decreased"
                                : "changed";
  if (d.after.ops == 0) d.after.depth = d.before.depth;
  return true;
}

// Largest kernel change first (each unknown op counted as one), then bytes.
void sort_by_change(std::vector<EntryDelta>& v) {
  std::stable_sort(v.begin(), v.end(), [](const EntryDelta& x, const EntryDelta& y) {
    auto dk = [](const EntryDelta& d) {
      return std::llabs(d.after.kernels + d.after.unknown - d.before.kernels - d.before.unknown);
    };
    auto db = [](const EntryDelta& d) { return std::llabs(d.after.bytes - d.before.bytes); };
    return dk(x) != dk(y) ? dk(x) > dk(y) : db(x) > db(y);
  });
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
    if (make_delta(d)) out.push_back(d);
  }
  if (!keep_order) sort_by_change(out);
  return out;
}

// "dir/model.py:42" -> ("dir/model.py", 42); a key without a line number -> (key, -1).
std::pair<std::string, long> split_line_key(const std::string& key) {
  const size_t colon = key.rfind(':');
  if (colon == std::string::npos || colon + 1 == key.size() || key.size() - colon - 1 > 9 ||
      key.find_first_not_of("0123456789", colon + 1) != std::string::npos)
    return {key, -1};
  return {key.substr(0, colon), std::stol(key.substr(colon + 1))};
}

// Source lines on both sides, paired file by file as `diff` pairs them: the longest common
// sequence of equal lines (same text and ops) in line order, then, between two such anchors,
// the lines left on each side in order (a line edited in place), then the rest as added or
// removed. A line that moves with the code around it is paired with itself.
std::vector<EntryDelta> line_deltas(const std::vector<Entry>& a, const std::vector<Entry>& b) {
  std::map<std::string, std::pair<std::vector<const Entry*>, std::vector<const Entry*>>> files;
  for (const Entry& e : a) files[split_line_key(e.name).first].first.push_back(&e);
  for (const Entry& e : b) files[split_line_key(e.name).first].second.push_back(&e);
  std::vector<EntryDelta> out;
  auto add = [&](const Entry* x, const Entry* y) {
    EntryDelta d;
    if (x) d.before = *x;
    if (y) d.after = *y;
    if (!x) d.before.name = "";
    if (!y) d.after.name = "";
    if (make_delta(d)) out.push_back(d);
  };
  for (auto& [file, sides] : files) {
    auto& [xs, ys] = sides;
    auto by_line = [](const Entry* p, const Entry* q) {
      return split_line_key(p->name).second < split_line_key(q->name).second;
    };
    std::stable_sort(xs.begin(), xs.end(), by_line);
    std::stable_sort(ys.begin(), ys.end(), by_line);
    // What a line is matched by, as a small number: its text and ops; lines without a number
    // ("(none)") or without text, their name alone.
    std::map<std::string, int> ids;
    auto id_of = [&](const Entry* e) {
      std::string key;
      if (split_line_key(e->name).second < 0 || e->code.empty()) {
        key = '\x01' + e->name;
      } else {
        key = e->code + '\x02';
        for (const auto& [type, count] : e->op_types) key += type + '\x03' + std::to_string(count) + '\x04';
      }
      return ids.emplace(key, static_cast<int>(ids.size())).first->second;
    };
    std::vector<int> xi, yi;
    for (const Entry* p : xs) xi.push_back(id_of(p));
    for (const Entry* q : ys) yi.push_back(id_of(q));
    const size_t n = xs.size(), m = ys.size();
    // Files hold a few hundred lines with ops at most; past that, pair by name.
    if (n * m > 4000000) {
      std::vector<Entry> xa, yb;
      for (const Entry* p : xs) xa.push_back(*p);
      for (const Entry* q : ys) yb.push_back(*q);
      for (EntryDelta& d : entry_deltas(xa, yb, true)) {
        if (d.before.ops == 0) d.before.name = "";
        if (d.after.ops == 0) d.after.name = "";
        out.push_back(d);
      }
      continue;
    }
    std::vector<std::vector<uint32_t>> lcs(n + 1, std::vector<uint32_t>(m + 1, 0));
    for (size_t i = n; i-- > 0;)
      for (size_t j = m; j-- > 0;)
        lcs[i][j] = xi[i] == yi[j] ? lcs[i + 1][j + 1] + 1 : std::max(lcs[i + 1][j], lcs[i][j + 1]);
    size_t i = 0, j = 0;
    std::vector<const Entry*> gone, fresh;
    auto flush = [&] {
      size_t k = 0;
      for (; k < gone.size() && k < fresh.size(); ++k) add(gone[k], fresh[k]);
      for (size_t r = k; r < gone.size(); ++r) add(gone[r], nullptr);
      for (size_t r = k; r < fresh.size(); ++r) add(nullptr, fresh[r]);
      gone.clear();
      fresh.clear();
    };
    while (i < n || j < m) {
      if (i < n && j < m && xi[i] == yi[j]) {
        flush();
        add(xs[i++], ys[j++]);
      } else if (j < m && (i == n || lcs[i][j + 1] >= lcs[i + 1][j])) {
        fresh.push_back(ys[j++]);
      } else {
        gone.push_back(xs[i++]);
      }
    }
    flush();
  }
  sort_by_change(out);
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
  s.format = g.info.format;
  s.fusion = r.fusion.variant;
  s.totals = totals_of(r.totals);
  for (const RollupRow& row : r.by_module) s.modules.push_back({row.key, row.counts.kernels, row.bytes});
  for (const RollupRow& row : r.by_op_type) s.op_types.push_back(entry_of(row));
  for (const ModuleNode& n : r.module_tree) s.module_tree.push_back(entry_of(n.total, n.depth));
  std::map<std::string, std::map<std::string, int64_t>> line_ops;
  for (const Op& op : g.ops)
    ++line_ops[op.loc.file.empty() ? "(none)" : op.loc.file.str() + ":" + std::to_string(op.loc.line)]
              [op_type_name(op)];
  for (const RollupRow& row : r.by_line) {
    s.lines.push_back(entry_of(row));
    s.lines.back().code = row.code;
    s.lines.back().op_types = line_ops[row.key];
  }
  return s;
}

std::vector<const EntryDelta*> BaselineDiff::changed_lines() const {
  std::vector<const EntryDelta*> out;
  for (const EntryDelta& d : lines)
    if (!d.after.name.empty() && d.after.ops > 0) out.push_back(&d);
  return out;
}

std::string total_label(const std::string& key, const std::string& fusion) {
  // With --fusion inductor the fused totals are the compiled program's.
  if (fusion == "inductor" && key == "fused_kernels") return "kernels (Inductor)";
  if (fusion == "inductor" && key == "fused_hbm_transfers") return "HBM transfers (Inductor)";
  if (fusion == "inductor" && key == "fused_hbm_bytes") return "HBM bytes (Inductor)";
  static const std::pair<const char*, const char*> kLabels[] = {
      {"ops", "ops"},
      {"eager_kernels", "kernels (eager)"},
      {"fused_kernels", "kernels (fused)"},
      {"fused_kernels_reduction", "kernels (fused+reductions)"},
      {"memcpy", "memcpy"},
      {"memset", "memset"},
      {"host_syncs", "host syncs"},
      {"eager_hbm_transfers", "HBM transfers (eager)"},
      {"fused_hbm_transfers", "HBM transfers (fused)"},
      {"eager_hbm_bytes", "HBM bytes (eager)"},
      {"fused_hbm_bytes", "HBM bytes (fused)"},
      {"fused_hbm_bytes_reduction", "HBM bytes (fused+reductions)"},
      {"flops", "FLOPs"},
      {"unknown_ops", "ops without a launch rule"},
      {"eager_dram_read_bytes", "expected DRAM bytes read (eager)"},
      {"eager_dram_write_bytes", "expected DRAM bytes written (eager)"}};
  for (const auto& [k, label] : kLabels)
    if (key == k) return label;
  return key;
}

bool is_report_path(const std::string& path) {
  return path.size() > 5 && path.compare(path.size() - 5, 5, ".json") == 0;
}

namespace {
// What a model format's capture is, in a sentence.
std::string format_name(const std::string& format) {
  if (format == "pt2") return "torch.export program (.pt2)";
  if (format == "torchscript") return "TorchScript module (.pt)";
  return format + " model";
}
}  // namespace

BaselineDiff diff(const Summary& before, const Summary& after) {
  BaselineDiff d;
  d.baseline_path = before.path;
  d.fusion = after.fusion;
  // The fused totals are one plan's: the greedy pointwise plan's, or with --fusion inductor the
  // compiled program's. Two plans' totals differ without any change to the model.
  const auto plan = [](const std::string& f) {
    return f == "inductor" ? std::string("Inductor's (--fusion inductor)") : std::string("the greedy pointwise plan's");
  };
  if (!before.fusion.empty() && !after.fusion.empty() && (before.fusion == "inductor") != (after.fusion == "inductor"))
    d.warnings.push_back("the baseline's fused totals are " + plan(before.fusion) + ", this report's " +
                         plan(after.fusion) + ": the fused rows compare two plans, not two models");
  if (!before.target.empty() && before.target != after.target)
    d.warnings.push_back("the baseline was predicted for target " + before.target + ", this report for " +
                         after.target + ": differences may come from the targets, not the change");
  if (!before.version.empty() && before.version != after.version)
    d.warnings.push_back("the baseline was made by kernelcount " + before.version + ", this report by " +
                         after.version + ": differences may come from the rules, not the change");
  // A trace and an export of one module are two programs: a trace keeps the ops its run called
  // (and their host-side arithmetic), an export the graph torch.export decomposed and specialized.
  if (!before.format.empty() && !after.format.empty() && before.format != after.format)
    d.warnings.push_back("the baseline is a " + format_name(before.format) + " and this model a " +
                         format_name(after.format) +
                         ": two captures of one module are different programs, so their counts differ where their "
                         "ops do (see the op types that changed), not because of a change to the model");
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
    d.lines = line_deltas(before.lines, after.lines);
  }
  return d;
}

}  // namespace kc
