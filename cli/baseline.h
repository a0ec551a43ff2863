// Comparison with a baseline (--baseline): the same model before a change, as a model file or
// as a JSON report kernelcount wrote. Computes the differences; renderers print them.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "analyzer/graph.h"
#include "analyzer/load.h"
#include "passes/launches.h"
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

Summary summarize(const Graph& g, const Report& r);
// Reads a baseline: a JSON report (kernelcount --format json) or a model, analyzed with the
// same load options and launch options. Throws Error.
Summary read_baseline(const std::string& path, const LoadOptions& load, const Target& target,
                      const LaunchOptions& launches);
BaselineDiff diff(const Summary& before, const Summary& after);

}  // namespace kc
