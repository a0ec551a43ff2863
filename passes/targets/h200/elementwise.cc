// Elementwise ops without a pointwise tag, dropout, pools, scans and factories on the H200.
#include "passes/targets/h200/rules.h"

namespace kc::h200 {

void add_elementwise_rules(std::vector<LaunchRule>& r) {
  r.push_back({"dropout.eval", ops({"aten::dropout", "aten::dropout_", "aten::feature_dropout", "aten::alpha_dropout"}), {},
               "train=False", eval_mode, {0, 0, 0, 0}, nullptr, "truth:dropout_eval_float32, truth:dropout_eval_bfloat16, corpus:efficientnet_b0 (dropout_)"});
  r.push_back({"dropout.train", ops({"aten::dropout", "aten::native_dropout"}), {}, "train=True", nullptr, {1, 0, 0, 0},
               nullptr, "truth:dropout_train_float32, truth:dropout_train_bfloat16"});
  r.push_back({"pool", ops({"aten::max_pool2d", "aten::adaptive_avg_pool2d", "aten::avg_pool2d",
                            "aten::upsample_nearest2d", "aten::max_pool3d", "aten::avg_pool3d",
                            "aten::adaptive_avg_pool3d", "aten::avg_pool1d", "aten::adaptive_avg_pool1d"}), {}, "always",
               nullptr, {1, 0, 0, 0}, nullptr,
               "truth:maxpool_*, truth:adaptive_avgpool_*, truth:upsample_nearest, corpus:densenet121 (avg_pool2d), "
               "sweep:resample/pool:max_pool3d, sweep:resample/pool:adaptive_avg_pool3d, broad:s3d, broad:video-resnet, "
               "broad:nextvit (avg_pool1d), broad:swin (adaptive_avg_pool1d)"});
  r.push_back({"scan", ops({"aten::cumsum", "aten::diff"}), {}, "a conversion or slice, then the kernel", nullptr,
               {2, 0, 0, 0}, nullptr, "corpus:gpt2, corpus:llama"});
  r.push_back({"elementwise", ops({"aten::hardswish", "aten::hardswish_", "aten::hardsigmoid", "aten::hardsigmoid_",
                                   "aten::__and__", "aten::__or__", "aten::__xor__", "aten::floor_divide"}), {}, "elementwise ops libtorch does not tag pointwise", nullptr, {1, 0, 0, 0}, nullptr,
               "corpus:mobilenet_v3_large, corpus:gpt2 (__and__), test:traced_shape_arith (floor_divide)"});
  r.push_back({"cross_entropy", ops({"aten::cross_entropy_loss"}), {}, "log_softmax then nll_loss", nullptr,
               {2, 0, 0, 0}, nullptr, "truth:cross_entropy"});
  // Factories.
  r.push_back({"factory.empty", ops({"aten::empty", "aten::empty_like", "aten::empty_strided", "aten::new_empty"}), {},
               "always", nullptr, {0, 0, 0, 0}, nullptr, "truth:empty"});
  r.push_back({"factory.fill", ops({"aten::zeros", "aten::ones", "aten::full", "aten::zeros_like", "aten::ones_like",
                                    "aten::full_like", "aten::new_zeros", "aten::new_ones", "aten::new_full",
                                    "aten::fill_", "aten::zero_", "aten::scalar_tensor"}), {}, "always", nullptr, {1, 0, 0, 0}, nullptr, "truth:zeros, truth:ones"});
  r.push_back({"factory.arange", ops({"aten::arange"}), {}, "always", nullptr, {1, 0, 0, 0}, nullptr, "truth:arange"});
  // Only randn is measured; other generators run other kernels and stay unknown until they are.
  r.push_back({"factory.random", ops({"aten::randn"}), {}, "always", nullptr, {1, 0, 0, 0}, nullptr, "truth:randn"});
}

}  // namespace kc::h200
