// Renders a validation run as text (a per-op table and a summary) or as JSON. The JSON keeps
// everything needed to redo the comparison later against other predictions: op index and full
// name, argument shapes and dtypes, measured counts and kernel names.
#pragma once

#include <string>

#include "analyzer/graph.h"
#include "passes/report.h"
#include "validate/compare.h"
#include "validate/measurement.h"

namespace kc::validate {

// Everything one run produced, for the renderers.
struct Validation {
  const Graph& graph;
  const Report& report;
  const Measurement& measured;
  const Comparison& comparison;
};

std::string render_text(const Validation& v);
std::string render_json(const Validation& v);

}  // namespace kc::validate
