// A plain-text table with aligned columns, and the number formats every renderer shares.
#pragma once

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include "analyzer/graph.h"

namespace kc {

class Table {
 public:
  // Columns whose name starts with '>' are right-aligned (the '>' is not printed).
  explicit Table(std::vector<std::string> columns);
  void add(std::vector<std::string> row);
  // Aligned plain text for a terminal.
  void print(std::ostream& os) const;
  // A GitHub-flavoured markdown table (markdown punctuation in cells escaped), followed by a blank line so
  // that what comes next is not read as a row.
  void print_markdown(std::ostream& os) const;
  size_t size() const { return rows_.size(); }

 private:
  std::vector<std::string> header_;
  std::vector<bool> right_;
  std::vector<std::vector<std::string>> rows_;
};

// Backslash-escaped so that source code and module names print as written in markdown, never
// as emphasis, links or raw HTML.
std::string markdown_escape(const std::string& text);
// "12.6 MB", "512 B": decimal units, as bandwidths are quoted.
std::string format_bytes(int64_t bytes);
// "1.05 M", "3.2 G": FLOPs in decimal units.
std::string format_flops(double flops);
// "3.2 us", "1.41 ms".
std::string format_seconds(double s);
// "model.py:42"; empty when the op has no location.
std::string format_loc(const SourceLoc& loc);
// "add.Tensor", "relu": the op's name without "aten::" and without a default overload.
std::string short_op(const Op& op);

}  // namespace kc
