// Sums per-op results by the user's source line or by module (short names "line", "module").
#pragma once

#include <string>
#include <vector>

#include "analyzer/graph.h"
#include "passes/report.h"

namespace kc {

struct RollupRow {
  std::string key;    // "model.py:42" or "layer1.0.conv1"; "(top level)" for the model's own
                      // forward(), "(none)" when the file records nothing
  std::string code;   // the source line's text, for --by line
  int ops = 0;
  int eager_kernels = 0;
  int memcpy = 0;
  int memset = 0;
  int host_syncs = 0;
  int unknown_ops = 0;
  int transfers = 0;
  int64_t bytes = 0;
  int first_op = 0;   // rows are ordered by their first op
};

enum class RollupKey { kLine, kModule };

std::vector<RollupRow> rollup(const Graph& g, const Report& r, RollupKey key);

}  // namespace kc
