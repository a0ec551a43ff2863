// Elementwise ops without a pointwise tag, dropout, pools, scans and factories on the H200.
#include "passes/targets/h200/rules.h"

namespace kc::h200 {

void add_elementwise_rules(std::vector<LaunchRule>& r) {
  r.push_back({"dropout.eval", ops({"aten::dropout", "aten::dropout_", "aten::feature_dropout", "aten::alpha_dropout"}), {},
               "train=False", eval_mode, {0, 0, 0, 0}, nullptr, "truth:dropout_eval_float32, truth:dropout_eval_bfloat16, corpus:efficientnet_b0 (dropout_)",
               "In evaluation mode dropout does nothing: no kernel."});
  r.push_back({"dropout.train", ops({"aten::dropout", "aten::native_dropout"}), {}, "train=True", nullptr, {1, 0, 0, 0},
               nullptr, "truth:dropout_train_float32, truth:dropout_train_bfloat16",
               "In training mode dropout draws a random mask and applies it in one fused kernel."});
  r.push_back({"pool", ops({"aten::max_pool2d", "aten::adaptive_avg_pool2d", "aten::avg_pool2d",
                            "aten::upsample_nearest2d", "aten::max_pool3d", "aten::avg_pool3d",
                            "aten::adaptive_avg_pool3d", "aten::avg_pool1d", "aten::adaptive_avg_pool1d"}), {}, "always",
               nullptr, {1, 0, 0, 0}, nullptr,
               "truth:maxpool_*, truth:adaptive_avgpool_*, truth:upsample_nearest, corpus:densenet121 (avg_pool2d), "
               "sweep:resample/pool:max_pool3d, sweep:resample/pool:adaptive_avg_pool3d, broad:s3d, broad:video-resnet, "
               "broad:nextvit (avg_pool1d), broad:swin (adaptive_avg_pool1d)",
               "Pooling and nearest upsampling are one kernel each."});
  r.push_back({"scan", ops({"aten::cumsum", "aten::diff"}), {}, "a conversion or slice, then the kernel", nullptr,
               {2, 0, 0, 0}, nullptr, "corpus:gpt2, corpus:llama",
               "A cumulative sum first converts or slices its input, then runs the scan kernel."});
  r.push_back({"elementwise", ops({"aten::hardswish", "aten::hardswish_", "aten::hardsigmoid", "aten::hardsigmoid_",
                                   "aten::__and__", "aten::__or__", "aten::__xor__", "aten::floor_divide"}), {}, "elementwise ops libtorch does not tag pointwise", nullptr, {1, 0, 0, 0}, nullptr,
               "corpus:mobilenet_v3_large, corpus:gpt2 (__and__), test:traced_shape_arith (floor_divide)",
               "An elementwise op: one kernel that reads its inputs and writes its output once."});
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
}

}  // namespace kc::h200
