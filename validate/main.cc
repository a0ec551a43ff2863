// kernelcount-validate: runs a model on the GPU under CUPTI and checks kernelcount's per-op
// launch predictions against what was launched. The only place that prints errors and picks
// the exit status: 0 ok, 1 match rate under --min-match, 2 bad input or failed run.
#include <c10/util/Exception.h>

#include <CLI/CLI.hpp>
#include <fstream>
#include <iostream>

#include "analyzer/error.h"
#include "analyzer/load.h"
#include "analyzer/torchscript_loader.h"
#include "passes/pipeline.h"
#include "passes/target.h"
#include "validate/compare.h"
#include "validate/measure.h"
#include "validate/render.h"

namespace {

struct Options {
  std::string model;
  std::vector<std::string> inputs;
  std::vector<std::string> dims;
  std::string target;
  bool weights = false;
  int warmup = 2;
  std::string format = "text";
  double min_match = 0;
  std::string out;
};

kc::LoadOptions load_options(const Options& opt) {
  kc::LoadOptions lo;
  lo.torchscript = kc::load_torchscript_file;
  for (const auto& s : opt.inputs) lo.inputs.push_back(kc::parse_input_spec(s));
  for (const auto& d : opt.dims) {
    auto [name, value] = kc::parse_dim_spec(d);
    lo.dims[name] = value;
  }
  return lo;
}

int run(const Options& opt) {
  const kc::Target& target = opt.target.empty() ? kc::known_targets().at(0) : kc::find_target(opt.target);
  kc::Graph graph = kc::load_model(opt.model, load_options(opt));
  kc::Report report = kc::analyze(graph, target);
  kc::validate::Measurement measured = kc::validate::measure(graph, {opt.warmup, opt.weights});
  kc::validate::Comparison comparison = kc::validate::compare(report.launches, measured);
  kc::validate::Validation v{graph, report, measured, comparison};
  const std::string text = opt.format == "json" ? kc::validate::render_json(v) : kc::validate::render_text(v);
  if (opt.out.empty()) {
    std::cout << text << std::flush;
  } else {
    std::ofstream f(opt.out);
    f << text;
    f.close();
    kc::check(f.good(), "cannot write " + opt.out);
  }
  kc::check(measured.dropped_records == 0,
            "CUPTI dropped " + std::to_string(measured.dropped_records) +
                " activity records for lack of buffer space: the measured counts are incomplete");
  return comparison.summary.match_rate < opt.min_match ? 1 : 0;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{
      "Runs a model on the GPU under CUPTI and compares kernelcount's per-op launch predictions "
      "(kernels, memcpy, memset) with what eager PyTorch launched.",
      "kernelcount-validate"};
  Options opt;
  app.add_option("MODEL", opt.model, "Model file: .pt2 (torch.export) or TorchScript .pt")->required();
  app.add_option("--input", opt.inputs, "TorchScript input: [NAME=]8x3x224x224[:float32], one per forward() argument");
  app.add_option("--dim", opt.dims, "Value of a symbolic size of a .pt2: NAME=VALUE");
  app.add_option("--target", opt.target, "Prediction target (default: the first known)");
  app.add_flag("--weights", opt.weights, "Use the .pt2's stored weights instead of random ones");
  app.add_option("--warmup", opt.warmup, "Un-recorded runs before the recorded one")->capture_default_str();
  app.add_option("--format", opt.format, "Output format")
      ->check(CLI::IsMember({"text", "json"}))
      ->capture_default_str();
  app.add_option("--min-match", opt.min_match, "Exit with status 1 when the exact-match rate is under this")
      ->check(CLI::Range(0.0, 1.0))
      ->capture_default_str();
  app.add_option("--out", opt.out, "Write the output to FILE instead of standard output");
  try {
    app.parse(argc, argv);
  } catch (const CLI::Success& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::cerr << "kernelcount-validate: error: " << e.what() << "\n";
    return 2;
  }
  try {
    return run(opt);
  } catch (const kc::Error& e) {
    std::cerr << "kernelcount-validate: error: " << e.what() << "\n";
  } catch (const c10::Error& e) {
    std::string msg = e.what_without_backtrace();
    std::cerr << "kernelcount-validate: error: libtorch: " << msg.substr(0, msg.find('\n')) << "\n";
  } catch (const std::exception& e) {
    std::cerr << "kernelcount-validate: error: " << e.what() << "\n";
  }
  return 2;
}
