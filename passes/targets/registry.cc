// The registry of targets: one row adds a target.
#include "analyzer/error.h"
#include "passes/targets/targets.h"

namespace kc {

const std::vector<Target>& known_targets() {
  static const std::vector<Target>* targets = [] {
    auto* all = new std::vector<Target>{
        torch2_11_h200(),
        torch2_11_test(),
    };
    for (Target& t : *all) t.index_measured();
    return all;
  }();
  return *targets;
}

const Target& default_target() {
  return known_targets().front();
}

const Target& find_target(const std::string& name) {
  std::string names;
  for (const Target& t : known_targets()) {
    if (t.name == name) return t;
    if (!t.test_only) names += (names.empty() ? "" : ", ") + t.name;
  }
  throw Error("unknown target '" + name + "' (known: " + names + ")");
}

}  // namespace kc
