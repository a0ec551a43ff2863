// Comparison with a baseline (--baseline): the same model before a change, as a model file
// (analyzed by main like the model itself) or as a JSON report kernelcount wrote. Computes
// the differences; renderers print them.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "analyzer/graph.h"
#include "passes/report.h"

namespace kc {

// The numbers a review compares: totals, and per module its eager kernels and HBM bytes.
struct Summary {
  std::string path;
  std::vector<std::pair<std::string, int64_t>> totals;  // the report's totals, in schema order
  struct Module {
    std::string name;
    int64_t kernels = 0;
    int64_t bytes = 0;
  };
  std::vector<Module> modules;
};

// One changed quantity.
struct Delta {
  std::string name;
  int64_t before = 0;
  int64_t after = 0;
};

struct BaselineDiff {
  std::string baseline_path;
  std::vector<Delta> totals;            // every total, changed or not
  std::vector<Delta> module_kernels;    // modules whose eager kernels changed, largest change first
  std::vector<Delta> module_bytes;      // modules whose HBM bytes changed, largest change first
  int64_t total(const std::string& name, bool after) const;
};

// The numbers of an analyzed model.
Summary summarize(const Graph& g, const Report& r);
// A baseline given as a report: kernelcount --format json output. Throws Error.
Summary read_report_summary(const std::string& path);
// Whether a --baseline path names a JSON report (else a model to analyze).
bool is_report_path(const std::string& path);
BaselineDiff diff(const Summary& before, const Summary& after);

}  // namespace kc
