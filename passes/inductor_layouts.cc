// The strides Inductor gives each value's buffer, which need not be the ones the graph records
// (eager's): a Triton loop's buffer is laid out in the order its reads vote for
// (ComputedBuffer.get_fill_order, scheduler.pick_loop_order), a convolution's output is channels
// last under layout optimization, a view steps through its base's layout.
#include <algorithm>
#include <cstdlib>
#include <set>
#include <utility>

#include "analyzer/tensor_geometry.h"
#include "passes/inductor_builder.h"
#include "passes/op_classes.h"

namespace kc::inductor {
namespace {

constexpr size_t kMaxVotes = 64;  // reads a loop's layout is voted by: past these, any will do

// Strides of `view`, a view of the dense buffer `base` (`base.strides` as the graph records
// them), once that buffer is laid out with `new_strides` instead: each view dimension must step
// through the new layout by a fixed amount. Empty when some dimension does not (a merge of dims
// that the new layout orders otherwise), or when the base is not dense.
std::vector<int64_t> restride(const Value& view, const Value& base, const std::vector<int64_t>& new_strides) {
  const size_t rank = base.sizes.size();
  if (base.strides.size() != rank || new_strides.size() != rank) return {};
  std::vector<size_t> order(rank);
  for (size_t d = 0; d < rank; ++d) order[d] = d;
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return base.strides[a] > base.strides[b]; });
  int64_t expected = 1;
  for (size_t k = rank; k-- > 0;) {
    const size_t d = order[k];
    if (base.sizes[d] == 1) continue;
    if (base.strides[d] != expected) return {};
    expected *= base.sizes[d];
  }
  // An element's address in the new layout, from its address in the recorded one.
  auto moved = [&](int64_t at) {
    int64_t out = 0;
    for (size_t d : order)
      if (base.sizes[d] > 1) out += (at / base.strides[d]) % base.sizes[d] * new_strides[d];
    return out;
  };
  if (view.strides.size() != view.sizes.size()) return {};
  std::vector<int64_t> out(view.sizes.size(), 0);
  for (size_t d = 0; d < view.sizes.size(); ++d) {
    const int64_t n = view.sizes[d], s = view.strides[d];
    if (n <= 1 || s == 0) continue;
    if (s < 0) return {};
    out[d] = moved(s);
    // A step carries into the next dimension of the base at multiples of that dimension's
    // stride: check the last element and every carry within the view's extent.
    std::vector<int64_t> steps{n - 1};
    for (size_t b = 0; b < rank; ++b)
      if (base.strides[b] > s && base.strides[b] % s == 0 && base.strides[b] / s < n)
        steps.push_back(base.strides[b] / s);
    for (int64_t k : steps)
      if (moved(k * s) != k * out[d]) return {};
  }
  return out;
}

}  // namespace

// scheduler.pick_loop_order: the dims of `sizes`, fastest first, ordered by a vote of the
// reads' strides (a dim goes before another where a read steps it by less, or does not step
// the other), size-1 dims last, ties in row-major order. Sorted as Python's sort does a short
// list (a run, then binary insertion), since the vote need not be a consistent order.
std::vector<int> pick_loop_order(const std::vector<std::vector<int64_t>>& strides, const std::vector<int64_t>& sizes) {
  const int rank = static_cast<int>(sizes.size());
  auto cmp = [&](int a, int b) {
    if (sizes[a] == 1 || sizes[b] == 1) return int{sizes[a] == 1} - int{sizes[b] == 1};
    int a_first = 0, b_first = 0;
    for (const auto& sl : strides) {
      const int64_t sa = std::abs(sl[a]), sb = std::abs(sl[b]);
      a_first += sb == 0 || sa < sb;
      b_first += sa == 0 || sb < sa;
    }
    if (a_first != b_first) return a_first > b_first ? -1 : 1;
    return b > a ? 1 : (b < a ? -1 : 0);
  };
  std::vector<int> order;
  for (int d = rank - 1; d >= 0; --d) order.push_back(d);
  if (rank < 2) return order;
  // count_run: an ascending run, or a strictly descending one reversed.
  size_t run = 2;
  if (cmp(order[1], order[0]) < 0) {
    while (run < order.size() && cmp(order[run], order[run - 1]) < 0) ++run;
    std::reverse(order.begin(), order.begin() + static_cast<long>(run));
  } else {
    while (run < order.size() && cmp(order[run], order[run - 1]) >= 0) ++run;
  }
  for (size_t k = run; k < order.size(); ++k) {
    const int pivot = order[k];
    size_t lo = 0, hi = k;
    while (lo < hi) {
      const size_t mid = (lo + hi) / 2;
      if (cmp(pivot, order[mid]) < 0)
        hi = mid;
      else
        lo = mid + 1;
    }
    order.erase(order.begin() + static_cast<long>(k));
    order.insert(order.begin() + static_cast<long>(lo), pivot);
  }
  return order;
}

// The reads of the pointwise loop computing value v, when v is all of that loop's output in
// its own order (the loop itself, or an identity view of it: dropout in inference), else null;
// null too for a loop the first lowering computed into memory, whose readers load its buffer.
const std::vector<std::vector<int64_t>>* Builder::loop_reads(int v) const {
  const int b = base[v];
  const int p = g.values[b].producer;
  if (p < 0 || lower[p] != Lower::kPointwise || leaf_reads[p].empty()) return nullptr;
  if (!realized_before.empty() && realized_before[p]) return nullptr;  // its buffer is read
  if (b != v && (g.values[v].sizes != g.values[b].sizes || layout[v] != layout[b])) return nullptr;
  return &leaf_reads[p];
}

// Lays out the outputs of op i, once lowered: views step through their base, Triton loops
// follow their inputs' vote, convolutions under layout optimization are channels last; the
// rest (graph inputs, library kernels, what the caller gets back) keep the recorded strides.
void Builder::lay_out(int i) {
  const Op& op = g.ops[i];
  const std::vector<int> in = op.tensor_inputs();
  for (int v : op.outputs) {
    if (v < 0) continue;
    const Value& x = g.values[v];
    layout[v] = x.strides;
    if (x.strides.size() != x.sizes.size() || x.sizes.empty()) continue;
    if (lower[i] == Lower::kFree) {
      const int b = base[v];
      if (b == v) continue;
      std::vector<int64_t> s = restride(x, g.values[b], layout[b]);
      if (!s.empty()) layout[v] = std::move(s);
    } else if (lower[i] == Lower::kExtern && op_class(op) == OpClass::kConv) {
      if (layout_opt && x.sizes.size() >= 4) layout[v] = strides_in_order(x.sizes, channels_last_order(x.sizes.size()));
    } else if (lower[i] == Lower::kPointwise && forced_layout[i].size() == x.sizes.size()) {
      // Realized on reuse channels last (reuse_channels_last): its readers load the buffer.
      layout[v] = forced_layout[i];
    } else if (lower[i] == Lower::kPointwise && frozen_row_major[i] &&
               std::find(g.outputs.begin(), g.outputs.end(), v) == g.outputs.end()) {
      // A library product reads it through a view (frozen_by_views): its flexible layout is
      // fixed as it stands, row major, before any vote of its reads.
      layout[v] = contiguous_strides(x.sizes);
    } else if (lower[i] == Lower::kPointwise || lower[i] == Lower::kReduction) {
      if (std::find(g.outputs.begin(), g.outputs.end(), v) != g.outputs.end()) continue;
      // Each input read at the output's index: its strides over the output's dims, aligned at
      // the last, 0 where it is broadcast. A loop's input that is itself a loop is read through
      // its reads (inlined, its loads are this loop's), unless it is read through a view.
      std::vector<std::vector<int64_t>> reads;
      const size_t rank = x.sizes.size();
      // A reduction short enough to be unrolled into a pointwise loop (a sum over 4 radix
      // splits) reads its input at the output's index with the reduced dims dropped.
      std::vector<int> dropped;
      if (lower[i] == Lower::kPointwise && op_class(op) == OpClass::kReduction && !in.empty() &&
          g.values[in[0]].sizes.size() > rank) {
        dropped = reduced_dims(op);
        if (g.values[in[0]].sizes.size() != rank + dropped.size()) dropped.clear();
      }
      auto kept = [&](const std::vector<int64_t>& v) {
        std::vector<int64_t> out;
        for (size_t k = 0; k < v.size(); ++k)
          if (std::find(dropped.begin(), dropped.end(), static_cast<int>(k)) == dropped.end()) out.push_back(v[k]);
        return out;
      };
      for (int u : in) {
        const Value& y = g.values[u];
        const bool drops = !dropped.empty() && u == in[0];
        const std::vector<int64_t> ysizes = drops ? kept(y.sizes) : y.sizes;
        if (ysizes.size() > rank) continue;
        auto aligned = [&](const std::vector<int64_t>& full) {
          const std::vector<int64_t> ys = drops ? kept(full) : full;
          std::vector<int64_t> s(rank, 0);
          // A cat's or a pad's input covers part of a dim: it still steps it by its stride.
          for (size_t k = 0; k < ysizes.size(); ++k) s[rank - ysizes.size() + k] = ysizes[k] == 1 ? 0 : ys[k];
          if (std::any_of(s.begin(), s.end(), [](int64_t z) { return z != 0; }) && reads.size() < kMaxVotes)
            reads.push_back(std::move(s));
        };
        if (const auto* through = loop_reads(u)) {
          for (const auto& ys : *through)
            if (ys.size() == y.sizes.size()) aligned(ys);
        } else if (layout[u].size() == y.sizes.size()) {
          aligned(layout[u]);
        }
      }
      if (lower[i] == Lower::kPointwise) leaf_reads[i] = reads;
      if (reads.empty()) {
        layout[v] = contiguous_strides(x.sizes);
        continue;
      }
      std::vector<int> order = pick_loop_order(reads, x.sizes);
      layout[v] = strides_in_order(x.sizes, order);
    }
  }
}

// GraphLowering.find_nodes_prefer_channels_last, under layout optimization: per op, whether
// its output prefers channels last. A convolution does, and so does every op some reader of
// whose prefers it (the graph walked backwards); then every reader of a preferring op or
// graph input, transitively (walked forwards), which in a network with a convolution is most
// of it.
std::vector<bool> Builder::prefer_channels_last() const {
  const size_t nops = g.ops.size();
  std::vector<bool> op_in(nops, false), value_in(g.values.size(), false);
  if (!layout_opt) return op_in;
  std::vector<std::vector<int>> users(g.values.size());
  for (size_t k = 0; k < nops; ++k) {
    std::set<int> seen;
    g.ops[k].for_each_tensor_input([&](int v) {
      if (v >= 0 && seen.insert(v).second) users[v].push_back(static_cast<int>(k));
    });
  }
  auto any_user_in = [&](int v) {
    return std::any_of(users[v].begin(), users[v].end(), [&](int u) { return op_in[u]; });
  };
  for (size_t k = nops; k-- > 0;) {
    const Op& op = g.ops[k];
    op_in[k] = op_class(op) == OpClass::kConv;
    for (int v : op.outputs)
      if (v >= 0 && any_user_in(v)) op_in[k] = true;
    // A graph input or weight is a node of its own, in the set when a reader is.
    op.for_each_tensor_input([&](int v) {
      if (v >= 0 && g.values[v].producer < 0 && op_in[k]) value_in[v] = true;
    });
  }
  for (size_t v = 0; v < g.values.size(); ++v)
    if (value_in[v])
      for (int u : users[v]) op_in[u] = true;
  for (size_t k = 0; k < nops; ++k)
    if (op_in[k])
      for (int v : g.ops[k].outputs)
        if (v >= 0)
          for (int u : users[v]) op_in[u] = true;
  return op_in;
}

// GraphLowering.run_node: a value read by several ops that is realized as it is lowered
// (should_realize_on_reuse: more than realize_reads_threshold reads or a large body; or
// has_exceeded_max_reads) gets a channels-last stride order when it is 4-d, dense, prefers
// channels last and is not returned (maybe_apply_channels_last_stride_order). The order is
// make_channels_last_strides_for(the shape of the node read several times): dim 1 fastest
// whatever the dims mean, so a [N, H, W, C] tensor (a convolution's output permuted for a layer
// norm or a linear) is laid out with H fastest and its channels strided, and a reduction over
// them reads it as an outer reduction. Where the loop's one reader is a permute back to
// [N, C, H, W] that several ops read, that permute is the node realized: channels last for it
// is the loop's own row-major order, which changes nothing. Per op: the strides its output is
// laid out with, or none.
std::vector<std::vector<int64_t>> Builder::reuse_channels_last() const {
  std::vector<std::vector<int64_t>> forced(g.ops.size());
  if (!layout_opt) return forced;
  const std::vector<bool> prefer = prefer_channels_last();
  auto dense = [](const Value& x) {
    if (x.strides.size() != x.sizes.size()) return false;
    std::vector<size_t> order(x.sizes.size());
    for (size_t d = 0; d < order.size(); ++d) order[d] = d;
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return x.strides[a] < x.strides[b]; });
    int64_t expected = 1;
    for (size_t d : order) {
      if (x.sizes[d] == 1) continue;
      if (x.strides[d] != expected) return false;
      expected *= x.sizes[d];
    }
    return true;
  };
  // The ops that read value v directly (its FX users).
  std::vector<std::set<int>> direct(g.values.size());
  for (size_t k = 0; k < g.ops.size(); ++k)
    g.ops[k].for_each_tensor_input([&](int v) {
      if (v >= 0) direct[v].insert(static_cast<int>(k));
    });
  for (size_t k = 0; k < g.ops.size(); ++k) {
    const Op& op = g.ops[k];
    if (!prefer[k] || op.outputs.empty() || op.outputs[0] < 0) continue;
    const int out = op.outputs[0];
    const Value& x = g.values[out];
    if (x.sizes.size() != 4 || !dense(x) || returned[base[out]]) continue;
    bool reuse = lower[k] == Lower::kPointwise && realized_on_reuse[k];
    if (lower[k] == Lower::kReduction && op_class(op) == OpClass::kNorm && name_has(op, "layer_norm")) {
      // A layer norm's output is its normalizing epilogue, a pointwise loop reading its input
      // (or what an inlined input reads), the mean, the variance and its affine parameters.
      int reads = 2;
      for (const char* a : {"weight", "bias"})
        if (const Arg* w = arg(op, a); w && !w->tensors.empty() && w->tensors[0] >= 0) ++reads;
      const std::vector<int> in = op.tensor_inputs();
      const int p = in.empty() ? -1 : g.values[base[in[0]]].producer;
      reads += p >= 0 && lower[p] == Lower::kPointwise && !realized[p] ? std::max(read_count[p], 1) : 1;
      std::set<int> users;
      for (int u : readers[base[out]]) users.insert(u);
      reuse = users.size() > 1 && reads > kRealizeReadsThreshold;
    }
    if (!reuse) continue;
    const std::vector<int64_t> own = strides_in_order(x.sizes, channels_last_order(4));
    if (direct[out].size() != 1) {
      forced[k] = own;
      continue;
    }
    const int u = *direct[out].begin();
    const Op& view = g.ops[u];
    const Arg* dims = arg(view, "dims");
    if (view.name != "aten::permute" || lower[u] != Lower::kFree || !dims || dims->ints.size() != 4 ||
        view.outputs.empty() || view.outputs[0] < 0 || direct[view.outputs[0]].size() < 2)
      continue;
    const std::vector<int64_t> vs = strides_in_order(g.values[view.outputs[0]].sizes, channels_last_order(4));
    std::vector<int64_t> strides(4, 0);
    for (size_t d = 0; d < 4; ++d) strides[static_cast<size_t>((dims->ints[d] + 4) % 4)] = vs[d];
    if (strides != contiguous_strides(x.sizes)) forced[k] = strides;
  }
  return forced;
}

// ExternKernel.realize_input: a library product (mm, bmm, addmm) or a convolution reading a loop
// through a view realizes the loop and converts the view to a ReinterpretView of its buffer, freezing its
// FlexibleLayout as it stands, row major, before the layout its reads vote for
// (ComputedBuffer.decide_layout) is ever chosen. (ShViT's attention reads q, k and v as slices of one batch-normed
// convolution output: written row major, the products read them in place.) Per op, from the
// first lowering: whether its buffer is frozen so.
std::vector<bool> Builder::frozen_by_views() const {
  std::vector<bool> frozen(g.ops.size(), false);
  for (size_t k = 0; k < g.ops.size(); ++k) {
    const Op& op = g.ops[k];
    const bool conv = op_class(op) == OpClass::kConv;
    if (lower[k] != Lower::kExtern || (op_class(op) != OpClass::kGemm && !conv)) continue;
    bool first = true;
    for (const Arg& a : op.args) {
      if (a.kind != Arg::Kind::kTensor || a.name == "bias" || a.tensors.empty() || a.tensors[0] < 0) continue;
      // A convolution's weight is a graph input: only its input can be a loop.
      if (conv && !std::exchange(first, false)) continue;
      // Through views and multi-output views (a split's pieces), to the loop writing the buffer.
      int b = base[a.tensors[0]], p = g.values[b].producer;
      bool viewed = b != a.tensors[0];
      for (int hops = 0; p >= 0 && lower[p] == Lower::kFree && hops < 16; ++hops) {
        const std::vector<int> in = g.ops[p].tensor_inputs();
        if (in.empty()) break;
        b = base[in[0]];
        p = g.values[b].producer;
        viewed = true;
      }
      if (viewed && p >= 0 && lower[p] == Lower::kPointwise && forced_layout[p].empty()) frozen[p] = true;
    }
  }
  return frozen;
}

}  // namespace kc::inductor
