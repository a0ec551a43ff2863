#include "cli/report_rows.h"

#include <cctype>
#include <cstdio>

#include "analyzer/describe.h"
#include "cli/table.h"

namespace kc {
namespace {

std::string values_short(const Graph& g, const std::vector<int>& ids) {
  std::string s;
  for (int v : ids) {
    if (v < 0) continue;
    if (!s.empty()) s += ", ";
    s += describe_value(g.values[v], Style::kShort);
  }
  return s;
}

std::string count(const Launch& l, int n) { return l.known ? std::to_string(n) : "?"; }

}  // namespace

std::vector<std::string> main_header(const std::string& by) {
  if (by == "op")
    return {">#", "source", "module", "op", "inputs -> outputs", ">kernels", ">memcpy", ">memset", ">sync",
            ">R+W", ">bytes", ">floor", ">group"};
  return {by == "line" ? "source line" : "module", ">ops", ">kernels", ">memcpy", ">memset", ">sync",
          ">unknown", ">R+W", ">bytes", by == "line" ? "code" : "class"};
}

std::vector<std::vector<std::string>> main_rows(const Graph& g, const Report& r, const std::string& by) {
  std::vector<std::vector<std::string>> rows;
  if (by == "op") {
    for (size_t i = 0; i < g.ops.size(); ++i) {
      const Op& op = g.ops[i];
      const Launch& l = r.launches[i];
      std::vector<int> outs;
      for (int v : op.outputs)
        if (v >= 0) outs.push_back(v);
      int grp = r.fusion.group_of[i];
      bool merged = grp >= 0 && r.fusion.groups[grp].ops.size() > 1;
      rows.push_back({std::to_string(i), format_loc(op.loc), op.module, short_op(op),
                      values_short(g, op.tensor_inputs()) + " -> " + values_short(g, outs), count(l, l.counts.kernels),
                      count(l, l.counts.memcpy), count(l, l.counts.memset), count(l, l.counts.host_syncs),
                      std::to_string(r.traffic[i].transfers()), format_bytes(r.traffic[i].bytes()),
                      format_seconds(r.time[i].floor_s()) + " " + static_cast<char>(std::toupper(r.time[i].bound()[0])),
                      merged ? "F" + std::to_string(grp) : ""});
    }
    return rows;
  }
  for (const RollupRow& row : by == "line" ? r.by_line : r.by_module)
    rows.push_back({row.key, std::to_string(row.ops), std::to_string(row.counts.kernels),
                    std::to_string(row.counts.memcpy), std::to_string(row.counts.memset),
                    std::to_string(row.counts.host_syncs), std::to_string(row.unknown_ops),
                    std::to_string(row.transfers), format_bytes(row.bytes), row.code});
  return rows;
}

std::vector<std::string> fusion_header() {
  return {"group", "ops", ">eager kernels", ">fused", ">eager R+W", ">fused R+W", ">bytes saved"};
}

std::vector<std::vector<std::string>> fusion_rows(const Graph& g, const FusionPlan& plan) {
  std::vector<std::vector<std::string>> rows;
  for (size_t k = 0; k < plan.groups.size(); ++k) {
    const FusionGroup& grp = plan.groups[k];
    if (grp.ops.size() < 2) continue;
    std::string members;
    for (int i : grp.ops) members += (members.empty() ? "" : " ") + std::to_string(i) + ":" + short_op(g.ops[i]);
    rows.push_back({"F" + std::to_string(k), members, std::to_string(grp.eager_kernels),
                    std::to_string(grp.fused_kernels), std::to_string(grp.eager.transfers()),
                    std::to_string(grp.fused.transfers()), format_bytes(grp.eager.bytes() - grp.fused.bytes())});
  }
  return rows;
}

namespace {
std::string signed_change(int64_t before, int64_t after, bool bytes) {
  int64_t d = after - before;
  std::string s = d > 0 ? "+" : d < 0 ? "-" : "";
  s += bytes ? format_bytes(d < 0 ? -d : d) : std::to_string(d < 0 ? -d : d);
  if (before != 0 && d != 0) {
    char pct[32];
    std::snprintf(pct, sizeof pct, " (%+.1f%%)", 100.0 * static_cast<double>(d) / static_cast<double>(before));
    s += pct;
  }
  return d == 0 ? "=" : s;
}
}  // namespace

std::vector<std::vector<std::string>> baseline_rows(const BaselineDiff& d) {
  std::vector<std::vector<std::string>> rows;
  for (const Delta& t : d.totals) {
    bool bytes = t.name.find("bytes") != std::string::npos;
    auto show = [&](int64_t v) { return bytes ? format_bytes(v) : std::to_string(v); };
    rows.push_back({t.name, show(t.before), show(t.after), signed_change(t.before, t.after, bytes)});
  }
  return rows;
}

std::vector<std::vector<std::string>> baseline_module_rows(const BaselineDiff& d, size_t limit) {
  std::vector<std::vector<std::string>> rows;
  for (const Delta& m : d.module_kernels) {
    if (rows.size() == limit) break;
    rows.push_back({m.name, std::to_string(m.before), std::to_string(m.after), signed_change(m.before, m.after, false)});
  }
  return rows;
}

std::vector<std::vector<std::string>> totals_rows(const Report& r) {
  const Totals& t = r.totals;
  return {
      {"kernels", std::to_string(t.eager.kernels), std::to_string(t.fused_kernels),
       std::to_string(t.fused_kernels_reduction)},
      {"HBM transfers", std::to_string(t.eager_hbm_transfers), std::to_string(t.fused_hbm_transfers), ""},
      {"HBM bytes", format_bytes(t.eager_hbm_bytes), format_bytes(t.fused_hbm_bytes),
       format_bytes(t.fused_hbm_bytes_reduction)},
      {"time floor", format_seconds(t.eager_time_floor_s), format_seconds(t.fused_time_floor_s), ""},
      {"memcpy", std::to_string(t.eager.memcpy), "", ""},
      {"memset", std::to_string(t.eager.memset), "", ""},
      {"host syncs", std::to_string(t.eager.host_syncs), "", ""},
      {"unknown ops", std::to_string(t.unknown_ops), "", ""},
  };
}

}  // namespace kc
