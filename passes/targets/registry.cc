// The registry of targets: a line of targets.def adds one.
#include "analyzer/error.h"
#include "passes/target.h"

namespace kc {

#define KC_TARGET(folder) Target target_##folder();
#include "passes/targets/targets.def"
#undef KC_TARGET

const std::vector<Target>& known_targets() {
  static const std::vector<Target>* targets = [] {
    auto* all = new std::vector<Target>{
#define KC_TARGET(folder) target_##folder(),
#include "passes/targets/targets.def"
#undef KC_TARGET
    };
    for (Target& t : *all) t.index_measured();
    return all;
  }();
  return *targets;
}

const Target& default_target() {
  return known_targets().front();
}

const LaunchRule* Target::find_rule(std::string_view id) const {
  for (const LaunchRule& r : rules)
    if (r.id == id) return &r;
  return nullptr;
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
