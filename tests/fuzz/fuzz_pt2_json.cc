// libFuzzer target: a .pt2's models/model.json through the reader and, where it loads, the
// whole analysis pipeline. Only kc::Error may come out; anything else is a finding.
#include <cstddef>
#include <cstdint>
#include <string>

#include "analyzer/error.h"
#include "analyzer/placement.h"
#include "analyzer/pt2_loader.h"
#include "passes/pipeline.h"
#include "passes/target.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    kc::Graph g = kc::load_pt2_json(text, "fuzz.pt2", {});
    kc::assign_placement(g);
    kc::analyze(g, kc::default_target(), kc::LaunchOptions{true, {}});
  } catch (const kc::Error&) {
  }
  return 0;
}
