#include "passes/hbm_traffic.h"

#include <algorithm>

#include "passes/launches.h"

namespace kc {
namespace {

int64_t prod(const std::vector<int64_t>& v, size_t from = 0, size_t to = SIZE_MAX) {
  int64_t n = 1;
  for (size_t i = from; i < v.size() && i < to; ++i) n *= v[i];
  return n;
}

}  // namespace

int64_t op_flops(const Graph& g, const Op& op) {
  auto ins = op.tensor_inputs();
  auto in = [&](size_t i) -> const Value* { return i < ins.size() ? &g.values[ins[i]] : nullptr; };
  const Value* out = nullptr;
  for (int v : op.outputs)
    if (v >= 0) {
      out = &g.values[v];
      break;
    }
  const std::string& n = op.name;
  if ((n == "aten::linear" || n == "aten::matmul" || n == "aten::mm" || n == "aten::bmm" || n == "aten::addmm" ||
       n == "aten::baddbmm") &&
      in(0) && out && !in(0)->sizes.empty()) {
    // K is the contracted dim of the left operand; the output holds every (m, n) pair.
    int64_t k = n == "aten::addmm" || n == "aten::baddbmm" ? (in(1) ? in(1)->sizes.back() : 0) : in(0)->sizes.back();
    return 2 * out->numel() * k;
  }
  if ((n == "aten::conv2d" || n == "aten::convolution" || n == "aten::conv1d" || n == "aten::conv3d") && in(1) && out &&
      in(1)->sizes.size() >= 3) {
    // Each output element is a dot product over Cin/groups * kernel elements.
    return 2 * out->numel() * prod(in(1)->sizes, 1);
  }
  if (n == "aten::scaled_dot_product_attention" && in(0) && in(1) && in(0)->sizes.size() >= 2) {
    const auto& q = in(0)->sizes;
    int64_t l = q[q.size() - 2], d = q.back();
    int64_t s = in(1)->sizes[in(1)->sizes.size() - 2];
    return 4 * prod(q, 0, q.size() - 2) * l * s * d;
  }
  return out ? out->numel() : 0;
}

std::vector<Traffic> run_hbm_traffic(const Graph& g, const std::vector<Launch>& launches) {
  std::vector<Traffic> out(g.ops.size());
  // Host tensors (a CPU scalar multiplying a GPU tensor) never touch HBM.
  const std::string device = model_device(g);
  auto in_hbm = [&](int v) { return g.values[v].device == device || g.values[v].device.rfind("cpu", 0) != 0; };
  for (size_t i = 0; i < g.ops.size(); ++i) {
    const Op& op = g.ops[i];
    const Launch& l = launches[i];
    // An unknown op is assumed to do work unless its schema makes it a view: its traffic is
    // still the arrays it must touch.
    const bool moves = l.known ? (l.kernels + l.memcpy) > 0 : !op.traits.view;
    if (!moves) continue;
    Traffic& t = out[i];
    std::vector<int> reads = op.tensor_inputs();
    std::sort(reads.begin(), reads.end());
    reads.erase(std::unique(reads.begin(), reads.end()), reads.end());
    for (int v : reads) {
      if (!in_hbm(v)) continue;
      ++t.reads;
      t.read_bytes += g.values[v].bytes();
    }
    std::vector<int> writes;
    for (int v : op.outputs)
      if (v >= 0) writes.push_back(v);
    std::sort(writes.begin(), writes.end());
    writes.erase(std::unique(writes.begin(), writes.end()), writes.end());
    for (int v : writes) {
      if (!in_hbm(v)) continue;
      ++t.writes;
      t.write_bytes += g.values[v].bytes();
    }
    t.flops = op_flops(g, op);
  }
  return out;
}

}  // namespace kc
