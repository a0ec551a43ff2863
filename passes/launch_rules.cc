#include "passes/launch_rules.h"

#include <algorithm>

#include "analyzer/error.h"

namespace kc {

const Value* OpFacts::input(int i) const {
  return i < static_cast<int>(inputs.size()) ? &graph->values[inputs[i]] : nullptr;
}

const Value* OpFacts::output(int i) const {
  int seen = 0;
  for (int v : op->outputs)
    if (v >= 0 && seen++ == i) return &graph->values[v];
  return nullptr;
}

const Arg* OpFacts::arg(const std::string& name) const {
  for (const auto& a : op->args)
    if (a.name == name) return &a;
  return nullptr;
}

bool OpFacts::has_tensor_arg(const std::string& name) const {
  const Arg* a = arg(name);
  return a && a->kind == Arg::Kind::kTensor;
}

int64_t OpFacts::int_arg(const std::string& name, int64_t fallback) const {
  const Arg* a = arg(name);
  return a && (a->kind == Arg::Kind::kInt || a->kind == Arg::Kind::kBool) && !a->ints.empty() ? a->ints[0] : fallback;
}

bool OpFacts::bool_arg(const std::string& name, bool fallback) const { return int_arg(name, fallback) != 0; }

bool view_is_possible(const std::vector<int64_t>& sizes, const std::vector<int64_t>& strides,
                      const std::vector<int64_t>& new_sizes) {
  // ATen's computeStride (aten/src/ATen/TensorUtils.cpp): walk the old dims in chunks that are
  // contiguous with each other; each chunk must be exactly covered by new dims.
  int64_t numel = 1;
  for (int64_t s : sizes) numel *= s;
  if (numel == 0 || sizes.empty()) return true;
  int64_t view_d = static_cast<int64_t>(new_sizes.size()) - 1;
  int64_t chunk_base_stride = strides.back();
  int64_t tensor_numel = 1, view_numel = 1;
  for (int64_t d = static_cast<int64_t>(sizes.size()) - 1; d >= 0; --d) {
    tensor_numel *= sizes[d];
    if (d == 0 || (sizes[d - 1] != 1 && strides[d - 1] != tensor_numel * chunk_base_stride)) {
      while (view_d >= 0 && (view_numel < tensor_numel || new_sizes[view_d] == 1)) {
        view_numel *= new_sizes[view_d];
        --view_d;
      }
      if (view_numel != tensor_numel) return false;
      if (d > 0) {
        chunk_base_stride = strides[d - 1];
        tensor_numel = 1;
        view_numel = 1;
      }
    }
  }
  return view_d == -1;
}

namespace {

bool is_half(DType t) { return t == DType::kBFloat16 || t == DType::kFloat16; }

// --- conditions -----------------------------------------------------------------------------

bool all_equal(const Arg* a, int64_t v) {
  if (!a) return true;
  for (int64_t x : a->ints)
    if (x != v) return false;
  return true;
}

// clone: a dense tensor keeping its layout is one cudaMemcpyAsync; anything else a kernel.
LaunchCounts clone_counts(const OpFacts& f) {
  const Value* in = f.input(0);
  if (in && in->contiguous()) return {0, 1, 0, 0};
  return {1, 0, 0, 0};
}

bool on_host(const OpFacts& f) { return f.on_host; }
bool fp32(const OpFacts& f) { return f.dtype == DType::kFloat32; }

// Copy kernels a GEMM launches first: an operand whose batch dims cannot be folded into a
// view of [batch, rows, cols] with one unit stride is made contiguous (matmul's reshape).
int gemm_copies(const OpFacts& f) {
  int copies = 0;
  const bool linear = f.op->name == "aten::linear";
  for (int i = 0; i < 2; ++i) {
    const Value* v = f.input(i);
    if (!v || v->sizes.size() < 2 || (linear && i == 1)) continue;
    const auto& sz = v->sizes;
    const size_t n = sz.size();
    int64_t batch = 1;
    for (size_t d = 0; d + 2 < n; ++d) batch *= sz[d];
    std::vector<int64_t> folded = linear ? std::vector<int64_t>{batch * sz[n - 2], sz[n - 1]}
                                         : std::vector<int64_t>{batch, sz[n - 2], sz[n - 1]};
    // cuBLAS reads a matrix with either of its last two strides 1 (row- or column-major).
    const bool foldable = n == folded.size() || view_is_possible(sz, v->strides, folded);
    if (!foldable || (v->strides[n - 1] != 1 && v->strides[n - 2] != 1)) ++copies;
  }
  return copies;
}

// Rows of the GEMM's left operand: everything but the last dim of the input.
int64_t gemm_rows(const OpFacts& f) {
  const Value* a = f.input(0);
  if (!a || a->sizes.empty()) return 0;
  return a->numel() / std::max<int64_t>(1, a->sizes.back());
}
// bf16 nvjet GEMMs that widen (more output features than input ones) zero a workspace first.
bool linear_half_widening(const OpFacts& f) {
  const Value* w = f.input(1);
  if (!is_half(f.dtype) || gemm_rows(f) <= 1 || !w || w->sizes.size() != 2) return false;
  return f.op->name == "aten::linear" ? w->sizes[0] > w->sizes[1] : w->sizes[1] > w->sizes[0];
}
LaunchCounts gemm_counts(const OpFacts& f) { return {1 + gemm_copies(f), 0, 0, 0}; }
LaunchCounts gemm_half_counts(const OpFacts& f) { return {1 + gemm_copies(f), 0, 1, 0}; }
// Norms read a contiguous input; anything else is copied first.
LaunchCounts norm_counts(const OpFacts& f) {
  const Value* in = f.input(0);
  return {in && !in->contiguous() ? 2 : 1, 0, 0, 0};
}
// pad with all-zero amounts is a copy of its input; any padding fills then copies.
LaunchCounts pad_counts(const OpFacts& f) {
  if (all_equal(f.arg("pad"), 0)) return clone_counts(f);
  return {2, 0, 0, 0};
}
// cat of one tensor is a copy of it.
LaunchCounts cat_counts(const OpFacts& f) {
  const Arg* ts = f.arg("tensors");
  if (ts && ts->tensors.size() == 1) return clone_counts(f);
  return {1, 0, 0, 0};
}

bool training(const OpFacts& f) { return f.bool_arg("training", false) || f.bool_arg("train", false); }
bool eval_mode(const OpFacts& f) { return !training(f); }
bool bn_eval_fp32(const OpFacts& f) { return eval_mode(f) && f.dtype == DType::kFloat32; }
bool bn_eval_half(const OpFacts& f) { return eval_mode(f) && is_half(f.dtype); }

// A 2-d convolution as cuDNN and ATen run it: depthwise ones in ATen's own kernel, 1x1 ones
// with stride 1 as a GEMM on the NCHW tensor, the rest as cuDNN's implicit GEMM between
// NCHW->NHWC transforms of input and weight and an NHWC->NCHW transform of the output. A
// bias is a separate add; a non-contiguous input is copied first.
LaunchCounts conv_counts(const OpFacts& f) {
  const Value* x = f.input(0);
  const Value* w = f.input(1);
  if (!x || !w || x->sizes.size() != 4 || w->sizes.size() != 4) return {4, 0, 0, 0};
  const int bias = f.has_tensor_arg("bias") ? 1 : 0;
  // cuDNN reads NCHW and NHWC (channels-last) inputs as they are; other layouts are copied.
  const bool nhwc = x->strides.size() == 4 && x->strides[1] == 1 && x->strides[3] == x->sizes[1] &&
                    x->strides[2] == x->sizes[1] * x->sizes[3];
  const int copy = x->contiguous() || nhwc ? 0 : 1;
  const int64_t groups = f.int_arg("groups", 1);
  const bool depthwise = groups > 1 && groups == x->sizes[1] && w->sizes[1] == 1;
  const bool k1 = w->sizes[2] == 1 && w->sizes[3] == 1;
  const bool s1 = all_equal(f.arg("stride"), 1);
  if (depthwise) return {1 + bias + copy, 0, 0, 0};
  // bf16 1x1 convolutions over 7x7 maps or smaller go through cuDNN's transforms too.
  if (k1 && s1 && groups == 1 && is_half(f.dtype) && x->sizes[2] * x->sizes[3] > 1 && x->sizes[2] * x->sizes[3] <= 49)
    return {3 + bias + copy, 0, 0, 0};
  if (k1 && s1 && groups == 1) return {1 + bias + copy, 0, 0, 0};
  if (k1) return {3 + bias + copy, 0, 0, 0};
  // Stems on 3-channel images run cuDNN's direct implicit GEMM, without transforms.
  if (x->sizes[1] <= 4 && w->sizes[2] <= 3) return {1 + bias + copy, 0, 0, 0};
  return {4 + bias + copy, 0, 0, 0};
}

bool sdpa_plain(const OpFacts& f) { return !f.has_tensor_arg("attn_mask"); }
bool sdpa_masked_half(const OpFacts& f) { return !sdpa_plain(f) && is_half(f.dtype); }
bool sdpa_masked_fp32(const OpFacts& f) { return !sdpa_plain(f) && fp32(f); }
// index with several index tensors broadcasts and copies each before the gather.
LaunchCounts index_counts(const OpFacts& f) {
  const Arg* idx = f.arg("indices");
  int n = 0;
  if (idx)
    for (int v : idx->tensors) n += v >= 0;
  return {n > 1 ? 1 + n : 1, 0, 0, 0};
}
bool sdpa_plain_half(const OpFacts& f) { return sdpa_plain(f) && is_half(f.dtype); }
bool sdpa_plain_fp32(const OpFacts& f) { return sdpa_plain(f) && fp32(f); }

// A reduction down to very few outputs from many inputs splits the work across blocks that
// meet in global memory, whose semaphores are zeroed with a memset first.
bool global_reduction(const OpFacts& f) { return f.out_numel == 1 && f.in_numel > 4096; }

// --- shape-dependent counts -----------------------------------------------------------------

// reshape/flatten/contiguous: free when the result can be a view, else one copy kernel.
LaunchCounts reshape_counts(const OpFacts& f) {
  const Value* in = f.input(0);
  const Value* out = f.output(0);
  if (!in || !out) return {};
  bool copies = !view_is_possible(in->sizes, in->strides, out->sizes);
  return {copies ? 1 : 0, 0, 0, 0};
}
LaunchCounts contiguous_counts(const OpFacts& f) {
  const Value* in = f.input(0);
  return {in && !in->contiguous() ? 1 : 0, 0, 0, 0};
}
// to/_to_copy: a new dtype is a conversion kernel; the same dtype is a copy, or nothing for
// aten::to, which returns its input unchanged.
LaunchCounts to_counts(const OpFacts& f) {
  const Value* in = f.input(0);
  const Value* out = f.output(0);
  if (!in || !out) return {};
  if (in->dtype != out->dtype) return {1, 0, 0, 0};
  if (f.op->name == "aten::to") return {};
  return clone_counts(f);
}

const std::string kTruth = "truth:";

std::vector<LaunchRule> h200_rules() {
  auto ops = [](std::initializer_list<const char*> names) {
    return std::vector<std::string>(names.begin(), names.end());
  };
  std::vector<LaunchRule> r;
  // Host-side work first: it never reaches the GPU, whatever the op.
  r.push_back({"host", {}, "any", "every tensor involved is on the CPU", on_host, {}, nullptr,
               "by construction: no CUDA tensor is read or written"});
  r.push_back({"metadata", ops({"aten::size", "aten::sym_size", "aten::dim", "aten::numel", "aten::stride",
                                "aten::sym_numel", "aten::sym_stride", "aten::is_contiguous",
                                "aten::_assert_tensor_metadata", "aten::detach", "aten::alias",
                                "aten::lift_fresh"}),
               "", "always", nullptr, {}, nullptr,
               "truth:view_reshape_float32, test:traced_shape_arith (aten::size), corpus:swin_t (alias)"});
  r.push_back({"reshape", ops({"aten::reshape", "aten::flatten", "aten::view_as", "aten::reshape_as", "aten::unflatten"}),
               "", "copies only when no view fits the strides", nullptr, {}, reshape_counts,
               "truth:view_reshape_float32, truth:contiguous_T_float32"});
  r.push_back({"contiguous", ops({"aten::contiguous"}), "", "copies only a non-contiguous input", nullptr, {},
               contiguous_counts, "truth:contiguous_T_float32"});
  r.push_back({"clone", ops({"aten::clone", "aten::lift_fresh_copy"}), "", "memcpy for a contiguous input, else a copy kernel", nullptr, {},
               clone_counts, "truth:relu_inplace (clone half), truth:contiguous_T_float32, corpus:swin_t (lift_fresh_copy)"});
  r.push_back({"to.host", ops({"aten::to", "aten::_to_copy", "aten::cpu"}), "",
               "the result is on the CPU: device-to-host copy and a wait",
               [](const OpFacts& f) {
                 const Value* out = f.output(0);
                 return out && out->device.rfind("cpu", 0) == 0 && f.model_device.rfind("cpu", 0) != 0 && !f.on_host;
               },
               {0, 1, 0, 1}, nullptr, "truth:to_cpu"});
  r.push_back({"to", ops({"aten::to", "aten::_to_copy", "aten::type_as"}), "",
               "dtype change: one conversion kernel; same dtype: copy or nothing", nullptr, {}, to_counts,
               "truth:to_half_float32, truth:to_half_bfloat16"});
  r.push_back({"item", ops({"aten::item", "aten::_local_scalar_dense", "aten::Int", "aten::Float", "aten::Bool",
                            "aten::ScalarImplicit"}),
               "", "a GPU value read by the host: device-to-host copy and a wait", nullptr, {0, 1, 0, 1}, nullptr,
               "truth:item, test:traced_shape_arith (aten::Int of a traced x.size(1) // 4)"});
  // GEMMs (cuBLAS / cuBLASLt). bf16 linear runs nvjet kernels that zero a workspace first.
  r.push_back({"gemm.linear.half", ops({"aten::linear", "aten::addmm"}), "",
               "bf16/fp16, more than one row, more output than input features: nvjet with a zeroed "
               "workspace; + a copy per operand matmul cannot fold into a view",
               linear_half_widening, {}, gemm_half_counts,
               "truth:linear_bias_3d_bfloat16, truth:linear_bias_2d_bfloat16, truth:linear_nobias_bfloat16, "
               "corpus:vit_b_16, corpus:swin_t, corpus:gpt2, corpus:llama"});
  r.push_back({"gemm", ops({"aten::linear", "aten::addmm", "aten::mm", "aten::matmul", "aten::bmm", "aten::baddbmm"}),
               "", "one GEMM, + a copy per operand matmul cannot fold into a view", nullptr, {}, gemm_counts,
               "truth:linear_bias_3d_float32, truth:linear_bias_small_*, truth:matmul_2d_*, truth:bmm_*, "
               "truth:matmul_transposed_k_*, corpus:swin_t (attention matmuls on permuted operands)"});
  // Convolutions (cuDNN, and ATen's own depthwise kernel).
  const auto conv = ops({"aten::conv2d", "aten::convolution", "aten::_convolution", "aten::cudnn_convolution"});
  r.push_back({"conv", conv, "",
               "depthwise or 1x1 stride 1: 1; other 1x1: 3; 3-channel stem: 1; else 4 (transforms + implicit "
               "GEMM); + bias add, + input copy when not contiguous",
               nullptr, {}, conv_counts,
               "truth:conv3x3_*, truth:conv1x1_*, corpus:mobilenet_v2, corpus:efficientnet_b0, "
               "corpus:convnext_tiny, corpus:resnet50, corpus:shufflenet_v2_x1_0"});
  // Norms.
  const auto bn = ops({"aten::batch_norm", "aten::_native_batch_norm_legit_no_training", "aten::cudnn_batch_norm"});
  r.push_back({"batch_norm.eval.fp32", bn, "", "inference, float32 (one cuDNN kernel)", bn_eval_fp32, {1, 0, 0, 0},
               nullptr, "truth:batchnorm_eval_float32"});
  r.push_back({"batch_norm.eval.half", bn, "", "inference, bf16/fp16 (native kernels)", bn_eval_half, {3, 0, 0, 0},
               nullptr, "truth:batchnorm_eval_bfloat16"});
  r.push_back({"layer_norm", ops({"aten::layer_norm", "aten::native_layer_norm"}), "",
               "one kernel, + a copy of a non-contiguous input", nullptr, {}, norm_counts,
               "truth:layer_norm_float32, truth:layer_norm_bfloat16, corpus:vit_b_16, corpus:swin_t"});
  r.push_back({"group_norm", ops({"aten::group_norm", "aten::native_group_norm"}), "", "always", nullptr, {3, 0, 0, 0},
               nullptr, "truth:group_norm"});
  r.push_back({"softmax", ops({"aten::softmax", "aten::_softmax", "aten::log_softmax", "aten::_log_softmax"}), "",
               "always", nullptr, {1, 0, 0, 0}, nullptr, "truth:softmax_float32, truth:softmax_bfloat16"});
  // Attention: bf16 goes to cuDNN's fused kernel (with a memset), fp32 to the efficient kernel.
  r.push_back({"sdpa.half", ops({"aten::scaled_dot_product_attention"}), "", "bf16/fp16, no explicit mask",
               sdpa_plain_half, {1, 0, 1, 0}, nullptr, "truth:sdpa_bfloat16, truth:sdpa_causal_bfloat16"});
  r.push_back({"sdpa.fp32", ops({"aten::scaled_dot_product_attention"}), "", "float32, no explicit mask",
               sdpa_plain_fp32, {1, 0, 0, 0}, nullptr, "truth:sdpa_float32, truth:sdpa_causal_float32"});
  r.push_back({"sdpa.mask.half", ops({"aten::scaled_dot_product_attention"}), "", "bf16/fp16 with an explicit mask",
               sdpa_masked_half, {4, 0, 1, 0}, nullptr, "corpus:bert, corpus:gpt2, corpus:llama"});
  r.push_back({"sdpa.mask.fp32", ops({"aten::scaled_dot_product_attention"}), "", "float32 with an explicit mask",
               sdpa_masked_fp32, {4, 0, 0, 0}, nullptr, "corpus:bert, corpus:gpt2, corpus:llama"});
  // Gathers, copies and shape ops.
  r.push_back({"index", ops({"aten::index"}), "", "one gather; with several index tensors, a copy of each first",
               nullptr, {}, index_counts, "truth:index_select, corpus:swin_t, corpus:gpt2, corpus:llama"});
  r.push_back({"gather", ops({"aten::embedding", "aten::index_select", "aten::gather"}), "", "always",
               nullptr, {1, 0, 0, 0}, nullptr, "truth:embedding_*, truth:index_select"});
  r.push_back({"cat", ops({"aten::cat", "aten::concat", "aten::concatenate", "aten::stack"}), "",
               "one kernel; one tensor alone is a copy", nullptr, {}, cat_counts,
               "truth:cat_float32, truth:cat_bfloat16, corpus:densenet121"});
  r.push_back({"dropout.eval", ops({"aten::dropout", "aten::dropout_", "aten::feature_dropout", "aten::alpha_dropout"}), "",
               "train=False", eval_mode, {0, 0, 0, 0}, nullptr, "truth:dropout_eval_float32, truth:dropout_eval_bfloat16, corpus:efficientnet_b0 (dropout_)"});
  r.push_back({"dropout.train", ops({"aten::dropout", "aten::native_dropout"}), "", "train=True", nullptr, {1, 0, 0, 0},
               nullptr, "truth:dropout_train_float32, truth:dropout_train_bfloat16"});
  r.push_back({"pad", ops({"aten::pad", "aten::constant_pad_nd"}), "", "fill then copy; zero padding is a copy",
               nullptr, {}, pad_counts, "truth:pad, corpus:swin_t"});
  r.push_back({"pool", ops({"aten::max_pool2d", "aten::adaptive_avg_pool2d", "aten::avg_pool2d",
                            "aten::upsample_nearest2d"}),
               "", "always", nullptr, {1, 0, 0, 0}, nullptr,
               "truth:maxpool_*, truth:adaptive_avgpool_*, truth:upsample_nearest, corpus:densenet121 (avg_pool2d)"});
  r.push_back({"roll", ops({"aten::roll"}), "", "always", nullptr, {2, 0, 0, 0}, nullptr, "corpus:swin_t"});
  r.push_back({"scan", ops({"aten::cumsum", "aten::diff"}), "", "a conversion or slice, then the kernel", nullptr,
               {2, 0, 0, 0}, nullptr, "corpus:gpt2, corpus:llama"});
  r.push_back({"elementwise", ops({"aten::hardswish", "aten::hardswish_", "aten::hardsigmoid", "aten::hardsigmoid_",
                                   "aten::__and__", "aten::__or__", "aten::__xor__", "aten::floor_divide"}),
               "", "elementwise ops libtorch does not tag pointwise", nullptr, {1, 0, 0, 0}, nullptr,
               "corpus:mobilenet_v3_large, corpus:gpt2 (__and__), test:traced_shape_arith (floor_divide)"});
  r.push_back({"masked_fill", ops({"aten::masked_fill"}), "", "always", nullptr, {1, 1, 0, 0}, nullptr,
               "truth:masked_fill"});
  r.push_back({"topk", ops({"aten::topk"}), "", "always", nullptr, {2, 0, 0, 0}, nullptr, "truth:topk"});
  r.push_back({"cross_entropy", ops({"aten::cross_entropy_loss"}), "", "log_softmax then nll_loss", nullptr,
               {2, 0, 0, 0}, nullptr, "truth:cross_entropy"});
  // Factories.
  r.push_back({"factory.empty", ops({"aten::empty", "aten::empty_like", "aten::empty_strided", "aten::new_empty"}), "",
               "always", nullptr, {0, 0, 0, 0}, nullptr, "truth:empty"});
  r.push_back({"factory.fill", ops({"aten::zeros", "aten::ones", "aten::full", "aten::zeros_like", "aten::ones_like",
                                    "aten::full_like", "aten::new_zeros", "aten::new_ones", "aten::new_full",
                                    "aten::fill_", "aten::zero_", "aten::scalar_tensor"}),
               "", "always", nullptr, {1, 0, 0, 0}, nullptr, "truth:zeros, truth:ones"});
  r.push_back({"factory.arange", ops({"aten::arange"}), "", "always", nullptr, {1, 0, 0, 0}, nullptr, "truth:arange"});
  // Only randn is measured; other generators run other kernels and stay unknown until they are.
  r.push_back({"factory.random", ops({"aten::randn"}), "", "always", nullptr, {1, 0, 0, 0}, nullptr, "truth:randn"});
  // Classes by libtorch's own tags, after every explicit rule.
  r.push_back({"view", {}, "view", "the schema returns an alias of an input", nullptr, {0, 0, 0, 0}, nullptr,
               "truth:view_reshape_float32, truth:view_reshape_bfloat16"});
  r.push_back({"reduction.global", {}, "reduction", "one output from more than 4096 inputs", global_reduction,
               {1, 0, 1, 0}, nullptr, "truth:mean_all_float32, truth:mean_all_bfloat16, truth:item"});
  r.push_back({"reduction", {}, "reduction", "otherwise", nullptr, {1, 0, 0, 0}, nullptr,
               "truth:sum_last_float32, truth:sum_last_bfloat16, truth:argmax"});
  r.push_back({"pointwise", {}, "pointwise", "always", nullptr, {1, 0, 0, 0}, nullptr,
               "truth:add, truth:add_scalar, truth:gelu_*, truth:silu_*, truth:where, truth:expand_add"});
  return r;
}

}  // namespace

const std::vector<LaunchRule>& launch_rules(const std::string& target) {
  static const std::vector<LaunchRule> h200 = h200_rules();
  check(target == "torch2.11-h200", "no launch rules for target " + target);
  return h200;
}

OpFacts op_facts(const Graph& g, int i, const std::string& model_device) {
  OpFacts f;
  f.graph = &g;
  f.op = &g.ops[i];
  f.model_device = model_device;
  f.inputs = f.op->tensor_inputs();
  const std::vector<int>& ins = f.inputs;
  if (const Value* in = f.input(0)) {
    f.dtype = in->dtype;
    f.in_numel = in->numel();
  }
  if (const Value* out = f.output(0)) {
    if (f.dtype == DType::kUnknown) f.dtype = out->dtype;
    f.out_numel = out->numel();
  }
  // On the host when nothing involved is on the model's device: either the model's device
  // is known and no tensor is on it, or a device argument names the CPU explicitly for a
  // factory of a model that runs elsewhere.
  bool any_tensor = false, any_on_model_device = false;
  auto visit = [&](int v) {
    any_tensor = true;
    const std::string& d = g.values[v].device;
    if (d == model_device || (d.rfind("cuda", 0) == 0) || d == "meta") any_on_model_device = true;
  };
  for (int v : ins) visit(v);
  for (int v : f.op->outputs)
    if (v >= 0) visit(v);
  f.on_host = any_tensor && !any_on_model_device;
  return f;
}

}  // namespace kc
