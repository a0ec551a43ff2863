// kernelcount's entry point: the only place that prints errors and picks the exit status.
#include <fstream>
#include <iostream>
#include <sstream>

#include "analyzer/error.h"
#include "analyzer/load.h"
#include "analyzer/op_registry.h"
#include "cli/commands.h"
#include "cli/formats.h"
#include "cli/options.h"
#include "cli/render_rules.h"
#include "passes/pipeline.h"
#include "passes/target.h"

namespace {

// Budgets broken by the report, one line each.
std::vector<std::string> over_budget(const kc::Options& o, const kc::Totals& t, const kc::BaselineDiff* base) {
  std::vector<std::string> out;
  auto test = [&](const std::optional<int64_t>& limit, int64_t value, const char* what) {
    if (limit && value > *limit)
      out.push_back(std::string(what) + " " + std::to_string(value) + " > budget " + std::to_string(*limit));
  };
  test(o.max_kernels, t.eager.kernels, "eager kernels");
  test(o.max_fused_kernels, t.fused_kernels, "fused kernels");
  test(o.max_bytes, t.eager_hbm_bytes, "eager HBM bytes");
  test(o.max_unknown, t.unknown_ops, "unknown ops");
  test(o.max_host_syncs, t.eager.host_syncs, "host syncs");
  if (base) {
    test(o.max_kernel_increase, base->total("eager_kernels", true) - base->total("eager_kernels", false),
         "eager kernels added");
    test(o.max_bytes_increase, base->total("eager_hbm_bytes", true) - base->total("eager_hbm_bytes", false),
         "eager HBM bytes added");
  }
  return out;
}

// The baseline's numbers: a JSON report as it is, a model analyzed like the model itself.
kc::Summary baseline_summary(const kc::Options& o, const kc::Target& target, const kc::LaunchOptions& launches) {
  if (kc::is_report_path(o.baseline)) return kc::read_report_summary(o.baseline);
  kc::Graph g = kc::load_model(o.baseline, o.load);
  return kc::summarize(g, kc::analyze(g, target, launches));
}

int run(int argc, char** argv) {
  if (argc > 1)
    if (const kc::Command* command = kc::find_command(argv[1])) {
      std::ostringstream out;
      const int status = command->run(argc - 1, argv + 1, out);
      std::cout << out.str() << std::flush;
      return status;
    }
  const std::string version = KC_VERSION;
  auto parsed = kc::parse_options(argc, argv, "kernelcount " + version + " (LibTorch " + kc::libtorch_version() + ")");
  if (!parsed) return 0;
  const kc::Options& o = *parsed;
  const kc::Target& target = kc::find_target(o.target);
  const kc::Format& format = kc::find_format(o.format);
  std::ostringstream out;
  std::vector<std::string> broken;
  if (o.list_rules) {
    kc::render_rules(out, target, format.rules_markdown);
  } else {
    kc::Graph g = kc::load_model(o.model, o.load);
    const kc::LaunchOptions launch_options{o.use_measured, o.exclude_measured};
    kc::Report r = kc::analyze(g, target, launch_options);
    std::optional<kc::BaselineDiff> base;
    if (!o.baseline.empty()) base = kc::diff(baseline_summary(o, target, launch_options), kc::summarize(g, r));
    format.render(out, g, r, kc::RenderOptions{o.by, version, base ? &*base : nullptr});
    broken = over_budget(o, r.totals, base ? &*base : nullptr);
  }
  if (o.output.empty()) {
    std::cout << out.str();
  } else {
    std::ofstream f(o.output);
    f << out.str();
    kc::check(f.good(), "cannot write " + o.output);
  }
  std::cout << std::flush;
  for (const auto& b : broken) std::cerr << "kernelcount: over budget: " << b << '\n';
  return broken.empty() ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return run(argc, argv);
  } catch (const kc::Error& e) {
    std::cerr << "kernelcount: error: " << e.what() << '\n';
  } catch (const std::bad_alloc&) {
    std::cerr << "kernelcount: error: out of memory\n";
  } catch (const std::exception& e) {
    // Anything else escaping the loaders is a bug; still one line, never an abort.
    std::string what = e.what();
    std::cerr << "kernelcount: error: internal: " << what.substr(0, what.find('\n')) << '\n';
  }
  return 2;
}
