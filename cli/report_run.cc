#include "cli/report_run.h"

#include <algorithm>
#include <filesystem>

#include "analyzer/error.h"
#include "analyzer/load.h"

namespace kc {
namespace {

FusionModel fusion_model(const Options& o) {
  return o.fusion == "inductor" ? FusionModel::kInductor : FusionModel::kPointwise;
}

// Whether the model's format takes --input (TorchScript) and --dim (.pt2).
bool takes_inputs(const Graph& g) {
  return g.info.format == "torchscript";
}

// The baseline's numbers: a JSON report as it is, a model analyzed like the model itself, with
// the options that apply to it. An --input or --dim that applies to neither model is an error.
Summary baseline_summary(const Options& o, const Graph& model, const Target& target, const LaunchOptions& launches,
                         const std::string& version) {
  if (is_report_path(o.baseline)) return read_report_summary(o.baseline);
  LoadOptions options = o.load;
  options.only_applicable = true;
  Graph g = load_model(o.baseline, options);
  check(o.load.inputs.empty() || takes_inputs(model) || takes_inputs(g),
        "--input applies to TorchScript models, and neither the model nor the baseline is one");
  for (const auto& dim : o.load.dims) {
    // A named copy: clang 14 (the fuzz build's) cannot capture a structured binding.
    const std::string& name = dim.first;
    auto applied = [&](const Graph& m) {
      const auto& a = m.info.dims_applied;
      return std::find(a.begin(), a.end(), name) != a.end();
    };
    check(applied(model) || applied(g),
          "--dim " + name + ": neither the model nor the baseline has a symbol of that name");
  }
  return summarize(g, analyze(g, target, launches, fusion_model(o)), version);
}

}  // namespace

void run_report(const Options& o, const Target& target, const std::string& version, ReportRun& run) {
  LoadOptions options = o.load;
  // Against a model, options may be meant for either side (a .pt compared with its .pt2).
  options.only_applicable = !o.baseline.empty() && !is_report_path(o.baseline);
  run.graph = load_model(o.model, options);
  const LaunchOptions launch_options{o.use_measured, o.exclude_measured};
  run.report = analyze(*run.graph, target, launch_options, fusion_model(o));
  if (!o.baseline.empty())
    run.baseline = diff(baseline_summary(o, *run.graph, target, launch_options, version),
                        summarize(*run.graph, *run.report, version));
  run.budgets = check_budgets(o, run.report->totals, run.baseline ? &*run.baseline : nullptr);
}

RenderOptions report_render_options(const Options& o, const ReportRun& run, const std::string& version) {
  RenderOptions ro;
  ro.by = o.by;
  ro.version = version;
  ro.baseline = run.baseline ? &*run.baseline : nullptr;
  ro.budgets = run.budgets;
  ro.top = o.top;
  ro.sort = o.sort;
  ro.depth = o.depth;
  ro.legend = o.legend;
  ro.all_findings = o.findings == "all";
  ro.source_root = o.source_root.empty() ? std::filesystem::current_path().string() : o.source_root;
  return ro;
}

std::vector<std::string> report_messages(const ReportRun& run) {
  std::vector<std::string> lines;
  for (const auto& b : run.budgets)
    if (b.exceeded()) lines.push_back("kernelcount: over budget: " + describe(b));
  if (run.baseline)
    for (const auto& w : run.baseline->warnings) lines.push_back("kernelcount: warning: " + w);
  return lines;
}

int report_status(const ReportRun& run) {
  return std::any_of(run.budgets.begin(), run.budgets.end(), [](const BudgetCheck& b) { return b.exceeded(); }) ? 1 : 0;
}

std::string error_line(std::string what) {
  for (char& c : what)
    if (c == '\n' || c == '\r') c = ' ';
  return what.size() > 500 ? what.substr(0, 500) + "..." : what;
}

}  // namespace kc
