// Pass "explain": per op, the facts behind its cost in a form a student can read: the rule
// that decided and its plain-language reason, the measurement behind it, the kernel names the
// GPU really ran for such ops. It computes no new numbers; the
// renderers (`kernelcount explain`, --format trace) turn it into sentences and pictures.
#pragma once

#include <string>
#include <vector>

#include "analyzer/graph.h"
#include "passes/report.h"

namespace kc {

// One explanation per op of g, ops alike sharing theirs. Reads the launches, the target's rules
// and kernel-name table.
Explanations run_explain(const Graph& g, const std::vector<Launch>& launches, const Target& target);

}  // namespace kc
