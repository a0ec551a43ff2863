// kernelcount._core: the CLI's report run (load -> analyze -> budgets -> render) for Python, taking
// the CLI's own arguments, so that a report from Python is the CLI's byte for byte. Errors come
// back as kernelcount.Error with the CLI's one-line message; nothing here prints.
#include <nanobind/nanobind.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/tuple.h>
#include <nanobind/stl/vector.h>

#include <filesystem>
#include <optional>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include "analyzer/error.h"
#include "analyzer/load.h"
#include "analyzer/op_registry.h"
#include "cli/baseline.h"
#include "cli/budgets.h"
#include "cli/formats.h"
#include "cli/options.h"
#include "passes/pipeline.h"
#include "passes/target.h"

namespace nb = nanobind;

namespace {

// The CLI's error line (cli/main.cc): one line, at most 500 characters.
std::string one_line(std::string what) {
  for (char& c : what)
    if (c == '\n' || c == '\r') c = ' ';
  return what.size() > 500 ? what.substr(0, 500) + "..." : what;
}

// A baseline as cli/main.cc reads it: a JSON report, or a model analyzed with the same options.
kc::Summary baseline_summary(const kc::Options& o, const kc::Target& target, const kc::LaunchOptions& launches) {
  if (kc::is_report_path(o.baseline)) return kc::read_report_summary(o.baseline);
  kc::LoadOptions options = o.load;
  options.only_applicable = true;
  kc::Graph g = kc::load_model(o.baseline, options);
  return kc::summarize(g, kc::analyze(g, target, launches), KC_VERSION);
}

// Runs `kernelcount ARGS...` as the report command does, with the model's path shown as
// `display` (a temporary file's name is no use to the reader; empty keeps the path). Returns
// (exit status, report, budget and warning lines the CLI would print on stderr).
std::tuple<int, std::string, std::vector<std::string>> run(const std::vector<std::string>& args,
                                                           const std::string& display) {
  std::vector<std::string> argv_text = {"kernelcount"};
  argv_text.insert(argv_text.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (std::string& a : argv_text) argv.push_back(a.data());
  argv.push_back(nullptr);
  const std::string version = KC_VERSION;
  // --help and --version print to std::cout in the parser; the package asks for neither.
  const std::optional<kc::Options> parsed =
      kc::parse_options(static_cast<int>(argv_text.size()), argv.data(),
                        "kernelcount " + version + " (LibTorch " + kc::libtorch_version() + ")");
  if (!parsed) return {0, "", {}};
  const kc::Options& o = *parsed;
  kc::check(o.output.empty(), "-o: the Python package returns the report; write it to a file yourself");
  const kc::Target& target = kc::find_target(o.target);
  const kc::Format& format = kc::find_format(o.format);
  std::ostringstream out;
  std::vector<std::string> notes;
  kc::check(!o.list_rules, "--list-rules: run the CLI for the rule list");
  kc::LoadOptions options = o.load;
  options.only_applicable = !o.baseline.empty() && !kc::is_report_path(o.baseline);
  kc::Graph g = kc::load_model(o.model, options);
  if (!display.empty()) g.info.path = display;
  const kc::LaunchOptions launch_options{o.use_measured, o.exclude_measured};
  kc::Report r = kc::analyze(g, target, launch_options);
  std::optional<kc::BaselineDiff> base;
  if (!o.baseline.empty()) base = kc::diff(baseline_summary(o, target, launch_options), kc::summarize(g, r, version));
  std::vector<kc::BudgetCheck> budgets = kc::check_budgets(o, r.totals, base ? &*base : nullptr);
  kc::RenderOptions ro;
  ro.by = o.by;
  ro.version = version;
  ro.baseline = base ? &*base : nullptr;
  ro.budgets = budgets;
  ro.top = o.top;
  ro.sort = o.sort;
  ro.depth = o.depth;
  ro.legend = o.legend;
  ro.source_root = o.source_root.empty() ? std::filesystem::current_path().string() : o.source_root;
  format.render(out, g, r, ro);
  bool over = false;
  for (const auto& b : budgets)
    if (b.exceeded()) {
      notes.push_back("kernelcount: over budget: " + kc::describe(b));
      over = true;
    }
  if (base)
    for (const auto& w : base->warnings) notes.push_back("kernelcount: warning: " + w);
  return {over ? 1 : 0, out.str(), notes};
}

}  // namespace

NB_MODULE(_core, m) {
  m.doc() = "kernelcount's C++ core: the CLI's report run, without LibTorch";
  m.attr("version") = KC_VERSION;
  static nb::exception<kc::Error> error(m, "Error");
  nb::register_exception_translator([](const std::exception_ptr& p, void*) {
    try {
      std::rethrow_exception(p);
    } catch (const kc::Error& e) {
      PyErr_SetString(error.ptr(), one_line(e.what()).c_str());
    } catch (const std::bad_alloc&) {
      PyErr_SetString(error.ptr(), "out of memory");
    } catch (const std::exception& e) {
      std::string what = e.what();
      PyErr_SetString(error.ptr(), ("internal: " + one_line(what.substr(0, what.find('\n')))).c_str());
    }
  });
  m.def("run", &run, nb::arg("args"), nb::arg("display") = "",
        "Runs `kernelcount ARGS...` (the report command); returns (status, report text, stderr lines).");
  m.def(
      "targets",
      [] {
        std::vector<std::string> names;
        for (const kc::Target& t : kc::known_targets())
          if (!t.test_only) names.push_back(t.name);
        return names;
      },
      "The targets a report can be made for; the first is the default.");
}
