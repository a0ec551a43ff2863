// Pass "launches": what eager PyTorch launches for each op on the target: the target's
// measured signature where there is one, else the first launch rule that fits. Ops no rule
// fits are unknown, never counted as zero.
#pragma once

#include <string>
#include <vector>

#include "analyzer/graph.h"
#include "passes/report.h"

namespace kc {

// How the launches pass uses the measured table (passes/measured.h).
struct LaunchOptions {
  bool use_measured = true;
  std::vector<std::string> exclude_measured;  // model-name prefixes whose measurements to ignore
  // Decide each signature once (name, overload, traits, arguments, and every tensor's dtype,
  // shape, strides and placement): later ops of the same signature reuse the decision. Off:
  // every op is decided anew (the tests compare both).
  bool reuse_by_signature = true;
};

// With `layout` (pass "layout"), the rules read the run-time strides; the measured table's keys
// keep the recorded ones.
std::vector<Launch> run_launches(const Graph& g, const Target& target, const LaunchOptions& options = {},
                                 const Layout* layout = nullptr);

}  // namespace kc
