#include <algorithm>
#include <cstdlib>
#include <functional>
#include <map>
#include <numeric>
#include <string>
#include <tuple>

#include "analyzer/tensor_geometry.h"
#include "passes/inductor_builder.h"
#include "passes/launch_rules.h"

namespace kc::inductor {

int Builder::new_node(int i) {
  Node nd;
  nd.op = i;
  nd.red = lower[i] == Lower::kReduction;
  nd.n = n_of[i];
  nd.r = r_of[i];
  nd.repeat = g.ops[i].repeat;
  nd.stages = stages[i];
  nd.first = nd.last = i;
  nd.min_order = nd.max_order = static_cast<int>(nodes.size());
  nodes.push_back(nd);
  node_of[i] = static_cast<int>(nodes.size()) - 1;
  return node_of[i];
}

// The reductions computing the statistics op i's epilogue reads, each a node of its own that
// the scheduler may fuse like any reduction, but never with a loop reading what it computes.
void Builder::new_stats_nodes(int i) {
  for (int c = 0; c < stat_chains[i]; ++c) {
    Node nd;
    nd.op = i;
    nd.red = stat_r[i] > 1;  // an unrolled softmax's statistics are a pointwise loop
    nd.n = stat_n[i];
    nd.r = stat_r[i];
    nd.repeat = g.ops[i].repeat;
    nd.stages = stat_stages[i];
    nd.stats_of = i;
    nd.first = nd.last = i;
    nd.min_order = nd.max_order = static_cast<int>(nodes.size());
    nodes.push_back(nd);
    stats_nodes[i].push_back(static_cast<int>(nodes.size()) - 1);
  }
}

// Whether a node of group b reads statistics a node of group a computes: it reads them
// broadcast over the reduced elements, not at the index they are written.
bool Builder::reads_stats(int a, int b) {
  for (int m : members[a]) {
    if (nodes[m].stats_of < 0) continue;
    for (int s : succ[m])
      if (find(s) == b) return true;
  }
  return false;
}

// ConcatKernel.realize_into: a buffer a loop computes, its layout still free (no view of it
// has fixed it), is laid out as the cat's slice and written there; nothing copies it.
bool Builder::computed_into_slice(int cat, int v) const {
  const int p = g.values[base[v]].producer;
  if (p < 0 || g.ops[cat].name == "aten::stack") return false;
  if (!(lower[p] == Lower::kReduction || (lower[p] == Lower::kPointwise && realized[p])) || fixed_layout[p])
    return false;
  const Value& x = g.values[v];
  const Value& b = g.values[base[v]];
  return x.sizes == b.sizes && x.strides == b.strides;
}

// ConcatKernel: an input no loop can be computed into the output's slice is copied into it
// by a pointwise node of its own, which the scheduler may fuse like any other.
void Builder::new_copy_node(int cat, int v) {
  Node nd;
  nd.op = cat;
  nd.n = g.values[v].numel();
  nd.repeat = g.ops[cat].repeat;
  nd.first = nd.last = cat;
  nd.min_order = nd.max_order = static_cast<int>(nodes.size());
  nd.copy_of = v;
  nodes.push_back(nd);
}

bool Builder::split_node(int root) const {
  for (int m : members[root])
    if (nodes[m].stages > 1) return true;
  return false;
}

// The kernels of a root's group: a split reduction's levels (it fuses with nothing), else one.
int Builder::root_kernels(int root) const {
  int out = 1;
  for (int m : members[root]) out = std::max(out, nodes[m].stages);
  return out;
}

bool Builder::triton(int node) const {
  const Lower l = lower[nodes[node].op];
  return nodes[node].copy_of >= 0 || l == Lower::kPointwise || l == Lower::kReduction;
}

// The nodes op i reads, through inlined ops and views. `seen_inline` marks the inlined ops
// this walk (`walk`, one id per walk) has been through.
void Builder::node_inputs(int i, std::set<int>& out, std::vector<int>& seen_inline, int walk) {
  g.ops[i].for_each_tensor_input([&](int v) {
    const int p = g.values[base[v]].producer;
    if (p < 0) return;
    if (node_of[p] >= 0) {
      out.insert(node_of[p]);
    } else if (lower[p] == Lower::kPointwise && seen_inline[p] != walk) {
      seen_inline[p] = walk;
      out.insert(stats_nodes[p].begin(), stats_nodes[p].end());
      node_inputs(p, out, seen_inline, walk);
    }
  });
}

// Values a node reads from memory, through inlined ops (each a view of its buffer).
void Builder::buffer_reads(int i, std::set<int>& out, std::vector<int>& seen_inline, int walk) {
  g.ops[i].for_each_tensor_input([&](int v) {
    const int b = base[v];
    const int p = g.values[b].producer;
    if (p >= 0 && node_of[p] < 0 && lower[p] == Lower::kPointwise) {
      if (seen_inline[p] != walk) {
        seen_inline[p] = walk;
        buffer_reads(p, out, seen_inline, walk);
      }
    } else if (g.values[b].placement == Placement::kDevice) {
      out.insert(v);
    }
  });
}

// SIMDScheduling.can_fuse: iteration spaces that tile together.
bool Builder::compatible(const Node& a, const Node& b) {
  if (a.repeat != b.repeat) return false;
  if (!a.red && !b.red) return a.n == b.n;
  if (a.red && b.red) return a.n == b.n && a.r == b.r;
  const Node& red = a.red ? a : b;
  const Node& pw = a.red ? b : a;
  return pw.n == red.n * red.r || pw.n == red.n;
}

// Whether op i is a pooling window lowered as a pointwise loop (an adaptive pool to its
// input's size has windows of 1).
bool Builder::pool_window(int i) const {
  const Op& op = g.ops[i];
  if (lower[i] != Lower::kPointwise || op_class(op) != OpClass::kPool || !name_has(op, "pool")) return false;
  if (!name_has(op, "adaptive")) return true;
  const Value* x = in0(op);
  return !(x && !op.outputs.empty() && op.outputs[0] >= 0 && g.values[op.outputs[0]].numel() == x->numel());
}

// Whether op i, or an op inlined into its loop, reads op p's buffer through a pooling window.
// `seen`: the inlined ops walked.
bool Builder::window_reads(int i, int p, std::set<int>& seen) const {
  const bool window = pool_window(i);
  bool found = false;
  g.ops[i].for_each_tensor_input([&](int v) {
    if (found) return;
    const int q = g.values[base[v]].producer;
    if (q == p) {
      found = window;
    } else if (q >= 0 && node_of[q] < 0 && lower[q] == Lower::kPointwise && seen.insert(q).second) {
      found = window_reads(q, p, seen);
    }
  });
  return found;
}

namespace {

// The loop variables simplify_loops leaves a loop over `sizes`, iterated in `order` (outermost
// first), whose index expressions step through memory by `exprs` (one stride per dim each; 0 for
// a broadcast dim): two adjacent dims merge into one where every expression steps over the inner
// one exactly once per step of the outer. `breaks`: dims no neighbour merges with (a cat's dim,
// which its bounds compare). Size-1 dims are no variable.
int loop_vars(const std::vector<int64_t>& sizes, const std::vector<int>& order,
              const std::vector<std::vector<int64_t>>& exprs, const std::set<int>& breaks) {
  int vars = 0, outer = -1;
  for (int d : order) {
    if (sizes[d] == 1) continue;
    bool merges = outer >= 0 && !breaks.count(d) && !breaks.count(outer);
    for (const auto& e : exprs)
      if (merges && (e.size() != sizes.size() || e[outer] != e[d] * sizes[d])) merges = false;
    if (!merges) ++vars;
    outer = d;
  }
  return vars;
}

// A dense copy of view v: its read merges where v's strides do, its write everywhere.
int copy_loop_vars(const Value& v) {
  if (v.strides.size() != v.sizes.size()) return -2;  // unknown: never a producer's count
  std::vector<int> order(v.sizes.size());
  std::iota(order.begin(), order.end(), 0);
  return loop_vars(v.sizes, order, {v.strides}, {});
}

}  // namespace

// The loop variables of pointwise op p's loop (its output's layout order) with the ops inlined
// into it: the index expressions of every buffer it loads that broadcasts to its output (a
// gather's index, a broadcast parameter), and a cat's dim unmerged.
int Builder::producer_loop_vars(int p) const {
  const int y = g.ops[p].outputs.empty() ? -1 : g.ops[p].outputs[0];
  if (y < 0) return -1;
  const Value& out = g.values[y];
  const size_t rank = out.sizes.size();
  const std::vector<int64_t> written = layout[y].size() == rank ? layout[y] : out.strides;
  if (written.size() != rank) return -1;
  std::vector<int> order(rank);
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return written[a] > written[b]; });
  std::vector<std::vector<int64_t>> exprs{written};
  std::set<int> breaks, seen{p};
  // A value's strides over the output's dims, aligned at the last, broadcast dims 0; none for a
  // value of another shape (but along a cat's dim, where each input holds a part).
  auto add = [&](const Value& x) {
    if (x.sizes.size() > rank || x.strides.size() != x.sizes.size()) return;
    std::vector<int64_t> e(rank, 0);
    const size_t off = rank - x.sizes.size();
    for (size_t d = 0; d < x.sizes.size(); ++d) {
      const int at = static_cast<int>(off + d);
      if (x.sizes[d] != out.sizes[at] && x.sizes[d] != 1 && !breaks.count(at)) return;
      e[at] = x.sizes[d] == 1 ? 0 : x.strides[d];
    }
    exprs.push_back(e);
  };
  std::vector<int> stack{p};
  while (!stack.empty()) {
    const int i = stack.back();
    stack.pop_back();
    if (!cat_bounds(i).empty()) breaks.insert(static_cast<int>(rank) + static_cast<int>(cat_dim_from_end(i)));
    // An inlined op's value stands for the index expressions it is computed at (a gathered
    // table broadcast over batch and heads depends on the sequence position alone).
    if (i != p)
      for (int v : g.ops[i].outputs)
        if (v >= 0) add(g.values[v]);
    g.ops[i].for_each_tensor_input([&](int v) {
      const int q = g.values[base[v]].producer;
      if (q >= 0 && node_of[q] < 0 && lower[q] == Lower::kPointwise) {
        if (seen.insert(q).second) stack.push_back(q);
        return;
      }
      add(g.values[v]);  // a load
    });
  }
  return loop_vars(out.sizes, order, exprs, breaks);
}

// can_fuse_vertical: the reader must read the producer's buffer at the index it is written
// (a permuted or sliced view reads other elements); a reduction's result may be broadcast
// over its prologue's loop, which the fused kernel runs row by row.
bool Builder::reads_in_order(int k, int d, const std::set<int>& reads) const {
  // A copy out of a padded buffer reads it at other indices than its writer writes them.
  if (nodes[k].copy_of >= 0 && crosses_padding(nodes[k].copy_of)) return false;
  if (nodes[d].stats_of >= 0) return false;  // statistics are read broadcast
  if (nodes[d].copy_of >= 0) return true;
  if (nodes[d].red) {
    // A reduction's result read broadcast runs row by row in the fused kernel; read whole at
    // permuted indices (a norm's output partitioned into windows, rolled), it is read at other
    // indices than it is written, which no fused loop can do.
    std::set<std::pair<int, int>> seen;
    if (nodes[k].copy_of >= 0) return !nodes[k].copy_permutes;
    return !reads_permuted(nodes[k].op, nodes[d].op, false, false, seen);
  }
  // A pooling window reads each output's neighbourhood of its input: other indices than a
  // loop writing that input writes at, however alike their shapes (a 3x3 pool at stride 1),
  // whether the pool is the reader's own op or inlined into its loop (PoolFormer's
  // x + scale * (pool(x) - x)).
  std::set<int> seen;
  const bool window = nodes[k].copy_of < 0 && window_reads(nodes[k].op, nodes[d].op, seen);
  // A copy of a pointwise loop's whole result read in another order joins the loop where
  // shared_data_after_reordering_loop can reorder the loop to it, which needs both loops to keep
  // as many variables (GPT-J's rotary cat and the q clone its matmul reads: one kernel writing
  // both). ResMLP's Affine output, its rows merged into one variable, is copied transposed by a
  // loop of its own. A norm's or softmax's epilogue runs inside its reduction's kernel, which is
  // not reordered. The variables are counted as simplify_loops merges dims (loop_vars), from the
  // loads and inlined values the loop indexes by; Inductor fuses GPT-J's k clone too (read
  // transposed, one variable fewer), which this count does not reach.
  const int p = nodes[d].op;
  const int c = nodes[k].copy_of;
  auto reorders = [&] {  // counted only for a read out of order
    return c >= 0 && lower[p] == Lower::kPointwise && stat_chains[p] == 0 &&
           g.values[c].numel() == g.values[base[c]].numel() && copy_loop_vars(g.values[c]) == producer_loop_vars(p);
  };
  for (int v : reads)
    if (g.values[base[v]].producer == p && (window || ((nodes[k].copy_permutes || !same_order(v)) && !reorders())))
      return false;
  return true;
}

// The strides of the buffer realized op i writes, which order its loop: a library kernel's
// operand is frozen in its recorded order when that is channels last, else contiguous
// (ExternKernel.convert_to_reinterpret_view, FlexibleLayout.freeze_layout); a buffer only loops
// read keeps the order its reads vote for.
std::vector<int64_t> Builder::loop_strides(int i) const {
  const Op& op = g.ops[i];
  if (op.outputs.empty() || op.outputs[0] < 0) return {};
  const int v = op.outputs[0];
  const Value& y = g.values[v];
  bool library = returned[base[v]];
  for (int u : readers[base[v]])
    if (lower[u] != Lower::kPointwise && lower[u] != Lower::kReduction) library = true;
  if (!library) return layout[v];
  if (y.sizes.size() == 4 && channels_last_dense(y.sizes, y.strides)) return y.strides;
  return contiguous_strides(y.sizes);
}

// Whether op i reads op p's output, through inlined loops, at permuted indices out of a buffer:
// a loop runs in the order its output is written in, so a view of all of a buffer that steps
// through it in another order (a window partition's transpose) reads it out of order, as a roll
// does. Where every value on the way has that one reader, Inductor inlines them all (a norm's
// epilogue too) into op i, which reads only the statistics, row by row in an order its loop can
// be reordered to (a roll's wrapped index is none); a value read by several ops is computed
// into a buffer first (realize_reads_threshold: an inlined epilogue reads more than four
// buffers), which op i cannot read in the order written.
bool Builder::reads_permuted(int i, int p, bool permuted, bool shared, std::set<std::pair<int, int>>& seen) const {
  bool out = false;
  const bool rolls = permuted || name_has(g.ops[i], "roll");
  const bool top = seen.empty();
  const std::vector<int64_t> order =
      top ? loop_strides(i)
          : (g.ops[i].outputs.empty() || g.ops[i].outputs[0] < 0 ? std::vector<int64_t>{}
                                                                 : layout[g.ops[i].outputs[0]]);
  const Value* y = g.ops[i].outputs.empty() || g.ops[i].outputs[0] < 0 ? nullptr : &g.values[g.ops[i].outputs[0]];
  g.ops[i].for_each_tensor_input([&](int v) {
    const int b = base[v];
    const int q = g.values[b].producer;
    if (out || q < 0) return;
    const Value& x = g.values[v];
    const bool perm = rolls || (y && x.numel() == g.values[b].numel() && x.sizes == y->sizes && layout[v] != order);
    const bool many = shared || readers[b].size() > 1 || returned[b];
    if (q == p)
      out = rolls || (perm && many);
    else if (node_of[q] < 0 && lower[q] == Lower::kPointwise && seen.insert({q, 2 * perm + many}).second)
      out = reads_permuted(q, p, perm, many, seen);
  });
  return out;
}

// The group through which group `to` reads what group `from` computes: one that reads (through
// any chain of groups) what `from` computes and that `to` reads directly, `from` itself for a
// direct read; with `through_others`, only along a chain through at least one other group.
// -1 when `to` reads nothing of `from`.
int Builder::reaches(int from, int to, bool through_others) {
  const int last = nodes[to].last;
  std::vector<int> stack{from};
  std::set<int> seen{from};
  while (!stack.empty()) {
    const int x = stack.back();
    stack.pop_back();
    for (int m : members[x])
      for (int s : succ[m]) {
        const int gs = find(s);
        if (gs == to) {
          if (x != from || !through_others) return x;
          continue;
        }
        if (nodes[gs].first > last) continue;  // dependencies run forward in op order
        if (seen.insert(gs).second) stack.push_back(gs);
      }
  }
  return -1;
}

// Scheduler.will_fusion_create_cycle: a path from one group to the other through a third.
bool Builder::creates_cycle(int a, int b) {
  return reaches(a, b, true) >= 0 || reaches(b, a, true) >= 0;
}

// Whether group `to` reads, through any chain of nodes, what group `from` computes.
bool Builder::depends(int from, int to) {
  return reaches(from, to, false) >= 0;
}

void Builder::merge(int a, int b) {
  Node& na = nodes[a];
  const Node& nb = nodes[b];
  if (nb.red && !na.red) {
    na.red = true;
    na.n = nb.n;
    na.r = nb.r;
  }
  na.size += nb.size;
  na.first = std::min(na.first, nb.first);
  na.last = std::max(na.last, nb.last);
  na.min_order = std::min(na.min_order, nb.min_order);
  na.max_order = std::max(na.max_order, nb.max_order);
  parent[b] = a;
  members[a].insert(members[a].end(), members[b].begin(), members[b].end());
  members[b].clear();
}

void Builder::schedule() {
  stats_nodes.assign(g.ops.size(), {});
  for (size_t k = 0; k < g.ops.size(); ++k) {
    const int i = static_cast<int>(k);
    const Lower l = lower[i];
    new_stats_nodes(i);
    if (l == Lower::kConcat)
      g.ops[i].for_each_tensor_input([&](int v) {
        if (!computed_into_slice(i, v)) new_copy_node(i, v);
      });
    for (int v : operand_copies[i]) {
      new_copy_node(i, v);
      // einsum copies an operand only where its permutation for the bmm is no view.
      nodes.back().copy_permutes = g.ops[i].name == "aten::einsum";
      for (const auto& [padded, numel] : gemm_pads[i])
        if (padded == v) nodes.back().n = numel;  // pad_mm's pad loops over the padded buffer
      const std::vector<int> in = g.ops[i].tensor_inputs();
      if (in.size() > 3 && v == in[3] && math_attention(g.ops[i])) {
        // The math path's mask is computed inside its softmax: a reduction over each score row.
        Node& sm = nodes.back();
        const Value& q = g.values[in[0]];
        const Value& kk = g.values[in[1]];
        sm.red = true;
        sm.r = kk.sizes.size() >= 2 ? kk.sizes[kk.sizes.size() - 2] : 1;
        sm.n = q.sizes.empty() || q.sizes.back() == 0 ? 0 : q.numel() / q.sizes.back();
      }
    }
    if (l == Lower::kExtern || l == Lower::kFallback || l == Lower::kConcat ||
        ((l == Lower::kPointwise || l == Lower::kReduction) && (l == Lower::kReduction || realized[i])))
      new_node(i);
  }
  const int count = static_cast<int>(nodes.size());
  deps.assign(count, {});
  succ.assign(count, {});
  parent.resize(count);
  std::iota(parent.begin(), parent.end(), 0);
  members.assign(count, {});
  for (int k = 0; k < count; ++k) members[k] = {k};
  std::vector<int> seen(g.ops.size(), -1);
  // Scheduler.score_fusion_memory counts reads both nodes make at the same index: one buffer
  // read through the same view. Key: the buffer, and the view's sizes, strides and offset.
  using Access = std::tuple<int, std::vector<int64_t>, std::vector<int64_t>, int64_t, std::vector<int64_t>>;
  // A .pt2 records no storage offsets: a view that moves its start (select, slice, split,
  // unbind) is told apart by the view and the output of it that it is (q's and k's selects of
  // one fused projection read different rows, recorded with the same geometry).
  auto offset_views = [&](int v) {
    std::vector<int64_t> chain;
    for (int x = v; x != base[x];) {
      const int p = g.values[x].producer;
      if (p < 0) break;
      const std::string& n = g.ops[p].name;
      if (n == "aten::select" || n == "aten::slice" || n == "aten::narrow" || n == "aten::split" ||
          n == "aten::split_with_sizes" || n == "aten::unbind" || n == "aten::chunk" || n == "aten::tensor_split") {
        // The op's name, its integer arguments and the output read: two chunks of one buffer
        // into the same pieces read the same elements.
        const auto& outs = g.ops[p].outputs;
        chain.push_back(static_cast<int64_t>(std::hash<std::string>{}(n)));
        for (const Arg& a : g.ops[p].args)
          if (a.kind == Arg::Kind::kInt || a.kind == Arg::Kind::kIntList) {
            chain.push_back(static_cast<int64_t>(a.ints.size()));
            chain.insert(chain.end(), a.ints.begin(), a.ints.end());
          }
        chain.push_back(std::find(outs.begin(), outs.end(), x) - outs.begin());
      }
      const std::vector<int> in = g.ops[p].tensor_inputs();
      if (in.empty()) break;
      x = in[0];
    }
    return chain;
  };
  // A MemoryDep's index is an expression of the reading loop's own variables: loops over the
  // same sizes that run over their dims in another order (Llama's rotary embedding of q in
  // [B, S, H, D] order, of k repeated over heads in [B, H, S, D]) read one view at other
  // indices, and share nothing. The order: the output's dims, fastest first.
  auto loop_order = [&](int k) {
    std::pair<std::vector<int64_t>, std::vector<int64_t>> out;  // sizes, order
    for (int v : g.ops[nodes[k].op].outputs)
      if (v >= 0) {
        const std::vector<int64_t>& st = layout[v];
        out.first = g.values[v].sizes;
        if (st.size() != out.first.size()) break;
        for (size_t d = 0; d < out.first.size(); ++d)
          if (out.first[d] > 1) out.second.push_back(static_cast<int64_t>(d));
        std::stable_sort(out.second.begin(), out.second.end(), [&](int64_t x, int64_t y) { return st[x] < st[y]; });
        break;
      }
    return out;
  };
  std::map<Access, std::vector<int>> readers_of_buffer;
  for (int k = 0; k < count; ++k) {
    const Node& nd = nodes[k];
    if (nd.copy_of >= 0) {
      // A copy reads its input, through the loops inlined into it.
      const int p = g.values[base[nd.copy_of]].producer;
      if (p >= 0 && node_of[p] >= 0)
        deps[k].insert(node_of[p]);
      else if (p >= 0 && lower[p] == Lower::kPointwise)
        node_inputs(p, deps[k], seen, k);
    } else if (lower[nd.op] == Lower::kConcat || lower[nd.op] == Lower::kExtern) {
      for (int c = k - 1; c >= 0 && nodes[c].op == nd.op; --c)  // its operand copies, just before it
        if (nodes[c].copy_of >= 0 && nodes[c].op == nd.op) deps[k].insert(c);
      node_inputs(nd.op, deps[k], seen, k);
    } else if (!stats_nodes[nd.op].empty() && stats_nodes[nd.op][0] != k) {
      // Its op's first statistics node already walked the op's inputs; it reads those
      // statistics too (a softmax's sum reads its maximum).
      const std::vector<int>& chain = stats_nodes[nd.op];
      deps[k] = deps[chain[0]];
      for (int c : chain)
        if (c < k) deps[k].insert(c);
    } else {
      node_inputs(nd.op, deps[k], seen, k);
    }
    deps[k].erase(k);
    for (int d : deps[k]) succ[d].push_back(k);
  }
  std::fill(seen.begin(), seen.end(), -1);
  std::vector<std::set<int>> reads_of(count);
  for (int k = 0; k < count; ++k) {
    if (!triton(k)) continue;
    std::set<int>& bufs = reads_of[k];
    const int copied = nodes[k].copy_of;
    // A copy reads its value through the view it copies (loops inlined into it read at that
    // view's index): copies of different parts of one buffer share no read.
    if (copied < 0 && !stats_nodes[nodes[k].op].empty() && stats_nodes[nodes[k].op][0] != k)
      bufs = reads_of[stats_nodes[nodes[k].op][0]];
    else if (copied < 0)
      buffer_reads(nodes[k].op, bufs, seen, k);
    else if (g.values[base[copied]].placement == Placement::kDevice)
      bufs.insert(copied);
    for (int v : bufs) {
      const Value& x = g.values[v];
      // Copies are keyed by the value they copy: parts of one buffer (selects of a stacked q, k
      // and v) may record the same view geometry.
      readers_of_buffer[Access{copied >= 0 ? -1 - v : base[v], x.sizes, x.strides, x.storage_offset,
                               copied >= 0 ? std::vector<int64_t>{} : offset_views(v)}]
          .push_back(k);
    }
  }
  // Candidate pairs: producer and reader (vertical), readers of one buffer (horizontal),
  // scored by the bytes they share, nearer pairs first (Scheduler.score_fusion).
  struct Pair {
    int64_t bytes;
    int distance;
    int a, b;
  };
  std::vector<Pair> pairs;
  for (int k = 0; k < count; ++k) {
    if (!triton(k)) continue;
    for (int d : deps[k])
      if (triton(d) && reads_in_order(k, d, reads_of[k])) {
        int64_t bytes = 0;
        for (int v : g.ops[nodes[d].op].outputs)
          if (v >= 0) bytes += g.values[v].bytes();
        pairs.push_back({bytes, k - d, d, k});
      }
  }
  for (const auto& [access, list] : readers_of_buffer) {
    const int key = std::get<0>(access);
    const int64_t bytes = int64_t{dtype_size(g.values[key >= 0 ? key : -1 - key].dtype)} * product(std::get<1>(access));
    for (size_t j = 1; j < list.size(); ++j) {
      const bool copies = nodes[list[j]].copy_of >= 0 || nodes[list[j - 1]].copy_of >= 0;
      const auto x = loop_order(list[j - 1]), y = loop_order(list[j]);
      if (!copies && x.first == y.first && x.second != y.second) continue;
      pairs.push_back({bytes, list[j] - list[j - 1], list[j - 1], list[j]});
    }
  }
  for (const Pair& p : pairs) candidates.emplace_back(p.a, p.b);
  // Scheduler.score_fusion_memory sums the bytes of every buffer access two nodes share: a
  // producer and its reader that also read the same inputs outscore a pair sharing only the
  // producer's output (Mamba's scan: each state reads the last one and the same parameters;
  // the conversion of a state for its matmul reads the state alone).
  {
    std::map<std::pair<int, int>, size_t> at;
    std::vector<Pair> summed;
    for (const Pair& p : pairs) {
      const auto key = std::minmax(p.a, p.b);
      auto [it, fresh] = at.emplace(key, summed.size());
      if (fresh)
        summed.push_back(p);
      else
        summed[it->second].bytes += p.bytes;
    }
    pairs = std::move(summed);
  }
  std::stable_sort(pairs.begin(), pairs.end(), [](const Pair& x, const Pair& y) {
    return x.bytes != y.bytes ? x.bytes > y.bytes : x.distance < y.distance;
  });
  // Scheduler.fuse_nodes: rounds until nothing more fuses (at most 10).
  for (int round = 0; round < 10; ++round) {
    bool fused = false;
    for (const Pair& p : pairs) {
      int a = find(p.a), b = find(p.b);
      if (a == b) continue;
      if (nodes[a].size + nodes[b].size > kMaxFusionSize) continue;
      // A split reduction's kernels loop over other ranges than its neighbours'.
      if (split_node(a) || split_node(b)) continue;
      if (reads_stats(a, b) || reads_stats(b, a)) continue;
      // are_long_distant_nodes is a check of can_fuse_horizontal: a node reading what the
      // other computes, however indirectly, fuses at any distance.
      if (std::max(std::abs(nodes[a].min_order - nodes[b].max_order),
                   std::abs(nodes[b].min_order - nodes[a].max_order)) > kMaxFusionDistance &&
          !depends(a, b) && !depends(b, a))
        continue;
      if (!compatible(nodes[a], nodes[b])) continue;
      if (creates_cycle(a, b)) continue;
      if (nodes[b].first < nodes[a].first) std::swap(a, b);
      merge(a, b);
      fused = true;
    }
    if (!fused) break;
  }
}

}  // namespace kc::inductor
