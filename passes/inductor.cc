#include "passes/inductor.h"

#include <algorithm>
#include <cstdlib>
#include <map>
#include <numeric>
#include <set>
#include <tuple>

#include "analyzer/tensor_geometry.h"
#include "passes/launch_rules.h"
#include "passes/launches.h"
#include "passes/op_classes.h"
#include "passes/sdpa_path.h"
#include "passes/target.h"

namespace kc {
namespace {

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
constexpr int kMaxPointwiseCatInputs = 8;     // max_pointwise_cat_inputs
constexpr int64_t kUnrollReductionBelow = 8;  // unroll_reductions_threshold: smaller ones are pointwise
constexpr int kMaxPoolWindow = 25;            // pooling windows above this fall back to ATen
constexpr int kMaxFusionDistance = 64;        // Scheduler.are_long_distant_nodes: node order apart

bool name_has(const Op& op, const char* s) {
  return op.name.find(s) != std::string::npos;
}

int64_t product(const std::vector<int64_t>& v) {
  int64_t p = 1;
  for (int64_t x : v) p *= x;
  return p;
}

// Gathers and index maps Inductor writes as pointwise loads (lowering.py); other index ops
// (boolean masks, sorts, scatters with accumulation, nonzero) fall back to ATen.
bool pointwise_index(const Graph& g, const Op& op) {
  static const char* const kNames[] = {"aten::embedding",
                                       "aten::gather",
                                       "aten::index_select",
                                       "aten::constant_pad_nd",
                                       "aten::pad",
                                       "aten::roll",
                                       "aten::flip",
                                       "aten::repeat",
                                       "aten::tile",
                                       "aten::narrow",
                                       "aten::slice_scatter",
                                       "aten::select_scatter",
                                       "aten::stack",
                                       "aten::reflection_pad1d",
                                       "aten::reflection_pad2d",
                                       "aten::replication_pad1d",
                                       "aten::replication_pad2d",
                                       "aten::take_along_dim",
                                       "aten::tril",
                                       "aten::triu",
                                       "aten::diagonal_scatter",
                                       "aten::cat",
                                       "aten::concat",
                                       "aten::concatenate"};
  for (const char* n : kNames)
    if (op.name == n) return true;
  if (op.name == "aten::index") {
    // A boolean mask has a data-dependent output size: nonzero first, a fallback.
    bool boolean = false, indexed = false;
    op.for_each_tensor_input([&](int v) {
      if (indexed) boolean = boolean || g.values[v].dtype == DType::kBool;  // an index, not the tensor indexed
      indexed = true;
    });
    return !boolean;
  }
  return false;
}

// The channels-last strides of a 4-d or 5-d size list (C fastest), else the sizes' own.
std::vector<int64_t> channels_last_of(const std::vector<int64_t>& sizes) {
  std::vector<int64_t> s(sizes.size());
  if (sizes.size() < 4) return contiguous_strides(sizes);
  int64_t acc = 1;
  s[1] = acc;
  acc *= std::max<int64_t>(sizes[1], 1);
  for (size_t d = sizes.size() - 1; d >= 2; --d) {
    s[d] = acc;
    acc *= std::max<int64_t>(sizes[d], 1);
  }
  s[0] = acc;
  return s;
}

// Whether a matrix product reads the value as it is: its last two dims dense in either order
// (cuBLAS takes a transpose), its batch dims dense over them (size-1 dims ignored). Otherwise
// the decomposition's reshape copies it first (an expanded batch, a permuted head dim).
bool gemm_operand_dense(const Value& v) {
  const size_t r = v.sizes.size();
  if (r < 2 || v.strides.size() != r) return true;
  const int64_t rows = v.sizes[r - 2], cols = v.sizes[r - 1];
  const int64_t sr = v.strides[r - 2], sc = v.strides[r - 1];
  const bool row_major = (cols == 1 || sc == 1) && (rows == 1 || sr == cols);
  const bool col_major = (rows == 1 || sr == 1) && (cols == 1 || sc == rows);
  if (!row_major && !col_major) return false;
  int64_t expected = rows * cols;
  for (size_t d = r - 2; d-- > 0;) {
    if (v.sizes[d] == 1) continue;
    if (v.strides[d] != expected) return false;
    expected *= v.sizes[d];
  }
  return true;
}

struct Node {
  int op = -1;                       // the op the node is (realized Triton op, extern or fallback)
  bool red = false;                  // holds a reduction
  int64_t n = 0, r = 1;              // iteration space: outputs and reduction size
  int64_t repeat = 1;                // loop trips of its ops
  int size = 1;                      // nodes fused into it
  int first = 0, last = 0;           // op index range of its members
  int min_order = 0, max_order = 0;  // node order range of its members (scheduling order)
  int copy_of = -1;                  // a cat's copy of this input value into its slice; -1: not a copy
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
  std::vector<int> extern_kernels;        // per op: kernels of extern and fallback ops
  std::vector<int64_t> copy_bytes;        // per op: bytes of the operands Inductor copies for its call
  std::vector<int64_t> n_of, r_of;        // per op: Triton iteration space
  std::vector<int64_t> splits;            // per op: pieces a reduction is split into (1: none)
  bool layout_opt = false;
  std::vector<std::vector<int>> operand_copies;  // per op: inputs Inductor copies before the call

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
  const Arg* arg(const Op& op, const char* name) const {
    for (const Arg& a : op.args)
      if (a.name == name) return &a;
    return nullptr;
  }

  // --- 1. Lowering: what each op becomes ------------------------------------------------

  void set(int i, Lower l, std::string words) {
    lower[i] = l;
    why[i] = std::move(words);
  }

  // ir.Reduction.num_splits: how many pieces a reduction of n outputs over r elements is split
  // into (a first kernel of partial results, a second reducing them); 1: not split.
  int64_t num_splits(int64_t n, int64_t r, bool outer) const {
    const int64_t sms = std::max<int64_t>(target.device.sms, 1);
    const int64_t min_ept = 32, max_ept = 512, threads_per_sm = 2048, threads = 256;
    const int64_t min_device = min_ept * sms * threads_per_sm, max_device = max_ept * sms * threads_per_sm;
    auto closest_divisor = [](int64_t x, int64_t target_size) {
      int64_t best = 1;
      for (int64_t d = 1; d * d <= x; ++d)
        if (x % d == 0)
          for (int64_t c : {d, x / d})
            if (std::abs(c - target_size) < std::abs(best - target_size)) best = c;
      return best;
    };
    auto inner = [&]() -> int64_t {
      if (n >= 2 * sms || r <= 8192) return 1;
      int64_t split_size;
      if (r * n <= min_device) {
        split_size = min_ept;
      } else if (r * n < max_device) {
        const int64_t target_blocks = sms * threads_per_sm / (2 * threads);
        const int64_t per_output = (target_blocks + n - 1) / n;
        const int64_t tmp = (r + threads * per_output - 1) / (threads * per_output);
        const int64_t c = closest_divisor(r, tmp);
        split_size = std::abs(c - tmp) < 30 ? std::max(c, min_ept) : tmp;
      } else {
        const int64_t c = closest_divisor(r, max_ept);
        split_size = std::abs(c - max_ept) < 50 ? c : max_ept;
      }
      return (r + split_size * threads - 1) / (split_size * threads);
    };
    if (n == 1) return inner();
    if (r <= min_ept || n >= sms * 2 * 32) return 1;
    if (!outer) return inner();
    const int64_t xblocks = (n + 127) / 128;
    int64_t split_size;
    if (r * n < min_device) {
      split_size = min_ept;
    } else if (r * n < max_device) {
      const int64_t target_blocks = (sms * threads_per_sm / threads + xblocks - 1) / xblocks;
      const int64_t tmp = (r + 4 * target_blocks - 1) / (4 * target_blocks);
      const int64_t c = closest_divisor(r, tmp);
      split_size = std::abs(tmp - c) < 20 ? std::max(c, min_ept) : tmp;
    } else {
      const int64_t c = closest_divisor(r, max_ept);
      split_size = std::abs(c - max_ept) < 50 ? c : max_ept;
    }
    return (r + 4 * split_size - 1) / (4 * split_size);
  }

  // Whether the reduced elements are not the innermost in memory (an outer reduction): a
  // spatial mean of channels-last activations (layout optimization), or dims other than the last.
  bool reduces_outer(const Op& op) const {
    if (op_class(op) == OpClass::kPool) return layout_opt;
    const Value* x = in0(op);
    const Arg* dims = arg(op, "dim");
    if (!x || !dims || dims->ints.empty() || op_class(op) != OpClass::kReduction) return false;
    const int64_t rank = static_cast<int64_t>(x->sizes.size());
    bool last = false, spatial = rank == 4;
    for (int64_t d : dims->ints) {
      const int64_t dd = d < 0 ? d + rank : d;
      last = last || dd == rank - 1;
      spatial = spatial && (dd == 2 || dd == 3);
    }
    return !last || (spatial && layout_opt);
  }

  // The reduction size of a reduction-like op, 0 when it reduces nothing.
  int64_t reduction_size(const Op& op) const {
    const Value* x = in0(op);
    if (!x) return 0;
    const int64_t in = x->numel(), out = out_numel(op);
    const int rank = static_cast<int>(x->sizes.size());
    auto dim_size = [&] {
      int64_t d = int_arg(op, "dim", -1);
      if (d < 0) d += rank;
      return d >= 0 && d < rank ? x->sizes[d] : 0;
    };
    if (name_has(op, "softmax") || op_class(op) == OpClass::kScan) return dim_size();
    if (name_has(op, "layer_norm") || name_has(op, "rms_norm")) {
      const Arg* shape = arg(op, "normalized_shape");
      return shape ? product(shape->ints) : 0;
    }
    if (name_has(op, "group_norm")) {
      const int64_t groups = std::max<int64_t>(int_arg(op, "num_groups", int_arg(op, "group", 1)), 1);
      const int64_t batch = rank > 0 ? x->sizes[0] : 1;
      return batch * groups > 0 ? in / (batch * groups) : 0;
    }
    if (op_class(op) == OpClass::kNorm)  // batch norm with batch statistics: per channel
      return rank > 1 && x->sizes[1] > 0 ? in / x->sizes[1] : 0;
    return out > 0 && in > out ? in / out : 0;
  }

  void lower_op(int i) {
    const Op& op = g.ops[i];
    const OpClass c = op_class(op);
    if (!launches[i].known) return set(i, Lower::kFallback, "no launch rule: run as eager runs it");
    if (launches_nothing(i)) return set(i, Lower::kFree, "launches nothing: a view or no-op");
    const int64_t n = out_numel(op);
    auto pointwise = [&](const char* words) {
      n_of[i] = n;
      set(i, Lower::kPointwise, words);
    };
    auto reduction = [&](int64_t r, const char* words) {
      const Value* x = in0(op);
      const int64_t outputs = x && r > 0 ? x->numel() / r : n;
      if (r <= 1 || (r < kUnrollReductionBelow && outputs != 1)) return pointwise(words);
      n_of[i] = outputs;
      r_of[i] = r;
      set(i, Lower::kReduction, words);
      splits[i] = num_splits(outputs, r, reduces_outer(op));
      if (splits[i] > 1) why[i] += "; split in two kernels (partial reductions, then theirs)";
    };
    switch (c) {
      case OpClass::kView:
        return pointwise("a view that copies here: a Triton copy");
      case OpClass::kMetadata:
        return set(i, Lower::kFallback, "a check on the device: run as eager runs it");
      case OpClass::kPointwise:
      case OpClass::kCopy:
      case OpClass::kFactory:
        return pointwise("a Triton pointwise loop");
      case OpClass::kNorm:
        if (batch_norm_inference(op))
          return pointwise("batch norm in inference decomposes to a per-channel scale and shift");
        return reduction(reduction_size(op), "a norm decomposes to a Triton reduction with its normalizing epilogue");
      case OpClass::kReduction:
        return reduction(reduction_size(op), "a Triton reduction loop");
      case OpClass::kScan:
        return reduction(reduction_size(op), "a Triton scan loop");
      case OpClass::kPool: {
        if (name_has(op, "adaptive_avg_pool")) {
          // Inductor's decomposition makes a pool to 1x1 a mean; other windows are a pointwise
          // loop, or a fallback beyond 25 elements (lowering.py's _adaptive_avg_pool2d).
          const Value* x = in0(op);
          const Value* y = op.outputs.empty() || op.outputs[0] < 0 ? nullptr : &g.values[op.outputs[0]];
          const bool to_one = y && y->sizes.size() >= 2 && y->sizes.back() == 1 && y->sizes[y->sizes.size() - 2] == 1;
          if (x && n > 0 && to_one)
            return reduction(x->numel() / n, "an adaptive average pool to 1x1 decomposes to a mean reduction");
          if (x && n > 0 && x->numel() / n > kMaxPoolWindow)
            return set(i, Lower::kFallback, "an adaptive average pool over windows of more than 25 falls back to ATen");
          return pointwise("an adaptive average pool with small windows is a pointwise window loop");
        }
        const Arg* k = arg(op, "kernel_size");
        if (k && product(k->ints) > kMaxPoolWindow)
          return set(i, Lower::kFallback, "a pooling window over 25 elements falls back to ATen");
        return pointwise("pooling and resampling are pointwise window loops");
      }
      case OpClass::kIndex:
        if (op.name == "aten::cat" || op.name == "aten::concat") {
          int inputs = 0;
          for (const Arg& a : op.args)
            if (a.kind == Arg::Kind::kTensorList) inputs += static_cast<int>(a.tensors.size());
          if (inputs > kMaxPointwiseCatInputs)
            return set(i, Lower::kConcat, "a cat of more than 8 inputs: each input is written into its slice");
          return pointwise("a cat of few inputs is a pointwise loop choosing its source");
        }
        if (pointwise_index(g, op)) return pointwise("a gather Inductor writes as indirect pointwise loads");
        return set(i, Lower::kFallback, "an index op without a Triton lowering falls back to ATen");
      case OpClass::kGemm:
        return set(i, Lower::kExtern, "a matrix product: cuBLAS through extern_kernels, bias as a pointwise epilogue");
      case OpClass::kConv:
        return set(i, Lower::kExtern,
                   "a convolution: cuDNN through extern_kernels, bias peeled off as a pointwise add");
      case OpClass::kAttention:
        return set(i, Lower::kExtern, "attention stays the flash, efficient or cuDNN kernel");
      default:
        return set(i, Lower::kFallback, "no Triton lowering: run as eager runs it");
    }
  }

  // --- 2. Extern kernels: what the library calls launch under Inductor --------------------

  // The op alone in a graph of its own, its operands as given.
  Counts counts_alone(int i, const std::vector<int64_t>* x_strides, const std::vector<int64_t>* w_strides,
                      bool channels_last_out, bool drop_bias, bool dense_inputs = false) {
    const Op& op = g.ops[i];
    Graph mini;
    std::map<int, int> remap;
    auto map_value = [&](int v) {
      auto it = remap.find(v);
      if (it != remap.end()) return it->second;
      Value copy = g.values[v];
      copy.producer = -1;
      copy.storage = -1;
      const int nv = mini.add_value(copy);
      remap[v] = nv;
      return nv;
    };
    Op copy = op;
    int tensor_arg = 0;
    for (Arg& a : copy.args) {
      if (drop_bias && a.name == "bias") {
        a = Arg{};
        a.name = "bias";
        continue;
      }
      for (int& v : a.tensors)
        if (v >= 0) {
          v = map_value(v);
          if (dense_inputs) mini.values[v].strides = contiguous_strides(mini.values[v].sizes);
          if (a.kind == Arg::Kind::kTensor) {
            if (tensor_arg == 0 && x_strides) mini.values[v].strides = *x_strides;
            if (tensor_arg == 1 && w_strides) mini.values[v].strides = *w_strides;
            ++tensor_arg;
          }
        }
    }
    for (int& v : copy.outputs)
      if (v >= 0) {
        Value out = g.values[v];
        if (channels_last_out && out.sizes.size() >= 4) out.strides = channels_last_of(out.sizes);
        out.producer = 0;
        out.storage = -1;
        v = mini.add_value(out);
      }
    mini.ops.push_back(copy);
    const std::vector<Launch> l = run_launches(mini, target);
    return l.at(0).known ? l[0].counts : launches[i].counts;
  }

  // GraphLowering.decide_layout_opt for an inference graph: convolutions run channels last
  // unless grouped convolutions (in-channels per group > 1) weigh enough of their FLOPs, or the
  // graph has 300 nodes or more per convolution.
  bool decide_layout_opt() const {
    int nconv = 0;
    double total = 0, weighted = 0;
    for (const Op& op : g.ops) {
      if (op_class(op) != OpClass::kConv) continue;
      ++nconv;
      const double flops = static_cast<double>(op_flops(g, op));
      const std::vector<int> in = op.tensor_inputs();
      if (in.size() < 2) continue;
      const std::vector<int64_t>& w = g.values[in[1]].sizes;
      if (w.size() < 3) continue;
      const int64_t groups = int_arg(op, "groups", 1);
      double mult = 0.823;  // DEFAULT_MULTIPLIER
      if (groups > 1 && w[1] > 1)
        mult = 1.358;  // GROUPED
      else if (w[0] <= 64 && w[1] <= 64)
        mult = 0.783;  // SMALL
      else if (w[0] * 2 <= w[1] && w[2] > 1)
        mult = 0.725;  // IN_OUT
      total += flops;
      weighted += flops * mult;
    }
    if (nconv == 0) return false;
    // The FX graph Inductor sees holds every op plus placeholders and the output.
    const size_t fx_nodes = g.ops.size() + g.inputs.size() + 1;
    if (fx_nodes >= static_cast<size_t>(300 * nconv)) return false;
    return weighted <= total;
  }

  // Whether a value is written by a Triton kernel or a convolution (channels last already).
  // Whether value v reads its buffer in the buffer's own element order: the buffer itself, or a
  // view of all of it that keeps the order (view, reshape, unsqueeze of a dense buffer).
  bool same_order(int v) const {
    const int b = base[v];
    if (v == b) return true;
    const Value& x = g.values[v];
    const Value& whole = g.values[b];
    return x.numel() == whole.numel() && x.storage_offset == whole.storage_offset &&
           row_major_dense(x.sizes, x.strides) && row_major_dense(whole.sizes, whole.strides);
  }

  // Whether a value is all of a buffer a Triton loop or a convolution writes: Inductor gives
  // that buffer the channels-last layout its convolution reader wants, with no copy.
  bool written_channels_last(int v) const {
    const int p = g.values[base[v]].producer;
    if (p < 0 || !same_order(v)) return false;
    return lower[p] == Lower::kPointwise || lower[p] == Lower::kReduction || op_class(g.ops[p]) == OpClass::kConv;
  }

  void price_externs() {
    for (size_t k = 0; k < g.ops.size(); ++k) {
      const int i = static_cast<int>(k);
      const Op& op = g.ops[i];
      if (lower[i] == Lower::kFallback) extern_kernels[i] = launches[i].known ? launches[i].counts.kernels : 0;
      if (lower[i] != Lower::kExtern) continue;
      const OpClass c = op_class(op);
      if (c == OpClass::kConv) {
        const std::vector<int> in = op.tensor_inputs();
        const bool four_d = in.size() >= 2 && g.values[in[0]].sizes.size() >= 4 && g.values[in[1]].sizes.size() >= 4;
        if (layout_opt && four_d) {
          const Value& x = g.values[in[0]];
          const Value& w = g.values[in[1]];
          const std::vector<int64_t> xs = channels_last_of(x.sizes), ws = channels_last_of(w.sizes);
          int copies = 0;
          std::string what;
          // Weights are graph inputs in their own layout: a Triton copy into channels last each
          // call unless already dense in it (1x1 and depthwise weights are).
          if (!channels_last_dense(w.sizes, w.strides)) {
            ++copies;
            copy_bytes[i] = add_checked(copy_bytes[i], w.bytes(), "copy bytes");
            what = " + its weight copied to channels last";
          }
          if (!written_channels_last(in[0]) && !channels_last_dense(x.sizes, x.strides)) {
            ++copies;
            copy_bytes[i] = add_checked(copy_bytes[i], x.bytes(), "copy bytes");
            what += " + its input copied to channels last";
          }
          extern_kernels[i] = counts_alone(i, &xs, &ws, true, true).kernels + copies;
          why[i] = "a convolution: cuDNN on channels-last tensors (layout optimization)" + what +
                   "; bias peeled off as a pointwise add";
        } else {
          extern_kernels[i] = counts_alone(i, nullptr, nullptr, false, true).kernels;
        }
      } else if (c == OpClass::kGemm) {
        // The decomposition's layout copies (a transposed or expanded operand made dense) are
        // Triton loops of their own, fused with their producers: the library call reads dense
        // operands. (Transposes cuBLAS takes as they are change nothing here.)
        extern_kernels[i] = counts_alone(i, nullptr, nullptr, false, true, true).kernels;
      } else if (c == OpClass::kAttention && fused_attention(op)) {
        // Inductor calls the fused kernel's own op (flash, efficient or cuDNN attention) with
        // the mask already computed by a Triton loop: the kernel alone, none of the eager op's
        // mask expansion and conversion kernels.
        extern_kernels[i] = 1;
      } else {
        extern_kernels[i] = launches[i].counts.kernels;
      }
    }
  }

  bool fused_attention(const Op& op) const {
    const std::vector<int> in = op.tensor_inputs();
    if (in.size() < 3) return false;
    const Value* mask = in.size() > 3 ? &g.values[in[3]] : nullptr;
    return sdpa_runs_fused(g.values[in[0]], g.values[in[1]], g.values[in[2]], mask);
  }

  // The query, key and value cuDNN attention reads are copied into the layout its lowering
  // requires (a fresh dense buffer), unless a Triton loop writes one whole as it is; the
  // memory-efficient kernel (f32) takes strided operands as they are.
  void find_operand_copies() {
    operand_copies.assign(g.ops.size(), {});
    for (size_t k = 0; k < g.ops.size(); ++k) {
      const Op& op = g.ops[k];
      if (lower[k] != Lower::kExtern) continue;
      if (op_class(op) == OpClass::kGemm) {
        for (const Arg& a : op.args)
          if (a.kind == Arg::Kind::kTensor && a.name != "bias" && !a.tensors.empty() && a.tensors[0] >= 0 &&
              !gemm_operand_dense(g.values[a.tensors[0]]))
            operand_copies[k].push_back(a.tensors[0]);
        continue;
      }
      if (op_class(op) != OpClass::kAttention) continue;
      const std::vector<int> in = op.tensor_inputs();
      if (in.size() < 3 || !is_half(g.values[in[0]].dtype)) continue;
      const Value* mask = in.size() > 3 ? &g.values[in[3]] : nullptr;
      if (!sdpa_runs_fused(g.values[in[0]], g.values[in[1]], g.values[in[2]], mask)) continue;
      for (int j = 0; j < 3; ++j) {
        const Value& v = g.values[in[j]];
        const int p = v.producer;
        const bool written_whole = p >= 0 && (lower[p] == Lower::kPointwise || lower[p] == Lower::kReduction) &&
                                   row_major_dense(v.sizes, v.strides);
        if (!written_whole) operand_copies[k].push_back(in[j]);
      }
    }
  }

  // Whether op u reads base value b only through a copy it makes first.
  bool reads_through_copy(int u, int b) const {
    bool copied = false, direct = false;
    g.ops[u].for_each_tensor_input([&](int v) {
      if (base[v] != b) return;
      const auto& c = operand_copies[u];
      (std::find(c.begin(), c.end(), v) != c.end() ? copied : direct) = true;
    });
    return copied && !direct;
  }

  bool returned_output(int i) const {
    for (int v : g.ops[i].outputs)
      if (v >= 0 && returned[base[v]]) return true;
    return false;
  }

  // The Triton op whose buffer in-place op i writes into (its mutated argument's base), or -1.
  int mutates_triton_buffer(int i) const {
    const Op& op = g.ops[i];
    if (!op.traits.inplace || op.traits.mutated_args.empty()) return -1;
    const Arg& a = op.args.at(op.traits.mutated_args[0]);
    if (a.tensors.empty() || a.tensors[0] < 0) return -1;
    const int p = g.values[base[a.tensors[0]]].producer;
    return p >= 0 && p < i && (lower[p] == Lower::kPointwise || lower[p] == Lower::kReduction) ? p : -1;
  }

  // --- 3. Realization: which Triton values are computed into memory -------------------------

  void realize() {
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

  // --- 4. The scheduler's fusion ----------------------------------------------------------

  int new_node(int i) {
    Node nd;
    nd.op = i;
    nd.red = lower[i] == Lower::kReduction;
    nd.n = n_of[i];
    nd.r = r_of[i];
    nd.repeat = g.ops[i].repeat;
    nd.first = nd.last = i;
    nd.min_order = nd.max_order = static_cast<int>(nodes.size());
    nodes.push_back(nd);
    node_of[i] = static_cast<int>(nodes.size()) - 1;
    return node_of[i];
  }

  // ConcatKernel: an input no loop can be computed into the output's slice is copied into it
  // by a pointwise node of its own, which the scheduler may fuse like any other.
  void new_copy_node(int cat, int v) {
    Node nd;
    nd.op = cat;
    nd.n = g.values[v].numel();
    nd.repeat = g.ops[cat].repeat;
    nd.first = nd.last = cat;
    nd.min_order = nd.max_order = static_cast<int>(nodes.size());
    nd.copy_of = v;
    nodes.push_back(nd);
  }

  bool split_node(int root) const {
    for (int m : members[root])
      if (nodes[m].red && nodes[m].copy_of < 0 && splits[nodes[m].op] > 1) return true;
    return false;
  }

  bool triton(int node) const {
    const Lower l = lower[nodes[node].op];
    return nodes[node].copy_of >= 0 || l == Lower::kPointwise || l == Lower::kReduction;
  }

  // The nodes op i reads, through inlined ops and views.
  void node_inputs(int i, std::set<int>& out, std::vector<int>& seen_inline) {
    g.ops[i].for_each_tensor_input([&](int v) {
      const int p = g.values[base[v]].producer;
      if (p < 0) return;
      if (node_of[p] >= 0) {
        out.insert(node_of[p]);
      } else if (lower[p] == Lower::kPointwise && seen_inline[p] != i) {
        seen_inline[p] = i;
        node_inputs(p, out, seen_inline);
      }
    });
  }

  // Values a node reads from memory, through inlined ops (each a view of its buffer).
  void buffer_reads(int i, std::set<int>& out, std::vector<int>& seen_inline) {
    g.ops[i].for_each_tensor_input([&](int v) {
      const int b = base[v];
      const int p = g.values[b].producer;
      if (p >= 0 && node_of[p] < 0 && lower[p] == Lower::kPointwise) {
        if (seen_inline[p] != i) {
          seen_inline[p] = i;
          buffer_reads(p, out, seen_inline);
        }
      } else if (g.values[b].placement == Placement::kDevice) {
        out.insert(v);
      }
    });
  }

  // SIMDScheduling.can_fuse: iteration spaces that tile together.
  static bool compatible(const Node& a, const Node& b) {
    if (a.repeat != b.repeat) return false;
    if (!a.red && !b.red) return a.n == b.n;
    if (a.red && b.red) return a.n == b.n && a.r == b.r;
    const Node& red = a.red ? a : b;
    const Node& pw = a.red ? b : a;
    return pw.n == red.n * red.r || pw.n == red.n;
  }

  // can_fuse_vertical: the reader must read the producer's buffer at the index it is written
  // (a permuted or sliced view reads other elements); a reduction's result may be broadcast
  // over its prologue's loop, which the fused kernel runs row by row.
  bool reads_in_order(int k, int d, const std::set<int>& reads) const {
    if (nodes[d].red || nodes[d].copy_of >= 0) return true;
    for (int v : reads)
      if (g.values[base[v]].producer == nodes[d].op && !same_order(v)) return false;
    return true;
  }

  // Scheduler.will_fusion_create_cycle: a path from one group to the other through a third.
  std::vector<std::vector<int>> members;  // per root: its nodes

  bool creates_cycle(int a, int b) {
    auto reach = [&](int from, int to) {
      const int last = nodes[to].last;
      std::vector<int> stack;
      std::set<int> seen;
      auto push_succ = [&](int grp) {
        for (int m : members[grp])
          for (int s : succ[m]) {
            const int gs = find(s);
            if (gs == to) {
              if (grp != from) return true;
              continue;
            }
            if (gs != from && seen.insert(gs).second) stack.push_back(gs);
          }
        return false;
      };
      if (push_succ(from)) return true;
      while (!stack.empty()) {
        const int x = stack.back();
        stack.pop_back();
        if (nodes[x].first > last) continue;  // dependencies run forward in op order
        if (push_succ(x)) return true;
      }
      return false;
    };
    return reach(a, b) || reach(b, a);
  }

  void merge(int a, int b) {
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

  void schedule() {
    for (size_t k = 0; k < g.ops.size(); ++k) {
      const int i = static_cast<int>(k);
      const Lower l = lower[i];
      if (l == Lower::kConcat) g.ops[i].for_each_tensor_input([&](int v) { new_copy_node(i, v); });
      for (int v : operand_copies[i]) new_copy_node(i, v);
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
    using Access = std::tuple<int, std::vector<int64_t>, std::vector<int64_t>, int64_t>;
    std::map<Access, std::vector<int>> readers_of_buffer;
    for (int k = 0; k < count; ++k) {
      const Node& nd = nodes[k];
      if (nd.copy_of >= 0) {
        // A copy reads its input, through the loops inlined into it.
        const int p = g.values[base[nd.copy_of]].producer;
        if (p >= 0 && node_of[p] >= 0)
          deps[k].insert(node_of[p]);
        else if (p >= 0 && lower[p] == Lower::kPointwise)
          node_inputs(p, deps[k], seen);
      } else if (lower[nd.op] == Lower::kConcat || lower[nd.op] == Lower::kExtern) {
        for (int c = k - 1; c >= 0 && nodes[c].op == nd.op; --c)  // its operand copies, just before it
          if (nodes[c].copy_of >= 0 && nodes[c].op == nd.op) deps[k].insert(c);
        node_inputs(nd.op, deps[k], seen);
      } else {
        node_inputs(nd.op, deps[k], seen);
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
      if (copied < 0)
        buffer_reads(nodes[k].op, bufs, seen);
      else if (g.values[base[copied]].placement == Placement::kDevice)
        bufs.insert(copied);
      for (int v : bufs) {
        const Value& x = g.values[v];
        // Copies are keyed by the value they copy: parts of one buffer (selects of a stacked q, k
        // and v) may record the same view geometry.
        readers_of_buffer[Access{copied >= 0 ? -1 - v : base[v], x.sizes, x.strides, x.storage_offset}].push_back(k);
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
      const int64_t bytes =
          int64_t{dtype_size(g.values[key >= 0 ? key : -1 - key].dtype)} * product(std::get<1>(access));
      for (size_t j = 1; j < list.size(); ++j) pairs.push_back({bytes, list[j] - list[j - 1], list[j - 1], list[j]});
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
        // A split reduction's two kernels loop over other ranges than its neighbours'.
        if (split_node(a) || split_node(b)) continue;
        if (std::max(std::abs(nodes[a].min_order - nodes[b].max_order),
                     std::abs(nodes[b].min_order - nodes[a].max_order)) > kMaxFusionDistance)
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

  // --- 5. The plan: compiled kernels and their traffic ---------------------------------------

  FusionPlan build() {
    FusionPlan plan;
    plan.variant = "inductor";
    plan.group_of.assign(g.ops.size(), -1);
    // Inlined ops join the group of their first reader that is in one (readers come later).
    std::vector<int> group_root(g.ops.size(), -1);  // per op: its node's root
    for (size_t k = 0; k < g.ops.size(); ++k)
      if (node_of[k] >= 0) group_root[k] = find(node_of[k]);
    for (size_t k = 0; k < g.ops.size(); ++k)
      if (absorbed_into[k] >= 0 && node_of[absorbed_into[k]] >= 0) group_root[k] = find(node_of[absorbed_into[k]]);
    for (size_t k = g.ops.size(); k-- > 0;) {
      if (group_root[k] >= 0 || lower[k] == Lower::kFree) continue;
      for (int v : g.ops[k].outputs) {
        if (v < 0) continue;
        for (int u : readers[base[v]])
          if (group_root[u] >= 0 && (group_root[k] < 0 || u < first_reader_[k])) {
            group_root[k] = group_root[u];
            first_reader_[k] = u;
          }
      }
    }
    std::map<int, int> group_index;  // root node -> plan group
    for (size_t k = 0; k < g.ops.size(); ++k) {
      const int i = static_cast<int>(k);
      if (lower[i] == Lower::kFree) continue;
      int grp;
      if (group_root[i] >= 0) {
        auto it = group_index.find(group_root[i]);
        if (it == group_index.end()) {
          it = group_index.emplace(group_root[i], static_cast<int>(plan.groups.size())).first;
          plan.groups.push_back({});
          const Node& root = nodes[group_root[i]];
          const Lower l = lower[root.op];
          plan.groups.back().kind = l == Lower::kExtern     ? "extern"
                                    : l == Lower::kFallback ? "fallback"
                                    : l == Lower::kConcat   ? "concat"
                                    : root.red              ? "reduction"
                                                            : "pointwise";
        }
        grp = it->second;
      } else {
        // Read by nothing that launches: it is computed for nothing and costs nothing.
        grp = static_cast<int>(plan.groups.size());
        plan.groups.push_back({});
        plan.groups.back().kind = "dead";
      }
      plan.groups[grp].ops.push_back(i);
      plan.group_of[i] = grp;
    }
    std::vector<int> root_of_group(plan.groups.size(), -1);
    for (const auto& [root, grp] : group_index) root_of_group[grp] = root;
    // Kernels of copies fused with no op's loop belong to the first cat they copy for.
    copy_kernels_.assign(g.ops.size(), 0);
    std::set<int> counted;
    for (size_t k = 0; k < nodes.size(); ++k) {
      if (nodes[k].copy_of < 0) continue;
      const int root = find(static_cast<int>(k));
      if (group_index.count(root) || !counted.insert(root).second) continue;
      ++copy_kernels_[nodes[k].op];
    }
    // Every copy reads its value and writes it again, fused or not (fused with a loop that
    // reads it anyway, it still writes the copy).
    for (size_t k = 0; k < nodes.size(); ++k) {
      if (nodes[k].copy_of < 0 || lower[nodes[k].op] != Lower::kExtern) continue;
      copy_bytes[nodes[k].op] = add_checked(copy_bytes[nodes[k].op], g.values[nodes[k].copy_of].bytes(), "copy bytes");
    }
    std::vector<bool> escapes = escaping(plan);
    for (size_t k = 0; k < plan.groups.size(); ++k) account(plan, static_cast<int>(k), root_of_group[k], escapes);
    plan.lowering = why;
    return plan;
  }

  std::vector<int> first_reader_;
  std::vector<int> absorbed_into;  // per op: the op whose kernel an in-place write joins, or -1
  std::vector<int> copy_kernels_;  // per cat op: kernels of its copies fused with no op

  // Per base value: read by an op of another group, or returned.
  std::vector<bool> escaping(const FusionPlan& plan) const {
    std::vector<bool> out(g.values.size(), false);
    for (size_t b = 0; b < g.values.size(); ++b) out[b] = returned[b];
    for (size_t i = 0; i < g.ops.size(); ++i) {
      const int mine = plan.group_of[i];
      if (mine < 0 || lower[i] == Lower::kFree) continue;
      g.ops[i].for_each_tensor_input([&](int v) {
        const int p = g.values[base[v]].producer;
        if (p >= 0 && plan.group_of[p] != mine) out[base[v]] = true;
      });
    }
    return out;
  }

  void account(FusionPlan& plan, int id, int root, const std::vector<bool>& escapes) {
    FusionGroup& grp = plan.groups[id];
    for (int i : grp.ops) {
      grp.eager_kernels += launches[i].counts.kernels;
      grp.eager += traffic[i];
    }
    grp.fused.flops = grp.eager.flops;
    if (grp.kind == "dead") return;
    const Node& nd = nodes[root];
    const int64_t runs = g.ops[grp.ops.front()].repeat;
    if (grp.kind == "extern" || grp.kind == "fallback") {
      grp.fused_kernels = extern_kernels[nd.op] + copy_kernels_[nd.op];
      grp.fused = traffic[nd.op];
      // Operand copies (channels last, dense for the call) read and write the operand once more.
      if (copy_bytes[nd.op] > 0) {
        grp.fused.reads += 1;
        grp.fused.writes += 1;
        grp.fused.read_bytes = add_checked(grp.fused.read_bytes, copy_bytes[nd.op], "fused HBM bytes");
        grp.fused.write_bytes = add_checked(grp.fused.write_bytes, copy_bytes[nd.op], "fused HBM bytes");
      }
      return;
    }
    int kernels = 1;
    if (grp.kind == "concat") {
      kernels = copy_kernels_[nd.op];
      grp.fused_kernels = static_cast<int>(std::min<int64_t>(kernels * runs, 1 << 30));
      grp.fused = traffic[nd.op];
      return;
    } else if (nd.red && splits[nd.op] > 1) {
      kernels = 2;  // a split reduction: partial results, then their reduction
    }
    grp.fused_kernels = static_cast<int>(std::min<int64_t>(kernels * runs, 1 << 30));
    std::map<int, int64_t> reads;
    std::set<int> writes;
    for (int i : grp.ops) {
      g.ops[i].for_each_tensor_input([&](int v) {
        const int b = base[v];
        const int p = g.values[b].producer;
        if (g.values[v].placement != Placement::kDevice || (p >= 0 && plan.group_of[p] == id)) return;
        int64_t& bytes = reads[b];
        bytes = std::max(bytes, std::min(g.values[v].bytes(), g.values[b].bytes()));
      });
      for (int v : g.ops[i].outputs)
        if (v >= 0 && escapes[base[v]] && g.values[v].placement == Placement::kDevice &&
            (node_of[i] >= 0 || lower[i] == Lower::kConcat))
          writes.insert(v);
    }
    for (const auto& [v, bytes] : reads) {
      grp.fused.reads += static_cast<int>(runs);
      grp.fused.read_bytes =
          add_checked(grp.fused.read_bytes, mul_checked(bytes, runs, "fused HBM bytes"), "fused HBM bytes");
      grp.fused_reads.push_back(v);
    }
    for (int v : writes) {
      grp.fused.writes += static_cast<int>(runs);
      grp.fused.write_bytes = add_checked(grp.fused.write_bytes,
                                          mul_checked(g.values[v].bytes(), runs, "fused HBM bytes"), "fused HBM bytes");
      grp.fused_writes.push_back(v);
    }
  }

  FusionPlan run() {
    const size_t nops = g.ops.size();
    lower.assign(nops, Lower::kFree);
    why.assign(nops, "");
    realized.assign(nops, false);
    extern_kernels.assign(nops, 0);
    copy_bytes.assign(nops, 0);
    n_of.assign(nops, 0);
    r_of.assign(nops, 1);
    node_of.assign(nops, -1);
    first_reader_.assign(nops, static_cast<int>(nops));
    absorbed_into.assign(nops, -1);
    base.resize(g.values.size());
    std::iota(base.begin(), base.end(), 0);
    splits.assign(nops, 1);
    layout_opt = decide_layout_opt();
    for (size_t k = 0; k < nops; ++k) lower_op(static_cast<int>(k));
    readers.assign(g.values.size(), {});
    for (size_t k = 0; k < nops; ++k) {
      const Op& op = g.ops[k];
      if (lower[k] == Lower::kFree) {
        int in = -1;
        op.for_each_tensor_input([&](int v) {
          if (in < 0) in = v;
        });
        for (int v : op.outputs)
          if (v >= 0 && in >= 0 && v != in) base[v] = base[in];
        continue;
      }
      std::set<int> seen;
      op.for_each_tensor_input([&](int v) {
        if (seen.insert(base[v]).second) readers[base[v]].push_back(static_cast<int>(k));
      });
    }
    returned.assign(g.values.size(), false);
    for (int v : g.outputs)
      if (v >= 0) returned[base[v]] = true;
    find_operand_copies();
    realize();
    price_externs();
    schedule();
    return build();
  }
};

}  // namespace

FusionPlan run_inductor(const Graph& g, const std::vector<Launch>& launches, const std::vector<Traffic>& traffic,
                        const Target& target) {
  return Builder(g, launches, traffic, target).run();
}

std::string inductor_fusion_reason(const Graph& g, const FusionPlan& plan, int a, int b) {
  auto name = [&](int i) { return "op " + std::to_string(i) + " " + g.ops[i].full_name(); };
  const int ga = plan.group_of[a], gb = plan.group_of[b];
  auto lowered = [&](int i) { return i < static_cast<int>(plan.lowering.size()) ? plan.lowering[i] : std::string(); };
  if (ga < 0 || gb < 0) {
    const int free = ga < 0 ? a : b;
    return name(free) + " launches nothing under Inductor (" + lowered(free) + "), so there is no kernel to share.";
  }
  if (ga == gb)
    return "they share one compiled " + plan.groups[ga].kind + " kernel (group F" + std::to_string(ga) + ").";
  for (int i : {a, b}) {
    const std::string& kind = plan.groups[plan.group_of[i]].kind;
    if (kind == "extern" || kind == "fallback" || kind == "concat")
      return name(i) + " is not Triton code: " + lowered(i) + "; Inductor fuses only Triton loops.";
  }
  const FusionGroup& x = plan.groups[ga];
  const FusionGroup& y = plan.groups[gb];
  if (x.ops.size() + y.ops.size() > static_cast<size_t>(kMaxFusionSize))
    return "together they would pass Inductor's limit of 64 nodes in one kernel.";
  // A path between the two groups through an op of a third group: fusing would make a cycle.
  auto path_through = [&](int from_grp, int to_grp) -> int {
    std::vector<int> on(g.ops.size(), 0);
    for (int i : plan.groups[from_grp].ops) on[i] = 1;
    for (size_t i = 0; i < g.ops.size(); ++i) {
      bool reached = false;
      g.ops[i].for_each_tensor_input([&](int v) {
        const int p = g.values[v].producer;
        if (p >= 0 && on[p]) reached = true;
      });
      if (!reached || on[i]) continue;
      if (plan.group_of[i] == to_grp) {
        if (on[i] == 0) {
          // reached the target through an op of another group only if some intermediate marked 2
          bool via_other = false;
          g.ops[i].for_each_tensor_input([&](int v) {
            const int p = g.values[v].producer;
            if (p >= 0 && on[p] == 2) via_other = true;
          });
          if (via_other) return static_cast<int>(i);
        }
        continue;
      }
      on[i] = plan.group_of[i] >= 0 && plan.group_of[i] != from_grp ? 2 : 1;
    }
    return -1;
  };
  if (path_through(ga, gb) >= 0 || path_through(gb, ga) >= 0)
    return "a kernel of another group runs between them (one reads what the other's path writes): fusing them "
           "would make a cycle.";
  return "their loops do not tile together (different sizes, or a reduction of another shape), or they share no "
         "buffer, so Inductor's scheduler keeps them apart.";
}

}  // namespace kc
