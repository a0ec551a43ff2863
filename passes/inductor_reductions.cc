// How a reduction is split into kernels (ir.Reduction.create, num_splits, create_multilayer)
// and whether the pointwise epilogue of a norm or a softmax joins the kernel of its statistics.
#include <algorithm>
#include <cstdlib>

#include "analyzer/tensor_geometry.h"
#include "passes/inductor_builder.h"
#include "passes/op_classes.h"

namespace kc::inductor {
namespace {

bool softmax_like(const Op& op) {
  return op.name.find("softmax") != std::string::npos && op.name.find("backward") == std::string::npos;
}

}  // namespace

// The dims of its input that an op reduces, in the input's dim order; empty when unknown.
std::vector<int> Builder::reduced_dims(const Op& op) const {
  const Value* x = in0(op);
  if (!x) return {};
  const int rank = static_cast<int>(x->sizes.size());
  std::vector<int> dims;
  auto add = [&](int64_t d) {
    if (d < 0) d += rank;
    if (d >= 0 && d < rank && std::find(dims.begin(), dims.end(), d) == dims.end()) dims.push_back(static_cast<int>(d));
  };
  const OpClass c = op_class(op);
  if (name_has(op, "layer_norm") || name_has(op, "rms_norm")) {
    const Arg* shape = arg(op, "normalized_shape");
    const int k = shape ? static_cast<int>(shape->ints.size()) : 1;
    for (int d = rank - k; d < rank; ++d) add(d);
  } else if (name_has(op, "group_norm") || name_has(op, "instance_norm")) {
    for (int d = name_has(op, "group_norm") ? 1 : 2; d < rank; ++d) add(d);
  } else if (c == OpClass::kNorm) {
    for (int d = 0; d < rank; ++d)
      if (d != 1) add(d);
  } else if (c == OpClass::kPool) {
    for (int d = std::max(rank - 2, 0); d < rank; ++d) add(d);
  } else {
    const Arg* a = arg(op, "dim");
    if (a && !a->ints.empty()) {
      for (int64_t d : a->ints) add(d);
    } else if (!softmax_like(op) && c != OpClass::kScan) {
      for (int d = 0; d < rank; ++d) add(d);
    }
  }
  std::sort(dims.begin(), dims.end());
  return dims;
}

// The strides Inductor's buffer gives value v (inductor_layouts.cc), as far as it is laid out.
std::vector<int64_t> Builder::inductor_strides(int v) const {
  return layout[v].size() == g.values[v].sizes.size() ? layout[v] : g.values[v].strides;
}

// The kernels of a reduction of n outputs over r elements: Reduction.create splits it into a
// reduction to n x split partial results (itself created again, so split again where its own
// size calls for it) and a last reduction of those (never split). `outer`: the first level
// reads its elements with no unit stride; `outer_rest`: a partial level's elements (a block of
// the flattened reduction) lie apart, the innermost reduced dim having no unit stride.
int Builder::split_stages(int64_t n, int64_t r, bool outer, bool outer_rest) const {
  int levels = 1;
  for (int64_t split = num_splits(n, r, outer); split > 1 && levels < 8; split = num_splits(n, r, outer)) {
    ++levels;
    n *= split;
    r = (r + split - 1) / split;
    outer = outer_rest;
  }
  return levels;
}

// Records how reduction op i (n outputs over r elements) is lowered: the kernels its
// reduction is split into and, for a norm or a softmax, whether its epilogue is a pointwise
// loop of its own. The epilogue joins the reduction's kernel only where that kernel is not
// split and the epilogue reads each statistic at the index the reduction writes it
// (Scheduler.fusable_read_and_write): a group norm's statistics are per group of channels, a
// batch norm's per channel, which a loop over the normalized tensor reads broadcast.
void Builder::plan_reduction(int i, int64_t n, int64_t r) {
  const Op& op = g.ops[i];
  n_of[i] = n;
  r_of[i] = r;
  const std::vector<int> in = op.tensor_inputs();
  const std::vector<int> dims = reduced_dims(op);
  const bool group = name_has(op, "group_norm");
  std::vector<int64_t> sizes, strides;
  if (!in.empty()) {
    sizes = g.values[in[0]].sizes;
    strides = inductor_strides(in[0]);
  }
  const int64_t groups = std::max<int64_t>(int_arg(op, "num_groups", int_arg(op, "group", 1)), 1);
  auto extent = [&](int d) { return group && d == 1 ? sizes[1] / groups : sizes[d]; };
  // num_splits votes with the reads that index every dim (get_read_indices: a broadcast bias or
  // position table is left out): inner where a reduced dim steps by 1, else outer; its later
  // levels read a block of the flattened reduction, adjacent where the innermost reduced dim
  // steps by 1. A loop reading the input is voted through its own reads.
  std::vector<std::vector<int64_t>> reads;
  if (!in.empty()) {
    const std::vector<std::vector<int64_t>>* through = loop_reads(in[0]);
    reads = through ? *through : std::vector<std::vector<int64_t>>{strides};
  }
  int innermost = -1;
  for (int d : dims)
    if (d < static_cast<int>(sizes.size()) && extent(d) > 1) innermost = d;
  int inner = 0, outer_votes = 0, rest_inner = 0, rest_outer = 0;
  for (const auto& st : reads) {
    if (st.size() != sizes.size() || dims.empty()) continue;
    bool full = true, unit = false;
    for (size_t d = 0; d < sizes.size(); ++d)
      if (sizes[d] > 1 && st[d] == 0) full = false;
    if (!full) continue;
    for (int d : dims)
      if (extent(d) > 1 && std::abs(st[d]) == 1) unit = true;
    ++(unit ? inner : outer_votes);
    if (innermost >= 0) ++(std::abs(st[innermost]) == 1 ? rest_inner : rest_outer);
  }
  const bool outer = inner + outer_votes > 0 && inner <= outer_votes;
  // A reduction to one value is reindexed over its dense dim (check_for_split_dense_dim_reindexing).
  const bool outer_rest = n != 1 && rest_inner + rest_outer > 0 && rest_inner <= rest_outer;
  if (inner + outer_votes == 0 && n != 1) {
    stages[i] = 1;  // no read indexes every dim: num_splits does not split
  } else if (op_class(op) == OpClass::kScan) {
    stages[i] = num_splits(n, r, outer) > 1 ? 2 : 1;
  } else {
    stages[i] = split_stages(n, r, outer, outer_rest);
  }
  int chains = 0;
  if (op_class(op) == OpClass::kNorm) {
    bool mismatched = false;
    if (group || name_has(op, "instance_norm") || !name_has(op, "layer_norm")) {
      const bool per_channel = !group && !name_has(op, "instance_norm") && !name_has(op, "rms_norm");
      const bool row_major = row_major_dense(sizes, strides);
      if (group)
        mismatched = (sizes.size() > 1 && sizes[1] / groups > 1) || !row_major;
      else if (per_channel)
        mismatched = (!sizes.empty() && sizes[0] > 1) || !row_major;
      else if (name_has(op, "instance_norm"))
        mismatched = !row_major;
    }
    // A layer norm laid out channels last as it is reused (reuse_channels_last) writes its
    // rows strided: its epilogue no longer iterates as its statistics do.
    // Read as many times along its rows as across them (a reused buffer laid out channels
    // last added to a row-major one), a layer norm's reduction is tiled over two dims of its
    // rows, which its epilogue's loop does not share.
    const bool tiled = name_has(op, "layer_norm") && inner > 0 && inner == outer_votes;
    if (stages[i] > 1 || mismatched || !forced_layout[i].empty() || tiled) chains = 1;
  } else if (softmax_like(op) && stages[i] > 1) {
    chains = 2;  // prepare_softmax_online is not split: its maximum, then the sum of exponentials
  }
  const std::string levels = std::to_string(stages[i]);
  if (chains == 0) {
    if (stages[i] > 1) why[i] += "; split into " + levels + " kernels (partial reductions, then theirs)";
    return;
  }
  stat_chains[i] = chains;
  stat_n[i] = n;
  stat_r[i] = r;
  stat_stages[i] = stages[i];
  stages[i] = 1;
  n_of[i] = out_numel(op);
  r_of[i] = 1;
  lower[i] = Lower::kPointwise;
  why[i] += chains == 2 ? "; split, so its maximum and its sum are reductions of their own ("
                        : "; its statistics are a reduction of their own (";
  why[i] +=
      levels + (levels == "1" ? " kernel" : " kernels each") + "), and its epilogue a pointwise loop reading them";
}

}  // namespace kc::inductor
