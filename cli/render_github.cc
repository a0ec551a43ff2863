#include "cli/findings.h"
#include "cli/render.h"
#include "cli/table.h"

namespace kc {
namespace {

// GitHub's workflow-command escaping: the message and each property value.
std::string escape(const std::string& s, bool property) {
  std::string out;
  for (char c : s) {
    if (c == '%')
      out += "%25";
    else if (c == '\r')
      out += "%0D";
    else if (c == '\n')
      out += "%0A";
    else if (property && c == ':')
      out += "%3A";
    else if (property && c == ',')
      out += "%2C";
    else
      out += c;
  }
  return out;
}

}  // namespace

void render_github(std::ostream& os, const Graph& g, const Report& r, const RenderOptions& o) {
  const Totals& t = r.totals;
  // With --fusion inductor the fused total is Inductor's; the greedy plan's stands beside it.
  const std::string fused = r.fusion.variant == "inductor" ? std::to_string(t.pointwise_kernels) + " fused, " +
                                                                 std::to_string(t.fused_kernels) + " under Inductor"
                                                           : std::to_string(t.fused_kernels) + " fused";
  os << "::notice title=kernelcount::" << escape(g.info.path, false) << ": " << t.eager.kernels << " eager kernels ("
     << fused << "), " << format_bytes(t.eager_hbm_bytes) << " of HBM traffic, " << t.eager.host_syncs
     << " host syncs, " << t.unknown_ops << " unknown ops\n";
  for (const Finding& f : findings(g, r, o.budgets, o.baseline,
                                   o.all_findings ? FindingScope::kAll : FindingScope::kChanged, o.source_root)) {
    const FindingRule& rule = finding_rules()[f.rule];
    const std::string command = std::string(rule.level) == "note" ? "notice" : rule.level;
    os << "::" << command;
    std::string props;
    if (!f.file.empty()) props = "file=" + escape(f.file, true) + ",line=" + std::to_string(f.line);
    props += (props.empty() ? "" : ",") + std::string("title=") + escape(rule.id, true);
    os << ' ' << props << "::" << escape(f.message, false) << '\n';
  }
}

}  // namespace kc
