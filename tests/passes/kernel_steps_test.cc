#include "passes/kernel_steps.h"

#include <catch2/catch.hpp>

#include "passes/graph_builder.h"

using kc::test::GraphBuilder;

namespace {
std::vector<int> arrays_of(const std::vector<kc::Access>& a) {
  std::vector<int> out;
  for (const kc::Access& x : a) out.push_back(x.array);
  return out;
}
}  // namespace

TEST_CASE("kernel steps: an op without measured transforms is one kernel over its arrays") {
  GraphBuilder b;
  int x = b.input({1024});
  int y = b.pointwise("aten::relu", {x});
  const kc::HbmArrays a{true, {x}, {y}};
  const kc::OpSteps s = kc::op_kernel_steps(b.g, b.g.ops[0], a, "pointwise", {"vectorized_elementwise_kernel"});
  REQUIRE(s.steps.size() == 1);
  CHECK(arrays_of(s.steps[0].reads) == std::vector<int>{x});
  CHECK(arrays_of(s.steps[0].writes) == std::vector<int>{y});
  CHECK(s.scratch_bytes.empty());
}

TEST_CASE("kernel steps: cuDNN's transforms copy input, weight and output through scratch arrays") {
  GraphBuilder b;
  int x = b.input({8, 64, 56, 56});
  int w = b.input({64, 64, 3, 3}, kc::DType::kFloat32, kc::ValueRole::kParameter);
  int y = b.op("aten::conv2d", {x, w}, {}, {8, 64, 56, 56});
  const kc::HbmArrays a{true, {x, w}, {y}};
  const kc::OpSteps s = kc::op_kernel_steps(
      b.g, b.g.ops[0], a, "conv",
      {"nchwToNhwcKernel", "nchwToNhwcKernel", "xmma_fprop_implicit_gemm", "nhwcToNchwKernel", "Memset"});
  REQUIRE(s.steps.size() == 4);
  REQUIRE(s.scratch_bytes.size() == 3);
  CHECK(s.scratch_bytes[0] == b.g.values[x].bytes());
  CHECK(s.scratch_bytes[1] == b.g.values[w].bytes());
  CHECK(s.scratch_bytes[2] == b.g.values[y].bytes());
  CHECK(arrays_of(s.steps[0].reads) == std::vector<int>{x});
  CHECK(arrays_of(s.steps[0].writes) == std::vector<int>{-1});
  CHECK(arrays_of(s.steps[2].reads) == std::vector<int>{-1, -2});
  CHECK(arrays_of(s.steps[2].writes) == std::vector<int>{-3});
  CHECK(arrays_of(s.steps[3].reads) == std::vector<int>{-3});
  CHECK(arrays_of(s.steps[3].writes) == std::vector<int>{y});
}

TEST_CASE("kernel steps: a convolution that writes its output directly adds its bias after") {
  GraphBuilder b;
  int x = b.input({8, 64, 56, 56});
  int w = b.input({64, 64, 3, 3}, kc::DType::kFloat32, kc::ValueRole::kParameter);
  int bias = b.input({64}, kc::DType::kFloat32, kc::ValueRole::kParameter);
  int y = b.op("aten::conv2d", {x, w, bias}, {}, {8, 64, 56, 56});
  const kc::HbmArrays a{true, {x, w, bias}, {y}};
  const kc::OpSteps s =
      kc::op_kernel_steps(b.g, b.g.ops[0], a, "conv",
                          {"nchwToNhwcKernel", "nchwToNhwcKernel", "xmma_fprop_implicit_gemm", "elementwise_kernel"});
  REQUIRE(s.steps.size() == 4);
  CHECK(s.scratch_bytes.size() == 2);
  CHECK(arrays_of(s.steps[2].writes) == std::vector<int>{y});
  CHECK(arrays_of(s.steps[3].reads) == std::vector<int>{y, bias});
  CHECK(arrays_of(s.steps[3].writes) == std::vector<int>{y});
}

TEST_CASE("kernel steps: the copies follow the argument order, not the arrays' value order") {
  // An exported program lifts its parameters ahead of the activations, so hbm_arrays (which
  // lists each array once, by value id) puts the weight and bias before the input.
  GraphBuilder b;
  int w = b.input({64, 64, 3, 3}, kc::DType::kFloat32, kc::ValueRole::kParameter);
  int bias = b.input({64}, kc::DType::kFloat32, kc::ValueRole::kParameter);
  int x = b.input({8, 64, 56, 56});
  int y = b.op("aten::conv2d", {x, w, bias}, {}, {8, 64, 56, 56});
  const kc::HbmArrays a{true, {w, bias, x}, {y}};
  const kc::OpSteps s = kc::op_kernel_steps(
      b.g, b.g.ops[0], a, "conv",
      {"nchwToNhwcKernel", "nchwToNhwcKernel", "xmma_fprop_implicit_gemm", "nhwcToNchwKernel", "elementwise_kernel"});
  REQUIRE(s.steps.size() == 5);
  CHECK(arrays_of(s.steps[0].reads) == std::vector<int>{x});
  CHECK(s.scratch_bytes[0] == b.g.values[x].bytes());
  CHECK(arrays_of(s.steps[1].reads) == std::vector<int>{w});
  CHECK(arrays_of(s.steps[4].reads) == std::vector<int>{y, bias});
}

TEST_CASE("kernel steps: an embedding reads of its table at most the rows it writes") {
  GraphBuilder b;
  int w = b.input({50000, 256}, kc::DType::kFloat32, kc::ValueRole::kParameter);
  int ids = b.input({2, 128}, kc::DType::kInt64);
  int y = b.op("aten::embedding", {w, ids}, {}, {2, 128, 256});
  const kc::HbmArrays a{true, {w, ids}, {y}};
  const kc::OpSteps s = kc::op_kernel_steps(b.g, b.g.ops[0], a, "embedding", {});
  REQUIRE(s.steps.size() == 1);
  CHECK(s.steps[0].reads[0].bytes == b.g.values[y].bytes());
  CHECK(s.steps[0].reads[0].rows);
  CHECK(s.steps[0].reads[1].bytes == b.g.values[ids].bytes());
}

TEST_CASE("kernel steps: a grouped convolution, which cuDNN may loop over, stays one kernel") {
  GraphBuilder b;
  int x = b.input({2, 32, 112, 112});
  int w = b.input({32, 16, 3, 3}, kc::DType::kFloat32, kc::ValueRole::kParameter);
  int y = b.op("aten::conv2d", {x, w}, {}, {2, 32, 56, 56});
  kc::Arg groups;
  groups.name = "groups";
  groups.kind = kc::Arg::Kind::kInt;
  groups.ints = {2};
  b.g.ops[0].args.push_back(groups);
  const kc::HbmArrays a{true, {x, w}, {y}};
  const kc::OpSteps s = kc::op_kernel_steps(b.g, b.g.ops[0], a, "conv",
                                            {"nchwToNhwcKernel", "nchwToNhwcKernel", "xmma_fprop_implicit_gemm",
                                             "nhwcToNchwKernel", "elementwise_kernel", "Memset"});
  CHECK(s.steps.size() == 1);
  CHECK(s.scratch_bytes.empty());
}

TEST_CASE("kernel steps: a GEMM copies the operand that is not row-major dense, then adds its bias in place") {
  GraphBuilder b;
  int x = b.strided({197, 32, 768}, {768, 151296, 1}, kc::DType::kBFloat16);
  int w = b.input({2304, 768}, kc::DType::kBFloat16, kc::ValueRole::kParameter);
  int bias = b.input({2304}, kc::DType::kBFloat16, kc::ValueRole::kParameter);
  int y = b.op("aten::linear", {x, w, bias}, {}, {197, 32, 2304});
  const kc::HbmArrays a{true, {x, w, bias}, {y}};
  const kc::OpSteps s =
      kc::op_kernel_steps(b.g, b.g.ops[0], a, "gemm", {"elementwise_kernel", "nvjet", "elementwise_kernel"});
  REQUIRE(s.steps.size() == 3);
  REQUIRE(s.scratch_bytes.size() == 1);
  CHECK(s.scratch_bytes[0] == b.g.values[x].bytes());
  CHECK(arrays_of(s.steps[0].reads) == std::vector<int>{x});
  CHECK(arrays_of(s.steps[1].reads) == std::vector<int>{-1, w});
  CHECK(arrays_of(s.steps[1].writes) == std::vector<int>{y});
  CHECK(arrays_of(s.steps[2].reads) == std::vector<int>{y, bias});
  // Batch norm's leading elementwise kernels work on its small parameters: it stays one kernel.
  const kc::OpSteps bn = kc::op_kernel_steps(
      b.g, b.g.ops[0], a, "batch_norm.eval.half",
      {"unrolled_elementwise_kernel", "vectorized_elementwise_kernel", "batch_norm_transform_input_kernel"});
  CHECK(bn.steps.size() == 1);
}

namespace {
// A float32 NCHW convolution of `groups` groups.
int grouped_conv(GraphBuilder& b, std::vector<int64_t> x_sizes, std::vector<int64_t> w_sizes,
                 std::vector<int64_t> y_sizes, int64_t groups) {
  int x = b.input(x_sizes);
  int w = b.input(w_sizes, kc::DType::kFloat32, kc::ValueRole::kParameter);
  int y = b.op("aten::conv2d", {x, w}, {}, y_sizes);
  kc::Arg g;
  g.name = "groups";
  g.kind = kc::Arg::Kind::kInt;
  g.ints = {groups};
  b.g.ops.back().args.push_back(g);
  return y;
}
}  // namespace

TEST_CASE("kernel steps: cuDNN's loop over a float32 convolution's groups transposes each slice") {
  // regnet_x_400mf's first grouped convolution: 2 groups, 3 kernels each.
  GraphBuilder b;
  const int y = grouped_conv(b, {2, 32, 112, 112}, {32, 16, 3, 3}, {2, 32, 56, 56}, 2);
  const kc::Op& op = b.g.ops[0];
  const int x = op.tensor_inputs()[0], w = op.tensor_inputs()[1];
  const kc::HbmArrays a{true, {w, x}, {y}};
  const kc::OpSteps s = kc::op_kernel_steps(b.g, op, a, "conv", {}, {6});
  REQUIRE(s.steps.size() == 6);
  const int64_t in = b.g.values[x].bytes() / 2, out = b.g.values[y].bytes() / 2;
  CHECK(s.scratch_bytes == std::vector<int64_t>{in, out});
  CHECK(arrays_of(s.steps[0].reads) == std::vector<int>{x});
  CHECK(s.steps[0].reads[0].bytes == in);
  CHECK(arrays_of(s.steps[1].reads) == std::vector<int>{-1, w});
  CHECK(arrays_of(s.steps[2].writes) == std::vector<int>{y});
  CHECK(s.steps[2].writes[0].bytes == out);
  // The input slices (1.6 MB) store element by element past the L2; the output slices
  // (0.4 MB) too: both over kScatteredStoreBytes.
  CHECK(s.written_through == 2 * kc::kLinePerElement * (in + out));
}

TEST_CASE("kernel steps: a group loop over small slices writes nothing past the L2") {
  GraphBuilder b;
  const int y = grouped_conv(b, {2, 64, 28, 28}, {64, 16, 3, 3}, {2, 64, 28, 28}, 4);
  const kc::Op& op = b.g.ops[0];
  const kc::HbmArrays a{true, op.tensor_inputs(), {y}};
  const kc::OpSteps s = kc::op_kernel_steps(b.g, op, a, "conv", {}, {12});
  CHECK(s.steps.size() == 12);
  CHECK(s.written_through == 0);
  // The same convolution in 4 kernels: 4 groups may be engine 28's one launch per group, so it
  // stays one kernel unless cuDNN's engine says otherwise; engine 67's grouped implicit GEMM
  // runs between the transforms, as an ungrouped convolution does (regnet_x_400mf's later stages
  // ran nchwToNhwc twice, the GEMM, nhwcToNchw).
  CHECK(kc::op_kernel_steps(b.g, op, a, "conv", {}, {4}).steps.size() == 1);
  CHECK(kc::op_kernel_steps(b.g, op, a, "conv", {}, {4, 0, 28}).steps.size() == 1);
  const kc::OpSteps call = kc::op_kernel_steps(b.g, op, a, "conv", {}, {4, 0, 67});
  CHECK(call.steps.size() == 4);
  CHECK(call.written_through == 0);
}

TEST_CASE("kernel steps: the padded grouped implicit GEMM transforms its weight with scattered stores") {
  // regnet_x_1_6gf's third stage: 24 channels per group, no power of two.
  GraphBuilder b;
  const int y = grouped_conv(b, {2, 408, 28, 28}, {408, 24, 3, 3}, {2, 408, 14, 14}, 17);
  const kc::Op& op = b.g.ops[0];
  const int x = op.tensor_inputs()[0], w = op.tensor_inputs()[1];
  const kc::HbmArrays a{true, {x, w}, {y}};
  const kc::OpSteps s = kc::op_kernel_steps(b.g, op, a, "conv", {}, {4, 2});
  REQUIRE(s.steps.size() == 4);
  CHECK(arrays_of(s.steps[1].reads) == std::vector<int>{w});
  CHECK(arrays_of(s.steps[3].writes) == std::vector<int>{y});
  CHECK(s.written_through == kc::kLinePerElement * b.g.values[w].bytes());
  // A bfloat16 convolution's transforms are not these.
  GraphBuilder h;
  int xh = h.input({2, 408, 28, 28}, kc::DType::kBFloat16);
  int wh = h.input({408, 24, 3, 3}, kc::DType::kBFloat16, kc::ValueRole::kParameter);
  int yh = h.op("aten::conv2d", {xh, wh}, {}, {2, 408, 14, 14});
  h.g.ops[0].args.push_back(b.g.ops[0].args.back());
  CHECK(kc::op_kernel_steps(h.g, h.g.ops[0], {true, {xh, wh}, {yh}}, "conv", {}, {4, 2}).written_through == 0);
  // Without the two zeroed buffers the weight is not padded: nchwToNhwcKernel transforms it.
  CHECK(kc::op_kernel_steps(b.g, op, a, "conv", {}, {4}).written_through == 0);
}

TEST_CASE("kernel steps: the padded path is told by its zeroed buffers, not by the channels per group") {
  // resnest14d's layer 2: 2 groups of 64 channels (a power of two), 4 kernels and 2 memsets.
  GraphBuilder b;
  const int y = grouped_conv(b, {2, 128, 56, 56}, {256, 64, 3, 3}, {2, 256, 56, 56}, 2);
  const kc::Op& op = b.g.ops[0];
  const int w = op.tensor_inputs()[1];
  const kc::OpSteps s = kc::op_kernel_steps(b.g, op, {true, op.tensor_inputs(), {y}}, "conv", {}, {4, 2});
  CHECK(s.steps.size() == 4);
  CHECK(s.written_through == kc::kLinePerElement * b.g.values[w].bytes());
}

TEST_CASE("kernel steps: cuDNN's NHWC loop over the groups copies back as its engine does") {
  // resnest14d's layer 4: 2 groups, 4 kernels each; engine 38 copies each group's result back
  // with genericTranspose (0.8 MB slices), engine 46 with nhwcToNchwKernel.
  GraphBuilder b;
  const int y = grouped_conv(b, {2, 512, 14, 14}, {1024, 256, 3, 3}, {2, 1024, 14, 14}, 2);
  const kc::Op& op = b.g.ops[0];
  const int x = op.tensor_inputs()[0], w = op.tensor_inputs()[1];
  const kc::HbmArrays a{true, {w, x}, {y}};
  const kc::OpSteps s = kc::op_kernel_steps(b.g, op, a, "conv", {}, {8, 0, kc::kScatteredBackEngine});
  REQUIRE(s.steps.size() == 8);
  const int64_t in = b.g.values[x].bytes() / 2, wt = b.g.values[w].bytes() / 2, out = b.g.values[y].bytes() / 2;
  CHECK(s.scratch_bytes == std::vector<int64_t>{in, wt, out});
  CHECK(arrays_of(s.steps[0].reads) == std::vector<int>{x});
  CHECK(arrays_of(s.steps[1].reads) == std::vector<int>{w});
  CHECK(arrays_of(s.steps[2].reads) == std::vector<int>{-1, -2});
  CHECK(arrays_of(s.steps[3].writes) == std::vector<int>{y});
  CHECK(s.written_through == 2 * kc::kLinePerElement * out);
  CHECK(kc::op_kernel_steps(b.g, op, a, "conv", {}, {8, 0, 46}).written_through == 0);
}

TEST_CASE("kernel steps: a layer norm whose first kernel is a copy reads a contiguous copy of its input") {
  // whisper's residual stream, channels first after its convolutions.
  GraphBuilder b;
  int x = b.strided({2, 1500, 256}, {384000, 1, 1500});
  int w = b.input({256}, kc::DType::kFloat32, kc::ValueRole::kParameter);
  int bias = b.input({256}, kc::DType::kFloat32, kc::ValueRole::kParameter);
  int y = b.op("aten::layer_norm", {x, w, bias}, {}, {2, 1500, 256});
  const kc::HbmArrays a{true, {w, bias, x}, {y}};
  const kc::OpSteps s =
      kc::op_kernel_steps(b.g, b.g.ops[0], a, "layer_norm", {"elementwise_kernel", "vectorized_layer_norm_kernel"});
  REQUIRE(s.steps.size() == 2);
  REQUIRE(s.scratch_bytes.size() == 1);
  CHECK(s.scratch_bytes[0] == b.g.values[x].bytes());
  CHECK(arrays_of(s.steps[0].reads) == std::vector<int>{x});
  CHECK(arrays_of(s.steps[0].writes) == std::vector<int>{-1});
  CHECK(arrays_of(s.steps[1].reads) == std::vector<int>{-1, w, bias});
  CHECK(arrays_of(s.steps[1].writes) == std::vector<int>{y});
  // One kernel: the input was contiguous.
  CHECK(kc::op_kernel_steps(b.g, b.g.ops[0], a, "layer_norm", {"vectorized_layer_norm_kernel"}).steps.size() == 1);
}

TEST_CASE("kernel steps: the memory-efficient attention reads its key and value from both sides of the chip") {
  GraphBuilder b;
  int q = b.input({2, 4, 1500, 64});
  int k = b.input({2, 4, 1500, 64});
  int v = b.input({2, 4, 1500, 64});
  int y = b.op("aten::scaled_dot_product_attention", {q, k, v}, {}, {2, 4, 1500, 64});
  const kc::HbmArrays a{true, {q, k, v}, {y}};
  auto both = [](const kc::OpSteps& s) {
    std::vector<int> out;
    for (const kc::Access& r : s.steps.at(0).reads)
      if (r.both) out.push_back(r.array);
    return out;
  };
  const kc::OpSteps cutlass = kc::op_kernel_steps(b.g, b.g.ops[0], a, "sdpa.fused", {"fmha_cutlassF"});
  REQUIRE(cutlass.steps.size() == 1);
  CHECK(both(cutlass) == std::vector<int>{k, v});
  CHECK(cutlass.scratch_bytes.empty());
  // cuDNN's flash attention (bfloat16) is left as one kernel over its arrays.
  CHECK(both(kc::op_kernel_steps(b.g, b.g.ops[0], a, "sdpa.fused", {"cudnn_sdpa_flash_fprop", "Memset"})).empty());
}
