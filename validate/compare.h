// Sets the analyzer's per-op launch predictions against what was measured on the GPU.
#pragma once

#include <optional>
#include <vector>

#include "passes/report.h"
#include "validate/measurement.h"

namespace kc::validate {

struct Summary {
  int ops = 0;
  int matched = 0;              // ops whose kernels, memcpy and memset all equal the prediction
  int unknown_predictions = 0;  // ops no rule covers; they count as mismatches
  double match_rate = 1.0;      // matched / ops (1 for a graph without ops)
  Counts predicted;             // over ops with a known prediction (host syncs are not measured)
  Counts measured;              // over all ops plus work no op launched
  Counts unattributed;          // work no op launched
  // (predicted - measured) / measured per kind; empty where measured is 0 and predicted is not.
  std::optional<double> kernels_error, memcpy_error, memset_error;
};

struct Comparison {
  std::vector<bool> match;  // per op
  Summary summary;
};

// Compares per op; launches and measured ops must both have one entry per graph op.
Comparison compare(const std::vector<Launch>& predicted, const Measurement& measured);

}  // namespace kc::validate
