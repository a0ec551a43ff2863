// Norms and softmax on the H200.
#include "passes/targets/h200/rules.h"

namespace kc::h200 {
namespace {

bool bn_eval_fp32(const OpFacts& f) { return eval_mode(f) && f.dtype == DType::kFloat32; }
bool bn_eval_half(const OpFacts& f) { return eval_mode(f) && is_half(f.dtype); }
// Norms read a contiguous input; anything else is copied first.
Counts norm_counts(const OpFacts& f) {
  const Value* in = f.input(0);
  return {in && !in->contiguous() ? 2 : 1, 0, 0, 0};
}

}  // namespace

void add_norm_rules(std::vector<LaunchRule>& r) {
  // Norms.
  const auto bn = ops({"aten::batch_norm", "aten::_native_batch_norm_legit_no_training", "aten::cudnn_batch_norm"});
  r.push_back({"batch_norm.eval.fp32", bn, {}, "inference, float32 (one cuDNN kernel)", bn_eval_fp32, {1, 0, 0, 0},
               nullptr, "truth:batchnorm_eval_float32",
               "Inference batch norm in float32 is one cuDNN kernel: a per-channel scale and shift."});
  r.push_back({"batch_norm.eval.half", bn, {}, "inference, bf16/fp16 (native kernels)", bn_eval_half, {3, 0, 0, 0},
               nullptr, "truth:batchnorm_eval_bfloat16",
               "Inference batch norm in bf16/fp16 runs PyTorch's native kernels: it prepares the per-channel scale and shift in float32, then transforms the input."});
  r.push_back({"layer_norm", ops({"aten::layer_norm", "aten::native_layer_norm"}), {},
               "one kernel, + a copy of a non-contiguous input", nullptr, {}, norm_counts,
               "truth:layer_norm_float32, truth:layer_norm_bfloat16, corpus:vit_b_16, corpus:swin_t",
               "Layer norm computes the mean and variance of each row and normalises it in one fused kernel."});
  r.push_back({"group_norm", ops({"aten::group_norm", "aten::native_group_norm"}), {}, "always", nullptr, {3, 0, 0, 0},
               nullptr, "truth:group_norm",
               "Group norm runs three kernels: statistics per group, fused parameters per channel, then the normalisation."});
  r.push_back({"softmax", ops({"aten::softmax", "aten::_softmax", "aten::log_softmax", "aten::_log_softmax"}), {},
               "always", nullptr, {1, 0, 0, 0}, nullptr, "truth:softmax_float32, truth:softmax_bfloat16",
               "Softmax (max, exponent, sum, divide) runs as one fused kernel per row."});
}

}  // namespace kc::h200
