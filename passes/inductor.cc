#include "passes/inductor.h"

#include <numeric>
#include <set>

#include "analyzer/tensor_geometry.h"
#include "passes/fusion_groups.h"
#include "passes/inductor_builder.h"

namespace kc {
namespace inductor {

// Whether a value is written by a Triton kernel or a convolution (channels last already).
// Whether value v reads its buffer in the buffer's own element order: the buffer itself, or a
// view of all of it that keeps the order (view, reshape, unsqueeze of a dense buffer).
bool Builder::same_order(int v) const {
  const int b = base[v];
  if (v == b) return true;
  const Value& x = g.values[v];
  const Value& whole = g.values[b];
  return x.numel() == whole.numel() && x.storage_offset == whole.storage_offset &&
         row_major_dense(x.sizes, x.strides) && row_major_dense(whole.sizes, whole.strides);
}

// Lowers every op in graph order, lays out its buffers, then decides which Triton values are
// computed into memory.
void Builder::lower_and_realize() {
  const size_t nops = g.ops.size();
  lower.assign(nops, Lower::kFree);
  why.assign(nops, "");
  realized.assign(nops, false);
  realized_on_reuse.assign(nops, false);
  read_count.assign(nops, 0);
  extern_kernels.assign(nops, 0);
  copy_bytes.assign(nops, 0);
  decomposed_traffic.assign(nops, std::nullopt);
  n_of.assign(nops, 0);
  r_of.assign(nops, 1);
  node_of.assign(nops, -1);
  first_reader_.assign(nops, static_cast<int>(nops));
  absorbed_into.assign(nops, -1);
  stages.assign(nops, 1);
  stat_chains.assign(nops, 0);
  stat_n.assign(nops, 0);
  stat_r.assign(nops, 0);
  stat_stages.assign(nops, 1);
  // Lowering a reduction reads the layout of its input's buffer: bases grow with the lowering.
  base.resize(g.values.size());
  std::iota(base.begin(), base.end(), 0);
  layout.resize(g.values.size());
  leaf_reads.assign(nops, {});
  for (size_t v = 0; v < g.values.size(); ++v) layout[v] = g.values[v].strides;
  for (size_t k = 0; k < nops; ++k) {
    lower_op(static_cast<int>(k));
    if (lower[k] == Lower::kFree) {
      const std::vector<int> in = g.ops[k].tensor_inputs();
      for (int v : g.ops[k].outputs)
        if (v >= 0 && !in.empty() && v != in[0]) base[v] = base[in[0]];
    }
    lay_out(static_cast<int>(k));
  }
  base = alias_bases(g, [&](int i) { return lower[i] == Lower::kFree; });
  readers.assign(g.values.size(), {});
  for (size_t k = 0; k < nops; ++k) {
    if (lower[k] == Lower::kFree) continue;
    std::set<int> seen;
    g.ops[k].for_each_tensor_input([&](int v) {
      if (seen.insert(base[v]).second) readers[base[v]].push_back(static_cast<int>(k));
    });
  }
  returned.assign(g.values.size(), false);
  for (int v : g.outputs)
    if (v >= 0) returned[base[v]] = true;
  find_operand_copies();
  find_padded_gemms();
  realize();
}

FusionPlan Builder::run() {
  layout_opt = decide_layout_opt();
  forced_layout.assign(g.ops.size(), {});
  realized_before.clear();
  frozen_row_major.assign(g.ops.size(), false);
  lower_and_realize();
  // Inductor realizes a value as it lowers it, before its readers are lowered, and fixes the
  // layout of one realized on reuse; both are known here only after the whole graph is: the
  // graph is lowered again with them, so that a reader of a realized loop reads its buffer
  // (not the loop's own reads) and sees the layouts fixed channels last.
  forced_layout = reuse_channels_last();
  frozen_row_major = frozen_by_views();
  realized_before = realized;
  lower_and_realize();
  price_externs();
  schedule();
  return build();
}

}  // namespace inductor

FusionPlan run_inductor(const Graph& g, const std::vector<Launch>& launches, const std::vector<Traffic>& traffic,
                        const Target& target) {
  return inductor::with_lowered_graph(g, launches, traffic, target, [](inductor::Builder& b) { return b.run(); });
}

}  // namespace kc
