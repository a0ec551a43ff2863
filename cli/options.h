// Command-line options of kernelcount and their parsing.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "analyzer/load.h"

namespace kc {

struct Options {
  std::string model;
  LoadOptions load;
  std::string format = "text";       // a name from cli/formats.h
  std::string by = "summary";        // summary | op | line | module | op-type | kernel
  std::optional<int> top;            // --top N: rows per table
  std::string sort;                  // kernels | bytes | ops | flops | time | order; empty: the view's default
  std::optional<int> depth;          // --depth N: module tree depth
  bool legend = false;               // --legend: explain the columns
  std::string source_root;           // --source-root DIR for sarif and github findings; default: cwd
  std::string findings;              // --findings changed|all for sarif and github; empty: changed
  std::string fusion = "pointwise";  // --fusion: which plan fills the fused columns (pointwise | inductor)
  std::string target;                // a name from passes/targets/registry.cc; empty: the default target
  bool list_rules = false;
  bool use_measured = true;                   // --no-measured turns the measured table off
  std::vector<std::string> exclude_measured;  // --exclude-measured NAME
  std::string output;                         // --output FILE; stdout when empty
  // Budgets: exceeding one exits with status 1 after the report.
  std::optional<int64_t> max_kernels, max_fused_kernels, max_bytes, max_unknown, max_host_syncs;
  std::string baseline;  // --baseline FILE: a model or a JSON report to compare with
  std::optional<int64_t> max_kernel_increase, max_bytes_increase;  // budgets against the baseline
};

// Parses argv. Returns nullopt after printing --help or --version (exit 0); throws
// Error for bad usage.
std::optional<Options> parse_options(int argc, char** argv, const std::string& version_line);

// "12", "1.5G", "300MB", "64KiB": a byte count with an optional decimal or binary unit; throws
// Error naming `flag` (when given) and the text.
int64_t parse_byte_count(const std::string& s, const std::string& flag = "");

}  // namespace kc
