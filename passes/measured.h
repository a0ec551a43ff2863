// Measured launch counts for exact op signatures (launch keys, analyzer/describe.h): a cache of
// cases where cuDNN's and cuBLAS's own heuristics pick something the launch rules do not
// foresee. Each target owns its table (passes/targets/); a lookup hit overrides the rules.
#pragma once

#include <string>
#include <vector>

#include "passes/counts.h"

namespace kc {

struct MeasuredLaunch {
  const char* key;     // launch_key() of the op
  Counts counts;       // what validate measured
  const char* models;  // corpus entries it was measured in, comma-separated
};

// Whether every model of the entry starts with one of the excluded names.
bool measured_only_in(const MeasuredLaunch& m, const std::vector<std::string>& exclude);

}  // namespace kc
