#include "passes/target.h"

#include "analyzer/error.h"

namespace kc {

const std::vector<Target>& known_targets() {
  // Rates measured on the H200 by validate/measure_target.py; the run that produced them is
  // validate/results/target_h200.json.
  static const std::vector<Target> targets = {{
      "torch2.11-h200",
      "2.11",
      "NVIDIA H200",
      "sm_90",
      4.3e12,
      788e12,
      50e12,
      50e12,
      2.5e-6,
      "validate/results/target_h200.json",
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
