// kernelcount._core: the CLI's report run (load -> analyze -> budgets -> render) for Python, taking
// the CLI's own arguments, so that a report from Python is the CLI's byte for byte. Errors come
// back as kernelcount.Error with the CLI's one-line message; nothing here prints.
#include <nanobind/nanobind.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/tuple.h>
#include <nanobind/stl/vector.h>

#include <optional>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include "analyzer/error.h"
#include "analyzer/op_registry.h"
#include "analyzer/torchscript_plugin.h"
#include "cli/formats.h"
#include "cli/options.h"
#include "cli/report_run.h"
#include "passes/target.h"

namespace nb = nanobind;

namespace {

// A TorchScript model goes through the package's copy of libkernelcount-torchscript.so, which
// links libtorch_cpu and libc10 without carrying them: kernelcount._torchscript.library() imports
// the user's torch first (so the dynamic linker finds those two already loaded, with the CUDA
// libraries torch's import preloads) and says where the library is, or why it cannot be used.
kc::Graph load_torchscript_with_users_torch(const std::string& path, const kc::LoadOptions& options) {
  const auto [library, why] = nb::cast<std::tuple<std::string, std::string>>(
      nb::module_::import_("kernelcount._torchscript").attr("library")());
  if (library.empty()) throw kc::Error(path + ": " + why);
  return kc::load_torchscript_library(library, path, options);
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
  kc::Options o = *parsed;
  o.load.torchscript = load_torchscript_with_users_torch;
  kc::check(o.output.empty(), "-o: the Python package returns the report; write it to a file yourself");
  const kc::Target& target = kc::find_target(o.target);
  const kc::Format& format = kc::find_format(o.format);
  kc::check(!o.list_rules, "--list-rules: run the CLI for the rule list");
  kc::ReportRun result;
  kc::run_report(o, target, version, result);
  if (!display.empty()) result.graph->info.path = display;
  std::ostringstream out;
  format.render(out, *result.graph, *result.report, kc::report_render_options(o, result, version));
  return {kc::report_status(result), out.str(), kc::report_messages(result)};
}

}  // namespace

NB_MODULE(_core, m) {
  m.doc() = "kernelcount's C++ core: the CLI's report run, without LibTorch";
  m.attr("version") = KC_VERSION;
  // The LibTorch release the operator table (and the TorchScript library, where built) is of.
  m.attr("libtorch_version") = kc::libtorch_version();
  static nb::exception<kc::Error> error(m, "Error");
  nb::register_exception_translator([](const std::exception_ptr& p, void*) {
    try {
      std::rethrow_exception(p);
    } catch (const kc::Error& e) {
      PyErr_SetString(error.ptr(), kc::error_line(e.what()).c_str());
    } catch (const std::bad_alloc&) {
      PyErr_SetString(error.ptr(), "out of memory");
    } catch (const std::exception& e) {
      std::string what = e.what();
      PyErr_SetString(error.ptr(), ("internal: " + kc::error_line(what.substr(0, what.find('\n')))).c_str());
    }
  });
  m.def("run", &run, nb::arg("args"), nb::arg("display") = "",
        "Runs `kernelcount ARGS...` (the report command); returns (status, report text, stderr lines).");
  m.def(
      "targets",
      [] {
        std::vector<std::string> names;
        for (const kc::Target& t : kc::known_targets()) names.push_back(t.name);
        return names;
      },
      "The targets a report can be made for; the first is the default.");
}
