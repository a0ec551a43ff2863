// libFuzzer target: a TorchScript .pt through load_model, the path the command line takes
// (regular-file and magic checks, the zip directory, libtorch's archive reader, the pickle and
// deflate checks, torch::jit::load, the meta run), then the whole analysis pipeline. The input
// is one line of --input specs separated by spaces, a newline, then the archive's bytes; the
// loader reads a path, so the archive goes to a file first. Only kc::Error may come out.
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <fstream>
#include <sstream>
#include <string>

#include "analyzer/error.h"
#include "analyzer/load.h"
#include "analyzer/torchscript_loader.h"
#include "passes/pipeline.h"
#include "passes/target.h"

namespace {
// Longer first lines are not specs: the whole input is then the archive.
constexpr size_t kMaxSpecLine = 256;
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const std::string path = "/tmp/kc-fuzz-torchscript-" + std::to_string(::getpid()) + ".pt";
  const std::string text(reinterpret_cast<const char*>(data), size);
  size_t nl = text.find('\n');
  if (nl > kMaxSpecLine) nl = std::string::npos;
  kc::LoadOptions options;
  options.torchscript = kc::load_torchscript_file;
  if (nl != std::string::npos) {
    std::istringstream specs(text.substr(0, nl));
    std::string spec;
    while (specs >> spec) {
      try {
        options.inputs.push_back(kc::parse_input_spec(spec));
      } catch (const kc::Error&) {
      }
    }
  }
  {
    std::ofstream f(path, std::ios::binary | std::ios::trunc);
    const size_t skip = nl == std::string::npos ? 0 : nl + 1;
    f.write(text.data() + skip, static_cast<std::streamsize>(size - skip));
  }
  try {
    kc::Graph g = kc::load_model(path, options);
    kc::analyze(g, kc::default_target(), kc::LaunchOptions{true, {}});
  } catch (const kc::Error&) {
  }
  return 0;
}
