#include <nlohmann/json.hpp>

#include "cli/findings.h"
#include "cli/render.h"

namespace kc {
namespace {

using json = nlohmann::ordered_json;

// Relative paths stay relative (to the repository, as code scanning wants); absolute ones
// become file:// URIs.
std::string uri_of(const std::string& file) {
  std::string out = file.empty() || file[0] != '/' ? "" : "file://";
  for (char c : file) {
    if (c == ' ')
      out += "%20";
    else if (c == '%')
      out += "%25";
    else
      out += c;
  }
  return out;
}

}  // namespace

void render_sarif(std::ostream& os, const Graph& g, const Report& r, const RenderOptions& o) {
  json rules = json::array();
  for (size_t k = 0; k < finding_rule_count(r); ++k) {
    const FindingRule& rule = finding_rules()[k];
    rules.push_back({{"id", rule.id},
                     {"shortDescription", {{"text", rule.text}}},
                     {"defaultConfiguration", {{"level", rule.level}}}});
  }
  json results = json::array();
  for (const Finding& f : findings(g, r, o.budgets, o.baseline,
                                   o.all_findings ? FindingScope::kAll : FindingScope::kChanged, o.source_root)) {
    const FindingRule& rule = finding_rules()[f.rule];
    // Code scanning needs a location: a finding without a source line goes on the model file.
    const std::string file = f.file.empty() ? g.info.path : f.file;
    json region = {{"startLine", f.line > 0 ? f.line : 1}};
    results.push_back(
        {{"ruleId", rule.id},
         {"ruleIndex", f.rule},
         {"level", rule.level},
         {"message", {{"text", f.message}}},
         {"locations",
          json::array({{{"physicalLocation", {{"artifactLocation", {{"uri", uri_of(file)}}}, {"region", region}}}}})}});
  }
  json run = {{"tool", {{"driver", {{"name", "kernelcount"}, {"version", o.version}, {"rules", rules}}}}},
              {"properties",
               {{"model", g.info.path},
                {"target", r.target->name},
                {"eager_kernels", r.totals.eager.kernels},
                {"eager_hbm_bytes", r.totals.eager_hbm_bytes}}},
              {"results", results}};
  json log = {
      {"$schema", "https://json.schemastore.org/sarif-2.1.0.json"}, {"version", "2.1.0"}, {"runs", json::array({run})}};
  os << log.dump(1, ' ', false, nlohmann::json::error_handler_t::replace) << '\n';
}

}  // namespace kc
