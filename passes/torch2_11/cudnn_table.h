// The cuDNN answers built into kernelcount, one table per target: cuDNN's heuristic choice for
// every convolution of the committed models (data/corpus, tests/models), asked with the
// target's device properties, so that those shapes never need cuDNN loaded, or installed.
// generators/cudnn_table.py --target FOLDER writes a target's table
// (passes/targets/<folder>/cudnn_answers.txt) and checks that it is current. It is linked in
// as text: inflating 1.2 MB cost more than the rest of a ResNet-50's analysis.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "passes/torch2_11/cudnn_answers.h"

namespace kc::torch2_11 {

// The table: the cuDNN version and device properties (hash) it was asked with, and its answer
// lines, sorted, each read only when looked up (reading all 14,000 took longer than the rest of
// a ResNet-50's analysis).
class CudnnTable : public CudnnAnswerTable {
 public:
  size_t version = 0;  // 0: no table (none built in, or damaged)
  std::string properties_hash;

  bool find(const std::string& key, std::optional<CudnnEngineChoice>& answer) const override;
  size_t size() const override { return lines_.size(); }

 private:
  friend bool read_cudnn_table(std::string_view text, CudnnTable& t);
  std::vector<std::string_view> lines_;  // into the text read, which outlives the table; sorted
};

// A target's table from its text (Target::tables.cudnn_answers, linked in), indexed on first
// use; version 0 where there are none.
const CudnnTable& cudnn_table(std::string_view text);

// A table's text ("# cuDNN VERSION properties HASH" then answer lines) read into t, whose lines
// point into text: it must outlive t. False for a text without that first line. A damaged line
// answers nothing.
bool read_cudnn_table(std::string_view text, CudnnTable& t);

}  // namespace kc::torch2_11
