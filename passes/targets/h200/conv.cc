// Convolutions on the H200 (cuDNN v8 frontend, aten/src/ATen/native/cudnn/Conv_v8.cpp, and ATen's
// own depthwise kernels).
#include "passes/targets/h200/rules.h"

namespace kc::h200 {
namespace {

bool conv2d_forward(const OpFacts& f) {
  const Value* x = f.input(0);
  const Value* w = f.input(1);
  const bool transposed = f.op->name.find("transpose") != std::string::npos || f.bool_arg("transposed", false);
  return x && w && x->sizes.size() == 4 && w->sizes.size() == 4 && !transposed;
}
// A 2-d convolution as cuDNN and ATen run it: depthwise ones in ATen's own kernel, 1x1 ones
// with stride 1 as a GEMM on the NCHW tensor, the rest as cuDNN's implicit GEMM between
// NCHW->NHWC transforms of input and weight and an NHWC->NCHW transform of the output. A
// bias is a separate add; a non-contiguous input is copied first.
Counts conv_counts(const OpFacts& f) {
  const Value* x = f.input(0);
  const Value* w = f.input(1);
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

}  // namespace

void add_conv_rules(std::vector<LaunchRule>& r) {
  // Convolutions (cuDNN, and ATen's own depthwise kernel).
  r.push_back({"conv", {}, OpClass::kConv,
               "2-d, not transposed: depthwise or 1x1 stride 1: 1; other 1x1: 3; 3-channel stem: 1; else 4 "
               "(transforms + implicit GEMM); + bias add, + input copy when not contiguous",
               conv2d_forward, {}, conv_counts,
               "truth:conv3x3_*, truth:conv1x1_*, corpus:mobilenet_v2, corpus:efficientnet_b0, "
               "corpus:convnext_tiny, corpus:resnet50, corpus:shufflenet_v2_x1_0",
               "cuDNN runs this convolution as an implicit GEMM on channels-last (NHWC) data, so for NCHW tensors it adds layout transforms around it: input and weight to NHWC before, the output back to NCHW after; a depthwise or 1x1 stride-1 convolution is one kernel (a GEMM); a bias is one more elementwise kernel."});
}

}  // namespace kc::h200
