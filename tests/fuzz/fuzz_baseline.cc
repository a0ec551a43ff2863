// libFuzzer target: a --baseline JSON report through read_report_summary (which reads a
// path, so the input goes to a file first), then the comparison with itself.
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <fstream>
#include <string>

#include "analyzer/error.h"
#include "cli/baseline.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const std::string path = "/tmp/kc-fuzz-baseline-" + std::to_string(::getpid()) + ".json";
  {
    std::ofstream f(path, std::ios::binary | std::ios::trunc);
    f.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
  }
  try {
    kc::Summary s = kc::read_report_summary(path);
    kc::BaselineDiff d = kc::diff(s, s);
    (void)d.total("eager_kernels", true);
  } catch (const kc::Error&) {
  }
  return 0;
}
