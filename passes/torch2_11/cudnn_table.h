// The cuDNN answers built into kernelcount, one table per target: cuDNN's heuristic choice for
// every convolution of the committed models (data/corpus, tests/models), asked with the
// target's device properties, so that those shapes never need cuDNN loaded, or installed.
// generators/cudnn_table.py --target FOLDER writes a target's table
// (passes/targets/<folder>/cudnn_answers.txt.gz) and checks that it is current.
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
  std::string text_;
  std::vector<std::string_view> lines_;  // into text_, sorted
};

// A target's table from its gzip-compressed bytes (Target::tables.cudnn_answers_gz),
// decompressed and indexed on first use (a few milliseconds); version 0 where there are none.
const CudnnTable& cudnn_table(std::string_view gz);

// A table's text ("# cuDNN VERSION properties HASH" then answer lines) read into t; false for a
// text without that first line. A damaged line answers nothing.
bool read_cudnn_table(std::string_view text, CudnnTable& t);

}  // namespace kc::torch2_11
