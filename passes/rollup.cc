#include "passes/rollup.h"

#include <algorithm>
#include <map>

namespace kc {

std::vector<RollupRow> rollup(const Graph& g, const Report& r, RollupKey key) {
  std::map<std::string, RollupRow> rows;
  for (size_t i = 0; i < g.ops.size(); ++i) {
    const Op& op = g.ops[i];
    std::string k = key == RollupKey::kLine ? (op.loc.file.empty() ? "" : op.loc.file + ":" + std::to_string(op.loc.line))
                                            : op.module;
    // The model's own forward() has an empty module path but a class.
    if (k.empty()) k = key == RollupKey::kModule && !op.module_type.empty() ? "(top level)" : "(none)";
    auto [it, fresh] = rows.try_emplace(k);
    RollupRow& row = it->second;
    if (fresh) {
      row.key = k;
      row.code = key == RollupKey::kLine ? op.loc.code : op.module_type;
      row.first_op = static_cast<int>(i);
    }
    const Launch& l = r.launches[i];
    ++row.ops;
    if (!l.known) ++row.unknown_ops;
    row.counts += l.counts;
    row.transfers += r.traffic[i].transfers();
    row.bytes = add_checked(row.bytes, r.traffic[i].bytes(), "HBM bytes of a rollup row");
  }
  std::vector<RollupRow> out;
  for (auto& [k, row] : rows) out.push_back(std::move(row));
  std::sort(out.begin(), out.end(), [](const RollupRow& a, const RollupRow& b) { return a.first_op < b.first_op; });
  return out;
}

}  // namespace kc
