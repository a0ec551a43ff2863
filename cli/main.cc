// kernelcount's entry point: the only place that prints errors and picks the exit status.
#include <malloc.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
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
#include "cli/report_run.h"
#include "passes/pipeline.h"
#include "passes/target.h"

namespace {

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

int run(int argc, char** argv, kc::ReportRun& kept) {
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
  std::function<void(std::ostream&)> render;
  kc::RenderOptions ro;
  if (o.list_rules) {
    render = [&](std::ostream& out) { kc::render_rules(out, target, format.rules_markdown); };
  } else {
    kc::run_report(o, target, version, kept);
    ro = kc::report_render_options(o, kept, version);
    render = [&](std::ostream& out) { format.render(out, *kept.graph, *kept.report, ro); };
  }
  if (o.output.empty()) {
    render(std::cout);
    std::cout << std::flush;
    // A report that never reached stdout (a full disk, /dev/full) is a failure, not exit 0.
    kc::check(std::cout.good() && std::fflush(stdout) == 0, "cannot write the report to standard output");
  } else {
    write_report(o.output, render, {o.model, o.baseline});
  }
  for (const std::string& line : kc::report_messages(kept)) std::cerr << line << '\n';
  return kc::report_status(kept);
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
  // What the run loads and computes stays in place until _Exit: tearing down the graph and
  // report of 100,000 ops costs more than rendering them as text.
  kc::ReportRun kept;
  try {
    status = run(argc, argv, kept);
  } catch (const kc::Error& e) {
    std::cerr << "kernelcount: error: " << kc::error_line(e.what()) << '\n';
  } catch (const std::bad_alloc&) {
    std::cerr << "kernelcount: error: out of memory\n";
  } catch (const std::exception& e) {
    // Anything else escaping the loaders is a bug; still one line, never an abort.
    std::string what = e.what();
    std::cerr << "kernelcount: error: internal: " << kc::error_line(what.substr(0, what.find('\n'))) << '\n';
  }
  // Everything is written: leave without tearing down what the run loaded (LibTorch's operator
  // registry, cuDNN's libraries, the graph), which takes a tenth of a second and frees nothing
  // the operating system would not (run() has already checked that the report was written).
  std::cout.flush();
  std::cerr.flush();
  std::fflush(nullptr);
  std::_Exit(status);
}
