#include <algorithm>
#include <map>
#include <set>
#include <tuple>

#include "passes/inductor_builder.h"
#include "passes/op_classes.h"

namespace kc::inductor {

// Whether op u reads base value b only through a copy it makes first.
bool Builder::reads_through_copy(int u, int b) const {
  bool copied = false, direct = false;
  g.ops[u].for_each_tensor_input([&](int v) {
    if (base[v] != b) return;
    const auto& c = operand_copies[u];
    // A padded buffer is computed into memory first, then copied out of its padding; so is the
    // base of a view realize_input copies.
    const auto& r = realized_then_copied[u];
    const bool through = std::find(c.begin(), c.end(), v) != c.end() && !crosses_padding(v) &&
                         std::find(r.begin(), r.end(), v) == r.end();
    (through ? copied : direct) = true;
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

namespace {

bool low_precision(DType d) {
  return d == DType::kBFloat16 || d == DType::kFloat16;
}

}  // namespace

// A cat's inputs along its dimension: their sizes there, which its bounds check the index
// against; empty for other ops.
std::vector<int64_t> Builder::cat_bounds(int i) const {
  const Op& op = g.ops[i];
  std::vector<int64_t> sizes;
  const bool stack = op.name == "aten::stack";  // a cat of its inputs unsqueezed (lowering.py): one each
  if ((op.name != "aten::cat" && op.name != "aten::concat" && !stack) || repeated_cat(op)) return sizes;
  int64_t dim = int_arg(op, "dim", 0);
  for (const Arg& a : op.args)
    if (a.kind == Arg::Kind::kTensorList)
      for (int v : a.tensors) {
        if (v < 0) continue;
        if (stack) {
          sizes.push_back(1);
          continue;
        }
        const auto& sz = g.values[v].sizes;
        const int64_t d = dim < 0 ? dim + static_cast<int64_t>(sz.size()) : dim;
        sizes.push_back(d >= 0 && d < static_cast<int64_t>(sz.size()) ? sz[d] : -1);
      }
  return sizes;
}

// The dim a cat (or stack) joins along, counted from its output's last (-1: the last).
int64_t Builder::cat_dim_from_end(int i) const {
  const Op& op = g.ops[i];
  const Value* y = op.outputs.empty() || op.outputs[0] < 0 ? nullptr : &g.values[op.outputs[0]];
  const int64_t rank = y ? static_cast<int64_t>(y->sizes.size()) : 0;
  const int64_t dim = int_arg(op, "dim", 0);
  return dim < 0 ? dim : dim - rank;
}

// The operations of op i's own loop body as Inductor's OpCounterCSE counts them
// (ir.Loops.inner_fn_opcount: every value the body computes, constants and dtype conversions
// included), but its loads and a cat's bounds (counted by the caller, shared across the
// expression as its CSE shares them). Checked against OpCounterCSE itself on the host
// (research/inductor/lowering_probe.py) and against the loops Inductor generated for the compiled
// ShuffleNet-V2 (data/results/compiled/measured.tar.xz: a batch norm and ReLU under a two-input
// cat).
int Builder::body_opcount(int i) const {
  const Op& op = g.ops[i];
  const Value* x = in0(op);
  if (const auto inputs = cat_bounds(i); !inputs.empty()) {
    // pointwise_cat: each input's load masked to its range (ops.masked), then a where per input
    // after the first choosing among them.
    return 2 * static_cast<int>(inputs.size()) - 1;
  }
  if (batch_norm_inference(op)) {
    // (x - mean) * (1 / sqrt(var + eps) * 1.0) * weight + bias: 11 values. Its decomposition
    // computes in float32: in half precision each operand is converted on load, and the result
    // back (prims.convert_element_type).
    int converted = 0;
    if (x && low_precision(x->dtype)) {
      op.for_each_tensor_input([&](int) { ++converted; });
      ++converted;
    }
    return 11 + converted;
  }
  if (stat_chains[i] > 0 && op_class(op) == OpClass::kNorm) {
    // (x - mean) * rsqrt(var / n + eps), then * weight + bias: 7 values and one per affine
    // parameter; half precision converts each load to float32 and the result back.
    int affine = 0;
    for (const char* p : {"weight", "bias"})
      if (const Arg* a = arg(op, p); a && !a->tensors.empty() && a->tensors[0] >= 0) ++affine;
    return 7 + affine + (x && low_precision(x->dtype) ? 2 + affine : 0);
  }
  if (stat_chains[i] > 0) return 3;                                   // exp(x - max) / sum, or x - max - log(sum)
  if (op.name == "aten::relu" || op.name == "aten::relu_") return 2;  // maximum(0, x) and its constant
  // A gather is its loads: the index, then the value at it (indirect indexing is no op).
  if (op.name == "aten::embedding" || op.name == "aten::index_select" || op.name == "aten::gather" ||
      op.name == "aten::take_along_dim")
    return 0;
  if (op_class(op) == OpClass::kCopy || op_class(op) == OpClass::kView || repeated_cat(op)) {
    // A copy is its load; one into another dtype converts it.
    const Value* y = op.outputs.empty() || op.outputs[0] < 0 ? nullptr : &g.values[op.outputs[0]];
    return x && y && x->dtype != y->dtype ? 1 : 0;
  }
  if (name_has(op, "arange")) {
    // start + step * index in floating point: the index, its conversion, and each constant
    // with its multiply or add (both emitted, whatever their values).
    const Value* y = op.outputs.empty() || op.outputs[0] < 0 ? nullptr : &g.values[op.outputs[0]];
    return y && is_floating(y->dtype) ? 6 : 1;
  }
  // An operand of another dtype than the result is converted first (type promotion's to_dtype;
  // a comparison's bool result converts nothing).
  int converted = 0;
  if (const Value* y = op.outputs.empty() || op.outputs[0] < 0 ? nullptr : &g.values[op.outputs[0]];
      y && y->dtype != DType::kBool && op_class(op) == OpClass::kPointwise)
    op.for_each_tensor_input([&](int v) {
      if (g.values[v].dtype != y->dtype && g.values[v].dtype != DType::kBool) ++converted;
    });
  // A Python number operand is a constant of its own beside the op.
  int constants = 0;
  for (const Arg& a : op.args)
    if ((a.kind == Arg::Kind::kFloat || a.kind == Arg::Kind::kInt) && (a.name == "other" || a.name == "self"))
      ++constants;
  return 1 + constants + converted;
}

// Whether op i is a softmax lowered as a pointwise loop: it reduces fewer elements than
// unroll_reductions_threshold (ir.Reduction.create unrolls it).
bool Builder::unrolled_softmax(int i) const {
  const Op& op = g.ops[i];
  if (lower[i] != Lower::kPointwise || !name_has(op, "softmax") || name_has(op, "backward")) return false;
  return reduction_size(op) > 1 && stat_r[i] <= 1;
}

// Whether op u reads value x broadcast: fewer distinct elements (dims of stride 0, an expand's,
// count once) than the elements u's loop computes.
bool Builder::broadcast_by(int u, int x) const {
  const Value& v = g.values[x];
  if (lower[u] != Lower::kPointwise) return false;
  for (size_t d = 0; d < v.sizes.size() && d < v.strides.size(); ++d)
    if (v.strides[d] == 0 && v.sizes[d] > 1) return true;  // an expand
  // A cat of one tensor repeated expands it (expand's mark_reuse).
  if (repeated_cat(g.ops[u])) return true;
  // An elementwise op broadcasting its operand (a cat, a pad or a gather reads no element twice).
  if (op_class(g.ops[u]) != OpClass::kPointwise) return false;
  int64_t out = 0;
  for (int y : g.ops[u].outputs)
    if (y >= 0) out = std::max(out, g.values[y].numel());
  return v.numel() > 0 && out > v.numel();
}

// Whether lowering.cat makes cat op i (of at most max_pointwise_cat_inputs inputs) a
// ConcatKernel rather than one pointwise loop: it takes the loop where every reader is pointwise
// (is_pointwise_use, views followed; cat and pad count) and some input is a loop it would
// otherwise compute into memory, or where every input needs a copy anyway
// (should_lower_cat_input) and none fuses a reduction. An input needs a copy unless it is a
// buffer a loop computes, still free to be laid out as its slice (a view of one has fixed it).
bool Builder::concat_kernel(int i) const {
  const Op& op = g.ops[i];
  if (cat_bounds(i).empty() || repeated_cat(op)) return false;
  const bool stack = op.name == "aten::stack";  // its inputs are read through unsqueeze views
  bool any_lowered = false, all_lowered = true, any_reduction = false;
  std::map<int, bool> memo;
  op.for_each_tensor_input([&](int v) {
    const int p = g.values[base[v]].producer;
    bool lowered = true;
    if (p >= 0 && (lower[p] == Lower::kPointwise || lower[p] == Lower::kReduction)) {
      const bool computed = lower[p] == Lower::kReduction || realized[p];
      const Value& x = g.values[v];
      const Value& b = g.values[base[v]];
      const bool whole = x.sizes == b.sizes && x.strides == b.strides;  // the buffer, not a view of it
      if (computed && whole && !stack && !fixed_layout[p]) lowered = false;
      if (reduction_fed(p, memo)) any_reduction = true;
    }
    any_lowered = any_lowered || lowered;
    all_lowered = all_lowered && lowered;
  });
  bool pointwise_uses = true;
  for (int v : op.outputs) {
    if (v < 0) continue;
    if (returned[base[v]]) pointwise_uses = false;
    for (int u : readers[base[v]]) {
      const Op& r = g.ops[u];
      if (!(op_class(r) == OpClass::kPointwise || op_class(r) == OpClass::kCopy || r.traits.pointwise ||
            r.name == "aten::cat" || r.name == "aten::concat" || r.name == "aten::constant_pad_nd" ||
            r.name == "aten::pad"))
        pointwise_uses = false;
    }
  }
  return !((any_lowered && pointwise_uses) || (all_lowered && !any_reduction));
}

// lowering.cat's can_fuse_reduction: op p's result is a reduction's buffer, or a loop not yet
// computed into memory that reads one (a norm's epilogue inlined reads its statistics).
// `memo`: the ops already answered (an inlined expression is a DAG).
bool Builder::reduction_fed(int p, std::map<int, bool>& memo) const {
  if (const auto it = memo.find(p); it != memo.end()) return it->second;
  bool fed = false;
  if (lower[p] == Lower::kReduction) {
    fed = !(stat_chains[p] > 0 && realized[p]);
  } else if (lower[p] == Lower::kPointwise && !realized[p]) {
    g.ops[p].for_each_tensor_input([&](int v) {
      const int q = g.values[base[v]].producer;
      if (!fed && q >= 0 && q < p) fed = reduction_fed(q, memo);
    });
  }
  memo[p] = fed;
  return fed;
}

void Builder::realize() {
  // Accumulated reads of each value's inlined expression (capped), and what OpCounterCSE
  // counts in it: the ops inlined into it and the values it loads, each once however many
  // paths reach it (its CSE), so a diamond (RoPE's cos and sin of one table) counts once.
  std::vector<std::set<int>> reads(g.ops.size());
  std::vector<std::set<int>> members(g.ops.size());
  // The distinct loads of each expression (OpCounterCSE's reads): a value (or a statistic) and
  // the index it is read at: 0, or the cat input past the first whose shifted index it is read
  // at (a cat op and its input's position).
  std::vector<std::set<std::pair<int, int64_t>>> loads(g.ops.size());
  std::vector<int> body(g.ops.size(), 0);
  // Values an inlined expression computes again: CSE merges only what is computed at one
  // index, so an inlined loop read through two views (a window mask's two unsqueezes) has its
  // whole expression counted once per view; `counted`: each loop's count, these included.
  std::vector<int> again(g.ops.size(), 0), counted(g.ops.size(), 0);
  constexpr size_t kCap = 4 * kRealizeOpcountThreshold;  // past the threshold, any count will do
  auto merge = [](auto& into, const auto& from) {
    for (const auto& x : from)
      if (into.size() < kCap) into.insert(x);
  };
  const std::vector<bool> prefer = prefer_channels_last();
  fixed_layout.assign(g.ops.size(), false);
  for (size_t k = 0; k < g.ops.size(); ++k) {
    const int i = static_cast<int>(k);
    if (lower[i] == Lower::kPointwise && concat_kernel(i)) {
      lower[i] = Lower::kConcat;
      why[i] =
          "a cat whose readers are not all pointwise and whose inputs are not all loops to compute: a "
          "ConcatKernel, each input computed or copied into its slice";
    }
    if (lower[i] != Lower::kPointwise) continue;
    const Op& op = g.ops[i];
    std::map<int, std::set<std::pair<std::vector<int64_t>, std::vector<int64_t>>>> views;  // per inlined loop
    // A stack reads its inputs at its own index (each is a slice of size 1 along the new dim).
    const bool cat = !cat_bounds(i).empty() && op.name != "aten::stack";
    int position = 0;
    // The loads op i makes through its input at `position`: a cat reads every input past the
    // first at an index of its own.
    auto tagged = [&](int64_t tag) {
      return cat && position > 0 ? static_cast<int64_t>(i) * 64 + std::min(position, 63) : tag;
    };
    op.for_each_tensor_input([&](int v) {
      const int b = base[v];
      const int p = g.values[b].producer;
      if (p >= 0 && lower[p] == Lower::kPointwise && !realized[p]) {
        views[p].insert({g.values[v].sizes, g.values[v].strides});
        for (int x : reads[p])
          if (reads[i].size() <= kRealizeAccReadsThreshold) reads[i].insert(x);
        merge(members[i], members[p]);
        for (const auto& [x, tag] : loads[p])
          if (loads[i].size() < kCap) loads[i].insert({x, tagged(tag)});
      } else if (g.values[b].placement == Placement::kDevice) {
        if (reads[i].size() <= kRealizeAccReadsThreshold) reads[i].insert(b);
        // A load per view read (a slice reads at its own index); one read twice is one load.
        if (loads[i].size() < kCap) loads[i].insert({v, tagged(0)});
        // A library product whose bias a pointwise reader takes is mm, then the bias added in
        // that reader (should_prefer_unfused_addmm): the bias is one more read.
        if (p >= 0 && lower[p] == Lower::kExtern) {
          const Arg* bias = bias_arg(g.ops[p]);
          if (bias && !bias->tensors.empty() && bias->tensors[0] >= 0 && bias_unfused(p)) {
            if (reads[i].size() <= kRealizeAccReadsThreshold) reads[i].insert(base[bias->tensors[0]]);
            if (loads[i].size() < kCap) loads[i].insert({bias->tensors[0], tagged(0)});
          }
        }
      }
      ++position;
    });
    // A softmax over fewer than unroll_reductions_threshold elements is pointwise, its maximum
    // and sum unrolled over them (prepare_softmax_online's fallback: amax, then the sum of
    // exp(x - amax)). Read at each of those elements, its input's loads count once per element;
    // past realize_reads_threshold the reused maximum is realized on reuse, the sum with it: one
    // pointwise loop writes both, and the softmax reads them (as a split softmax's epilogue does).
    if (unrolled_softmax(i)) {
      const int64_t r = reduction_size(op);
      const bool stats = r * static_cast<int64_t>(loads[i].size()) > kRealizeReadsThreshold;
      stat_chains[i] = stats ? 1 : 0;
      stat_n[i] = r > 0 ? n_of[i] / r : 0;
      stat_r[i] = 1;
      stat_stages[i] = 1;
      if (stats && why[i].find("unrolled") == std::string::npos)
        why[i] += "; unrolled, its input read at each of " + std::to_string(r) +
                  " elements: its maximum and sum are computed into memory by a loop of their own";
    }
    // An epilogue loads the statistics it normalizes by: two buffers (a norm's mean and
    // variance, a softmax's maximum and sum), named here apart from every value.
    for (int c = 0; c < 2 && stat_chains[i] > 0; ++c) {
      const int stat = -2 - 2 * i - c;
      if (reads[i].size() <= kRealizeAccReadsThreshold) reads[i].insert(stat);
      if (loads[i].size() < kCap) loads[i].insert({stat, 0});
    }
    body[i] = body_opcount(i);
    members[i].insert(i);
    for (const auto& [p, seen] : views)
      again[i] =
          std::min(again[i] + again[p] + (static_cast<int>(seen.size()) - 1) * counted[p], static_cast<int>(kCap));
    int opcount = static_cast<int>(loads[i].size()) + again[i];
    // The cats' bounds, as OpCounterCSE merges equal values: the index along the cat's dim (one
    // per dim, counted from the last), each bound a constant (one per value, 0 and a
    // neighbour's shared), and the two compares of each input's range (>= lo, < hi) per index.
    std::set<int64_t> cat_dims, bound_values;
    std::set<std::tuple<int64_t, int64_t, bool>> compares;
    for (int m : members[i]) {
      opcount += body[m];
      const auto b = cat_bounds(m);
      if (b.empty()) continue;
      const int64_t dim = cat_dim_from_end(m);
      cat_dims.insert(dim);
      int64_t lo = 0;
      for (int64_t size : b) {
        bound_values.insert(lo);
        compares.insert({dim, lo, true});
        lo += size;
        bound_values.insert(lo);
        compares.insert({dim, lo, false});
      }
    }
    opcount += static_cast<int>(cat_dims.size() + bound_values.size() + compares.size());
    counted[i] = std::min(opcount, static_cast<int>(kCap));
    int users = 0;
    bool needs_buffer = false, pooled = false;
    for (int v : op.outputs) {
      if (v < 0) continue;
      if (returned[base[v]]) needs_buffer = true;
      for (int u : readers[base[v]]) {
        // Each view is a user of its own in the graph Inductor lowers (a cat of four slices
        // of one value: four users).
        std::set<int> through;
        g.ops[u].for_each_tensor_input([&](int x) {
          if (base[x] == base[v]) through.insert(x);
        });
        users += std::max<int>(1, static_cast<int>(through.size()));
        // A loop broadcasting it reads each element many times: expand (and broadcast_tensors,
        // which pointwise lowerings call) marks the value reused by the expansion factor.
        if ((lower[u] == Lower::kPointwise || lower[u] == Lower::kReduction) &&
            std::any_of(through.begin(), through.end(), [&](int x) { return broadcast_by(u, x); }))
          ++users;
        if (lower[u] != Lower::kPointwise && lower[u] != Lower::kReduction && !reads_through_copy(u, base[v]))
          needs_buffer = true;
        // Pooling lowerings call realize_hint() on their input: a window reads each element
        // several times, so the input is computed once into memory.
        if (op_class(g.ops[u]) == OpClass::kPool && name_has(g.ops[u], "pool")) pooled = true;
      }
    }
    const bool large = opcount > kRealizeOpcountThreshold;
    const int nreads = static_cast<int>(reads[i].size());
    read_count[i] = nreads;
    // StorageBox.realize_hint acts only on an expression that loads more than one element at a
    // computed index (OpCounterCSE's nontrivial_read_count): one computed from indices alone (an
    // arange, a meshgrid) or reading one tensor is cheaper to recompute than to store.
    int nontrivial = 0;
    for (const auto& [v, tag] : loads[i])
      if (v < 0 || g.values[v].numel() > 1) ++nontrivial;
    // A pooling window loads its input once per element of the window, each at its own index.
    for (int m : members[i])
      if (op_class(g.ops[m]) == OpClass::kPool)
        if (const Arg* k = arg(g.ops[m], "kernel_size"); k && product(k->ints) > 1)
          nontrivial += static_cast<int>(std::min<int64_t>(product(k->ints), kCap)) - 1;
    const bool hinted = nontrivial > 1;
    if (needs_buffer) {
      realized[i] = true;
      why[i] += "; computed into memory: a library kernel or the caller reads it";
    } else if (pooled && hinted) {
      realized[i] = true;
      why[i] += "; computed into memory: a pooling window reads it";
    } else if (users > 1 && (nreads > kRealizeReadsThreshold || large)) {
      realized[i] = realized_on_reuse[i] = true;
      why[i] += "; computed into memory: read by several ops and costly to recompute";
    } else if ((nreads > kRealizeAccReadsThreshold || large) && hinted) {
      realized[i] = realized_on_reuse[i] = true;
      why[i] += "; computed into memory: its inlined expression reads too much";
    } else if (opcount > kInlineOpcountLimit) {
      realized[i] = realized_on_reuse[i] = true;
      why[i] += "; computed into memory: its inlined expression is too large to inline";
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
    const int out = op.outputs.empty() ? -1 : op.outputs[0];
    fixed_layout[i] =
        realized_on_reuse[i] && prefer[i] && out >= 0 && g.values[out].sizes.size() == 4 && !returned[base[out]];
  }
}

}  // namespace kc::inductor
