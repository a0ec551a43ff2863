// Prints the launch-rule table (--list-rules), as text or markdown (docs/rules.md).
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include "passes/launch_rules.h"

namespace kc {

// `measured` is the size of the measured table that precedes the rules.
void render_rules(std::ostream& os, const std::vector<LaunchRule>& rules, size_t measured, const std::string& target,
                  bool markdown);

}  // namespace kc
