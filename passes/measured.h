// Measured launch counts for exact op signatures: the cases where cuDNN's and cuBLAS's own
// heuristics pick something the launch rules do not foresee. Generated from validate's
// measurements by validate/make_measured_table.py; a lookup hit overrides the rules.
#pragma once

#include <string>
#include <vector>

#include "analyzer/graph.h"
#include "passes/launch_rules.h"

namespace kc {

struct MeasuredLaunch {
  const char* key;      // launch_key() of the op
  LaunchCounts counts;  // what validate measured
  const char* models;   // corpus entries it was measured in, comma-separated
};

// The op's signature: name, every tensor argument's dtype, shape and contiguity, and every
// other argument's value. Two ops with the same key launch the same work.
std::string launch_key(const Graph& g, const Op& op);

// The entry for `key` on the target, or nullptr. Entries measured only in models whose names
// start with one of `exclude` are skipped (to test the rules on models held out).
const MeasuredLaunch* find_measured(const std::string& target, const std::string& key,
                                    const std::vector<std::string>& exclude);
// Number of entries for the target.
size_t measured_count(const std::string& target);

}  // namespace kc
