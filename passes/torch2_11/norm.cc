// Norms and softmax on the H200 (aten/src/ATen/native/Normalization.cpp, cudnn/BatchNorm.cpp,
// cuda/layer_norm_kernel.cu, cuda/group_norm_kernel.cu, cuda/SoftMax.cu). Every input layout
// tested here is the run-time one (pass "layout"), not the export's.
#include "passes/torch2_11/rules.h"

namespace kc::torch2_11 {
namespace {

const Value* weight(const OpFacts& f) {
  const Arg* a = f.arg("weight");
  return a && a->kind == Arg::Kind::kTensor && !a->tensors.empty() ? &f.graph->values[a->tensors[0]] : nullptr;
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
// elementwise = 3, + a copy of a channels_last or sliced input. Without weight and bias there
// are no parameters to fuse (group_norm_kernel.cu): moments + elementwise = 2.
Counts group_norm_counts(const OpFacts& f) {
  const bool affine = f.has_tensor_arg("weight") || f.has_tensor_arg("bias");
  return {(affine ? 3 : 2) + copy_unless_contiguous(f), 0, 0, 0};
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
                       "aten::native_batch_norm"});
  r.push_back(
      {"batch_norm.eval.fp32",
       bn,
       {},
       "inference, float32: 3-D+ one cuDNN kernel (+ a copy of an input dense in neither NCHW nor "
       "channels_last); 2-D [N, C] native calc_invstd + channels-last transform + 1 memcpy",
       bn_eval_fp32,
       {},
       bn_eval_fp32_counts,
       "sweep:norm/batch_norm_eval f32 contig|cl 2-5-D, broad:resnet, broad:shvit, broad:levit, "
       "broad:byoanet",
       "An inference batch norm in float32 is one cuDNN kernel on a 3-D or larger input (plus a copy of an input dense "
       "in no layout cuDNN reads); on a 2-D [N, C] input ATen runs its own kernels and copies a parameter."});
  r.push_back({"batch_norm.eval.half",
               bn,
               {},
               "inference, bf16/fp16 input: native kernels, 3 with half weights, 2 + 1 memcpy with f32 weights",
               bn_eval_half,
               {},
               bn_eval_half_counts,
               "sweep:norm/batch_norm_eval bf16 wdtype=same|f32, broad:video-resnet",
               "An inference batch norm in bf16 runs ATen's own kernels: with bf16 weights three (statistics inverse, "
               "transform, output), with float32 weights two and a copy."});
  r.push_back(
      {"batch_norm.train",
       bn,
       {},
       "training=True (batch statistics): collect statistics, invstd, transform",
       bn_train,
       {3, 0, 0, 0},
       nullptr,
       "broad:nfnet (weight standardisation)",
       "A training batch norm computes the batch statistics, their inverse and the normalized output: three kernels."});
  r.push_back({"instance_norm",
               ops({"aten::instance_norm"}),
               {},
               "use_input_stats (the default): batch_norm statistics over N*C: 3 kernels; half precision + one "
               "copy each of an affine weight and bias repeated over the batch",
               instance_norm_stats,
               {},
               [](const OpFacts& f) -> Counts {
                 if (!is_half(f.dtype)) return {3, 0, 0, 0};
                 return {3 + (f.has_tensor_arg("weight") ? 1 : 0) + (f.has_tensor_arg("bias") ? 1 : 0), 0, 0, 0};
               },
               "sweep:norm/instance_norm, broad:raft, opset:instance_norm_affine (f32 3, bf16 5)",
               "An instance norm runs as a batch norm over a reshaped input: statistics, inverse and transform, three "
               "kernels; in half precision an affine weight and bias are first repeated over the batch, one kernel "
               "each."});
  r.push_back({"layer_norm",
               ops({"aten::layer_norm", "aten::native_layer_norm", "aten::rms_norm"}),
               {},
               "one kernel, + a copy of an input not contiguous at run time",
               nullptr,
               {},
               norm_counts,
               "sweep:norm/layer_norm contig|permuted, sweep:norm/rms_norm, broad:convnext, broad:pvt-v2, "
               "broad:twins, broad:vit",
               "A layer norm is one fused kernel over each row; an input that is not contiguous when it runs (a "
               "permuted view) is copied first."});
  r.push_back({"group_norm",
               ops({"aten::group_norm", "aten::native_group_norm"}),
               {},
               "3 kernels (moments, fused params, elementwise; 2 without weight and bias), + a copy of a "
               "non-contiguous input",
               nullptr,
               {},
               group_norm_counts,
               "sweep:norm/group_norm contig|cl, broad:metaformer, broad:shvit, opset:group_norm (no affine: 2)",
               "A group norm is three kernels: per-group moments, the fused scale and shift, and the elementwise "
               "transform; a non-contiguous input is copied first."});
  r.push_back({"softmax",
               ops({"aten::softmax", "aten::_softmax", "aten::log_softmax", "aten::_log_softmax"}),
               {},
               "one kernel, + a copy of a non-contiguous input",
               nullptr,
               {},
               softmax_counts,
               "sweep:norm/softmax, sweep:norm/log_softmax, broad:volo, fresh:olmoe and fresh:qwen2-moe (bf16 input, "
               "dtype=float32: 2)",
               "A softmax is one kernel over each row; a non-contiguous input is copied first."});
}

}  // namespace kc::torch2_11
