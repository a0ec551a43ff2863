#include "passes/rollup.h"

#include <algorithm>
#include <functional>
#include <map>
#include <string_view>
#include <unordered_map>

#include "passes/fusion_groups.h"

namespace kc {
namespace {

// The plans' kernels and bytes per op, each group's at its anchor.
struct Shares {
  PlanShare fused, pointwise;
  Shares(const Graph& g, const Report& r)
      : fused(share_by_anchor(r.fusion, r.launches, g.ops.size())),
        pointwise(share_by_anchor(r.pointwise, r.launches, g.ops.size())) {}
};

void add_op(RollupRow& row, const Report& r, const Shares& s, size_t i) {
  const Launch& l = r.launches[i];
  row.fused_kernels += s.fused.kernels[i];
  row.fused_bytes = add_checked(row.fused_bytes, s.fused.bytes[i], "fused HBM bytes of a rollup row");
  row.pointwise_kernels += s.pointwise.kernels[i];
  row.pointwise_bytes = add_checked(row.pointwise_bytes, s.pointwise.bytes[i], "fused HBM bytes of a rollup row");
  ++row.ops;
  if (!l.known) ++row.unknown_ops;
  row.counts += l.counts;
  row.transfers += r.traffic[i].transfers();
  row.bytes = add_checked(row.bytes, r.traffic[i].bytes(), "HBM bytes of a rollup row");
  row.flops = add_checked(row.flops, r.traffic[i].flops, "FLOPs of a rollup row");
  row.floor_s += r.time[i].floor_s();
}

std::string key_of(const Op& op, RollupKey key) {
  switch (key) {
    case RollupKey::kLine:
      return op.loc.file.empty() ? "" : op.loc.file.str() + ":" + std::to_string(op.loc.line);
    case RollupKey::kModule:
      return op.module;
    case RollupKey::kOpType:
      return op_type_name(op);
  }
  return "";
}

// Whether two ops land in the same row: what key_of and the row's first op read are equal.
bool same_key(const Op& a, const Op& b, RollupKey key) {
  switch (key) {
    case RollupKey::kLine:
      return a.loc.line == b.loc.line && a.loc.file == b.loc.file && !a.loc.file.empty();
    case RollupKey::kModule:
      return a.module == b.module && a.module_type == b.module_type;
    case RollupKey::kOpType:
      return a.name == b.name && a.overload == b.overload;
  }
  return false;
}

// What decides an op's row, as views into the graph: a row's key text is built once per
// distinct one, not once per op (a chain of ops on a thousand lines).
struct RowKey {
  std::string_view a, b;
  int line = 0;
  bool operator==(const RowKey& o) const { return line == o.line && same(a, o.a) && same(b, o.b); }
  // Views of one shared string (the ops of a file, of a module) are equal without a look at
  // their bytes.
  static bool same(std::string_view x, std::string_view y) {
    return (x.data() == y.data() && x.size() == y.size()) || x == y;
  }
};
struct RowKeyHash {
  size_t operator()(const RowKey& k) const {
    const std::hash<std::string_view> h;
    return h(k.a) ^ (h(k.b) * 31) ^ (static_cast<size_t>(k.line) * 0x9e3779b97f4a7c15ull);
  }
};

// Ops of equal RowKey have equal key_of (an op without a file has no line).
RowKey row_key(const Op& op, RollupKey key) {
  switch (key) {
    case RollupKey::kLine:
      return {op.loc.file.str(), {}, op.loc.file.empty() ? 0 : op.loc.line};
    case RollupKey::kModule:  // the model's own forward() and no module at all differ
      return {op.module.str(), {}, op.module.empty() && !op.module_type.empty()};
    case RollupKey::kOpType:
      return {op.name, op.overload, 0};
  }
  return {};
}

}  // namespace

std::string op_type_name(const Op& op) {
  std::string n = op.name.rfind("aten::", 0) == 0 ? op.name.substr(6) : op.name.str();
  return op.overload.empty() || op.overload == "default" ? n : n + "." + op.overload;
}

std::vector<RollupRow> rollup(const Graph& g, const Report& r, RollupKey key) {
  const Shares shares(g, r);
  std::unordered_map<std::string, RollupRow> rows;
  std::unordered_map<RowKey, RollupRow*, RowKeyHash> seen;  // rows' values never move
  const Op* prev = nullptr;
  RollupRow* prev_row = nullptr;
  for (size_t i = 0; i < g.ops.size(); ++i) {
    const Op& op = g.ops[i];
    // Neighbouring ops mostly share their line, module and type: the row is the one before.
    if (prev && same_key(*prev, op, key)) {
      add_op(*prev_row, r, shares, i);
      continue;
    }
    auto [known, fresh_key] = seen.try_emplace(row_key(op, key), nullptr);
    if (!fresh_key) {
      add_op(*known->second, r, shares, i);
      prev = &op;
      prev_row = known->second;
      continue;
    }
    std::string k = key_of(op, key);
    // The model's own forward() has an empty module path but a class.
    if (k.empty()) k = key == RollupKey::kModule && !op.module_type.empty() ? "(top level)" : "(none)";
    auto [it, fresh] = rows.try_emplace(k);
    RollupRow& row = it->second;
    if (fresh) {
      row.key = k;
      row.code = key == RollupKey::kLine ? op.loc.code : key == RollupKey::kModule ? op.module_type : "";
      row.first_op = static_cast<int>(i);
    }
    add_op(row, r, shares, i);
    known->second = &row;
    prev = &op;
    prev_row = &row;
  }
  std::vector<RollupRow> out;
  for (auto& [k, row] : rows) out.push_back(std::move(row));
  std::sort(out.begin(), out.end(), [](const RollupRow& a, const RollupRow& b) { return a.first_op < b.first_op; });
  return out;
}

std::vector<ModuleNode> module_tree(const Graph& g, const Report& r) {
  const Shares shares(g, r);
  // Nodes by path; children by first appearance. Path prefixes are the ancestors.
  std::map<std::string, int> index{{"", 0}};
  std::vector<ModuleNode> nodes(1);
  nodes[0].depth = 0;
  nodes[0].parent = -1;
  std::vector<std::vector<int>> children(1);
  for (size_t i = 0; i < g.ops.size(); ++i) {
    const Op& op = g.ops[i];
    const std::string& module = op.module;
    int at = 0;
    std::vector<int> chain{0};
    size_t start = 0;
    while (!module.empty() && start <= module.size()) {
      size_t dot = module.find('.', start);
      std::string path = module.substr(0, dot);
      auto [it, fresh] = index.try_emplace(path, static_cast<int>(nodes.size()));
      if (fresh) {
        ModuleNode n;
        n.total.key = path;
        n.total.first_op = static_cast<int>(i);
        n.depth = nodes[at].depth + 1;
        n.parent = at;
        nodes.push_back(n);
        children.emplace_back();
        children[at].push_back(it->second);
      }
      at = it->second;
      chain.push_back(at);
      if (dot == std::string::npos) break;
      start = dot + 1;
    }
    if (nodes[at].total.code.empty()) nodes[at].total.code = op.module_type;
    for (int n : chain) add_op(nodes[n].total, r, shares, i);
  }
  // Depth-first, children in order of their first op.
  std::vector<ModuleNode> out;
  std::function<void(int, int)> visit = [&](int n, int parent) {
    const int me = static_cast<int>(out.size());
    out.push_back(nodes[n]);
    out.back().parent = parent;
    for (int c : children[n]) visit(c, me);
  };
  visit(0, -1);
  return out;
}

}  // namespace kc
