// libFuzzer target: a .pt2's models/model.json through the reader and, where it loads, the
// whole analysis pipeline. Only kc::Error may come out; anything else is a finding. The reader
// runs twice, reading records of the common shape straight from their text and every record
// the general way: the two must make the same graph, or fail with the same error.
#include <cstddef>
#include <cstdint>
#include <string>

#include "analyzer/error.h"
#include "analyzer/placement.h"
#include "analyzer/pt2_loader.h"
#include "passes/pipeline.h"
#include "passes/target.h"
#include "tests/analyzer/graph_fingerprint.h"

namespace {

// The graph's fingerprint, or the error's message.
std::string load(const std::string& text, bool plain_records, kc::Graph& g) {
  kc::LoadOptions options;
  options.plain_records = plain_records;
  try {
    g = kc::load_pt2_json(text, "fuzz.pt2", options);
    return kc::graph_fingerprint(g);
  } catch (const kc::Error& e) {
    return std::string("error: ") + e.what();
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  kc::Graph g, general;
  const std::string loaded = load(text, true, g);
  if (loaded != load(text, false, general)) __builtin_trap();  // the two readers disagree
  if (loaded.rfind("error: ", 0) == 0) return 0;
  try {
    kc::assign_placement(g);
    kc::analyze(g, kc::default_target(), kc::LaunchOptions{true, {}});
  } catch (const kc::Error&) {
  }
  return 0;
}
