// --format dot: the op graph for Graphviz (`dot -Tsvg`). Fusion groups are clusters; each op
// is labelled with its launches and HBM bytes; ops that launch nothing are dotted.
#include <set>

#include "analyzer/describe.h"
#include "cli/render.h"
#include "cli/table.h"

namespace kc {
namespace {

// A DOT string literal body: quotes and backslashes escaped; "\n" stays a DOT line break.
std::string esc(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out;
}

std::string op_label(const Graph& g, const Report& r, int i) {
  const Op& op = g.ops[i];
  const Launch& l = r.launches[i];
  std::string s = std::to_string(i) + ": " + short_op(op) + "\\n";
  if (!l.known) {
    s += "? kernels (no rule)";
  } else {
    s += std::to_string(l.counts.kernels) + (l.counts.kernels == 1 ? " kernel" : " kernels");
    if (l.counts.memcpy) s += " + " + std::to_string(l.counts.memcpy) + " memcpy";
    if (l.counts.memset) s += " + " + std::to_string(l.counts.memset) + " memset";
    if (l.counts.host_syncs) s += " + sync";
  }
  if (r.traffic[i].transfers())
    s += "\\n" + std::to_string(r.traffic[i].transfers()) + " R+W, " + format_bytes(r.traffic[i].bytes());
  const std::string loc = format_loc(op.loc);
  if (!loc.empty()) s += "\\n" + esc(loc);
  return s;
}

}  // namespace

void render_dot(std::ostream& os, const Graph& g, const Report& r, const RenderOptions&) {
  os << "digraph kernelcount {\n"
     << "  label=\"" << esc(g.info.path) << " on " << esc(r.target->name) << ": " << r.totals.eager.kernels
     << " kernels eager, "
     << (r.fusion.variant == "inductor" ? std::to_string(r.totals.pointwise_kernels) + " fused, " +
                                              std::to_string(r.totals.fused_kernels) + " under Inductor"
                                        : std::to_string(r.totals.fused_kernels) + " fused")
     << "\";\n"
     << "  labelloc=t;\n  rankdir=TB;\n"
     << "  node [shape=box, style=rounded, fontname=\"Helvetica\", fontsize=10];\n"
     << "  edge [fontname=\"Helvetica\", fontsize=9, color=gray40];\n";
  // User inputs as ellipses; weights and buffers are left out to keep the picture readable.
  std::set<int> inputs(g.inputs.begin(), g.inputs.end());
  for (int v : g.inputs)
    if (v >= 0)
      os << "  v" << v << " [shape=ellipse, style=solid, label=\"" << esc(g.values[v].name) << "\\n"
         << esc(describe_value(g.values[v], Style::kShort)) << "\"];\n";
  auto node = [&](int i, const char* indent) {
    const bool free = r.launches[i].known && r.launches[i].counts.none();
    os << indent << "op" << i << " [label=\"" << op_label(g, r, i) << "\""
       << (free ? ", style=\"rounded,dotted\", fontcolor=gray40" : "") << (!r.launches[i].known ? ", color=red" : "")
       << "];\n";
  };
  std::vector<bool> drawn(g.ops.size(), false);
  for (size_t k = 0; k < r.fusion.groups.size(); ++k) {
    const FusionGroup& grp = r.fusion.groups[k];
    if (grp.ops.size() < 2) continue;
    os << "  subgraph cluster_F" << k << " {\n"
       << "    label=\"F" << k << ": " << grp.eager_kernels << " kernels -> " << grp.fused_kernels << ", "
       << grp.eager.transfers() << " -> " << grp.fused.transfers() << " R+W, saves "
       << format_bytes(grp.eager.bytes() - grp.fused.bytes()) << "\";\n"
       << "    style=\"rounded,dashed\";\n    color=blue;\n    fontcolor=blue;\n    fontname=\"Helvetica\";\n"
       << "    fontsize=10;\n";
    for (int i : grp.ops) {
      node(i, "    ");
      drawn[i] = true;
    }
    os << "  }\n";
  }
  for (size_t i = 0; i < g.ops.size(); ++i)
    if (!drawn[i]) node(static_cast<int>(i), "  ");
  for (size_t i = 0; i < g.ops.size(); ++i) {
    std::set<int> seen;
    for (int v : g.ops[i].tensor_inputs()) {
      if (!seen.insert(v).second) continue;
      const int p = g.values[v].producer;
      if (p >= 0)
        os << "  op" << p << " -> op" << i << ";\n";
      else if (inputs.count(v))
        os << "  v" << v << " -> op" << i << ";\n";
    }
  }
  os << "}\n";
}

}  // namespace kc
