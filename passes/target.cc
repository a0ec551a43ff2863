#include "passes/target.h"

#include "analyzer/error.h"

namespace kc {

const std::vector<Target>& known_targets() {
  // Rates measured on the H200 by validate/measure_target.py (validate/results/target.json).
  // The vector rate is the fp32 GEMM's: without TF32 it runs on the CUDA cores, at their FMA
  // rate. The launch time is per kernel in a stream of tiny eager launches.
  static const std::vector<Target> targets = {{
      "torch2.11-h200",
      "2.11",
      "NVIDIA H200",
      "sm_90",
      4.24e12,
      805e12,
      51.0e12,
      51.0e12,
      6.8e-6,
      "validate/results/target.json",
  }};
  return targets;
}

const Target& find_target(const std::string& name) {
  std::string names;
  for (const Target& t : known_targets()) {
    if (t.name == name) return t;
    names += (names.empty() ? "" : ", ") + t.name;
  }
  throw Error("unknown target '" + name + "' (known: " + names + ")");
}

}  // namespace kc
