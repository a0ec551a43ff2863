// The state the steps of the inductor pass share, internal to passes/inductor*.cc. Each step
// is a file named for what it decides: inductor_lowering.cc (how each op is lowered),
// inductor_externs.cc (what library calls launch, their operand copies), inductor_realize.cc
// (which Triton values are computed into memory), inductor_scheduler.cc (which nodes fuse),
// inductor_plan.cc (the plan's groups) and inductor_kernel_traffic.cc (a compiled kernel's HBM
// traffic); inductor.cc runs them in order.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "analyzer/graph.h"
#include "passes/inductor.h"
#include "passes/report.h"

namespace kc::inductor {

// 0. The graph Inductor lowers: explicit attention rewritten as one attention call, the ops it
// absorbs launching nothing, op indices kept (inductor_attention_patterns.cc).
struct AttentionRewrite {
  Graph graph;
  std::vector<Launch> launches;
  std::vector<int> fused_into;  // per op, the attention call an absorbed op joins (-1: none)
};
// None where no pattern matches: the graph is lowered as given, and nothing is copied.
std::optional<AttentionRewrite> fuse_attention_patterns(const Graph& g, const std::vector<Launch>& launches,
                                                        const Target& target);

// How Inductor lowers an op.
enum class Lower {
  kFree,       // a view or no-op: index arithmetic in its readers, no kernel
  kPointwise,  // a Triton pointwise loop (may be inlined into its readers)
  kReduction,  // a Triton reduction loop (always a node of its own before fusion)
  kExtern,     // a library kernel Inductor calls (cuBLAS, cuDNN, attention)
  kFallback,   // an op Inductor has no lowering for: the eager kernels run as they are
  kConcat,     // cat of many inputs: each input is computed or copied into its slice
};

// Inductor's limits and thresholds (torch/_inductor/config.py, PyTorch 2.11).
constexpr int kMaxFusionSize = 64;            // max_fusion_size: nodes in one fused kernel
constexpr int kRealizeReadsThreshold = 4;     // realize_reads_threshold: reads of a reused value
constexpr int kRealizeAccReadsThreshold = 8;  // realize_acc_reads_threshold: reads of any value
constexpr int kRealizeOpcountThreshold = 30;  // realize_opcount_threshold: ops of a large inner fn
constexpr int kInlineOpcountLimit = 100;      // GraphLowering.run_node: past it a loop is always realized
constexpr int kMaxPointwiseCatInputs = 8;     // max_pointwise_cat_inputs
constexpr int64_t kUnrollReductionBelow = 8;  // unroll_reductions_threshold: smaller ones are pointwise
constexpr int kMaxPoolWindow = 25;            // pooling windows above this fall back to ATen
constexpr int kMaxFusionDistance = 64;        // Scheduler.are_long_distant_nodes: node order apart

inline bool name_has(const Op& op, const char* s) {
  return op.name.find(s) != std::string::npos;
}

// A cat of one tensor repeated (torch.cat([x, x])): Inductor's cat decomposition makes it
// x.unsqueeze(dim).expand(...).flatten(...).clone(), a copy of x read broadcast, not a cat.
inline bool repeated_cat(const Op& op) {
  if (op.name != "aten::cat" && op.name != "aten::concat" && op.name != "aten::concatenate") return false;
  int first = -1, count = 0;
  for (const Arg& a : op.args) {
    if (a.kind != Arg::Kind::kTensorList) continue;
    for (int v : a.tensors) {
      if (v < 0 || (count > 0 && v != first)) return false;
      first = v;
      ++count;
    }
  }
  return count > 1;
}

inline int64_t product(const std::vector<int64_t>& v) {
  int64_t p = 1;
  for (int64_t x : v) p *= x;
  return p;
}

// scheduler.pick_loop_order: the dims of `sizes`, fastest first, as the strides of a loop's
// reads (one list per read, over the same dims) vote for them.
std::vector<int> pick_loop_order(const std::vector<std::vector<int64_t>>& strides, const std::vector<int64_t>& sizes);

struct Node {
  int op = -1;                       // the op the node is (realized Triton op, extern or fallback)
  bool red = false;                  // holds a reduction
  int64_t n = 0, r = 1;              // iteration space: outputs and reduction size
  int64_t repeat = 1;                // loop trips of its ops
  int size = 1;                      // nodes fused into it
  int first = 0, last = 0;           // op index range of its members
  int min_order = 0, max_order = 0;  // node order range of its members (scheduling order)
  int copy_of = -1;                  // a cat's copy of this input value into its slice; -1: not a copy
  bool copy_permutes = false;        // the copy reads its input in another order than it is stored
  int stats_of = -1;                 // a reduction computing the statistics of this op's epilogue; -1: none
  int stages = 1;                    // kernels of its reduction: the levels it is split into (1: not split)
};

struct Builder {
  Builder(const Graph& graph, const std::vector<Launch>& l, const std::vector<Traffic>& t, const Target& tg)
      : g(graph), launches(l), traffic(t), target(tg) {}
  const Graph& g;
  const std::vector<Launch>& launches;
  const std::vector<Traffic>& traffic;
  const Target& target;

  std::vector<Lower> lower;               // per op
  std::vector<std::string> why;           // per op: how it is lowered, in words
  std::vector<int> base;                  // per value: the value whose memory it is (through free ops)
  std::vector<std::vector<int>> readers;  // per base value: non-free ops that read it
  std::vector<bool> returned;             // per base value
  std::vector<bool> realized;             // per op (Triton ops): computed into memory
  std::vector<bool> realized_on_reuse;    // per op: realized as several ops read it or it reads too much
  // Per op: its loop was computed into memory with its layout fixed (maybe_apply_channels_last_stride_order
  // of a 4-d loop realized on reuse), no longer free to become a cat's slice.
  std::vector<bool> fixed_layout;
  std::vector<int> read_count;                             // per pointwise op: buffers its inlined expression reads
  std::vector<int> extern_kernels;                         // per op: kernels of extern and fallback ops
  std::vector<int64_t> copy_bytes;                         // per op: bytes of the operands Inductor copies for its call
  std::vector<std::optional<Traffic>> decomposed_traffic;  // per op: its kernels' traffic where not eager's
  std::vector<int64_t> n_of, r_of;                         // per op: Triton iteration space
  std::vector<int> stages;  // per op: kernels of its reduction, one per level it is split into
  // An op whose epilogue (a norm's normalization, a softmax's division) is a pointwise loop of
  // its own, apart from the reductions computing its statistics: their count (a split softmax
  // needs its maximum, then its sum), their iteration space and their kernels each.
  std::vector<int> stat_chains;
  std::vector<int64_t> stat_n, stat_r;
  std::vector<int> stat_stages;
  bool layout_opt = false;
  // Set when the graph is a rewrite (fuse_attention_patterns): per op, the attention call an
  // absorbed op joins, and the launches of the graph as given, which the groups' eager figures
  // sum.
  std::vector<int> fused_into;
  const std::vector<Launch>* eager_launches = nullptr;
  std::vector<std::vector<int>> operand_copies;  // per op: inputs Inductor copies before the call
  std::vector<int> padded_copies;                // per op: its operand copy copied again out of its padding
  // per op: operands copied from a view of a realized buffer (ExternKernel.realize_input), not by
  // a clone of the graph's own that inlines their producer
  std::vector<std::vector<int>> realized_then_copied;
  // per op: the operands pad_mm pads, with their padded element counts (inductor_pad_mm.cc)
  std::vector<std::vector<std::pair<int, int64_t>>> gemm_pads;
  // per op pad_mm pads: the library launches of the padded GEMM it calls instead
  std::vector<std::optional<Counts>> padded_gemm;
  // per op: the kernels its count gains (more) or loses (fewer) where pad_mm's benchmark on the
  // GPU answers the other way for its GEMMs (a timing, which compiles answer differently)
  std::vector<int64_t> timed_more, timed_fewer;

  // Scheduler state: nodes are realized Triton ops, extern and fallback ops.
  std::vector<int> node_of;  // per op: its node, -1 for free and inlined ops
  std::vector<Node> nodes;
  std::vector<std::set<int>> deps;     // per node: nodes it reads
  std::vector<std::vector<int>> succ;  // per node: nodes reading it
  std::vector<int> parent;             // union-find over nodes

  int find(int x) {
    while (parent[x] != x) x = parent[x] = parent[parent[x]];
    return x;
  }

  bool launches_nothing(int i) const { return launches[i].known && launches[i].counts.none(); }

  int64_t out_numel(const Op& op) const {
    for (int v : op.outputs)
      if (v >= 0) return g.values[v].numel();
    return 0;
  }
  const Value* in0(const Op& op) const {
    for (const Arg& a : op.args)
      if ((a.kind == Arg::Kind::kTensor || a.kind == Arg::Kind::kTensorList) && !a.tensors.empty() && a.tensors[0] >= 0)
        return &g.values[a.tensors[0]];
    return nullptr;
  }
  int64_t int_arg(const Op& op, const char* name, int64_t fallback) const {
    for (const Arg& a : op.args)
      if (a.name == name && (a.kind == Arg::Kind::kInt || a.kind == Arg::Kind::kIntList) && !a.ints.empty())
        return a.ints[0];
    return fallback;
  }
  bool bool_arg(const Op& op, const char* name, bool fallback) const {
    for (const Arg& a : op.args)
      if (a.name == name && a.kind == Arg::Kind::kBool && !a.ints.empty()) return a.ints[0] != 0;
    return fallback;
  }
  const Arg* arg(const Op& op, const char* name) const {
    for (const Arg& a : op.args)
      if (a.name == name) return &a;
    return nullptr;
  }
  // A library product's bias: linear's `bias`, addmm's `self` (the 1-d or broadcast addend).
  const Arg* bias_arg(const Op& op) const { return arg(op, op.name == "aten::addmm" ? "self" : "bias"); }

  void set(int i, Lower l, std::string words) {
    lower[i] = l;
    why[i] = std::move(words);
  }

  // Runs the steps below in order: 1 to 3 twice where a value realized on reuse is laid out
  // channels last (reuse_channels_last).
  FusionPlan run();
  void lower_and_realize();
  bool same_order(int v) const;

  // 1. Lowering: what each op becomes (inductor_lowering.cc), and how a reduction is split into
  // kernels and whether its epilogue joins it (inductor_reductions.cc).
  void lower_op(int i);
  int64_t num_splits(int64_t n, int64_t r, bool outer) const;
  int64_t reduction_size(const Op& op) const;
  std::vector<int> reduced_dims(const Op& op) const;
  std::vector<int64_t> inductor_strides(int v) const;
  std::vector<std::vector<int64_t>> layout;                   // per value: the strides Inductor gives its buffer
  std::vector<std::vector<std::vector<int64_t>>> leaf_reads;  // per pointwise op: its loads' strides
  void lay_out(int i);
  // per op: its output is laid out channels last by GraphLowering.run_node as it is realized
  // on reuse (inductor_layouts.cc), with these strides
  std::vector<std::vector<int64_t>> forced_layout;  // per op: those strides of its output, or empty
  std::vector<bool> realized_before;                // per op: realized by the first lowering (empty during it)
  // per op: its buffer frozen row major by a library product reading it through a view
  // (ExternKernel.realize_input: convert_to_reinterpret_view freezes FlexibleLayout as it is)
  std::vector<bool> frozen_row_major;
  std::vector<bool> frozen_by_views() const;
  std::vector<bool> prefer_channels_last() const;
  std::vector<std::vector<int64_t>> reuse_channels_last() const;
  const std::vector<std::vector<int64_t>>* loop_reads(int v) const;
  int split_stages(int64_t n, int64_t r, bool outer, bool outer_rest) const;
  void plan_reduction(int i, int64_t n, int64_t r);

  // 2. Extern kernels: what the library calls launch under Inductor (inductor_externs.cc).
  Counts counts_alone(int i, const std::vector<int64_t>* x_strides, const std::vector<int64_t>* w_strides,
                      bool channels_last_out, bool drop_bias, bool dense_inputs = false);
  bool decide_layout_opt() const;
  size_t fx_nodes() const;
  size_t upsample_linear_nodes(const Op& op, bool half) const;  // fx_nodes of one linear upsampling
  bool bias_add_node(int i, const std::vector<std::vector<int>>& users) const;
  size_t layer_norm_nodes(const Op& op) const;
  bool written_channels_last(int v) const;
  bool conv_sees_contiguous(int i) const;
  bool bias_unfused(int i) const;
  bool pointwise_use(int u, int b) const;
  void price_externs();
  // A recurrent layer as Inductor runs it, its decomposition (inductor_recurrent.cc): the kernels
  // of every step; none where the op is not one the plan holds (packed input, projection).
  struct RecurrentPlan {
    int64_t kernels = 0;
    bool padded = false;                      // pad_mm pads some of its GEMMs
    int64_t timed_more = 0, timed_fewer = 0;  // kernels if pad_mm's timings answer the other way
    Traffic traffic;                          // array-sized, its kernels' reads and writes
    std::string why;
  };
  std::optional<RecurrentPlan> decomposed_recurrent(int i) const;
  // One library GEMM alone in a graph of its own, as the target's rule counts it: `op` (aten::mm,
  // aten::addmm with a 1-d bias, aten::bmm of `b` products) of x [m, k] row major by w [k, n], read
  // transposed (a weight [n, k] through .t()) or row major.
  Counts gemm_alone(const char* op, int64_t b, int64_t m, int64_t k, int64_t n, DType dtype, bool w_transposed) const;
  // What pad_mm makes of x[m, k] @ w[n, k].t(): its Triton pad loops and the GEMM cuBLAS then
  // runs (the padded sizes where it pads, else the sizes given; a padded w.t() is a new row-major
  // buffer, no longer read transposed).
  struct PaddedMm {
    int loops = 0;
    int64_t m = 0, k = 0, n = 0;
    bool w_transposed = true;
  };
  PaddedMm padded_mm(int64_t m, int64_t k, int64_t n, DType dtype, bool x_planned_away) const;
  // The same GEMM as pad_mm would make it with the other answer (`pads` as given).
  PaddedMm padded_mm_as(int64_t m, int64_t k, int64_t n, DType dtype, bool pads) const;
  bool fused_attention(const Op& op) const;
  bool math_attention(const Op& op) const;
  bool aligned_in_storage(int v) const;
  std::vector<int64_t> padded_boundaries(int b) const;
  static std::vector<int64_t> pad_boundaries(const std::vector<int64_t>& sizes, DType dtype);
  bool crosses_padding(int v) const;
  void find_operand_copies();
  bool pad_planned_away(int v) const;
  void find_padded_gemms();

  // 3. Realization: which Triton values are computed into memory (inductor_realize.cc).
  bool reads_through_copy(int u, int b) const;
  bool returned_output(int i) const;
  int mutates_triton_buffer(int i) const;
  void realize();
  bool unrolled_softmax(int i) const;
  bool broadcast_by(int u, int x) const;
  int body_opcount(int i) const;
  std::vector<int64_t> cat_bounds(int i) const;
  bool concat_kernel(int i) const;
  bool computed_into_slice(int cat, int v) const;
  bool pool_window(int i) const;
  bool window_reads(int i, int p, std::set<int>& seen) const;
  bool reduction_fed(int p, std::map<int, bool>& memo) const;
  int64_t cat_dim_from_end(int i) const;

  // 4. The scheduler's fusion (inductor_scheduler.cc).
  std::vector<std::vector<int>> members;        // per root: its nodes
  std::vector<std::pair<int, int>> candidates;  // node pairs the scheduler scores (vertical and horizontal)
  std::vector<std::vector<int>> stats_nodes;    // per op: its statistics' reduction nodes
  int new_node(int i);
  void new_copy_node(int cat, int v);
  void new_stats_nodes(int i);
  bool reads_stats(int a, int b);
  bool split_node(int root) const;
  int root_kernels(int root) const;
  bool triton(int node) const;
  void node_inputs(int i, std::set<int>& out, std::vector<int>& seen_inline, int walk);
  void buffer_reads(int i, std::set<int>& out, std::vector<int>& seen_inline, int walk);
  static bool compatible(const Node& a, const Node& b);
  bool reads_in_order(int k, int d, const std::set<int>& reads) const;
  int producer_loop_vars(int p) const;
  std::vector<int64_t> loop_strides(int i) const;
  bool reads_permuted(int i, int p, bool permuted, bool shared, std::set<std::pair<int, int>>& seen) const;
  bool creates_cycle(int a, int b);
  bool depends(int from, int to);
  int reaches(int from, int to, bool through_others);
  void merge(int a, int b);
  void schedule();

  // 5. The plan: compiled kernels (inductor_plan.cc) and their traffic (inductor_kernel_traffic.cc).
  std::vector<int> first_reader_;
  std::vector<int> absorbed_into;    // per op: the op whose kernel an in-place write joins, or -1
  std::vector<int> copy_kernels_;    // per cat op: kernels of its copies fused with no op
  std::vector<int> stats_kernels_;   // per op: kernels of its statistics fused with no op
  std::vector<int> roots_of_groups;  // per plan group: its root node, -1 for dead code
  FusionPlan build();
  void account(FusionPlan& plan, int id, int root, const std::vector<bool>& escapes);

  // Why ops a and b do or do not share a kernel in `plan`, the plan build() returned (inductor_reason.cc).
  FusionVerdict verdict(const FusionPlan& plan, int a, int b);
};

// Calls use(builder) with a builder over the graph Inductor lowers: fuse_attention_patterns'
// rewrite where a pattern matched (the groups' eager figures still sum the launches as given),
// else the graph as given.
template <class Use>
auto with_lowered_graph(const Graph& g, const std::vector<Launch>& launches, const std::vector<Traffic>& traffic,
                        const Target& target, Use&& use) {
  const std::optional<AttentionRewrite> r = fuse_attention_patterns(g, launches, target);
  Builder b(r ? r->graph : g, r ? r->launches : launches, traffic, target);
  if (r) {
    b.fused_into = r->fused_into;
    b.eager_launches = &launches;
  }
  return use(b);
}

}  // namespace kc::inductor
