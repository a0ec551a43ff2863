#include "validate/render.h"

#include <algorithm>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <sstream>

#include "analyzer/describe.h"

namespace kc::validate {
namespace {

using json = nlohmann::ordered_json;

constexpr size_t kJsonNameLen = 200;
constexpr size_t kTextNameLen = 60;

std::string source(const Op& op) {
  if (op.loc.file.empty()) return "";
  const std::string& path = op.loc.file;
  std::string file = path.substr(path.find_last_of('/') + 1);
  return file + ":" + std::to_string(op.loc.line);
}

json work_json(const MeasuredWork& w) {
  json names = json::array();
  for (const auto& n : w.kernel_names) names.push_back(short_kernel_name(n, kJsonNameLen));
  return {{"kernels", w.counts.kernels},
          {"memcpy", w.counts.memcpy},
          {"memset", w.counts.memset},
          {"kernel_names", names},
          {"memcpy_kinds", w.memcpy_kinds}};
}

json counts_json(const Counts& c) {
  return {{"kernels", c.kernels}, {"memcpy", c.memcpy}, {"memset", c.memset}};
}

json error_json(const std::optional<double>& e) {
  return e ? json(*e) : json(nullptr);
}

std::string counts_text(const Counts& c) {
  return std::to_string(c.kernels) + "/" + std::to_string(c.memcpy) + "/" + std::to_string(c.memset);
}

// "vectorized_elementwise_kernel<...>; 2x gemv2T_kernel_val<...>": repeats folded, in order.
std::string kernels_text(const std::vector<std::string>& names, size_t max_shown) {
  std::vector<std::pair<std::string, int>> runs;
  for (const auto& n : names) {
    std::string s = short_kernel_name(n, kTextNameLen);
    if (!runs.empty() && runs.back().first == s)
      ++runs.back().second;
    else
      runs.emplace_back(s, 1);
  }
  std::string out;
  for (size_t i = 0; i < runs.size() && i < max_shown; ++i)
    out += (i ? "; " : "") + (runs[i].second > 1 ? std::to_string(runs[i].second) + "x " : "") + runs[i].first;
  if (runs.size() > max_shown) out += "; (+" + std::to_string(runs.size() - max_shown) + " more)";
  return out;
}

std::string percent(const std::optional<double>& e) {
  if (!e) return "n/a";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%+.1f%%", *e * 100);
  return buf;
}

std::string pad(std::string s, size_t width) {
  if (s.size() < width) s.append(width - s.size(), ' ');
  return s;
}

}  // namespace

std::string render_json(const Validation& v) {
  const Graph& g = v.graph;
  json ops = json::array();
  for (size_t i = 0; i < g.ops.size(); ++i) {
    const Op& op = g.ops[i];
    const Launch& p = v.report.launches[i];
    json inputs = json::array(), outputs = json::array();
    for (const Arg& a : op.args) inputs.push_back(describe_arg(g, a, Style::kReadable));
    for (int o : op.outputs)
      outputs.push_back(o < 0 ? std::string("-") : describe_value(g.values[o], Style::kReadable));
    json predicted = {{"known", p.known}, {"rule", p.rule}};
    if (p.known) {
      predicted["kernels"] = p.counts.kernels;
      predicted["memcpy"] = p.counts.memcpy;
      predicted["memset"] = p.counts.memset;
      // A count the values decide (a solver's sweeps) can differ between runs of one graph: the
      // device checks set such ops apart.
      const LaunchRule* rule = v.report.target->find_rule(p.rule.str());
      if (rule && !rule->data_dependent.empty()) predicted["data_dependent"] = rule->data_dependent;
    }
    ops.push_back({{"index", i},
                   {"op", op.full_name()},
                   {"module", op.module.str()},
                   {"source", source(op)},
                   {"code", op.loc.code},
                   {"args", inputs},
                   {"outputs", outputs},
                   {"predicted", predicted},
                   {"measured", work_json(v.measured.ops[i])},
                   {"match", static_cast<bool>(v.comparison.match[i])}});
  }
  const Summary& s = v.comparison.summary;
  const Measurement& m = v.measured;
  json unattributed = work_json(m.unattributed);
  unattributed["runtime_ops"] = m.unmatched_runtime_ops;
  json out = {
      {"model",
       {{"path", g.info.path},
        {"format", g.info.format},
        {"producer", g.info.producer_version},
        {"notes", g.info.notes}}},
      {"target",
       {{"name", v.report.target->name},
        {"torch_version", v.report.target->torch_version},
        {"gpu", v.report.target->gpu},
        {"arch", v.report.target->arch}}},
      {"run",
       {{"device", m.device},
        {"libtorch", m.libtorch},
        {"method", m.method},
        {"warmup", m.warmup},
        {"real_weights", m.real_weights},
        {"notes", m.notes}}},
      {"ops", ops},
      {"unattributed", unattributed},
      {"summary",
       {{"ops", s.ops},
        {"matched", s.matched},
        {"match_rate", s.match_rate},
        {"unknown_predictions", s.unknown_predictions},
        {"predicted", counts_json(s.predicted)},
        {"measured", counts_json(s.measured)},
        {"relative_error",
         {{"kernels", error_json(s.kernels_error)},
          {"memcpy", error_json(s.memcpy_error)},
          {"memset", error_json(s.memset_error)}}}}},
      {"dropped_records", m.dropped_records},
  };
  return out.dump(1) + "\n";
}

std::string render_text(const Validation& v) {
  const Graph& g = v.graph;
  const Measurement& m = v.measured;
  const Summary& s = v.comparison.summary;
  std::ostringstream o;
  o << "model: " << g.info.path << " (" << g.info.format << ", " << g.ops.size() << " ops)\n";
  o << "target: " << v.report.target->name << "; measured on " << m.device << ", libtorch " << m.libtorch << ", "
    << m.warmup << " warm-up run(s), " << (m.real_weights ? "stored" : "random") << " weights\n";
  for (const auto& n : m.notes) o << "note: " << n << "\n";
  o << "\n";

  size_t op_w = 2, src_w = 6;
  for (const Op& op : g.ops) {
    op_w = std::max(op_w, op.full_name().size());
    src_w = std::max(src_w, source(op).size());
  }
  const size_t idx_w = std::max<size_t>(3, std::to_string(g.ops.size()).size() + 1);
  o << pad("#", idx_w) << "  " << pad("op", op_w) << "  " << pad("source", src_w) << "  "
    << "predicted  measured  match  launched (kernels/memcpy/memset)\n";
  for (size_t i = 0; i < g.ops.size(); ++i) {
    const Op& op = g.ops[i];
    const Launch& p = v.report.launches[i];
    const MeasuredWork& w = m.ops[i];
    std::string launched = kernels_text(w.kernel_names, 3);
    for (const auto& kind : w.memcpy_kinds) launched += (launched.empty() ? "" : "; ") + ("memcpy " + kind);
    if (w.counts.memset) launched += (launched.empty() ? "" : "; ") + std::to_string(w.counts.memset) + "x memset";
    o << pad(std::to_string(i), idx_w) << "  " << pad(op.full_name(), op_w) << "  " << pad(source(op), src_w) << "  "
      << pad(p.known ? counts_text(p.counts) : "unknown", 9) << "  " << pad(counts_text(w.counts), 8) << "  "
      << pad(v.comparison.match[i] ? "yes" : "NO", 5) << "  " << launched << "\n";
  }
  o << "\n";
  const MeasuredWork& u = m.unattributed;
  if (!u.counts.none())
    o << "launched outside any graph op: " << counts_text(u.counts) << "  " << kernels_text(u.kernel_names, 5) << "\n";
  if (!m.unmatched_runtime_ops.empty()) {
    o << "runtime ops with no graph op:";
    for (const auto& n : m.unmatched_runtime_ops) o << " " << n;
    o << "\n";
  }
  char rate[32];
  std::snprintf(rate, sizeof rate, "%.1f%%", s.match_rate * 100);
  o << "exact match: " << s.matched << "/" << s.ops << " ops (" << rate << ")";
  if (s.unknown_predictions) o << ", " << s.unknown_predictions << " without a prediction";
  o << "\n";
  o << "whole model, predicted vs measured: kernels " << s.predicted.kernels << " vs " << s.measured.kernels << " ("
    << percent(s.kernels_error) << "), memcpy " << s.predicted.memcpy << " vs " << s.measured.memcpy << " ("
    << percent(s.memcpy_error) << "), memset " << s.predicted.memset << " vs " << s.measured.memset << " ("
    << percent(s.memset_error) << ")\n";
  o << "CUPTI dropped records: " << m.dropped_records << "\n";
  return o.str();
}

}  // namespace kc::validate
