// Norms and softmax on the H200 (aten/src/ATen/native/Normalization.cpp, cudnn/BatchNorm.cpp,
// cuda/layer_norm_kernel.cu, cuda/group_norm_kernel.cu, cuda/SoftMax.cu). Every input layout
// tested here is the run-time one (pass "layout"), not the export's.
#include "passes/torch2_11/rules.h"

namespace kc::torch2_11 {
namespace {

const Value* weight(const OpFacts& f) {
  return f.tensor_arg("weight");
}
int rank(const OpFacts& f) {
  const Value* x = f.input(0);
  return x ? static_cast<int>(x->sizes.size()) : -1;
}
int copy_unless_contiguous(const OpFacts& f) {
  const Value* x = f.input(0);
  return x && !x->contiguous() ? 1 : 0;
}

// batch_norm in inference. f32 3-D+ goes to cuDNN (one bn_fw_inf kernel), after a copy of an
// input that is dense in neither NCHW nor channels_last; 2-D f32 inputs (BatchNorm1d on [N, C])
// take the native path: calc_invstd + transform_input_channels_last + a memcpy.
bool bn_eval_fp32(const OpFacts& f) {
  return eval_mode(f) && f.dtype == DType::kFloat32 && rank(f) >= 2;
}
// native_batch_norm and _native_batch_norm_legit are ATen's own CUDA kernels, never cuDNN: in
// inference calc_invstd + transform, with the float32 running statistics copied (1 memcpy).
bool native_bn_eval_fp32(const OpFacts& f) {
  return (f.op->name == "aten::native_batch_norm" || f.op->name == "aten::_native_batch_norm_legit") && bn_eval_fp32(f);
}
Counts bn_eval_fp32_counts(const OpFacts& f) {
  if (rank(f) == 2) return {2, 1, 0, 0};
  return {1 + (dense_in_memory_format(*f.input(0)) ? 0 : 1), 0, 0, 0};
}
// bf16/fp16 input: native kernels. With half weights: a conversion copy, calc_invstd,
// transform (3); with f32 weights (a bf16 input in an f32 module): 2 kernels + 1 memcpy.
bool bn_eval_half(const OpFacts& f) {
  return eval_mode(f) && is_half(f.dtype) && rank(f) >= 2;
}
Counts bn_eval_half_counts(const OpFacts& f) {
  const Value* w = weight(f);
  if (w && w->dtype == DType::kFloat32) return {2, 1, 0, 0};
  return {3, 0, 0, 0};
}
// batch_norm with batch statistics (training=True, e.g. NFNet's weight standardisation) and
// instance_norm (batch_norm over [1, N*C, ...] with use_input_stats): collect statistics,
// update/invert, transform.
bool bn_train(const OpFacts& f) {
  return !eval_mode(f) && rank(f) >= 2;
}
bool instance_norm_stats(const OpFacts& f) {
  return f.bool_arg("use_input_stats", true) && rank(f) >= 3;
}
// _select_batch_norm_backend (Normalization.cpp) for batch statistics: cuDNN takes a float32
// input (fp16 only with float32 weights; never bf16) of rank 3 or more with a weight and a bias,
// running statistics both given or both absent, at most 880801 in the batch and eps no smaller
// than cuDNN's minimum (1e-5): one bn_fw_tr kernel. It reads the op's own arguments, not the
// cudnn_enabled the export records (opinfo: batch_norm with cudnn_enabled=0 ran cuDNN).
bool bn_train_cudnn(const OpFacts& f, int64_t batch, size_t input_rank) {
  const Value* w = f.tensor_arg("weight");
  const bool rm = f.tensor_arg("running_mean") != nullptr, rv = f.tensor_arg("running_var") != nullptr;
  const bool dtype_ok = f.dtype == DType::kFloat32 || (f.dtype == DType::kFloat16 && w && w->dtype == DType::kFloat32);
  const Arg* eps = f.arg("eps");
  const bool eps_ok = !eps || eps->kind != Arg::Kind::kFloat || eps->floats.empty() || eps->floats[0] >= 1e-5;
  return dtype_ok && w && w->dtype != DType::kBFloat16 && f.tensor_arg("bias") && rm == rv && input_rank >= 3 &&
         batch <= 880801 && eps_ok;
}
// batch_norm / _batch_norm_with_update with batch statistics: cuDNN's one kernel (+ a copy of an
// input dense in no layout it reads) where the backend choice allows, else ATen's three.
Counts bn_train_counts(const OpFacts& f) {
  const Value& x = *f.input(0);
  const bool native = f.op->name == "aten::native_batch_norm" || f.op->name == "aten::_native_batch_norm_legit";
  if (!native && bn_train_cudnn(f, x.sizes[0], x.sizes.size())) return {dense_in_memory_format(x) ? 1 : 2, 0, 0, 0};
  return {3, 0, 0, 0};
}
// instance_norm (Normalization.cpp): each given weight, bias, running_mean and running_var is
// repeated over the batch (one copy kernel each), the batch norm runs over [1, N*C, ...] (cuDNN's
// one kernel or ATen's three, as bn_train_cudnn decides), and running statistics are written back
// as the mean over the batch of the updated copies: a mean and a copy_ (a memcpy) each.
Counts instance_norm_counts(const OpFacts& f) {
  int repeats = 0;
  for (const char* a : {"weight", "bias", "running_mean", "running_var"}) repeats += f.tensor_arg(a) ? 1 : 0;
  const bool running = f.tensor_arg("running_mean") && f.tensor_arg("running_var");
  const bool cudnn = bn_train_cudnn(f, 1, f.input(0)->sizes.size());
  Counts c{repeats + (cudnn ? 1 : 3), 0, 0, 0};
  if (running) c += Counts{2, 2, 0, 0};
  return c;
}

// layer_norm / rms_norm read a contiguous input (expect_contiguous): one kernel, + a copy of a
// non-contiguous one. layer_norm's one-kernel path is the vectorized one, which reads rows of
// 4 elements (layer_norm_kernel.cu: N % vec_size == 0); other row lengths run
// RowwiseMomentsCUDAKernel then LayerNormForwardCUDAKernel. rms_norm shares the kernels (their
// rms_norm instantiation) and the choice (opinfo: rms_norm over 6 elements, 2 kernels).
int64_t normalized_elements(const OpFacts& f) {
  const Arg* a = f.arg("normalized_shape");
  if (!a || a->ints.empty()) return 0;
  int64_t n = 1;
  for (int64_t d : a->ints) n *= d;
  return n;
}
Counts norm_counts(const OpFacts& f) {
  const int64_t n = normalized_elements(f);
  const int rowwise = n > 0 && n % 4 != 0 ? 1 : 0;
  return {1 + rowwise + copy_unless_contiguous(f), 0, 0, 0};
}
// group_norm on CUDA makes its input contiguous (NCHW) first: moments, fused params,
// elementwise = 3, + a copy of a channels_last or sliced input. GroupNormKernelImplInternal
// (group_norm_kernel.cu) skips the fused parameters without weight and bias, and when each
// channel holds one element (HxW = 1: GroupNorm1dForward applies weight and bias in its one
// elementwise kernel): moments + elementwise = 2. A batch of N = 0 returns before any launch.
Counts group_norm_counts(const OpFacts& f) {
  const Value* x = f.input(0);
  if (x && !x->sizes.empty() && x->sizes[0] == 0) return {};
  int64_t hxw = 1;
  if (x)
    for (size_t d = 2; d < x->sizes.size(); ++d) hxw *= x->sizes[d];
  const bool affine = f.has_tensor_arg("weight") || f.has_tensor_arg("bias");
  return {(affine && hxw != 1 ? 3 : 2) + copy_unless_contiguous(f), 0, 0, 0};
}
// softmax / log_softmax call input.contiguous(): one kernel, + a copy of a non-contiguous input.
// softmax(x, dim, dtype) converts x to dtype first (x.toType: one kernel), except fp16 -> f32,
// which _softmax reads directly (half_to_float).
Counts softmax_counts(const OpFacts& f) {
  const Value* x = f.input(0);
  const Value* y = f.output(0);
  const bool composite = f.op->name == "aten::softmax" || f.op->name == "aten::log_softmax";
  const bool converts =
      composite && x && y && x->dtype != y->dtype && !(x->dtype == DType::kFloat16 && y->dtype == DType::kFloat32);
  return {1 + copy_unless_contiguous(f) + (converts ? 1 : 0), 0, 0, 0};
}

}  // namespace

void add_norm_rules(std::vector<LaunchRule>& r) {
  // Norms.
  const auto bn = ops({"aten::batch_norm", "aten::_native_batch_norm_legit_no_training", "aten::cudnn_batch_norm",
                       "aten::native_batch_norm", "aten::_native_batch_norm_legit"});
  r.push_back(
      rule("batch_norm.with_update")
          .ops({"aten::_batch_norm_with_update"})
          .when("batch statistics always: cuDNN's one kernel where _select_batch_norm_backend picks it (float32, rank "
                "3+, weight and bias), else collect statistics, invstd, transform",
                [](const OpFacts& f) { return rank(f) >= 2; })
          .compute(bn_train_counts)
          .evidence(
              "opinfo: _batch_norm_with_update (float32 [5,5,5] and [3,2,4]: 1 cuDNN kernel; bfloat16 and [3,1]: 3)")
          .why("A batch norm that updates its running statistics normalizes with the batch's own: one cuDNN kernel for "
               "a float32 input of rank 3 or more with weight and bias, otherwise ATen's three kernels (statistics, "
               "their inverse, the normalized output)."));
  r.push_back(rule("batch_norm.eval.native")
                  .ops(bn)
                  .when("native_batch_norm / _native_batch_norm_legit in inference, float32: calc_invstd + transform + "
                        "1 memcpy (ATen's kernels, never cuDNN)",
                        native_bn_eval_fp32)
                  .counts({2, 1, 0, 0})
                  .evidence("opinfo: native_batch_norm, _native_batch_norm_legit (training=False, float32 [3,2,4]: 2 "
                            "kernels, 1 memcpy)")
                  .why("native_batch_norm is ATen's own batch norm: in inference it inverts the running variance and "
                       "normalizes with two kernels, copying a running statistic once."));
  r.push_back(
      rule("batch_norm.eval.fp32")
          .ops(bn)
          .when("inference, float32: 3-D+ one cuDNN kernel (+ a copy of an input dense in neither NCHW nor "
                "channels_last); 2-D [N, C] native calc_invstd + channels-last transform + 1 memcpy",
                bn_eval_fp32)
          .compute(bn_eval_fp32_counts)
          .evidence(
              "sweep:norm/batch_norm_eval f32 contig|cl 2-5-D, broad:resnet, broad:shvit, broad:levit, broad:byoanet")
          .why("An inference batch norm in float32 is one cuDNN kernel on a 3-D or larger input (plus a copy of an "
               "input dense in no layout cuDNN reads); on a 2-D [N, C] input ATen runs its own kernels and copies a "
               "parameter."));
  r.push_back(
      rule("batch_norm.eval.half")
          .ops(bn)
          .when("inference, bf16/fp16 input: native kernels, 3 with half weights, 2 + 1 memcpy with f32 weights",
                bn_eval_half)
          .compute(bn_eval_half_counts)
          .evidence("sweep:norm/batch_norm_eval bf16 wdtype=same|f32, broad:video-resnet")
          .why("An inference batch norm in bf16 runs ATen's own kernels: with bf16 weights three (statistics inverse, "
               "transform, output), with float32 weights two and a copy."));
  r.push_back(
      rule("batch_norm.train")
          .ops(bn)
          .when("training=True (batch statistics): cuDNN's one kernel where _select_batch_norm_backend picks it "
                "(batch_norm on a float32 input of rank 3+ with weight and bias), else collect statistics, invstd, "
                "transform",
                bn_train)
          .compute(bn_train_counts)
          .evidence(
              "broad:nfnet (weight standardisation, no weight: 3), opinfo: batch_norm (float32 [5,5,5] with weight and "
              "bias: 1 cuDNN kernel), native_batch_norm and _native_batch_norm_legit (3 at every dtype)")
          .why("A training batch norm computes the batch statistics, their inverse and the normalized output: three "
               "ATen kernels, or one cuDNN kernel for a float32 input of rank 3 or more with weight and bias."));
  r.push_back(
      rule("instance_norm")
          .ops({"aten::instance_norm"})
          .when("use_input_stats (the default): a copy repeating each of weight, bias and running statistics over the "
                "batch, the batch norm over N*C (cuDNN 1 for float32 with weight and bias, else 3), + a mean and a "
                "memcpy per running statistic written back",
                instance_norm_stats)
          .compute(instance_norm_counts)
          .evidence("sweep:norm/instance_norm, broad:raft, opset:instance_norm_affine (f32 3, bf16 5), opinfo: "
                    "instance_norm with running statistics (float32 7 + 2 memcpy, bfloat16 9 + 2 memcpy)")
          .why("An instance norm runs as a batch norm over a reshaped input: its weight, bias and running statistics "
               "are first repeated over the batch (one kernel each), the batch norm is one cuDNN kernel in float32 "
               "with weight and bias or three ATen kernels, and running statistics are averaged back and copied."));
  r.push_back(rule("layer_norm")
                  .ops({"aten::layer_norm", "aten::native_layer_norm", "aten::rms_norm"})
                  .when("one kernel, + a copy of an input not contiguous at run time")
                  .compute(norm_counts)
                  .evidence("sweep:norm/layer_norm contig|permuted, sweep:norm/rms_norm, broad:convnext, broad:pvt-v2, "
                            "broad:twins, broad:vit")
                  .why("A layer norm is one fused kernel over each row; an input that is not contiguous when it runs "
                       "(a permuted view) is copied first."));
  r.push_back(
      rule("group_norm")
          .ops({"aten::group_norm", "aten::native_group_norm"})
          .when("3 kernels (moments, fused params, elementwise; 2 without weight and bias or with one element "
                "per channel, HxW = 1), + a copy of a non-contiguous input; a batch of 0: nothing")
          .compute(group_norm_counts)
          .evidence("sweep:norm/group_norm contig|cl, broad:metaformer, broad:shvit, opset:group_norm (no affine: 2), "
                    "opinfo_heldout3: group_norm of [1, 3] (RowwiseMomentsCUDAKernel + GroupNorm1dForward, 2 of 2)")
          .why("A group norm is three kernels: per-group moments, the fused scale and shift, and the elementwise "
               "transform; a non-contiguous input is copied first."));
  r.push_back(rule("softmax")
                  .ops({"aten::softmax", "aten::_softmax", "aten::log_softmax", "aten::_log_softmax"})
                  .when("one kernel, + a copy of a non-contiguous input")
                  .compute(softmax_counts)
                  .evidence("sweep:norm/softmax, sweep:norm/log_softmax, broad:volo, fresh:olmoe and fresh:qwen2-moe "
                            "(bf16 input, dtype=float32: 2)")
                  .why("A softmax is one kernel over each row; a non-contiguous input is copied first."));
}

}  // namespace kc::torch2_11
