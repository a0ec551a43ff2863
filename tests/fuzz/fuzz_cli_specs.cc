// libFuzzer target: the command line, split at newlines into arguments, through the option
// parser with its --input, --dim, byte-count and budget parsers. Only kc::Error may come out.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "analyzer/error.h"
#include "analyzer/load.h"
#include "cli/options.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  // The spec parsers alone, on the whole input.
  try {
    kc::parse_input_spec(text);
  } catch (const kc::Error&) {
  }
  try {
    kc::parse_dim_spec(text);
  } catch (const kc::Error&) {
  }
  try {
    kc::parse_byte_count(text);
  } catch (const kc::Error&) {
  }
  std::vector<std::string> args = {"kernelcount"};
  size_t start = 0;
  while (start <= text.size() && args.size() < 64) {
    size_t nl = text.find('\n', start);
    args.push_back(text.substr(start, nl == std::string::npos ? std::string::npos : nl - start));
    if (nl == std::string::npos) break;
    start = nl + 1;
  }
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  try {
    kc::parse_options(static_cast<int>(args.size()), argv.data(), "kernelcount fuzz");
  } catch (const kc::Error&) {
  }
  return 0;
}
