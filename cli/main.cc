// kernelcount's entry point: the only place that prints errors and picks the exit status.
#include <malloc.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>
#include <optional>
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

// Whether the model's format takes --input (TorchScript) and --dim (.pt2).
bool takes_inputs(const kc::Graph& g) {
  return g.info.format == "torchscript";
}

// The baseline's numbers: a JSON report as it is, a model analyzed like the model itself, with
// the options that apply to it. An --input or --dim that applies to neither model is an error.
kc::Summary baseline_summary(const kc::Options& o, const kc::Graph& model, const kc::Target& target,
                             const kc::LaunchOptions& launches) {
  if (kc::is_report_path(o.baseline)) return kc::read_report_summary(o.baseline);
  kc::LoadOptions options = o.load;
  options.only_applicable = true;
  kc::Graph g = kc::load_model(o.baseline, options);
  kc::check(o.load.inputs.empty() || takes_inputs(model) || takes_inputs(g),
            "--input applies to TorchScript models, and neither the model nor the baseline is one");
  for (const auto& [name, value] : o.load.dims) {
    auto applied = [&](const kc::Graph& m) {
      const auto& a = m.info.dims_applied;
      return std::find(a.begin(), a.end(), name) != a.end();
    };
    kc::check(applied(model) || applied(g),
              "--dim " + name + ": neither the model nor the baseline has a symbol of that name");
  }
  return kc::summarize(g, kc::analyze(g, target, launches), KC_VERSION);
}

// Whether two paths name the same existing file.
bool same_file(const std::string& a, const std::string& b) {
  struct stat sa, sb;
  return ::stat(a.c_str(), &sa) == 0 && ::stat(b.c_str(), &sb) == 0 && sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

// -o: the report goes to a temporary file beside the target, renamed over it only once it is
// complete, so that a failed write (a full disk) leaves no half report and an existing file
// is replaced whole. Never an input of this run, never a pipe or device.
void write_report(const std::string& path, const std::function<void(std::ostream&)>& render,
                  const std::vector<std::string>& inputs) {
  for (const auto& in : inputs)
    kc::check(in.empty() || !same_file(path, in), "-o " + path + ": is an input of this run; refusing to overwrite it");
  struct stat st;
  if (::stat(path.c_str(), &st) == 0)
    kc::check(S_ISREG(st.st_mode), "-o " + path + ": not a regular file (write the report to a file, or to stdout)");
  std::string tmp = path + ".tmp-XXXXXX";
  int fd = ::mkstemp(tmp.data());
  kc::check(fd >= 0, "-o " + path + ": cannot create a file there (" + std::strerror(errno) + ")");
  ::close(fd);
  // Rendered straight into the file: a report of many ops is hundreds of MB, never held whole.
  std::ofstream file(tmp, std::ios::binary | std::ios::trunc);
  try {
    render(file);
  } catch (...) {
    ::unlink(tmp.c_str());
    throw;
  }
  file.close();
  if (!file) {
    ::unlink(tmp.c_str());
    throw kc::Error("-o " + path + ": cannot write the report (" + std::strerror(errno) + ")");
  }
  // Permissions as a plain create would give (mkstemp makes 0600).
  mode_t mask = ::umask(0);
  ::umask(mask);
  ::chmod(tmp.c_str(), 0666 & ~mask);
  if (::rename(tmp.c_str(), path.c_str()) != 0) {
    int err = errno;
    ::unlink(tmp.c_str());
    throw kc::Error("-o " + path + ": cannot write the report (" + std::strerror(err) + ")");
  }
}

// What a run loads and computes. main() owns it and leaves through _Exit with it in place:
// tearing down the graph and report of 100,000 ops costs more than rendering them as text.
struct Kept {
  std::optional<kc::Graph> graph;
  std::optional<kc::Report> report;
};

int run(int argc, char** argv, Kept& kept) {
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
  std::vector<kc::BudgetCheck> budgets;
  std::vector<std::string> warnings;
  std::function<void(std::ostream&)> render;
  std::optional<kc::Graph>& g = kept.graph;
  std::optional<kc::Report>& r = kept.report;
  std::optional<kc::BaselineDiff> base;
  kc::RenderOptions ro;
  if (o.list_rules) {
    render = [&](std::ostream& out) { kc::render_rules(out, target, format.rules_markdown); };
  } else {
    kc::LoadOptions options = o.load;
    // Against a model, options may be meant for either side (a .pt compared with its .pt2).
    options.only_applicable = !o.baseline.empty() && !kc::is_report_path(o.baseline);
    g = kc::load_model(o.model, options);
    const kc::LaunchOptions launch_options{o.use_measured, o.exclude_measured};
    r = kc::analyze(*g, target, launch_options);
    if (!o.baseline.empty())
      base = kc::diff(baseline_summary(o, *g, target, launch_options), kc::summarize(*g, *r, version));
    if (base) warnings = base->warnings;
    budgets = kc::check_budgets(o, r->totals, base ? &*base : nullptr);
    ro.by = o.by;
    ro.version = version;
    ro.baseline = base ? &*base : nullptr;
    ro.budgets = budgets;
    ro.top = o.top;
    ro.sort = o.sort;
    ro.depth = o.depth;
    ro.legend = o.legend;
    ro.all_findings = o.findings == "all";
    ro.source_root = o.source_root.empty() ? std::filesystem::current_path().string() : o.source_root;
    render = [&](std::ostream& out) { format.render(out, *g, *r, ro); };
  }
  if (o.output.empty()) {
    render(std::cout);
    std::cout << std::flush;
    // A report that never reached stdout (a full disk, /dev/full) is a failure, not exit 0.
    kc::check(std::cout.good() && std::fflush(stdout) == 0, "cannot write the report to standard output");
  } else {
    write_report(o.output, render, {o.model, o.baseline});
  }
  bool over = false;
  for (const auto& b : budgets)
    if (b.exceeded()) {
      std::cerr << "kernelcount: over budget: " << kc::describe(b) << '\n';
      over = true;
    }
  for (const auto& w : warnings) std::cerr << "kernelcount: warning: " << w << '\n';
  return over ? 1 : 0;
}

// The error line: one line whatever the message holds (a name from the file may carry
// newlines), and not so long that it buries the terminal.
std::string one_line(std::string what) {
  for (char& c : what)
    if (c == '\n' || c == '\r') c = ' ';
  return what.size() > 500 ? what.substr(0, 500) + "..." : what;
}

}  // namespace

int main(int argc, char** argv) {
#ifdef __GLIBC__
  // A big model allocates and frees blocks of tens of MB (the model.json text, its document):
  // taken from the heap and kept there, they are reused rather than mapped, zeroed and faulted
  // in anew: a third of the system time of a 100,000-op graph, for the same peak RSS.
  mallopt(M_MMAP_THRESHOLD, 1 << 30);
#endif
  int status = 2;
  Kept kept;
  try {
    status = run(argc, argv, kept);
  } catch (const kc::Error& e) {
    std::cerr << "kernelcount: error: " << one_line(e.what()) << '\n';
  } catch (const std::bad_alloc&) {
    std::cerr << "kernelcount: error: out of memory\n";
  } catch (const std::exception& e) {
    // Anything else escaping the loaders is a bug; still one line, never an abort.
    std::string what = e.what();
    std::cerr << "kernelcount: error: internal: " << one_line(what.substr(0, what.find('\n'))) << '\n';
  }
  // Everything is written: leave without tearing down what the run loaded (LibTorch's operator
  // registry, cuDNN's libraries, the graph), which takes a tenth of a second and frees nothing
  // the operating system would not (run() has already checked that the report was written).
  std::cout.flush();
  std::cerr.flush();
  std::fflush(nullptr);
  std::_Exit(status);
}
