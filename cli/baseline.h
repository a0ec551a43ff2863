// Comparison with a baseline (--baseline): the same model before a change, as a model file
// (analyzed by main like the model itself) or as a JSON report kernelcount wrote. Computes
// the differences; renderers print them.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "analyzer/graph.h"
#include "passes/report.h"

namespace kc {

// One row of a rollup as a review compares it.
struct Entry {
  std::string name;  // op type, module path or source line
  int64_t ops = 0;
  int64_t kernels = 0;
  int64_t unknown = 0;
  int64_t bytes = 0;
  int depth = 0;  // module tree only
  // Source lines only: the line's text and its ops by type ("linear" -> 2), which pair a line
  // with itself when edits above it moved it.
  std::string code;
  std::map<std::string, int64_t> op_types;
};

// The numbers a review compares: totals, and per module, op type and source line.
struct Summary {
  std::string path;
  std::string target;   // the target it was predicted for; empty when a report does not say
  std::string version;  // the kernelcount that made it
  std::string format;   // the model's format ("pt2", "torchscript"); empty when a report does not say
  std::string fusion;   // whose plan the fused totals are ("pointwise", "inductor"); empty when not said
  std::vector<std::pair<std::string, int64_t>> totals;  // the report's totals, in schema order
  struct Module {
    std::string name;
    int64_t kernels = 0;
    int64_t bytes = 0;
  };
  std::vector<Module> modules;     // flat by_module
  std::vector<Entry> op_types;     // by_op_type
  std::vector<Entry> module_tree;  // module_tree, inclusive
  std::vector<Entry> lines;        // by_line
};

// One changed quantity.
struct Delta {
  std::string name;
  int64_t before = 0;
  int64_t after = 0;
};

// One rollup row on both sides. `status`: "added", "removed", "increased" or "decreased" (kernels,
// each unknown op counted as one), else "changed" (ops or bytes only). A source line's two sides
// may have different names: the same line of code, moved by edits above it.
struct EntryDelta {
  Entry before, after;
  std::string status;
  bool moved() const { return !before.name.empty() && !after.name.empty() && before.name != after.name; }
};

struct BaselineDiff {
  std::string baseline_path;
  std::string fusion;                   // whose plan this report's fused totals are (as Summary's)
  std::vector<std::string> warnings;    // e.g. the baseline was made for another target
  std::vector<Delta> totals;            // every total, changed or not
  std::vector<Delta> module_kernels;    // modules whose eager kernels changed, largest change first
  std::vector<Delta> module_bytes;      // modules whose HBM bytes changed, largest change first
  std::vector<EntryDelta> op_types;     // op types whose count, kernels, unknown ops or bytes changed
  std::vector<EntryDelta> module_tree;  // modules (inclusive) whose kernels or bytes changed
  std::vector<EntryDelta> lines;        // source lines whose kernels or bytes changed (moved lines matched)
  int64_t total(const std::string& name, bool after) const;
  // The after side's source lines ("file:line") whose ops or costs changed, or that are new.
  std::vector<const EntryDelta*> changed_lines() const;
};

// The numbers of an analyzed model.
Summary summarize(const Graph& g, const Report& r, const std::string& version);
// A baseline given as a report: kernelcount --format json output. Throws Error.
Summary read_report_summary(const std::string& path);
// Whether a --baseline path names a JSON report (else a model to analyze).
bool is_report_path(const std::string& path);
// Rows changed between the two sides; sorted by the largest kernel change, then bytes. Source
// lines are paired by their text, file by file, as `diff` pairs lines: a line that only moved
// (a line added above it) is no change.
BaselineDiff diff(const Summary& before, const Summary& after);
// A total's name for people: "eager kernels", "HBM bytes (fused)"; the JSON key when unknown.
std::string total_label(const std::string& key, const std::string& fusion = "");

}  // namespace kc
