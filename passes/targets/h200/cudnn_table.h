// The cuDNN answers built into kernelcount: cuDNN's heuristic choice for every convolution of
// the committed models (validate/corpus, tests/models), asked as the built-in H200, so that
// those shapes never need cuDNN loaded, or installed. scripts/cudnn_table.py writes the table
// (passes/targets/h200/cudnn_answers.txt.gz) and checks that it is current.
#pragma once

#include <string>

#include "passes/targets/h200/cudnn_answers.h"

namespace kc::h200 {

// The table: the cuDNN version and device properties (hash) it was asked with, and its answers.
struct CudnnTable {
  size_t version = 0;  // 0: no table (none built in, or damaged)
  std::string properties_hash;
  CudnnAnswerMap answers;
};

// The built-in table, decompressed and read on first use (a few milliseconds).
const CudnnTable& cudnn_table();

// A table's text ("# cuDNN VERSION properties HASH" then answer lines) read into t; false for a
// text without that first line. Damaged lines are skipped.
bool read_cudnn_table(std::string_view text, CudnnTable& t);

}  // namespace kc::h200
