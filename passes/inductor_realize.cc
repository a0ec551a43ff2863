#include <algorithm>

#include "passes/inductor_builder.h"
#include "passes/op_classes.h"

namespace kc::inductor {

// Whether op u reads base value b only through a copy it makes first.
bool Builder::reads_through_copy(int u, int b) const {
  bool copied = false, direct = false;
  g.ops[u].for_each_tensor_input([&](int v) {
    if (base[v] != b) return;
    const auto& c = operand_copies[u];
    // A padded buffer is computed into memory first, then copied out of its padding.
    (std::find(c.begin(), c.end(), v) != c.end() && !crosses_padding(v) ? copied : direct) = true;
  });
  return copied && !direct;
}

bool Builder::returned_output(int i) const {
  for (int v : g.ops[i].outputs)
    if (v >= 0 && returned[base[v]]) return true;
  return false;
}

// The Triton op whose buffer in-place op i writes into (its mutated argument's base), or -1.
int Builder::mutates_triton_buffer(int i) const {
  const Op& op = g.ops[i];
  if (!op.traits.inplace || op.traits.mutated_args.empty()) return -1;
  const Arg& a = op.args.at(op.traits.mutated_args[0]);
  if (a.tensors.empty() || a.tensors[0] < 0) return -1;
  const int p = g.values[base[a.tensors[0]]].producer;
  return p >= 0 && p < i && (lower[p] == Lower::kPointwise || lower[p] == Lower::kReduction) ? p : -1;
}

void Builder::realize() {
  // Accumulated reads and op counts of each value's inlined expression (capped).
  std::vector<std::set<int>> reads(g.ops.size());
  std::vector<int> opcount(g.ops.size(), 0);
  for (size_t k = 0; k < g.ops.size(); ++k) {
    const int i = static_cast<int>(k);
    if (lower[i] != Lower::kPointwise) continue;
    const Op& op = g.ops[i];
    opcount[i] = 1;
    op.for_each_tensor_input([&](int v) {
      const int b = base[v];
      const int p = g.values[b].producer;
      if (p >= 0 && lower[p] == Lower::kPointwise && !realized[p]) {
        for (int x : reads[p])
          if (reads[i].size() <= kRealizeAccReadsThreshold) reads[i].insert(x);
        opcount[i] += opcount[p];
      } else if (g.values[b].placement == Placement::kDevice) {
        if (reads[i].size() <= kRealizeAccReadsThreshold) reads[i].insert(b);
      }
    });
    int users = 0;
    bool needs_buffer = false, pooled = false;
    for (int v : op.outputs) {
      if (v < 0) continue;
      if (returned[base[v]]) needs_buffer = true;
      for (int u : readers[base[v]]) {
        ++users;
        if (lower[u] != Lower::kPointwise && lower[u] != Lower::kReduction && !reads_through_copy(u, base[v]))
          needs_buffer = true;
        // Pooling lowerings call realize_hint() on their input: a window reads each element
        // several times, so the input is computed once into memory.
        if (op_class(g.ops[u]) == OpClass::kPool && name_has(g.ops[u], "pool")) pooled = true;
      }
    }
    const bool large = opcount[i] > kRealizeOpcountThreshold;
    const int nreads = static_cast<int>(reads[i].size());
    if (needs_buffer) {
      realized[i] = true;
      why[i] += "; computed into memory: a library kernel or the caller reads it";
    } else if (pooled) {
      realized[i] = true;
      why[i] += "; computed into memory: a pooling window reads it";
    } else if (users > 1 && (nreads > kRealizeReadsThreshold || large)) {
      realized[i] = true;
      why[i] += "; computed into memory: read by several ops and costly to recompute";
    } else if (nreads > kRealizeAccReadsThreshold || large) {
      realized[i] = true;
      why[i] += "; computed into memory: its inlined expression reads too much";
    } else if (users == 0 && mutates_triton_buffer(i) >= 0) {
      // Functionalized, an in-place write into a slice of a buffer a loop computes is a
      // slice_scatter of it: the buffer is realized and the write joins its kernel.
      const int p = mutates_triton_buffer(i);
      absorbed_into[i] = p;
      realized[p] = true;
      why[i] += "; an in-place write into the buffer op " + std::to_string(p) + " computes, part of its kernel";
    } else if (users == 0 && !returned_output(i)) {
      why[i] += "; read by nothing: removed as dead code";
    } else if (users == 0) {
      realized[i] = true;  // returned
    } else {
      why[i] += "; inlined into its readers";
    }
  }
}

}  // namespace kc::inductor
