#include "passes/hbm_traffic.h"

#include <algorithm>

#include "analyzer/error.h"
#include "passes/op_classes.h"

namespace kc {
namespace {

// Each distinct array once, at its own size; host tensors (a CPU scalar multiplying a GPU
// tensor) never touch HBM.
void count_arrays(const Graph& g, std::vector<int> values, int& arrays, int64_t& bytes) {
  std::sort(values.begin(), values.end());
  values.erase(std::unique(values.begin(), values.end()), values.end());
  for (int v : values) {
    if (v < 0 || g.values[v].placement != Placement::kDevice) continue;
    ++arrays;
    bytes = add_checked(bytes, g.values[v].bytes(), "HBM bytes");
  }
}

}  // namespace

std::vector<Traffic> run_hbm_traffic(const Graph& g, const std::vector<Launch>& launches) {
  std::vector<Traffic> out(g.ops.size());
  for (size_t i = 0; i < g.ops.size(); ++i) {
    const Op& op = g.ops[i];
    const Launch& l = launches[i];
    // An unknown op is assumed to do work unless its schema makes it a view: its traffic is
    // still the arrays it must touch.
    const bool moves = l.known ? (l.counts.kernels + l.counts.memcpy) > 0 : !op.traits.view;
    if (!moves) continue;
    Traffic& t = out[i];
    try {
      count_arrays(g, op.tensor_inputs(), t.reads, t.read_bytes);
      count_arrays(g, op.outputs, t.writes, t.write_bytes);
      t.bytes();
      t.flops = op_flops(g, op);
    } catch (const OpError&) {
      throw;
    } catch (const Error& e) {
      throw OpError(static_cast<int>(i), e.what());
    }
  }
  return out;
}

}  // namespace kc
