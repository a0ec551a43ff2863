// Prints the launch-rule table (--list-rules), as text or markdown (docs/rules.md).
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include "passes/target.h"

namespace kc {

// The target's rules, with a note on the measured table that precedes them.
void render_rules(std::ostream& os, const Target& target, bool markdown);

}  // namespace kc
