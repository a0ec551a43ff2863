// Target torch2.11-h200: eager PyTorch 2.11 on an NVIDIA H200 (sm_90). Its rates, its launch
// rules and its measured table, each with the measurement it rests on.
#include "passes/targets/targets.h"

namespace kc {
namespace {

// Rules in match order: the first rule whose op list (or class) and condition fit the op
// decides. Evidence names refer to validate/truth (truth:), validate/results/corpus
// (corpus:) and the test models (test:).
std::vector<LaunchRule> rules() {
  auto ops = [](std::initializer_list<const char*> names) {
    return std::vector<std::string>(names.begin(), names.end());
  };
  std::vector<LaunchRule> r;
  // Host-side work first: it never reaches the GPU, whatever the op.
  r.push_back({"host", {}, {}, "every tensor involved is on the CPU", on_host, {}, nullptr,
               "by construction: no CUDA tensor is read or written",
               "Every tensor it touches lives on the CPU, so nothing is launched on the GPU."});
  r.push_back({"metadata", ops({"aten::size", "aten::sym_size", "aten::dim", "aten::numel", "aten::stride",
                                "aten::sym_numel", "aten::sym_stride", "aten::is_contiguous",
                                "aten::_assert_tensor_metadata", "aten::detach", "aten::alias",
                                "aten::lift_fresh"}), {}, "always", nullptr, {}, nullptr,
               "truth:view_reshape_float32, test:traced_shape_arith (aten::size), corpus:swin_t (alias)",
               "It only reads or relabels a tensor's shape, strides or identity, which the host already knows: no kernel."});
  r.push_back({"reshape", ops({"aten::reshape", "aten::flatten", "aten::view_as", "aten::reshape_as", "aten::unflatten"}), {}, "copies only when no view fits the strides", nullptr, {}, reshape_counts,
               "truth:view_reshape_float32, truth:contiguous_T_float32",
               "A reshape is a view (no kernel) when the strides allow it; otherwise it copies the data into a new array with one copy kernel."});
  r.push_back({"contiguous", ops({"aten::contiguous"}), {}, "copies only a non-contiguous input", nullptr, {},
               contiguous_counts, "truth:contiguous_T_float32",
               "A contiguous input is returned as it is; a non-contiguous one (a transpose, a permute) is copied into a new row-major array by one copy kernel."});
  r.push_back({"clone", ops({"aten::clone", "aten::lift_fresh_copy"}), {}, "memcpy for a contiguous input, else a copy kernel", nullptr, {},
               clone_counts, "truth:relu_inplace (clone half), truth:contiguous_T_float32, corpus:swin_t (lift_fresh_copy)",
               "A clone of a contiguous tensor is one device-to-device memcpy; of a strided one, one copy kernel."});
  r.push_back({"to.host", ops({"aten::to", "aten::_to_copy", "aten::cpu"}), {},
               "the result is on the CPU: device-to-host copy and a wait",
               to_host,
               {0, 1, 0, 1}, nullptr, "truth:to_cpu",
               "Moving a result to the CPU is a device-to-host memcpy, and the host waits for the GPU to finish before it can read it."});
  r.push_back({"to", ops({"aten::to", "aten::_to_copy", "aten::type_as"}), {},
               "dtype change: one conversion kernel; same dtype: copy or nothing", nullptr, {}, to_counts,
               "truth:to_half_float32, truth:to_half_bfloat16",
               "A dtype conversion reads every element and writes it in the new type: one kernel; the same dtype launches nothing."});
  r.push_back({"item", ops({"aten::item", "aten::_local_scalar_dense", "aten::Int", "aten::Float", "aten::Bool",
                            "aten::ScalarImplicit"}), {}, "a GPU value read by the host: device-to-host copy and a wait", nullptr, {0, 1, 0, 1}, nullptr,
               "truth:item, test:traced_shape_arith (aten::Int of a traced x.size(1) // 4)",
               "The host asks for a value that lives on the GPU: a device-to-host memcpy of one element, and the host waits (a sync) for every kernel queued before it."});
  // GEMMs (cuBLAS / cuBLASLt). bf16 linear runs nvjet kernels that zero a workspace first.
  r.push_back({"gemm.linear.half", ops({"aten::linear", "aten::addmm"}), {},
               "bf16/fp16, more than one row, more output than input features: nvjet with a zeroed "
               "workspace; + a copy per operand matmul cannot fold into a view",
               linear_half_widening, {}, gemm_half_counts,
               "truth:linear_bias_3d_bfloat16, truth:linear_bias_2d_bfloat16, truth:linear_nobias_bfloat16, "
               "corpus:vit_b_16, corpus:swin_t, corpus:gpt2, corpus:llama",
               "This bf16/fp16 GEMM runs cuBLASLt's nvjet kernel, which first zeroes a workspace (one memset), then computes the product with the bias in one kernel."});
  r.push_back({"gemm", ops({"aten::linear", "aten::addmm", "aten::mm", "aten::matmul", "aten::bmm", "aten::baddbmm"}), {}, "one GEMM, + a copy per operand matmul cannot fold into a view", nullptr, {}, gemm_counts,
               "truth:linear_bias_3d_float32, truth:linear_bias_small_*, truth:matmul_2d_*, truth:bmm_*, "
               "truth:matmul_transposed_k_*, corpus:swin_t (attention matmuls on permuted operands)",
               "A matrix multiply is one cuBLAS GEMM kernel (with the bias folded in); an operand that cannot be passed as a strided view is copied first."});
  // Convolutions (cuDNN, and ATen's own depthwise kernel).
  r.push_back({"conv", {}, OpClass::kConv,
               "2-d, not transposed: depthwise or 1x1 stride 1: 1; other 1x1: 3; 3-channel stem: 1; else 4 "
               "(transforms + implicit GEMM); + bias add, + input copy when not contiguous",
               conv2d_forward, {}, conv_counts,
               "truth:conv3x3_*, truth:conv1x1_*, corpus:mobilenet_v2, corpus:efficientnet_b0, "
               "corpus:convnext_tiny, corpus:resnet50, corpus:shufflenet_v2_x1_0",
               "cuDNN runs this convolution as an implicit GEMM on channels-last (NHWC) data, so for NCHW tensors it adds layout transforms around it: input and weight to NHWC before, the output back to NCHW after; a depthwise or 1x1 stride-1 convolution is one kernel (a GEMM); a bias is one more elementwise kernel."});
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
  // Attention: bf16 goes to cuDNN's fused kernel (with a memset), fp32 to the efficient kernel.
  r.push_back({"sdpa.half", ops({"aten::scaled_dot_product_attention"}), {}, "bf16/fp16, no explicit mask",
               sdpa_plain_half, {1, 0, 1, 0}, nullptr, "truth:sdpa_bfloat16, truth:sdpa_causal_bfloat16",
               "Attention in bf16/fp16 without a mask runs cuDNN's fused flash-attention kernel, which zeroes a small buffer first (one memset)."});
  r.push_back({"sdpa.fp32", ops({"aten::scaled_dot_product_attention"}), {}, "float32, no explicit mask",
               sdpa_plain_fp32, {1, 0, 0, 0}, nullptr, "truth:sdpa_float32, truth:sdpa_causal_float32",
               "Attention in float32 runs the memory-efficient (cutlass) fused attention kernel: one kernel."});
  r.push_back({"sdpa.mask.half", ops({"aten::scaled_dot_product_attention"}), {}, "bf16/fp16 with an explicit mask",
               sdpa_masked_half, {4, 0, 1, 0}, nullptr, "corpus:bert, corpus:gpt2, corpus:llama",
               "Attention with an explicit mask cannot use the flash kernel: it prepares the mask (expand, copy) before the fused kernel, and zeroes a buffer."});
  r.push_back({"sdpa.mask.fp32", ops({"aten::scaled_dot_product_attention"}), {}, "float32 with an explicit mask",
               sdpa_masked_fp32, {4, 0, 0, 0}, nullptr, "corpus:bert, corpus:gpt2, corpus:llama",
               "Attention with an explicit mask prepares the mask (expand, copy) in extra kernels before the fused attention kernel."});
  // Gathers, copies and shape ops.
  r.push_back({"index", ops({"aten::index"}), {}, "one gather; with several index tensors, a copy of each first",
               nullptr, {}, index_counts, "truth:index_select, corpus:swin_t, corpus:gpt2, corpus:llama",
               "Advanced indexing is one gather kernel; with several index tensors each is copied (broadcast) first."});
  r.push_back({"gather", ops({"aten::embedding", "aten::index_select", "aten::gather"}), {}, "always",
               nullptr, {1, 0, 0, 0}, nullptr, "truth:embedding_*, truth:index_select",
               "A lookup (embedding, index_select, gather) is one gather kernel."});
  r.push_back({"cat", ops({"aten::cat", "aten::concat", "aten::concatenate", "aten::stack"}), {},
               "one kernel; one tensor alone is a copy", nullptr, {}, cat_counts,
               "truth:cat_float32, truth:cat_bfloat16, corpus:densenet121",
               "Concatenation copies every input into the output with one batched-copy kernel."});
  r.push_back({"dropout.eval", ops({"aten::dropout", "aten::dropout_", "aten::feature_dropout", "aten::alpha_dropout"}), {},
               "train=False", eval_mode, {0, 0, 0, 0}, nullptr, "truth:dropout_eval_float32, truth:dropout_eval_bfloat16, corpus:efficientnet_b0 (dropout_)",
               "In evaluation mode dropout does nothing: no kernel."});
  r.push_back({"dropout.train", ops({"aten::dropout", "aten::native_dropout"}), {}, "train=True", nullptr, {1, 0, 0, 0},
               nullptr, "truth:dropout_train_float32, truth:dropout_train_bfloat16",
               "In training mode dropout draws a random mask and applies it in one fused kernel."});
  r.push_back({"pad", ops({"aten::pad", "aten::constant_pad_nd"}), {}, "fill then copy; zero padding is a copy",
               nullptr, {}, pad_counts, "truth:pad, corpus:swin_t",
               "Padding fills the output with the pad value, then copies the input into it: two kernels; a pad that adds nothing is one copy."});
  r.push_back({"pool", ops({"aten::max_pool2d", "aten::adaptive_avg_pool2d", "aten::avg_pool2d",
                            "aten::upsample_nearest2d"}), {}, "always", nullptr, {1, 0, 0, 0}, nullptr,
               "truth:maxpool_*, truth:adaptive_avgpool_*, truth:upsample_nearest, corpus:densenet121 (avg_pool2d)",
               "Pooling and nearest upsampling are one kernel each."});
  r.push_back({"roll", ops({"aten::roll"}), {}, "always", nullptr, {2, 0, 0, 0}, nullptr, "corpus:swin_t",
               "Rolling over two dims runs one roll kernel per dim."});
  r.push_back({"scan", ops({"aten::cumsum", "aten::diff"}), {}, "a conversion or slice, then the kernel", nullptr,
               {2, 0, 0, 0}, nullptr, "corpus:gpt2, corpus:llama",
               "A cumulative sum first converts or slices its input, then runs the scan kernel."});
  r.push_back({"elementwise", ops({"aten::hardswish", "aten::hardswish_", "aten::hardsigmoid", "aten::hardsigmoid_",
                                   "aten::__and__", "aten::__or__", "aten::__xor__", "aten::floor_divide"}), {}, "elementwise ops libtorch does not tag pointwise", nullptr, {1, 0, 0, 0}, nullptr,
               "corpus:mobilenet_v3_large, corpus:gpt2 (__and__), test:traced_shape_arith (floor_divide)",
               "An elementwise op: one kernel that reads its inputs and writes its output once."});
  r.push_back({"masked_fill", ops({"aten::masked_fill"}), {}, "always", nullptr, {1, 1, 0, 0}, nullptr,
               "truth:masked_fill",
               "Out-of-place masked_fill first copies its input (a device-to-device memcpy), then fills the masked positions in place with one kernel."});
  r.push_back({"topk", ops({"aten::topk"}), {}, "always", nullptr, {2, 0, 0, 0}, nullptr, "truth:topk",
               "topk selects the k largest with one kernel, then sorts them with another."});
  r.push_back({"cross_entropy", ops({"aten::cross_entropy_loss"}), {}, "log_softmax then nll_loss", nullptr,
               {2, 0, 0, 0}, nullptr, "truth:cross_entropy",
               "Cross entropy is log_softmax then nll_loss: two kernels."});
  // Factories.
  r.push_back({"factory.empty", ops({"aten::empty", "aten::empty_like", "aten::empty_strided", "aten::new_empty"}), {},
               "always", nullptr, {0, 0, 0, 0}, nullptr, "truth:empty",
               "empty only allocates memory from PyTorch's caching allocator: no kernel."});
  r.push_back({"factory.fill", ops({"aten::zeros", "aten::ones", "aten::full", "aten::zeros_like", "aten::ones_like",
                                    "aten::full_like", "aten::new_zeros", "aten::new_ones", "aten::new_full",
                                    "aten::fill_", "aten::zero_", "aten::scalar_tensor"}), {}, "always", nullptr, {1, 0, 0, 0}, nullptr, "truth:zeros, truth:ones",
               "A filled tensor (zeros, ones, full) is allocated, then written by one fill kernel."});
  r.push_back({"factory.arange", ops({"aten::arange"}), {}, "always", nullptr, {1, 0, 0, 0}, nullptr, "truth:arange",
               "arange writes its sequence with one kernel."});
  // Only randn is measured; other generators run other kernels and stay unknown until they are.
  r.push_back({"factory.random", ops({"aten::randn"}), {}, "always", nullptr, {1, 0, 0, 0}, nullptr, "truth:randn",
               "randn draws its numbers with one random-number kernel."});
  // Classes by libtorch's own tags, after every explicit rule.
  r.push_back({"view", {}, OpClass::kView, "the schema returns an alias of an input", nullptr, {0, 0, 0, 0}, nullptr,
               "truth:view_reshape_float32, truth:view_reshape_bfloat16",
               "A view only changes the shape and strides the host keeps for the same memory: no kernel, no data moved."});
  r.push_back({"reduction.global", {}, OpClass::kReduction, "one output from more than 4096 inputs", global_reduction,
               {1, 0, 1, 0}, nullptr, "truth:mean_all_float32, truth:mean_all_bfloat16, truth:item",
               "A reduction of a large tensor to one value is one reduce kernel that splits the work over many blocks; it zeroes a semaphore buffer first (one memset)."});
  r.push_back({"reduction", {}, OpClass::kReduction, "otherwise", nullptr, {1, 0, 0, 0}, nullptr,
               "truth:sum_last_float32, truth:sum_last_bfloat16, truth:argmax",
               "A reduction (sum, mean, max, argmax over some dims) is one reduce kernel."});
  r.push_back({"pointwise", {}, OpClass::kPointwise, "libtorch tags it pointwise", tagged_pointwise, {1, 0, 0, 0}, nullptr,
               "truth:add, truth:add_scalar, truth:gelu_*, truth:silu_*, truth:where, truth:expand_add",
               "A pointwise op is one elementwise kernel: it reads each input from HBM once and writes its output back once."});
  return r;
}

const MeasuredLaunch kMeasured[] = {
#include "passes/targets/torch2_11_h200_measured.inc"
};

const KernelNames kKernelNames[] = {
#include "passes/targets/torch2_11_h200_kernel_names.inc"
};

}  // namespace

Target torch2_11_h200() {
  Target t;
  t.name = "torch2.11-h200";
  t.description = "eager PyTorch 2.11 on NVIDIA H200 (sm_90)";
  t.torch_version = "2.11";
  t.gpu = "NVIDIA H200";
  t.arch = "sm_90";
  // Rates measured on the H200 by validate/measure_target.py (validate/results/target.json).
  // The vector rate is the fp32 GEMM's: without TF32 it runs on the CUDA cores, at their FMA
  // rate. The launch time is per kernel in a stream of tiny eager launches.
  t.hbm_bytes_per_s = 4.24e12;
  t.matmul_bf16_flops_per_s = 805e12;
  t.matmul_fp32_flops_per_s = 51.0e12;
  t.vector_flops_per_s = 51.0e12;
  t.launch_s = 6.8e-6;
  t.evidence = "validate/results/target.json";
  t.rules = rules();
  t.measured.assign(std::begin(kMeasured), std::end(kMeasured));
  t.measured_source = "passes/targets/torch2_11_h200_measured.inc";
  t.kernel_names.assign(std::begin(kKernelNames), std::end(kKernelNames));
  t.kernel_names_source = "passes/targets/torch2_11_h200_kernel_names.inc";
  return t;
}

}  // namespace kc
