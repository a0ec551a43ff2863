// The H200 convolution rules (passes/torch2_11/conv.cc), one case per mechanism.
#include <catch2/catch.hpp>

#include "analyzer/error.h"
#include "passes/graph_builder.h"
#include "passes/launches.h"
#include "passes/target.h"
#include "passes/torch2_11/dgrad_engine.h"
#include "passes/torch2_11/grouped_conv.h"

using kc::DType;
using kc::test::GraphBuilder;

namespace {

struct ConvSpec {
  std::string op = "aten::conv2d";
  std::vector<int64_t> stride = {1, 1};
  int64_t groups = 1;
  bool bias = false;
  bool transposed_arg = false;  // aten::convolution's transposed=True
};

// One convolution of input x by a weight w (both already in the graph); its launch.
kc::Launch run_conv(GraphBuilder& b, int x, int w, const ConvSpec& s = {}) {
  std::vector<int> ins{x, w};
  if (s.bias) ins.push_back(b.input({b.g.values[w].sizes[0]}, b.g.values[x].dtype, kc::ValueRole::kParameter));
  b.op(s.op, ins, {}, b.g.values[x].sizes);
  b.name_arg(0, "input");
  b.name_arg(1, "weight");
  if (s.bias) b.name_arg(2, "bias");
  b.arg_ints("stride", s.stride);
  // "same" padding, as the sweeps measured (1-d weights: the last dim)
  std::vector<int64_t> pad;
  const auto& ws = b.g.values[w].sizes;
  for (size_t d = 2; d < ws.size(); ++d) pad.push_back((ws[d] - 1) / 2);
  b.arg_ints("padding", pad);
  kc::Arg g;
  g.name = "groups";
  g.kind = kc::Arg::Kind::kInt;
  g.ints = {s.groups};
  b.g.ops.back().args.push_back(g);
  if (s.transposed_arg) b.arg_bool("transposed", true);
  return kc::run_launches(b.g, kc::default_target(), {false, {}}).back();
}

int weight(GraphBuilder& b, std::vector<int64_t> sizes, DType dt = DType::kFloat32) {
  return b.input(std::move(sizes), dt, kc::ValueRole::kParameter);
}

// cuDNN's choice of engine `e`, as the table or the heuristics would answer it.
kc::torch2_11::CudnnEngineChoice engine(int64_t e) {
  kc::torch2_11::CudnnEngineChoice c;
  c.engine = e;
  return c;
}

}  // namespace

TEST_CASE("conv: NCHW depthwise runs ATen's own kernel, bias fused; a strided input is copied first") {
  GraphBuilder b;
  int x = b.input({2, 64, 56, 56});
  ConvSpec dw;
  dw.groups = 64;
  dw.bias = true;
  auto l = run_conv(b, x, weight(b, {64, 1, 3, 3}), dw);
  CHECK(l.rule == "conv");
  CHECK(l.counts.kernels == 1);
  // A sliced (not dense, not channels-last-like) input: +1 copy.
  int sliced = b.strided({2, 64, 56, 56}, {2 * 64 * 56 * 112, 56 * 112, 112, 1});
  CHECK(run_conv(b, sliced, weight(b, {64, 1, 3, 3}), dw).counts.kernels == 2);
}

TEST_CASE("conv: a channels-last input sends depthwise to cuDNN's NHWC kernel, bias a separate add") {
  GraphBuilder b;
  int x = b.strided({2, 96, 56, 56}, {301056, 1, 5376, 96});
  ConvSpec dw;
  dw.groups = 96;
  dw.bias = true;
  CHECK(run_conv(b, x, weight(b, {96, 1, 7, 7}), dw).counts.kernels == 2);
}

TEST_CASE("conv: channels-last input with an NCHW weight pays one weight conversion, no transforms") {
  GraphBuilder b;
  int x = b.strided({2, 64, 28, 28}, {50176, 1, 1792, 64}, DType::kBFloat16);
  ConvSpec s;
  s.stride = {2, 2};
  s.bias = true;
  auto l = run_conv(b, x, weight(b, {128, 64, 3, 3}, DType::kBFloat16), s);
  CHECK(l.counts.kernels == 3);  // weight copy + core + bias
  int w_cl = b.strided({128, 64, 3, 3}, {576, 1, 192, 64}, DType::kBFloat16);
  CHECK(run_conv(b, x, w_cl, s).counts.kernels == 2);  // both channels last: core + bias
}

TEST_CASE("conv: NCHW 1x1 stride 1 is one GEMM in any dtype; strided 1x1 adds the transforms") {
  GraphBuilder b;
  int x = b.input({2, 256, 7, 7}, DType::kBFloat16);
  CHECK(run_conv(b, x, weight(b, {512, 256, 1, 1}, DType::kBFloat16)).counts.kernels == 1);
  ConvSpec s2;
  s2.stride = {2, 2};
  CHECK(run_conv(b, x, weight(b, {512, 256, 1, 1}, DType::kBFloat16), s2).counts.kernels == 3);
}

TEST_CASE("conv: NCHW k>1 is T2 + core + T1 in half precision; small-channel stems are one kernel") {
  GraphBuilder b;
  int x = b.input({2, 64, 56, 56}, DType::kBFloat16);
  CHECK(run_conv(b, x, weight(b, {64, 64, 3, 3}, DType::kBFloat16)).counts.kernels == 4);
  int img = b.input({2, 3, 224, 224}, DType::kBFloat16);
  ConvSpec stem;
  stem.stride = {2, 2};
  CHECK(run_conv(b, img, weight(b, {64, 3, 7, 7}, DType::kBFloat16), stem).counts.kernels == 1);
}

// Shapes measured by the conv_dense sweep (data/sweeps), each a different engine
// choice of cuDNN that the fitted trees (conv_engine_trees.inc) reproduce.
TEST_CASE("conv: f32 NCHW k>1 follows cuDNN's measured engine choice: native, transforms, split-K") {
  GraphBuilder b;
  int stem = b.input({4, 24, 56, 56});  // NCHW-native implicit GEMM: 1 kernel
  CHECK(run_conv(b, stem, weight(b, {32, 24, 3, 3})).counts.kernels == 1);
  int mid = b.input({4, 320, 56, 56});  // T2 + core + T1
  auto l = run_conv(b, mid, weight(b, {128, 320, 3, 3}));
  CHECK(l.counts.kernels == 4);
  CHECK(l.counts.memset == 0);
  int wide = b.input({2, 96, 12, 12});  // T2 + core writing NCHW itself
  CHECK(run_conv(b, wide, weight(b, {192, 96, 3, 3})).counts.kernels == 3);
  int deep = b.input({4, 768, 5, 5});  // M = 100, K = 6912: split-K zeroes its workspace
  auto d = run_conv(b, deep, weight(b, {64, 768, 3, 3}));
  CHECK(d.counts.kernels == 3);
  CHECK(d.counts.memset == 1);
  ConvSpec with_bias;
  with_bias.bias = true;  // the same engine, + the bias add
  CHECK(run_conv(b, mid, weight(b, {128, 320, 3, 3}), with_bias).counts.kernels == 5);
}

TEST_CASE("conv: conv1d is conv2d with H = 1 after input.contiguous()") {
  GraphBuilder b;
  int x = b.input({2, 64, 400}, DType::kBFloat16);
  ConvSpec s;
  s.op = "aten::conv1d";
  s.stride = {2};
  CHECK(run_conv(b, x, weight(b, {64, 64, 3}, DType::kBFloat16), s).counts.kernels == 4);
  // A permuted (B, L, C) -> (B, C, L) input is copied, then depthwise runs natively.
  int perm = b.strided({2, 256, 128}, {32768, 1, 256});
  ConvSpec dw;
  dw.op = "aten::conv1d";
  dw.stride = {1};
  dw.groups = 256;
  CHECK(run_conv(b, perm, weight(b, {256, 1, 9}), dw).counts.kernels == 2);
}

TEST_CASE("conv: f32 channels-last depthwise conv3d loops per channel, two kernels each") {
  GraphBuilder b;
  int x = b.strided({2, 64, 8, 28, 28}, {401408, 1, 50176, 1792, 64});
  ConvSpec dw;
  dw.op = "aten::conv3d";
  dw.stride = {1, 1, 1};
  dw.groups = 64;
  CHECK(run_conv(b, x, weight(b, {64, 1, 3, 3, 3}), dw).counts.kernels == 128);
  int ncdhw = b.input({2, 64, 8, 28, 28});
  CHECK(run_conv(b, ncdhw, weight(b, {64, 1, 3, 3, 3}), dw).counts.kernels == 1);  // native depthwise3d
}

TEST_CASE("conv: transposed convolutions take cuDNN's dgrad engine as the convt_decoder sweep measured it") {
  // Three configurations of the sweep (data/sweeps/sweep_convt_decoder.jsonl.gz),
  // one per engine family.
  auto convt = [](DType dt, std::vector<int64_t> x_sizes, std::vector<int64_t> w_sizes, int64_t stride, int64_t out_hw,
                  bool bias) {
    GraphBuilder b;
    int x = b.input(x_sizes, dt);
    int w = b.input(w_sizes, dt, kc::ValueRole::kParameter);
    std::vector<int> ins{x, w};
    if (bias) ins.push_back(b.input({w_sizes[1]}, dt, kc::ValueRole::kParameter));
    b.op("aten::conv_transpose2d", ins, {}, {x_sizes[0], w_sizes[1], out_hw, out_hw});
    b.name_arg(0, "input");
    b.name_arg(1, "weight");
    if (bias) b.name_arg(2, "bias");
    b.arg_ints("stride", {stride, stride});
    kc::LaunchOptions o;
    o.use_measured = false;
    return kc::run_launches(b.g, kc::default_target(), o).back();
  };
  // f32, few channels and pixels: the NCHW-native kernels (scale, dgrad) and the bias add.
  auto native = convt(DType::kFloat32, {1, 16, 4, 4}, {16, 16, 4, 4}, 4, 16, true);
  CHECK(native.rule == "conv.transposed");
  CHECK(native.counts.kernels == 3);
  CHECK(native.counts.memset == 0);
  // bf16 decoder stage: NHWC transforms around the implicit-GEMM dgrad, one zeroed workspace.
  auto nhwc = convt(DType::kBFloat16, {16, 384, 16, 16}, {384, 192, 4, 4}, 2, 32, false);
  CHECK(nhwc.counts.kernels == 4);
  CHECK(nhwc.counts.memset == 1);
  // 1x1 at stride 1: one GEMM, then the bias.
  auto gemm = convt(DType::kFloat32, {2, 1024, 32, 32}, {1024, 512, 1, 1}, 1, 32, true);
  CHECK(gemm.counts.kernels == 2);
}

TEST_CASE("conv: an output padding as large as the stride keeps a transposed convolution from cuDNN") {
  // opinfo:nn_functional_conv_transpose2d sample 2: [2, 2, 4, 4] by [2, 2, 4, 5], 2 groups, stride
  // (3, 2), output padding (2, 3): per group the input slice copied, the bias's ones, per sample
  // GEMM + col2im + the bias's GEMM; then a cat.
  auto slow = [](std::vector<int64_t> output_padding) {
    GraphBuilder b;
    int x = b.input({2, 2, 4, 4});
    int w = b.input({2, 2, 4, 5}, DType::kFloat32, kc::ValueRole::kParameter);
    int bias = b.input({4}, DType::kFloat32, kc::ValueRole::kParameter);
    b.op("aten::conv_transpose2d", {x, w, bias}, {}, {2, 4, 18, 26});
    b.name_arg(0, "input");
    b.name_arg(1, "weight");
    b.name_arg(2, "bias");
    b.arg_ints("stride", {3, 2});
    b.arg_ints("padding", {1, 2});
    b.arg_ints("output_padding", output_padding);
    b.arg_int("groups", 2);
    b.arg_ints("dilation", {4, 4});
    kc::LaunchOptions o;
    o.use_measured = false;
    return kc::run_launches(b.g, kc::default_target(), o).back();
  };
  auto big = slow({2, 3});
  CHECK(big.rule == "conv.transposed.slow");
  CHECK(big.counts.kernels == 17);
  CHECK(slow({1, 1}).rule == "conv.transposed.few_channels");  // below the stride: cuDNN
}

TEST_CASE("conv: the slow 3-d transposed convolution joins each group by memcpy for one sample, by kernel for two") {
  auto slow3d = [](std::vector<int64_t> x_sizes, std::vector<int64_t> out_sizes) {
    GraphBuilder b;
    int x = b.input(x_sizes);
    int w = b.input({2, 2, 4, 5, 6}, DType::kFloat32, kc::ValueRole::kParameter);
    int bias = b.input({4}, DType::kFloat32, kc::ValueRole::kParameter);
    b.op("aten::conv_transpose3d", {x, w, bias}, {}, out_sizes);
    b.name_arg(0, "input");
    b.name_arg(1, "weight");
    b.name_arg(2, "bias");
    b.arg_ints("stride", {3, 2, 1});
    b.arg_ints("padding", {1, 2, 3});
    b.arg_ints("output_padding", {2, 3, 1});
    b.arg_int("groups", 2);
    b.arg_ints("dilation", {4, 4, 4});
    kc::LaunchOptions o;
    o.use_measured = false;
    return kc::run_launches(b.g, kc::default_target(), o).back();
  };
  auto two = slow3d({2, 2, 4, 4, 4}, {2, 4, 24, 25, 25});
  CHECK(two.counts.kernels == 18);
  CHECK(two.counts.memcpy == 2);
  auto one = slow3d({2, 4, 4, 4}, {4, 24, 25, 25});  // unbatched: one sample
  CHECK(one.counts.kernels == 8);
  CHECK(one.counts.memcpy == 4);
}

TEST_CASE("conv: transposed convolutions on a few channels and pixels run one cuDNN kernel (3-d: more)") {
  auto convt = [](const char* op, DType dt, std::vector<int64_t> x_sizes, std::vector<int64_t> w_sizes) {
    GraphBuilder b;
    int x = b.input(x_sizes, dt);
    int w = b.input(w_sizes, dt, kc::ValueRole::kParameter);
    int bias = b.input({w_sizes[1]}, dt, kc::ValueRole::kParameter);
    b.op(op, {x, w, bias}, {}, x_sizes);
    b.name_arg(0, "input");
    b.name_arg(1, "weight");
    b.name_arg(2, "bias");
    kc::LaunchOptions o;
    o.use_measured = false;
    return kc::run_launches(b.g, kc::default_target(), o).back();
  };
  // opinfo: [1, 3, 4] by [3, 3, 3] and [1, 3, 4, 4] by [3, 3, 3, 3]: the kernel and the bias add.
  auto one = convt("aten::conv_transpose1d", DType::kBFloat16, {1, 3, 4}, {3, 3, 3});
  CHECK(one.rule == "conv.transposed.few_channels");
  CHECK(one.counts.kernels == 2);
  CHECK(convt("aten::conv_transpose2d", DType::kFloat32, {1, 3, 4, 4}, {3, 3, 3, 3}).counts.kernels == 2);
  auto three = convt("aten::conv_transpose3d", DType::kBFloat16, {1, 3, 4, 4, 4}, {3, 3, 3, 3, 3});
  CHECK(three.counts.kernels == 5);
  CHECK(three.counts.memset == 2);
  // 16 channels: the sweep's tree.
  CHECK(convt("aten::conv_transpose2d", DType::kFloat32, {1, 16, 4, 4}, {16, 16, 3, 3}).rule == "conv.transposed");
}

TEST_CASE("conv: shapes that are not a convolution match no rule, or are refused when the rank is wrong") {
  GraphBuilder b;
  int x = b.input({2, 64, 56, 56});
  CHECK_FALSE(run_conv(b, x, weight(b, {64, 32, 3, 3})).known);  // C_in != weight C x groups
  int x2 = b.input({64, 56});
  // A rank no convolution takes is a broken graph: check_operands refuses it before any rule.
  CHECK_THROWS_AS(run_conv(b, x2, weight(b, {64, 56})), kc::OpError);  // rank 2
  int x6 = b.input({1, 2, 2, 2, 2, 2});
  CHECK_THROWS_AS(run_conv(b, x6, weight(b, {2, 2, 1, 1, 1, 1})), kc::OpError);  // rank 6
  int s = b.input({});
  CHECK_THROWS_AS(run_conv(b, s, weight(b, {})), kc::OpError);  // rank 0
}

TEST_CASE("conv: absurd groups and strides match no rule instead of overflowing") {
  // Groups whose product with the weight's channels overflows 64 bits, and strides beyond 2^31
  // (output sizes would overflow): no convolution, no undefined arithmetic.
  GraphBuilder b;
  int x = b.input({2, 64, 56, 56});
  ConvSpec huge_groups;
  huge_groups.groups = int64_t{1} << 62;
  CHECK_FALSE(run_conv(b, x, weight(b, {64, 4, 3, 3}), huge_groups).known);
  ConvSpec huge_stride;
  huge_stride.stride = {int64_t{1} << 40, 1};
  CHECK_FALSE(run_conv(b, x, weight(b, {64, 64, 3, 3}), huge_stride).known);
}

TEST_CASE("pools: 1-d and 3-d pools are one kernel") {
  GraphBuilder b;
  int x = b.input({2, 64, 8, 56, 56}, DType::kBFloat16);
  for (const char* op : {"aten::max_pool3d", "aten::avg_pool3d", "aten::adaptive_avg_pool3d"}) {
    b.op(op, {x}, {}, {2, 64, 4, 28, 28});
    auto l = kc::run_launches(b.g, kc::default_target(), {false, {}}).back();
    CHECK(l.rule == "pool");
    CHECK(l.counts.kernels == 1);
  }
}

TEST_CASE("conv: grouped NCHW convolutions loop per group for wide groups in bf16, else one call") {
  GraphBuilder b;
  int x = b.input({2, 448, 14, 14}, DType::kBFloat16);
  ConvSpec g8;
  g8.groups = 8;  // 56 channels per group
  CHECK(run_conv(b, x, weight(b, {448, 56, 3, 3}, DType::kBFloat16), g8).counts.kernels == 32);
  ConvSpec g28;
  g28.groups = 28;  // 16 channels per group: one call
  CHECK(run_conv(b, x, weight(b, {448, 16, 3, 3}, DType::kBFloat16), g28).counts.kernels == 4);
}

TEST_CASE("conv: grouped NCHW 1x1 convolutions loop over groups; f32 above 16 groups is one direct kernel") {
  // Shapes measured by the gconv sweep.
  GraphBuilder b;
  ConvSpec g8;
  g8.groups = 8;
  int xh = b.input({1, 128, 14, 14}, DType::kBFloat16);  // 16 channels per group: 3 a group
  CHECK(run_conv(b, xh, weight(b, {128, 16, 1, 1}, DType::kBFloat16), g8).counts.kernels == 24);
  int xf = b.input({8, 256, 7, 7});  // f32, 32 channels per group: 1 a group
  CHECK(run_conv(b, xf, weight(b, {256, 32, 1, 1}), g8).counts.kernels == 8);
  ConvSpec g32;
  g32.groups = 32;
  int xw = b.input({8, 128, 28, 28});  // f32, 32 groups: one grouped direct kernel
  CHECK(run_conv(b, xw, weight(b, {128, 4, 1, 1}), g32).counts.kernels == 1);
}

TEST_CASE("conv: one-call grouped convolutions zero two workspaces when channels per group are not a multiple of 32") {
  GraphBuilder b;
  int x = b.input({2, 336, 14, 14});
  ConvSpec g14;
  g14.groups = 14;  // 24 channels per group
  auto l = run_conv(b, x, weight(b, {336, 24, 3, 3}), g14);
  CHECK(l.counts.kernels == 4);
  CHECK(l.counts.memset == 2);
  int x2 = b.input({2, 512, 14, 14});
  ConvSpec g16;
  g16.groups = 16;  // 32 channels per group
  CHECK(run_conv(b, x2, weight(b, {512, 32, 3, 3}), g16).counts.memset == 0);
}

TEST_CASE("conv: f32 1x1 convolutions of 1x1 maps with a long reduction add cuBLASLt's split-K reduce") {
  GraphBuilder b;
  int x = b.input({2, 1024, 1, 1});
  ConvSpec s;
  s.bias = true;
  CHECK(run_conv(b, x, weight(b, {64, 1024, 1, 1}), s).counts.kernels == 3);  // GEMM + reduce + bias
  int short_k = b.input({2, 256, 1, 1});
  CHECK(run_conv(b, short_k, weight(b, {64, 256, 1, 1}), s).counts.kernels == 2);
}

TEST_CASE("conv: bf16 1x1 convolutions of small maps take the transform path only with many rows") {
  GraphBuilder b;
  int batch32 = b.input({32, 440, 7, 7}, DType::kBFloat16);  // N*H*W = 1568
  CHECK(run_conv(b, batch32, weight(b, {440, 440, 1, 1}, DType::kBFloat16)).counts.kernels == 3);
  int batch2 = b.input({2, 440, 7, 7}, DType::kBFloat16);  // N*H*W = 98: one GEMM
  CHECK(run_conv(b, batch2, weight(b, {440, 440, 1, 1}, DType::kBFloat16)).counts.kernels == 1);
}

TEST_CASE("conv: channels-last grouped convolutions loop over groups or run one grouped call") {
  // bf16 depthwise with a channel multiplier of 2 on a channels-last input that is a slice of
  // a larger batch stride (pit's tokens after the class token): one launch per group, + a copy
  // of the input into dense channels last, + the bias (measured: 66).
  GraphBuilder b;
  int x = b.strided({2, 64, 27, 27}, {46720, 1, 1728, 64}, DType::kBFloat16);
  ConvSpec dw2;
  dw2.groups = 64;
  dw2.bias = true;
  dw2.stride = {2, 2};
  CHECK(run_conv(b, x, weight(b, {128, 1, 3, 3}, DType::kBFloat16), dw2).counts.kernels == 64 + 1 + 1);
  // bf16, 4 channels per group: one grouped implicit GEMM.
  int y = b.strided({2, 64, 28, 28}, {50176, 1, 1792, 64}, DType::kBFloat16);
  ConvSpec g16;
  g16.groups = 16;
  int w = b.strided({64, 4, 3, 3}, {36, 1, 12, 4}, DType::kBFloat16);
  CHECK(run_conv(b, y, w, g16).counts.kernels == 1);
  // bf16, 32 channels per group: three launches per group.
  ConvSpec g2;
  g2.groups = 2;
  int w2 = b.strided({64, 32, 3, 3}, {288, 1, 96, 32}, DType::kBFloat16);
  CHECK(run_conv(b, y, w2, g2).counts.kernels == 6);
}

TEST_CASE("conv: a 1-d f32 convolution with 16-31 channels per group loops over its groups") {
  // The wav2vec2 family's positional convolution: a transposed [B, L, C] input (copied first),
  // 16 groups of 16 channels, kernel 128: 3 launches per group + the copy + the bias = 50.
  GraphBuilder b;
  int x = b.strided({2, 256, 49}, {12544, 1, 256});
  ConvSpec pos;
  pos.op = "aten::conv1d";
  pos.stride = {1};
  pos.groups = 16;
  pos.bias = true;
  CHECK(run_conv(b, x, weight(b, {256, 16, 128}), pos).counts.kernels == 50);
}

// Shapes measured by the conv3d_dense sweep (data/sweeps), each a different engine
// choice that the fitted 3-d trees (conv_engine_trees.inc) reproduce.
TEST_CASE("conv: 3-d convolutions follow cuDNN's measured engine choice per dtype and layout") {
  GraphBuilder b;
  ConvSpec s3;
  s3.op = "aten::conv3d";
  s3.stride = {1, 1, 1};
  ConvSpec s3_bias = s3;
  s3_bias.bias = true;
  int small = b.input({1, 96, 4, 7, 7});  // f32: transforms around the core + the bias add
  auto a = run_conv(b, small, weight(b, {16, 96, 3, 3, 3}), s3_bias);
  CHECK(a.counts.kernels == 5);
  CHECK(a.counts.memset == 0);
  int deep = b.input({2, 64, 2, 7, 7});  // f32: a zeroed workspace, one kernel fewer
  auto d = run_conv(b, deep, weight(b, {128, 64, 3, 3, 3}), s3_bias);
  CHECK(d.counts.kernels == 4);
  CHECK(d.counts.memset == 1);
  int wide = b.input({4, 832, 2, 14, 14}, DType::kBFloat16);  // bf16: 5 kernels, 1 zeroed buffer
  auto w = run_conv(b, wide, weight(b, {45, 832, 3, 3, 3}, DType::kBFloat16), s3);
  CHECK(w.counts.kernels == 5);
  CHECK(w.counts.memset == 1);
  int proj = b.input({4, 45, 16, 112, 112}, DType::kBFloat16);  // bf16 1x1x1: one GEMM + the bias
  CHECK(run_conv(b, proj, weight(b, {192, 45, 1, 1, 1}, DType::kBFloat16), s3_bias).counts.kernels == 2);
}

// Shapes measured by the gconv_model sweep: one call, or a loop of 3-4 launches (and zeroed
// buffers) a group, which the fitted grouped trees reproduce.
TEST_CASE("conv: grouped f32 NCHW convolutions run one call or loop over the groups as cuDNN chose") {
  GraphBuilder b;
  ConvSpec g2;
  g2.groups = 2;
  int x = b.input({32, 16, 7, 7});  // 8 channels a group: 3 launches a group
  CHECK(run_conv(b, x, weight(b, {32, 8, 3, 3}), g2).counts.kernels == 6);
  int big = b.input({1, 512, 112, 112});  // 256 channels a group: 4 launches and 1 memset a group
  ConvSpec g2b = g2;
  g2b.bias = true;
  auto l = run_conv(b, big, weight(b, {1024, 256, 3, 3}), g2b);
  CHECK(l.counts.kernels == 9);
  CHECK(l.counts.memset == 2);
  int small = b.input({8, 144, 14, 14});  // 72 channels a group on 14x14: one call, 2 zeroed buffers
  auto c = run_conv(b, small, weight(b, {288, 72, 3, 3}), g2);
  CHECK(c.counts.kernels == 5);
  CHECK(c.counts.memset == 2);
  ConvSpec g2s = g2;
  g2s.stride = {2, 2};
  g2s.bias = true;
  int strided = b.input({32, 96, 14, 14});  // 48 channels a group, stride 2: 4 a group + the bias
  CHECK(run_conv(b, strided, weight(b, {384, 48, 3, 3}), g2s).counts.kernels == 9);
}

TEST_CASE("conv: an unbatched input counts as a batch of one (batchify)") {
  for (const char* op : {"aten::conv1d", "aten::conv2d"}) {
    const bool one_d = std::string(op) == "aten::conv1d";
    const std::vector<int64_t> w_sizes = one_d ? std::vector<int64_t>{16, 8, 3} : std::vector<int64_t>{16, 8, 3, 3};
    const std::vector<int64_t> x_sizes = one_d ? std::vector<int64_t>{8, 32} : std::vector<int64_t>{8, 32, 32};
    std::vector<int64_t> batched = x_sizes;
    batched.insert(batched.begin(), 1);
    ConvSpec s;
    s.op = op;
    s.stride = one_d ? std::vector<int64_t>{1} : std::vector<int64_t>{1, 1};
    GraphBuilder b;
    const kc::Launch unbatched = run_conv(b, b.input(x_sizes), weight(b, w_sizes), s);
    GraphBuilder c;
    const kc::Launch one = run_conv(c, c.input(batched), weight(c, w_sizes), s);
    CHECK(unbatched.known);
    CHECK(unbatched.counts.kernels == one.counts.kernels);
    CHECK(unbatched.counts.memset == one.counts.memset);
  }
}

// cuDNN's engine choice decides a channels-last grouped call (sweeps gconv and gconv_wide).
TEST_CASE("conv: channels-last grouped convolutions run as cuDNN's chosen engine runs them") {
  using kc::torch2_11::CudnnEngineChoice;
  using kc::torch2_11::grouped_channels_last;
  using kc::torch2_11::GroupedConv;
  // ResNeXt's last stage in bf16: 32 groups of 32 channels, 3x3. The buckets loop 3 launches a
  // group; cuDNN picks its grouped implicit GEMM (engine 62), one kernel (compiled run: 1).
  GroupedConv resnext{true, 1024, 1024, 32, false};
  CHECK(grouped_channels_last(resnext, 0, nullptr).kernels == 96);
  const CudnnEngineChoice e62 = engine(62);
  CHECK(grouped_channels_last(resnext, 0, &e62).kernels == 1);
  // Engines without group support run once per group: 28 one launch, 45 (bf16) three, 46 (f32) four.
  const CudnnEngineChoice e28 = engine(28), e45 = engine(45), e46 = engine(46);
  CHECK(grouped_channels_last(resnext, 1, &e28).kernels == 32 + 1);
  CHECK(grouped_channels_last(resnext, 0, &e45).kernels == 96);
  GroupedConv f32{false, 256, 256, 8, false};
  CHECK(grouped_channels_last(f32, 0, &e46).kernels == 32);
  // One grouped call pads 24 channels a group (RegNetX's f32 widths): 3 transforms around the
  // GEMM, 2 zeroed buffers; a channel multiplier of 2 transforms the weight: 3 and 2.
  const CudnnEngineChoice e67 = engine(67);
  GroupedConv regnet{false, 408, 408, 17, false};
  auto padded = grouped_channels_last(regnet, 0, &e67);
  CHECK(padded.kernels == 4);
  CHECK(padded.memset == 2);
  GroupedConv widen{false, 256, 512, 8, false};
  CHECK(grouped_channels_last(widen, 0, &e67).kernels == 3);
  // Engine 0 is a direct kernel whatever the shape.
  const CudnnEngineChoice e0 = engine(0);
  CHECK(grouped_channels_last(regnet, 0, &e0).kernels == 1);
}

TEST_CASE("conv: a transposed convolution whose padding leaves no output launches nothing") {
  GraphBuilder b;
  int x = b.input({1, 1, 1, 1, 10});
  int w = weight(b, {1, 2, 2, 2, 2});
  b.op("aten::conv_transpose3d", {x, w}, {}, {1, 2, 0, 0, 9});
  b.name_arg(0, "input");
  b.name_arg(1, "weight");
  b.arg_ints("padding", {1, 1, 1});
  auto l = kc::run_launches(b.g, kc::default_target(), {false, {}}).back();
  CHECK(l.rule == "conv.transposed.empty");
  CHECK(l.counts.kernels == 0);
}

TEST_CASE("conv: f32 NCDHW 3-d convolutions on cuDNN's implicit_convolveNd_sgemm engine are one kernel") {
  GraphBuilder b;
  ConvSpec s3;
  s3.op = "aten::conv3d";
  s3.stride = {1, 1, 1};
  int x = b.input({1, 1, 5, 5, 5});
  auto l = run_conv(b, x, weight(b, {1, 1, 3, 3, 3}), s3);
  // The engine comes from cuDNN or its kept answers (not loaded for these tests: the trees decide).
  if (std::string(l.rule) == "conv.3d_engine") {
    CHECK(l.counts.kernels == 1);
    CHECK(l.counts.memset == 0);
  } else {
    CHECK(std::string(l.rule) == "conv");
  }
}

TEST_CASE("conv: a transposed convolution on cuDNN's NCHW dgrad engine 74 is one kernel") {
  GraphBuilder b;
  int x = b.input({1, 1, 1, 1, 10});
  int w = weight(b, {1, 2, 1, 1, 4});
  b.op("aten::conv_transpose3d", {x, w}, {}, {1, 2, 1, 1, 13});
  b.name_arg(0, "input");
  b.name_arg(1, "weight");
  auto l = kc::run_launches(b.g, kc::default_target(), {false, {}}).back();
  // The engine comes from cuDNN or its kept answers (not loaded for these tests: the buckets decide).
  if (std::string(l.rule) == "conv.transposed.dgrad_engine") {
    CHECK(l.counts.kernels == 1);
    CHECK(l.counts.memset == 0);
  } else {
    CHECK(std::string(l.rule) == "conv.transposed.few_channels");
  }
}

TEST_CASE("conv: padding='same' with an odd total pad pads the input first: a fill, a copy, then the convolution") {
  // opinfo_heldout3:nn_functional_conv3d: [1, 1, 10, 11, 12] by a 1x2x5 kernel. The height's
  // pad of 1 goes to the right of a padded copy [1, 1, 10, 12, 12], convolved with padding
  // (0, 0, 2).
  auto conv = [](std::vector<int64_t> x_sizes, bool same, std::vector<int64_t> padding) {
    GraphBuilder b;
    int x = b.input(x_sizes);
    int w = weight(b, {1, 1, 1, 2, 5});
    b.op("aten::conv3d", {x, w}, {}, {1, 1, 10, 11, 12});
    if (same) b.g.ops.back().overload = "padding";
    b.name_arg(0, "input");
    b.name_arg(1, "weight");
    b.arg_ints("stride", {1, 1, 1});
    if (same)
      b.arg_text("padding", "same");
    else
      b.arg_ints("padding", padding);
    return kc::run_launches(b.g, kc::default_target(), {false, {}}).back();
  };
  const kc::Launch padded = conv({1, 1, 10, 11, 12}, true, {});
  const kc::Launch plain = conv({1, 1, 10, 12, 12}, false, {0, 0, 2});
  REQUIRE(padded.known);
  CHECK(padded.counts.kernels == plain.counts.kernels + 2);
  CHECK(padded.counts.memset == plain.counts.memset);
}

TEST_CASE("conv: padding='same' with an even total pad convolves the input as it is") {
  GraphBuilder b;
  int x = b.input({1, 4, 8, 8});
  b.op("aten::conv2d", {x, weight(b, {4, 4, 3, 3})}, {}, {1, 4, 8, 8});
  b.g.ops.back().overload = "padding";
  b.name_arg(0, "input");
  b.name_arg(1, "weight");
  b.arg_text("padding", "same");
  const kc::Launch same = kc::run_launches(b.g, kc::default_target(), {false, {}}).back();
  GraphBuilder c;
  const kc::Launch explicit_pad = run_conv(c, c.input({1, 4, 8, 8}), weight(c, {4, 4, 3, 3}));
  CHECK(same.counts.kernels == explicit_pad.counts.kernels);
}

// cuDNN's data-gradient engine decides an ungrouped NCHW transposed convolution (sweeps
// convt_decoder, conv, opinfo_edges).
TEST_CASE("conv: cuDNN's NHWC dgrad engines run 4 kernels and zero every buffer padded to 16 bytes") {
  using kc::torch2_11::CudnnEngineChoice;
  using kc::torch2_11::dgrad_engine_launches;
  using kc::torch2_11::DgradConv;
  // opinfo_heldout3's conv_transpose3d of [1, 4, 5, 5, 5] by [4, 8, 3, 3, 3]: 4 channels of dy,
  // 8 of dx. bfloat16 pads dy's 4 to 8: the weight's and dy's buffers zeroed.
  DgradConv c{DType::kBFloat16, 4, 8, false, true, 8 * 343, 4 * 27};
  auto bf16 = dgrad_engine_launches(c, engine(40));
  REQUIRE(bf16);
  CHECK(bf16->kernels == 4);
  CHECK(bf16->memset == 2);
  // float32 needs 4 values for 16 bytes: nothing padded.
  c.dtype = DType::kFloat32;
  auto f32 = dgrad_engine_launches(c, engine(71));
  REQUIRE(f32);
  CHECK(f32->memset == 0);
  // Only dx's channels padded: the weight's buffer alone; the strided engine 76 zeroes dx too.
  c.k_channels = 16;
  c.c_channels = 3;
  CHECK(dgrad_engine_launches(c, engine(76))->memset == 2);
  // A deep reduction on engine 71 (segment-K, a helper kernel at times): not known.
  c.reduction = 1024 * 9;
  CHECK_FALSE(dgrad_engine_launches(c, engine(71)));
  // A kernel of one pixel at stride 1 is a GEMM on the GPU; the legacy engine 25 is 2 whatever the shape.
  c.pointwise = true;
  CHECK_FALSE(dgrad_engine_launches(c, engine(76)));
  CHECK(dgrad_engine_launches(c, engine(25))->kernels == 2);
  // Engine 57 folds a stride into the channels: stride 1 only.
  DgradConv strided{DType::kBFloat16, 16, 3, false, false, 1000, 144};
  CHECK_FALSE(dgrad_engine_launches(strided, engine(57)));
  strided.unit_stride = true;
  CHECK(dgrad_engine_launches(strided, engine(57))->memset == 1);
}
