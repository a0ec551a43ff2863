#include "passes/hbm_traffic.h"

#include <algorithm>
#include <limits>

#include "analyzer/error.h"
#include "passes/op_classes.h"

namespace kc {
namespace {

// Each distinct array once, at its own size; host tensors (a CPU scalar multiplying a GPU
// tensor) never touch HBM.
void keep_device_arrays(const Graph& g, std::vector<int>& values) {
  std::sort(values.begin(), values.end());
  values.erase(std::unique(values.begin(), values.end()), values.end());
  values.erase(std::remove_if(values.begin(), values.end(),
                              [&](int v) { return v < 0 || g.values[v].placement != Placement::kDevice; }),
               values.end());
}

int64_t bytes_of(const Graph& g, const std::vector<int>& values) {
  int64_t bytes = 0;
  for (int v : values) bytes = add_checked(bytes, g.values[v].bytes(), "HBM bytes");
  return bytes;
}

}  // namespace

void hbm_arrays(const Graph& g, int i, const Launch& l, HbmArrays& out) {
  const Op& op = g.ops[i];
  out.reads.clear();
  out.writes.clear();
  // An unknown op is assumed to do work unless its schema makes it a view: its traffic is
  // still the arrays it must touch.
  out.moves = l.known ? (l.counts.kernels + l.counts.memcpy) > 0 : !op.traits.view;
  if (!out.moves) return;
  op.for_each_tensor_input([&](int v) { out.reads.push_back(v); });
  keep_device_arrays(g, out.reads);
  out.writes.assign(op.outputs.begin(), op.outputs.end());
  keep_device_arrays(g, out.writes);
}

HbmArrays hbm_arrays(const Graph& g, int i, const Launch& l) {
  HbmArrays out;
  hbm_arrays(g, i, l, out);
  return out;
}

std::vector<Traffic> run_hbm_traffic(const Graph& g, const std::vector<Launch>& launches) {
  std::vector<Traffic> out(g.ops.size());
  HbmArrays arrays;
  for (size_t i = 0; i < g.ops.size(); ++i) {
    hbm_arrays(g, static_cast<int>(i), launches[i], arrays);
    if (!arrays.moves) continue;
    Traffic& t = out[i];
    t.reads = static_cast<int>(arrays.reads.size());
    t.writes = static_cast<int>(arrays.writes.size());
    try {
      t.read_bytes = bytes_of(g, arrays.reads);
      t.write_bytes = bytes_of(g, arrays.writes);
      t.bytes();
      t.flops = op_flops(g, g.ops[i]);
      if (const int64_t r = g.ops[i].repeat; r > 1) {
        // Every run moves its arrays again (a loop's trips).
        const int64_t reads = mul_checked(t.reads, r, "HBM transfers");
        const int64_t writes = mul_checked(t.writes, r, "HBM transfers");
        check(reads + writes <= std::numeric_limits<int>::max() / 2, "its loop moves more arrays than can be counted");
        t.reads = static_cast<int>(reads);
        t.writes = static_cast<int>(writes);
        t.read_bytes = mul_checked(t.read_bytes, r, "HBM bytes");
        t.write_bytes = mul_checked(t.write_bytes, r, "HBM bytes");
        t.flops = mul_checked(t.flops, r, "FLOPs");
      }
    } catch (const OpError&) {
      throw;
    } catch (const Error& e) {
      throw OpError(static_cast<int>(i), e.what());
    }
  }
  return out;
}

}  // namespace kc
