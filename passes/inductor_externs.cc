#include <algorithm>
#include <map>
#include <set>
#include <string_view>

#include "analyzer/tensor_geometry.h"
#include "passes/inductor_builder.h"
#include "passes/launch_rules.h"
#include "passes/launches.h"
#include "passes/op_classes.h"
#include "passes/sdpa_path.h"
#include "passes/target.h"
#include "passes/torch2_11/rules.h"

namespace kc::inductor {
namespace {

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
// (cuBLAS takes a transpose), its batch dims folding into one past them (size-1 dims ignored). Otherwise
// the decomposition's reshape copies it first (an expanded batch, a permuted head dim). A
// matrix (2-d) needs only a unit stride in one dim: cuBLAS takes the other as its leading
// dimension (BERT's pooler reads token 0 of every sequence, rows 393,216 apart: no copy).
bool gemm_operand_dense(const Value& v) {
  const size_t r = v.sizes.size();
  if (r < 2 || v.strides.size() != r) return true;
  const int64_t rows = v.sizes[r - 2], cols = v.sizes[r - 1];
  const int64_t sr = v.strides[r - 2], sc = v.strides[r - 1];
  if (r == 2)
    return ((cols == 1 || sc == 1) && (rows == 1 || sr >= cols)) ||
           ((rows == 1 || sr == 1) && (cols == 1 || sc >= rows));
  const bool row_major = (cols == 1 || sc == 1) && (rows == 1 || sr == cols);
  const bool col_major = (rows == 1 || sr == 1) && (cols == 1 || sc == rows);
  if (!row_major && !col_major) return false;
  // The batch dims fold into one by a view: each steps over the next; the innermost may step
  // past its matrix (a slice of a wider buffer, which a batched call reads at its own stride).
  int64_t expected = -1;
  for (size_t d = r - 2; d-- > 0;) {
    if (v.sizes[d] == 1) continue;
    if (expected < 0 ? v.strides[d] < rows * cols : v.strides[d] != expected) return false;
    expected = v.strides[d] * v.sizes[d];
  }
  return true;
}

// Whether a value's dims but its last merge into one by a view (each steps over the next; dims
// of size 1 step anywhere): the rows a GEMM folds a batched left operand into.
bool rows_fold(const Value& v) {
  const size_t r = v.sizes.size();
  if (r < 3 || v.strides.size() != r) return true;
  int64_t expected = -1;
  for (size_t d = r - 1; d-- > 0;) {
    if (v.sizes[d] == 1) continue;
    if (expected >= 0 && v.strides[d] != expected) return false;
    expected = v.strides[d] * v.sizes[d];
  }
  return true;
}

// The getitem nodes that take apart what op returns as a tuple (unbind, split, max.dim), one
// per output some op or the graph's output reads (`read`); none for an op returning one tensor.
size_t tuple_items(const Op& op, const std::set<int>& read) {
  size_t outputs = 0, items = 0;
  for (int v : op.outputs) {
    if (v < 0) continue;
    ++outputs;
    if (read.count(v)) ++items;
  }
  return outputs > 1 ? items : 0;
}

}  // namespace

// The op alone in a graph of its own, its operands as given.
Counts Builder::counts_alone(int i, const std::vector<int64_t>* x_strides, const std::vector<int64_t>* w_strides,
                             bool channels_last_out, bool drop_bias, bool dense_inputs) {
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
  if (drop_bias && op.name == "aten::addmm") {
    // addmm without its addend is mm of the two matrices (unfuse_bias_add_to_pointwise's x1 @ x2).
    copy.name = "aten::mm";
    copy.overload = Name();
    copy.args.erase(std::remove_if(copy.args.begin(), copy.args.end(),
                                   [](const Arg& a) { return a.name != "mat1" && a.name != "mat2"; }),
                    copy.args.end());
    for (Arg& a : copy.args)
      if (a.name == "mat1") a.name = "self";
  }
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

Counts Builder::gemm_alone(const char* op_name, int64_t b, int64_t m, int64_t k, int64_t n, DType dtype,
                           bool w_transposed) const {
  const bool batched = std::string_view(op_name) == "aten::bmm";
  Graph mini;
  auto add = [&](std::vector<int64_t> sizes, std::vector<int64_t> strides, int producer) {
    Value v;
    if (batched) {
      strides.insert(strides.begin(), sizes[0] * sizes[1]);
      sizes.insert(sizes.begin(), b);
    }
    v.sizes = std::move(sizes);
    v.strides = std::move(strides);
    v.dtype = dtype;
    v.device = g.values.empty() ? SharedString() : g.values[0].device;
    v.producer = producer;
    return mini.add_value(v);
  };
  Op op;
  op.name = op_name;
  const bool addmm = op.name == "aten::addmm";
  if (addmm) op.args.push_back(Arg::tensor("self", add({n}, {1}, -1)));
  op.args.push_back(Arg::tensor(addmm ? "mat1" : "self", add({m, k}, {k, 1}, -1)));
  op.args.push_back(
      Arg::tensor("mat2", add({k, n}, w_transposed ? std::vector<int64_t>{1, k} : std::vector<int64_t>{n, 1}, -1)));
  op.outputs = {add({m, n}, {n, 1}, 0)};
  mini.ops.push_back(op);
  const std::vector<Launch> l = run_launches(mini, target);
  return l.at(0).known ? l[0].counts : Counts{1, 0, 0, 0};
}

// The nodes a layer norm decomposes into before lowering (torch/_refs native_layer_norm):
// var_mean and its two getitems, the epsilon added, rsqrt, the subtraction and the product,
// then a product and a sum per affine parameter; half precision converts the input to float32
// and the result back.
size_t Builder::layer_norm_nodes(const Op& op) const {
  size_t n = 7;
  for (const char* p : {"weight", "bias"})
    if (const Arg* a = arg(op, p); a && !a->tensors.empty() && a->tensors[0] >= 0) ++n;
  const Value* x = in0(op);
  if (x && (x->dtype == DType::kBFloat16 || x->dtype == DType::kFloat16)) n += 2;
  return n;
}

// Whether linear i's bias becomes an add node of its own before the graph is lowered
// (unfuse_bias_add_to_pointwise, a post-grad pass that runs before GraphLowering counts the
// nodes): some reader of the product, through views, is tagged pointwise or reduction.
bool Builder::bias_add_node(int i, const std::vector<std::vector<int>>& users) const {
  const Arg* bias = arg(g.ops[i], "bias");
  if (!bias || bias->tensors.empty() || bias->tensors[0] < 0) return false;
  std::vector<int> todo(g.ops[i].outputs.begin(), g.ops[i].outputs.end());
  for (size_t t = 0; t < todo.size() && t < 64; ++t) {
    if (todo[t] < 0) continue;
    for (int u : users[todo[t]]) {
      const Op& r = g.ops[u];
      const OpClass c = op_class(r);
      if (c == OpClass::kPointwise || c == OpClass::kReduction) return true;
      if (r.traits.view)
        for (int v : r.outputs) todo.push_back(v);
    }
  }
  return false;
}

// upsample_linear1d, upsample_bilinear2d and upsample_trilinear3d (not the antialiased kernels,
// which Inductor calls as they are).
static bool upsample_linear(const Op& op) {
  return op.name == "aten::upsample_linear1d" || op.name == "aten::upsample_bilinear2d" ||
         op.name == "aten::upsample_trilinear3d";
}

size_t Builder::upsample_linear_nodes(const Op& op, bool half) const {
  const Value* out = op.outputs.empty() || op.outputs[0] < 0 ? nullptr : &g.values[op.outputs[0]];
  const int dims = out && out->sizes.size() > 2 ? static_cast<int>(out->sizes.size()) - 2 : 1;
  const size_t per_dim = bool_arg(op, "align_corners", false) ? 11 : 13;
  return per_dim * dims + 4 * (size_t{1} << dims) - 4 + (half ? 2 : 0);
}

// The nodes of the FX graph Inductor lowers, as AOTAutograd traces it and the post-grad passes
// leave it: a placeholder for every input, parameter and buffer, the ATen ops each op decomposes
// into (a linear of a 3-d+ input is a view, a transpose, the GEMM and a view back, and its bias
// an add of its own where the post-grad pass unfuses it; a layer norm, a softmax, im2col and
// col2im their decompositions; another norm or attention its op and the getitem of its result;
// a reshape that copies a clone and a view, a linear upsampling its decomposition), views as
// nodes of their own, a getitem per read output of an op returning a tuple, none for what is the
// identity in inference (dropout), and the output.
size_t Builder::fx_nodes() const {
  std::set<int> placeholders;
  for (const Op& op : g.ops)
    op.for_each_tensor_input([&](int v) {
      if (g.values[v].producer < 0) placeholders.insert(v);
    });
  size_t n = placeholders.size() + 1;
  std::set<int> read(g.outputs.begin(), g.outputs.end());
  std::vector<std::vector<int>> users(g.values.size());
  for (size_t k = 0; k < g.ops.size(); ++k)
    g.ops[k].for_each_tensor_input([&](int v) {
      read.insert(v);
      users[v].push_back(static_cast<int>(k));
    });
  for (size_t k = 0; k < g.ops.size(); ++k) {
    const Op& op = g.ops[k];
    const OpClass c = op_class(op);
    const Value* x = in0(op);
    if (launches_nothing(static_cast<int>(k)) && !op.traits.view) continue;
    // Half-precision decompositions compute in float32: a conversion in and one out.
    const bool half = x && (x->dtype == DType::kBFloat16 || x->dtype == DType::kFloat16);
    if (op.name == "aten::linear")
      n += (x && x->sizes.size() >= 3 ? 4 : 2) + (bias_add_node(static_cast<int>(k), users) ? 1 : 0);
    else if (name_has(op, "layer_norm") && !name_has(op, "backward"))
      n += layer_norm_nodes(op);
    else if (upsample_linear(op))
      // Decomposed (_upsample_linear): per spatial dim its source index (iota, conversions, the
      // scale's arithmetic, clamps), 2^n _unsafe_index gathers, 2^n - 1 lerps (sub, mul, add).
      // Counted on the host (research/inductor/fx_nodes_probe.py): 17, 38 and 67 nodes for one to
      // three dims in float32, two fewer a dim with align_corners, two more in half precision.
      n += upsample_linear_nodes(op, half);
    else if (op.name == "aten::im2col")
      // Decomposed: arange, unsqueeze, arange, unsqueeze and add per dim, then the pad, two
      // unsqueezes, the index, a permute and a reshape.
      n += 16;
    else if (op.name == "aten::col2im")
      // Decomposed: a reshape, a permute, the index grids (five nodes a dim, two unsqueezes),
      // zeros, index_put accumulating, the pad cropped off; computed in float32.
      n += 17 + (half ? 2 : 0);
    else if ((op.name == "aten::softmax.int" || op.name == "aten::_softmax") && !name_has(op, "backward"))
      // Decomposed: prepare_softmax_online and its two getitems, sub, exp, div; in float32.
      n += 6 + (half ? 2 : 0);
    else if (c == OpClass::kNorm || c == OpClass::kAttention)
      n += 2;
    else if (op.name == "aten::matmul")
      // Batched over more than one dim: both operands expanded and folded to 3-d, bmm, unfolded.
      n += x && x->sizes.size() >= 4 ? 6 : x && x->sizes.size() == 3 ? 4 : 1;
    else if ((op.name == "aten::reshape" || name_has(op, "flatten")) && !launches_nothing(static_cast<int>(k)))
      // A reshape no view can express: a contiguous clone, then an _unsafe_view of it.
      n += 2;
    else
      n += 1 + tuple_items(op, read);
  }
  return n;
}

// GraphLowering.decide_layout_opt for an inference graph: convolutions run channels last
// unless grouped convolutions (in-channels per group > 1) weigh enough of their FLOPs, or the
// graph has 300 nodes or more per convolution.
bool Builder::decide_layout_opt() const {
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
  if (fx_nodes() >= static_cast<size_t>(300 * nconv)) return false;
  return weighted <= total;
}

// Whether a value is all of a buffer a Triton loop or a convolution writes: Inductor gives
// that buffer the channels-last layout its convolution reader wants, with no copy.
bool Builder::written_channels_last(int v) const {
  const int p = g.values[base[v]].producer;
  if (p < 0 || !same_order(v)) return false;
  return lower[p] == Lower::kPointwise || lower[p] == Lower::kReduction || op_class(g.ops[p]) == OpClass::kConv;
}

// Whether ATen sees convolution i's operands as NCHW under layout optimization although
// Inductor asks channels last of them: an input whose spatial dims are all 1 and a 1x1 weight.
// require_channels_last restrides only a buffer whose strides break the order, and
// Layout.is_stride_ordered ignores dims of size 1, so the input's flexible layout and the
// weight keep their contiguous strides; cudnn_conv_suggest_memory_format then finds neither
// channels last (is_channels_last_strides_2d calls such N-C-1-1 strides contiguous). An input
// written by a convolution that ran channels last has that convolution's strides.
bool Builder::conv_sees_contiguous(int i) const {
  const std::vector<int> in = g.ops[i].tensor_inputs();
  if (in.size() < 2) return false;
  const Value& x = g.values[in[0]];
  const Value& w = g.values[in[1]];
  if (x.sizes.size() != 4 || w.sizes.size() != 4) return false;
  if (x.sizes[2] != 1 || x.sizes[3] != 1 || w.sizes[2] != 1 || w.sizes[3] != 1) return false;
  const int p = g.values[base[in[0]]].producer;
  if (p < 0) return x.strides == contiguous_strides(x.sizes);
  if (lower[p] == Lower::kExtern && op_class(g.ops[p]) == OpClass::kConv) return conv_sees_contiguous(p);
  return true;
}

// Whether library call i's bias is added outside it, in a Triton loop. A convolution's always is.
// A linear's is where Inductor's post-grad pass takes it out of the call
// (unfuse_bias_add_to_pointwise in fx_passes/post_grad.py): PyTorch 2.11 leaves a 16-bit bias in
// the call (an unfused add would round the product to bfloat16 or half first), and otherwise
// takes it out where should_prefer_unfused_addmm finds every use of the product pointwise
// (is_pointwise_use: views followed, each use an op tagged pointwise). The uses are the post-grad
// graph's, after decomposition, so an exported reader counts by the first ops its decomposition
// reads the product with: a pointwise op, clone (tagged pointwise; contiguous lowers to it) or a
// dtype conversion (prims.convert_element_type) is one; RMS norm reads it by pow and mul; an
// operand a matrix product or attention copies into a dense buffer is read by that copy (a
// clone); attention on the math path scales q and k by multiplies. A reduction, layer or group
// norm (var_mean), softmax (amax), cat, another GEMM, fused attention or the graph's output is
// not, and the call keeps its bias epilogue: cuBLASLt chooses its kernel for the biased product.
bool Builder::bias_unfused(int i) const {
  const Op& op = g.ops[i];
  const Arg* bias = bias_arg(op);
  if (!bias || bias->tensors.empty() || bias->tensors[0] < 0) return true;  // nothing to keep
  // kernel/conv.py peels a convolution's bias off on the GPU (cuDNN is slower with it).
  if (op_class(op) == OpClass::kConv) return true;
  if (is_half(g.values[bias->tensors[0]].dtype)) return false;
  bool any = false;
  for (int v : op.outputs) {
    if (v < 0) continue;
    const int b = base[v];
    for (int out : g.outputs)
      if (out >= 0 && base[out] == b) return false;
    for (int u : readers[b]) {
      any = true;
      if (!pointwise_use(u, b)) return false;
    }
  }
  return any;
}

// Whether reader u's decomposition reads base value b only through ops tagged pointwise.
bool Builder::pointwise_use(int u, int b) const {
  const Op& r = g.ops[u];
  const OpClass c = op_class(r);
  if (c == OpClass::kPointwise || r.traits.pointwise) return true;
  if (r.name == "aten::contiguous" || r.name == "aten::clone") return true;
  if (c == OpClass::kCopy && (r.name == "aten::to" || r.name == "aten::_to_copy" || r.name == "aten::type_as"))
    return true;
  if (r.name == "aten::rms_norm") return true;
  const auto& copies = operand_copies[u];
  if (std::any_of(copies.begin(), copies.end(), [&](int x) { return base[x] == b; })) return true;
  const std::vector<int> in = r.tensor_inputs();
  return math_attention(r) && in.size() >= 2 && (base[in[0]] == b || base[in[1]] == b);
}

void Builder::price_externs() {
  for (size_t k = 0; k < g.ops.size(); ++k) {
    const int i = static_cast<int>(k);
    const Op& op = g.ops[i];
    if (lower[i] == Lower::kFallback) extern_kernels[i] = launches[i].known ? launches[i].counts.kernels : 0;
    if (lower[i] != Lower::kExtern) continue;
    const OpClass c = op_class(op);
    if (c == OpClass::kConv) {
      const std::vector<int> in = op.tensor_inputs();
      // GraphLowering.run_node asks NHWC stride order only of 4-d results (len(result.get_size())
      // == 4): a 3-d convolution keeps the layout its eager call gives.
      const bool four_d = in.size() >= 2 && g.values[in[0]].sizes.size() == 4 && g.values[in[1]].sizes.size() == 4;
      if (layout_opt && four_d && conv_sees_contiguous(i)) {
        const std::vector<int64_t> xs = contiguous_strides(g.values[in[0]].sizes);
        extern_kernels[i] = counts_alone(i, &xs, nullptr, false, true).kernels;
        why[i] =
            "a convolution of a 1x1 weight over a 1x1 image: its operands' strides meet channels last as they "
            "stand, so Inductor keeps them contiguous and cuDNN runs it as NCHW; bias peeled off as a pointwise add";
      } else if (layout_opt && four_d) {
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
        // An input viewing a loop's buffer has the strides Inductor gave the buffer (frozen row
        // major as the view is taken: a permute of rows of channels is channels last already).
        if (!written_channels_last(in[0]) && !channels_last_dense(x.sizes, x.strides) &&
            !channels_last_dense(x.sizes, inductor_strides(in[0]))) {
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
    } else if (const auto rnn = c == OpClass::kGemm ? decomposed_recurrent(i) : std::nullopt) {
      extern_kernels[i] = static_cast<int>(std::min<int64_t>(rnn->kernels, kMaxRepeat));
      timed_more[i] = std::min<int64_t>(rnn->timed_more, kMaxRepeat);
      timed_fewer[i] = std::min<int64_t>(rnn->timed_fewer, kMaxRepeat);
      decomposed_traffic[i] = rnn->traffic;
      why[i] = rnn->why;
    } else if (const auto steps =
                   op.name == "aten::einsum" ? torch2_11::einsum_steps(op_facts(g, i, target)) : std::nullopt;
               steps && steps->contracts) {
      // The bmm (and any one-sided sums) alone: its operand copies are loops (find_operand_copies).
      extern_kernels[i] = steps->sums + steps->product.kernels;
      why[i] =
          "einsum, traced into views and one bmm: cuBLAS through extern_kernels; an operand no view arranges "
          "for it is a Triton copy, fused with the loop computing it";
    } else if (c == OpClass::kGemm) {
      // The decomposition's layout copies (a transposed or expanded operand made dense) are
      // Triton loops of their own, fused with their producers: the library call reads dense
      // operands. (Transposes cuBLAS takes as they are change nothing here.)
      // pad_mm's GEMM runs on the padded sizes, which can change what cuBLAS launches (a small M
      // padded past a GEMV or a split-K shape).
      const int gemm = padded_gemm[i] ? padded_gemm[i]->kernels
                                      : counts_alone(i, nullptr, nullptr, false, bias_unfused(i), true).kernels;
      extern_kernels[i] = gemm + padded_copies[i];
    } else if (c == OpClass::kAttention && fused_attention(op)) {
      // Inductor calls the fused kernel's own op (flash, efficient or cuDNN attention) with
      // the mask already computed by a Triton loop: the kernel alone, none of the eager op's
      // mask expansion and conversion kernels.
      extern_kernels[i] = 1;
    } else if (math_attention(op)) {
      // The math path, decomposed (_scaled_dot_product_attention_math): its two matmuls are
      // cuBLAS calls; the scaled q and k, a copied v and the masked softmax are Triton loops
      // (operand copies, find_operand_copies). Half precision computes in float32 and converts
      // the result back: a loop of its own unless every reader is a Triton loop that takes it in.
      const std::vector<int> in = op.tensor_inputs();
      const bool masked = in.size() > 3;
      int downcast = 0;
      if (is_half(g.values[in[0]].dtype))
        for (int v : op.outputs) {
          if (v < 0) continue;
          if (returned[base[v]] || readers[base[v]].empty()) downcast = 1;
          for (int u : readers[base[v]])
            if (lower[u] != Lower::kPointwise && lower[u] != Lower::kReduction) downcast = 1;
        }
      extern_kernels[i] = 2 + (masked ? 0 : 1) + downcast;
      why[i] =
          "attention on the math path, decomposed: two cuBLAS matmuls; the scaled q and k, a copied v and the "
          "softmax (computing any mask itself) as Triton loops";
    } else {
      extern_kernels[i] = launches[i].counts.kernels;
    }
  }
}

// scaled_dot_product_attention on a path no fused kernel takes (sdpa_runs_fused false): the
// decomposition Inductor traces is the math path's own ops.
bool Builder::math_attention(const Op& op) const {
  if (op.name != "aten::scaled_dot_product_attention" || fused_attention(op)) return false;
  const std::vector<int> in = op.tensor_inputs();
  if (in.size() < 3) return false;
  const DType d = g.values[in[0]].dtype;
  return d == DType::kFloat32 || is_half(d);
}

bool Builder::fused_attention(const Op& op) const {
  const std::vector<int> in = op.tensor_inputs();
  if (in.size() < 3) return false;
  const Value* mask = in.size() > 3 ? &g.values[in[3]] : nullptr;
  return sdpa_runs_fused(g.values[in[0]], g.values[in[1]], g.values[in[2]], mask);
}

// The query, key and value a fused attention kernel reads (cuDNN's, flash or the memory-efficient
// one: sdpa_constraint guards them all) are copied into the layout its lowering requires (a fresh
// dense buffer), unless a Triton loop writes one whole as it is: require_stride_order copies a
// view of a loop not in memory through copy_input, one loop per operand, without computing the
// loop itself into memory (torchvision's MultiheadAttention: three copies of the selected q, k
// and v, no buffer for the packed projection's contiguous()).
// lowering.py's sdpa_constraint: an operand already in memory (a graph input, or what a library
// kernel wrote) whose strides are aligned (all but the last a multiple of 8 elements, the last
// unit: is_aligned_realized_tensor) is handed to the kernel as it is, through any view of it;
// BERT's and GPT-2's heads, views of their projections' outputs, are read in place.
bool Builder::aligned_in_storage(int v) const {
  const int p = g.values[base[v]].producer;
  if (p >= 0 && lower[p] != Lower::kExtern && lower[p] != Lower::kFallback) return false;
  const Value& x = g.values[v];
  if (x.sizes.empty() || x.strides.size() != x.sizes.size()) return false;
  if (x.strides.back() != 1 && x.sizes.back() != 1) return false;
  for (size_t d = 0; d + 1 < x.strides.size(); ++d)
    if (x.strides[d] % 8 != 0) return false;
  return true;
}

// Layout._pad_strides (config.comprehensive_padding): a buffer a Triton loop writes gets each
// stride above padding_stride_threshold (1,024 elements) rounded up to a multiple of 128 bytes,
// in its own dim order, unless it is channels-last dense. Returns where padding starts: the
// unpadded strides of the padded dims (none for a buffer left as it is).
std::vector<int64_t> Builder::padded_boundaries(int b) const {
  const Value& x = g.values[b];
  const int p = x.producer;
  if (p < 0 || returned[b] || (lower[p] != Lower::kPointwise && lower[p] != Lower::kReduction)) return {};
  if (x.strides.size() != x.sizes.size() || x.sizes.size() < 2 || !row_major_dense(x.sizes, x.strides)) return {};
  return pad_boundaries(x.sizes, x.dtype);
}

// Layout._pad_strides of a row-major buffer of `sizes`: where padding starts (see above).
std::vector<int64_t> Builder::pad_boundaries(const std::vector<int64_t>& sizes, DType dtype) {
  constexpr int64_t kThreshold = 1024, kAlignBytes = 128;
  const int64_t align = kAlignBytes / std::max(dtype_size(dtype), 1);
  std::vector<int64_t> out;
  int64_t unpadded = 1, padded = 1;
  for (size_t d = sizes.size(); d-- > 1;) {
    unpadded *= sizes[d];
    padded *= sizes[d];
    if (padded > kThreshold && padded % align != 0) {
      out.push_back(unpadded);
      padded = (padded + align - 1) / align * align;
    }
  }
  return out;
}

// Whether operand v, folded to rows of its last dim (a linear's leading dims merged into the
// rows), spans a padded stride of its buffer: no view of the padded buffer is that matrix, so
// it is copied out of it first (Swin's bf16 windows: 49 x 96 elements, padded to 4,736).
bool Builder::crosses_padding(int v) const {
  const Value& x = g.values[v];
  if (x.sizes.size() < 2 || !same_order(v)) return false;
  const int64_t cols = x.sizes.back(), numel = x.numel();
  for (int64_t at : padded_boundaries(base[v]))
    if (at > cols && at < numel) return true;
  return false;
}

void Builder::find_operand_copies() {
  operand_copies.assign(g.ops.size(), {});
  padded_copies.assign(g.ops.size(), 0);
  realized_then_copied.assign(g.ops.size(), {});
  for (size_t k = 0; k < g.ops.size(); ++k) {
    const Op& op = g.ops[k];
    if (lower[k] != Lower::kExtern) continue;
    if (op.name == "aten::einsum") {
      // at::einsum is traced into permutes, reshapes and one bmm: an operand no view arranges
      // for the bmm is a clone in the graph, a Triton loop that fuses with a pointwise producer
      // (MaxViT's q, k and v copies each take the unfused qkv bias, k its scale too).
      const Arg* ts = arg(op, "tensors");
      const auto steps = torch2_11::einsum_steps(op_facts(g, static_cast<int>(k), target));
      if (ts && steps && steps->contracts && ts->tensors.size() == 2)
        for (int j = 0; j < 2; ++j)
          if (steps->copied[j] && ts->tensors[j] >= 0) operand_copies[k].push_back(ts->tensors[j]);
      continue;
    }
    if (op_class(op) == OpClass::kGemm) {
      // Only a linear's or a matmul's left operand of 3 dims or more, by a matrix, is folded
      // into the rows of one GEMM; batched products keep their batch dims, which a padded
      // stride leaves readable (Swin's softmax, padded per head, goes to bmm as it is).
      const std::vector<int> in = op.tensor_inputs();
      const bool folds = (op.name == "aten::linear" || op.name == "aten::matmul") && in.size() >= 2 &&
                         g.values[in[0]].sizes.size() >= 3 && g.values[in[1]].sizes.size() == 2;
      int tensor_arg = 0;
      for (const Arg& a : op.args) {
        if (a.kind != Arg::Kind::kTensor || a.name == "bias" || a.tensors.empty() || a.tensors[0] < 0) continue;
        const int v = a.tensors[0];
        const bool left = tensor_arg++ == 0;
        const bool padded = folds && left && crosses_padding(v);
        // Read through the layout Inductor gives the operand's buffer, not eager's.
        Value laid = g.values[v];
        laid.strides = inductor_strides(v);
        // Folded, a view as the left operand is viewed again as [rows, K]: its leading dims and
        // its rows must merge (aten.linear's reshape), or the reshape copies it first.
        const bool copied = !gemm_operand_dense(laid) || (folds && left && base[v] != v && !rows_fold(laid));
        if (copied || padded) operand_copies[k].push_back(v);
        // A view eager's strides fold (the graph traced aten.view, not a clone: linear's fused
        // addmm path takes a contiguous 3-d input's view) that Inductor's layout of its base does
        // not: ExternKernel.realize_input realizes the base, then copy_input copies it through the
        // view, a second loop (ResMLP's transposed Affine output). Only an elementwise base: a
        // pooling or reduction loop's buffer gets the layout its own lowering asks for.
        const int producer = g.values[base[v]].producer;
        if (copied && !padded && folds && left && base[v] != v && gemm_operand_dense(g.values[v]) &&
            rows_fold(g.values[v]) && producer >= 0 && lower[producer] == Lower::kPointwise &&
            op_class(g.ops[producer]) == OpClass::kPointwise) {
          realized_then_copied[k].push_back(v);
          why[k] +=
              "; its input, a view eager's strides fold into rows but Inductor's layout does not, is computed "
              "into memory, then copied";
        }
        if (padded)
          why[k] += "; its input, padded in memory (comprehensive padding), is copied out of the padding first";
        // The dense copy of a permuted operand is a Triton loop's buffer too, padded the same
        // way: where the rows the call folds it to cross that padding, it is copied once more
        // (CaiT's bf16 talking heads: 196 x 8 elements a row, padded to 1,600). An expanded
        // operand's copy is written unpadded, as ConViT's generated code shows (its positional
        // indices broadcast over the batch); why, Inductor's source was not traced to.
        const Value& x = g.values[v];
        const bool expanded = std::find(x.strides.begin(), x.strides.end(), 0) != x.strides.end();
        if (copied && !padded && folds && left && !expanded) {
          for (int64_t at : pad_boundaries(x.sizes, x.dtype))
            if (at > x.sizes.back() && at < x.numel()) {
              ++padded_copies[k];
              why[k] +=
                  "; its dense copy, padded in memory (comprehensive padding), is copied out of the padding again";
              break;
            }
        }
      }
      continue;
    }
    if (op_class(op) != OpClass::kAttention) continue;
    const std::vector<int> in = op.tensor_inputs();
    if (math_attention(op)) {
      // q * scale and k^T * scale are computed into memory for the first matmul; v is copied
      // when half precision converts it to float32 or its batch and head dims fold by no view;
      // the mask (or a causal one) is computed inside the softmax, the last of these loops.
      // A view of a convolution's output is a view of channels-last memory under layout
      // optimization, not of the strides eager gives it: its batch dims fold into no matrix.
      const Value& v = g.values[in[2]];
      const int vp = g.values[base[in[2]]].producer;
      const bool from_conv = layout_opt && vp >= 0 && op_class(g.ops[vp]) == OpClass::kConv;
      operand_copies[k] = {in[0], in[1]};
      if (is_half(v.dtype) || sdpa_math_batch_copied(v, false) || v.sizes.size() > 4 || from_conv)
        operand_copies[k].push_back(in[2]);
      if (in.size() > 3) operand_copies[k].push_back(in[3]);
      continue;
    }
    if (in.size() < 3 || !(is_half(g.values[in[0]].dtype) || g.values[in[0]].dtype == DType::kFloat32)) continue;
    const Value* mask = in.size() > 3 ? &g.values[in[3]] : nullptr;
    if (!sdpa_runs_fused(g.values[in[0]], g.values[in[1]], g.values[in[2]], mask)) continue;
    for (int j = 0; j < 3; ++j) {
      // The loop's own result, or an alias of it with the same geometry (a .to() of its own
      // dtype, a contiguous() of a contiguous value): require_stride_order either freezes the
      // loop's layout to the order the kernel needs or, the loop not in memory, copy_input
      // computes it in that order; one loop either way.
      const Value& v = g.values[in[j]];
      const Value& b = g.values[base[in[j]]];
      const int p = b.producer;
      const bool alias = base[in[j]] == in[j] ||
                         (b.sizes == v.sizes && b.strides == v.strides && b.storage_offset == v.storage_offset);
      const bool written_whole = p >= 0 && (lower[p] == Lower::kPointwise || lower[p] == Lower::kReduction) && alias;
      if (!written_whole && !aligned_in_storage(in[j])) operand_copies[k].push_back(in[j]);
    }
  }
}

}  // namespace kc::inductor
