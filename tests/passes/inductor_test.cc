// Pass "inductor": one case per rule of the model of Inductor's lowering and scheduling.
#include "passes/inductor.h"

#include <catch2/catch.hpp>
#include <string>
#include <tuple>
#include <utility>

#include "passes/graph_builder.h"
#include "passes/hbm_traffic.h"
#include "passes/inductor_builder.h"
#include "passes/launches.h"
#include "passes/target.h"

using kc::DType;
using kc::OpTraits;
using kc::test::GraphBuilder;

namespace {
kc::FusionPlan plan(const kc::Graph& g) {
  auto l = kc::run_launches(g, kc::default_target(), {false, {}});
  return kc::run_inductor(g, l, kc::run_hbm_traffic(g, l), kc::default_target());
}
int kernels(const kc::FusionPlan& p) {
  int n = 0;
  for (const auto& grp : p.groups) n += grp.fused_kernels;
  return n;
}
int transfers(const kc::FusionPlan& p) {
  int n = 0;
  for (const auto& grp : p.groups) n += grp.fused.transfers();
  return n;
}
int weight(GraphBuilder& b, std::vector<int64_t> sizes) {
  return b.input(std::move(sizes), DType::kFloat32, kc::ValueRole::kParameter);
}
// What eager aten::mm of a row-major [m, k] by a row-major [k, n] launches, by the target's rule.
int mm_kernels(int64_t m, int64_t k, int64_t n, DType dt = DType::kFloat32) {
  GraphBuilder b;
  b.output(b.op("aten::mm", {b.input({m, k}, dt), b.input({k, n}, dt)}, {}, {m, n}));
  b.name_arg(0, "self");
  b.name_arg(1, "mat2");
  return kc::run_launches(b.g, kc::default_target(), {false, {}})[0].counts.kernels;
}
// A 3x3 "same" convolution of x by w, with a bias.
int conv(GraphBuilder& b, int x, int w) {
  const int bias = weight(b, {b.g.values[w].sizes[0]});
  std::vector<int64_t> out = b.g.values[x].sizes;
  out[1] = b.g.values[w].sizes[0];
  const int y = b.op("aten::conv2d", {x, w, bias}, {}, out);
  b.name_arg(0, "input");
  b.name_arg(1, "weight");
  b.name_arg(2, "bias");
  b.arg_ints("stride", {1, 1});
  b.arg_ints("padding", {(b.g.values[w].sizes[2] - 1) / 2, (b.g.values[w].sizes[3] - 1) / 2});
  b.arg_int("groups", 1);
  return y;
}
// aten::cat or aten::stack of `tensors` along `dim`, giving `out`; returns the result.
int joined(GraphBuilder& b, const char* name, const std::vector<int>& tensors, int64_t dim, std::vector<int64_t> out) {
  const int y = b.op(name, {}, {}, std::move(out));
  b.g.ops.back().args.clear();
  b.arg_tensors("tensors", tensors);
  b.arg_int("dim", dim);
  return y;
}
}  // namespace

TEST_CASE("inductor: a pointwise chain is one Triton kernel reading its inputs and writing its output once") {
  GraphBuilder b;
  int x = b.input({1000}), y = b.input({1000});
  b.output(b.pointwise("aten::relu", {b.pointwise("aten::add", {x, y})}));
  auto p = plan(b.g);
  CHECK(p.variant == "inductor");
  CHECK(kernels(p) == 1);
  CHECK(transfers(p) == 3);
}

TEST_CASE("inductor: a lone library op changes nothing") {
  GraphBuilder b;
  int x = b.input({1024, 64}), w = weight(b, {64, 64});
  b.output(b.op("aten::mm", {x, w}, {}, {1024, 64}));
  auto l = kc::run_launches(b.g, kc::default_target(), {false, {}});
  auto p = plan(b.g);
  REQUIRE(p.groups.size() == 1);
  CHECK(p.groups[0].kind == "extern");
  CHECK(kernels(p) == l[0].counts.kernels);
}

// A float32 linear of [2, 128, 256] by [256, 256], with its bias or without, read by `reader`
// (none: the graph returns it).
int biased_linear_kernels(const char* reader, bool bias) {
  GraphBuilder b;
  const int x = b.input({2, 128, 256}), w = weight(b, {256, 256});
  std::vector<int> in = {x, w};
  if (bias) in.push_back(weight(b, {256}));
  const int y = b.op("aten::linear", in, {}, {2, 128, 256});
  b.name_arg(0, "input");
  b.name_arg(1, "weight");
  if (bias) b.name_arg(2, "bias");
  b.output(reader ? b.pointwise(reader, {y}) : y);
  const kc::FusionPlan p = plan(b.g);
  return p.groups[p.group_of[0]].fused_kernels;
}

TEST_CASE("inductor: a linear keeps its bias in the library call unless a pointwise reader can take the add") {
  auto eager = [](bool bias) {
    GraphBuilder b;
    std::vector<int> in = {b.input({2, 128, 256}), weight(b, {256, 256})};
    if (bias) in.push_back(weight(b, {256}));
    b.output(b.op("aten::linear", in, {}, {2, 128, 256}));
    b.name_arg(0, "input");
    b.name_arg(1, "weight");
    if (bias) b.name_arg(2, "bias");
    return kc::run_launches(b.g, kc::default_target(), {false, {}})[0].counts.kernels;
  };
  // Returned as it is: addmm with cuBLASLt's bias epilogue, one GEMM kernel on the H200.
  CHECK(biased_linear_kernels(nullptr, true) == eager(true));
  // Read by a ReLU: the bias joins the ReLU's Triton loop, and the bare product is cuBLAS's mm,
  // which splits K at this shape (a second kernel).
  CHECK(biased_linear_kernels("aten::relu", true) == eager(false));
  CHECK(eager(true) == 1);
  CHECK(eager(false) == 2);
}

TEST_CASE("inductor: a linear's bias leaves the call only when every use of the product is pointwise, in float32") {
  // A linear of [m, k] by [n, k] with a bias, its product read by a tanh and by `second`
  // (through a slice view), both returned: the call's kernels.
  auto linear_kernels = [](const char* second, DType dt, int64_t m, int64_t k, int64_t n) {
    GraphBuilder b;
    const int x = b.input({m, k}, dt);
    const int w = b.input({n, k}, dt, kc::ValueRole::kParameter);
    const int bias = b.input({n}, dt, kc::ValueRole::kParameter);
    const int y = b.op("aten::linear", {x, w, bias}, {}, {m, n});
    b.name_arg(0, "input");
    b.name_arg(1, "weight");
    b.name_arg(2, "bias");
    b.output(b.pointwise("aten::tanh", {y}));
    const int half = b.view("aten::slice", y, {m, n / 2});
    if (std::string(second) == "cat") {
      b.output(b.op("aten::cat", {half, half}, {}, {m, n}));
      b.arg_tensors("tensors", {half, half});
    } else if (std::string(second) == "sum") {
      b.output(b.reduction("aten::sum", half, {m}));
    } else {
      b.output(b.pointwise(second, {half}));
    }
    const kc::FusionPlan p = plan(b.g);
    return p.groups[p.group_of[0]].fused_kernels;
  };
  // float32 256 x 256 x 256: one kernel with the bias epilogue, split-K's two as a bare mm (the
  // case above). Every use pointwise: mm, the bias added in the readers' loops.
  CHECK(linear_kernels("aten::relu", DType::kFloat32, 256, 256, 256) == 2);
  // A cat or a reduction among the uses (phi's partial rotary cat): addmm keeps its epilogue.
  CHECK(linear_kernels("cat", DType::kFloat32, 256, 256, 256) == 1);
  CHECK(linear_kernels("sum", DType::kFloat32, 256, 256, 256) == 1);
  // bfloat16 256 x 8192 x 768 (one kernel biased, split-K bare, by the target's GEMM rule): the
  // bias stays in the call whatever reads the product (an unfused add would round the product
  // first), as the bfloat16 programs' compiled code shows (VGG's classifier, MambaOut's linears).
  CHECK(mm_kernels(256, 8192, 768, DType::kBFloat16) == 2);
  CHECK(linear_kernels("aten::relu", DType::kBFloat16, 256, 8192, 768) == 1);
}

TEST_CASE("inductor: a cheap value read twice is inlined into both readers, which fuse horizontally") {
  GraphBuilder b;
  int x = b.input({1000}), y = b.input({1000});
  int s = b.pointwise("aten::add", {x, y});
  b.output(b.pointwise("aten::relu", {s}));
  b.output(b.pointwise("aten::sigmoid", {s}));
  auto p = plan(b.g);
  CHECK(kernels(p) == 1);
  CHECK(p.lowering[0].find("inlined") != std::string::npos);
  // The sum is never written: two reads, two writes.
  CHECK(transfers(p) == 4);
}

TEST_CASE("inductor: a value a library kernel reads is computed into memory") {
  GraphBuilder b;
  int x = b.input({1024, 64}), w = weight(b, {64, 64});
  int h = b.pointwise("aten::relu", {x});
  int m = b.op("aten::mm", {h, w}, {}, {1024, 64});
  b.output(b.pointwise("aten::gelu", {m}));
  auto p = plan(b.g);
  CHECK(p.lowering[0].find("computed into memory") != std::string::npos);
  CHECK(p.groups.size() == 3);
  CHECK(p.group_of[0] != p.group_of[2]);
}

TEST_CASE("inductor: a reduction takes its pointwise prologue and epilogue into its kernel") {
  GraphBuilder b;
  int x = b.input({64, 128});
  int e = b.pointwise("aten::exp", {x});
  int s = b.reduction("aten::sum", e, {64});
  b.arg_ints("dim", {1});
  b.output(b.pointwise("aten::log", {s}));
  auto p = plan(b.g);
  CHECK(kernels(p) == 1);
  REQUIRE(p.group_of[1] >= 0);
  CHECK(p.groups[p.group_of[1]].kind == "reduction");
}

TEST_CASE("inductor: loops of different sizes stay apart") {
  GraphBuilder b;
  int x = b.input({1000}), y = b.input({500});
  b.output(b.pointwise("aten::relu", {x}));
  b.output(b.pointwise("aten::relu", {y}));
  CHECK(kernels(plan(b.g)) == 2);
}

TEST_CASE("inductor: fusing across a library kernel would make a cycle, so the ops stay apart") {
  GraphBuilder b;
  int x = b.input({1024, 64}), w = weight(b, {64, 64});
  int h = b.pointwise("aten::relu", {x});
  int m = b.op("aten::mm", {h, w}, {}, {1024, 64});
  b.output(b.pointwise("aten::add", {h, m}));
  auto p = plan(b.g);
  CHECK(p.group_of[0] != p.group_of[2]);
  auto l = kc::run_launches(b.g, kc::default_target(), {false, {}});
  auto t = kc::run_hbm_traffic(b.g, l);
  CHECK(kc::inductor_fusion_verdict(b.g, l, t, kc::default_target(), 0, 2).rule == "cycle");
  CHECK(kc::inductor_fusion_verdict(b.g, l, t, kc::default_target(), 0, 1).rule == "extern");
}

TEST_CASE("inductor: a long reduction to few outputs is split in two kernels") {
  GraphBuilder b;
  int x = b.input({1 << 20});
  b.output(b.reduction("aten::sum", x, {1}));
  CHECK(kernels(plan(b.g)) == 2);
  GraphBuilder many;
  int y = many.input({4096, 256});
  many.output(many.reduction("aten::sum", y, {4096}));
  many.arg_ints("dim", {1});
  CHECK(kernels(plan(many.g)) == 1);
}

TEST_CASE("inductor: convolutions run channels last; weights and graph inputs are copied into it, bias peeled") {
  GraphBuilder b;
  int x = b.input({8, 64, 28, 28});
  int y = conv(b, x, weight(b, {128, 64, 3, 3}));
  b.output(b.pointwise("aten::relu", {y}));
  auto p = plan(b.g);
  const int c = p.group_of[0];
  REQUIRE(c >= 0);
  CHECK(p.groups[c].kind == "extern");
  CHECK(p.lowering[0].find("weight copied") != std::string::npos);
  CHECK(p.lowering[0].find("input copied") != std::string::npos);
  // A 1x1 weight is already dense in channels last; an input written by a Triton kernel too.
  GraphBuilder one;
  int x1 = one.pointwise("aten::relu", {one.input({8, 64, 28, 28})});
  one.output(conv(one, x1, weight(one, {128, 64, 1, 1})));
  auto q = plan(one.g);
  CHECK(q.lowering[1].find("copied") == std::string::npos);
}

TEST_CASE("inductor: a 1x1 convolution of a 1x1 image runs NCHW, as Inductor leaves its strides contiguous") {
  // ResNeSt's split attention: a grouped 1x1 convolution of pooled [N, C, 1, 1] features. Layout
  // .is_stride_ordered ignores dims of size 1, so require_channels_last keeps the input's and
  // the weight's contiguous strides, and ATen finds neither channels last: cuDNN runs it as
  // eager does, less the bias (eager's bias add, a kernel here), not as channels last would.
  auto grouped = [](bool bias, bool image_1x1) {
    GraphBuilder b;
    const int64_t hw = image_1x1 ? 1 : 7;
    const int x = b.pointwise("aten::relu", {b.input({5, 320, hw, hw})});
    std::vector<int> in = {x, weight(b, {1280, 160, 1, 1})};
    if (bias) in.push_back(weight(b, {1280}));
    const int y = b.op("aten::conv2d", in, {}, {5, 1280, hw, hw});
    b.name_arg(0, "input");
    b.name_arg(1, "weight");
    if (bias) b.name_arg(2, "bias");
    b.arg_ints("stride", {1, 1});
    b.arg_ints("padding", {0, 0});
    b.arg_int("groups", 2);
    b.output(b.pointwise("aten::sigmoid", {y}));
    // The network's other convolutions, ungrouped, weigh enough to turn layout optimization on.
    b.output(conv(b, b.input({5, 64, 28, 28}), weight(b, {64, 64, 3, 3})));
    return b.g;
  };
  const kc::Graph nchw = grouped(false, true);
  const auto eager = kc::run_launches(nchw, kc::default_target(), {false, {}});
  const auto p = plan(grouped(true, true));
  const int c = p.group_of[1];
  REQUIRE(c >= 0);
  CHECK(p.groups[c].kind == "extern");
  CHECK(p.groups[c].fused_kernels == eager[1].counts.kernels);
  CHECK(p.lowering[1].find("runs it as NCHW") != std::string::npos);
  // A 7x7 image has strides that break the order: it runs channels last.
  CHECK(plan(grouped(true, false)).lowering[1].find("channels-last") != std::string::npos);
}

TEST_CASE("inductor: layout optimization makes 4-d convolutions channels last, never 3-d ones") {
  // GraphLowering.run_node asks NHWC stride order only of 4-d results: a conv3d keeps its eager
  // layout and its eager launches, with no copies into channels last.
  GraphBuilder b;
  const int x = b.input({2, 16, 8, 28, 28});
  const int w = weight(b, {32, 16, 3, 3, 3});
  const int y = b.op("aten::conv3d", {x, w}, {}, {2, 32, 8, 28, 28});
  b.name_arg(0, "input");
  b.name_arg(1, "weight");
  b.arg_ints("stride", {1, 1, 1});
  b.arg_ints("padding", {1, 1, 1});
  b.arg_int("groups", 1);
  b.output(b.pointwise("aten::relu", {y}));
  auto p = plan(b.g);
  REQUIRE(p.group_of[0] >= 0);
  CHECK(p.groups[p.group_of[0]].kind == "extern");
  CHECK(p.lowering[0].find("channels-last") == std::string::npos);
  CHECK(p.lowering[0].find("copied") == std::string::npos);
  // The same convolution in 2-d is laid out channels last, its weight and input copied into it.
  GraphBuilder two;
  two.output(conv(two, two.input({2, 16, 28, 28}), weight(two, {32, 16, 3, 3})));
  CHECK(plan(two.g).lowering[0].find("channels-last") != std::string::npos);
}

TEST_CASE("inductor: a cat of more than 8 inputs copies each input that no Triton kernel writes") {
  GraphBuilder b;
  std::vector<int> ins;
  for (int k = 0; k < 9; ++k) ins.push_back(b.input({16, 32}));
  b.op("aten::cat", {}, {}, {144, 32});
  b.g.ops.back().args.clear();
  b.arg_tensors("tensors", ins);
  b.arg_int("dim", 0);
  b.output(static_cast<int>(b.g.values.size()) - 1);
  auto p = plan(b.g);
  CHECK(kernels(p) == 9);
  // A stack is a cat of its inputs unsqueezed: of 9 inputs, 9 copies too (Mamba's scan stacks
  // one bmm output per step), where the gather it was taken for would be one loop.
  GraphBuilder st;
  std::vector<int> rows;
  for (int k = 0; k < 9; ++k) rows.push_back(st.input({16, 32}));
  st.op("aten::stack", {}, {}, {9, 16, 32});
  st.g.ops.back().args.clear();
  st.arg_tensors("tensors", rows);
  st.arg_int("dim", 0);
  st.output(static_cast<int>(st.g.values.size()) - 1);
  CHECK(kernels(plan(st.g)) == 9);
}

TEST_CASE("inductor: a pooling window's input is computed into memory where it loads two tensors or more") {
  // The pooling lowering calls realize_hint() on its input, which acts only on a loop loading
  // more than one element at a computed index: relu(x + b) is computed into memory, then pooled;
  // relu(x) is recomputed at each window element (lowering_probe.py shows both).
  auto pooled = [](bool biased) {
    GraphBuilder b;
    int x = b.input({8, 64, 32, 32});
    if (biased) x = b.pointwise("aten::add", {x, b.input({8, 64, 32, 32})});
    int r = b.pointwise("aten::relu", {x});
    b.output(b.op("aten::max_pool2d", {r}, {}, {8, 64, 16, 16}));
    b.arg_ints("kernel_size", {2, 2});
    return plan(b.g);
  };
  const auto biased = pooled(true);
  CHECK(biased.lowering[1].find("pooling window") != std::string::npos);
  CHECK(kernels(biased) == 2);
  const auto bare = pooled(false);
  CHECK(bare.lowering[0].find("inlined into its readers") != std::string::npos);
  CHECK(kernels(bare) == 1);
}

TEST_CASE("inductor: a pool at stride 1 reads its input's neighbours, so it never fuses with the loop writing it") {
  // GoogLeNet's branch 4: a 3x3 max pool at stride 1, padded, of the stem's pooled output. The
  // shapes match, but each output reads 9 input elements: no fused loop writes them first.
  GraphBuilder b;
  const int x = b.pointwise("aten::add", {b.input({8, 192, 40, 40}), b.input({8, 192, 40, 40})});
  const int p1 = b.op("aten::max_pool2d", {b.pointwise("aten::relu", {x})}, {}, {8, 192, 20, 20});
  b.arg_ints("kernel_size", {3, 3});
  b.arg_ints("stride", {2, 2});
  b.output(b.op("aten::max_pool2d", {p1}, {}, {8, 192, 20, 20}));
  b.arg_ints("kernel_size", {3, 3});
  b.arg_ints("stride", {1, 1});
  b.arg_ints("padding", {1, 1});
  const auto p = plan(b.g);
  CHECK(p.group_of[2] != p.group_of[3]);
  CHECK(kernels(p) == 3);
}

TEST_CASE("inductor: im2col is decomposed into a gather, a Triton loop its readers take in") {
  // ConvBERT's and VOLO's unfold: torch/_decomp's im2col indexes the padded input, so Inductor
  // writes it as loads of a pointwise loop, not ATen's im2col kernels.
  GraphBuilder b;
  const int x = b.pointwise("aten::relu", {b.input({2, 128, 128, 1})});
  const int u = b.op("aten::im2col", {x}, {}, {2, 1152, 128});
  b.arg_ints("kernel_size", {9, 1});
  b.arg_ints("dilation", {1, 1});
  b.arg_ints("padding", {4, 0});
  b.arg_ints("stride", {1, 1});
  b.output(b.pointwise("aten::mul", {u, b.input({2, 1152, 128})}));
  const auto p = plan(b.g);
  CHECK(p.lowering[1].find("gather") != std::string::npos);
  CHECK(kernels(p) == 1);
}

TEST_CASE("inductor: a linear folds a transposed operand's rows only where its batch steps over them") {
  // ResMLP's token mixing: linear(x.transpose(1, 2)) reshapes [4, 384, 196] to [1536, 196]; the
  // batch steps 75,264 elements, not the 384 rows' span, so the reshape copies it (a Triton
  // loop). Of one sample there is nothing to fold: cuBLAS reads the transpose as it is.
  // The operand is also returned: computed into memory either way, the copy a kernel more.
  auto count = [](int64_t batch) {
    GraphBuilder b;
    const int x = b.pointwise("aten::relu", {b.input({batch, 196, 384})});
    b.output(x);
    const int t = b.view("aten::transpose", x, {batch, 384, 196});
    b.g.values[t].strides = {196 * 384, 1, 384};
    b.output(b.op("aten::linear", {t, weight(b, {196, 196})}, {}, {batch, 384, 196}));
    b.name_arg(0, "input");
    b.name_arg(1, "weight");
    return kernels(plan(b.g));
  };
  CHECK(count(4) == 3);
  CHECK(count(1) == 2);
}

TEST_CASE("inductor: a view eager folds but Inductor's layout does not: the base computed, then copied") {
  // ResMLP's first block: the Affine norm of a transposed patch embedding keeps that layout
  // eagerly, so the token-mixing linear's transposed input is contiguous there and the traced
  // graph views it (linear's fused addmm path). Inductor lays the norm's loop out row major: the
  // view no longer folds, and realize_input computes the loop into memory before copy_input
  // copies it, two loops, then the GEMM. A graph whose eager strides do not fold either (the
  // test above) traced a clone instead, which computes its producer inline.
  auto count = [](bool eager_folds) {
    GraphBuilder b;
    const int in = b.input({4, 196, 384});
    const int x = b.pointwise("aten::relu", {in});
    if (eager_folds) b.g.values[in].strides = b.g.values[x].strides = {196 * 384, 1, 196};
    const int t = b.view("aten::transpose", x, {4, 384, 196});
    b.g.values[t].strides =
        eager_folds ? std::vector<int64_t>{196 * 384, 196, 1} : std::vector<int64_t>{196 * 384, 1, 384};
    b.output(b.op("aten::linear", {t, weight(b, {196, 196})}, {}, {4, 384, 196}));
    b.name_arg(0, "input");
    b.name_arg(1, "weight");
    return kernels(plan(b.g));
  };
  CHECK(count(true) == 3);   // the relu's loop, the copy, the GEMM
  CHECK(count(false) == 2);  // the copy computing the relu, the GEMM
}

TEST_CASE("inductor: addmm read by a pointwise op is mm, its addend added in the reader (as linear's bias)") {
  // GPT-2's Conv1D is addmm(bias, x, w); its reader, the residual add, takes the bias
  // (unfuse_bias_add_to_pointwise), so cuBLAS runs mm: a float32 [256, 256] x [256, 256] mm is a
  // split-K GEMM and its reduction, where addmm with the bias in cuBLASLt's epilogue is one GEMM.
  const int mm = mm_kernels(256, 256, 256);
  GraphBuilder b;
  const int y = b.op("aten::addmm", {weight(b, {256}), b.input({256, 256}), weight(b, {256, 256})}, {}, {256, 256});
  b.name_arg(0, "self");
  b.name_arg(1, "mat1");
  b.name_arg(2, "mat2");
  b.output(b.pointwise("aten::relu", {y}));
  const int eager_addmm = kc::run_launches(b.g, kc::default_target(), {false, {}})[0].counts.kernels;
  REQUIRE(mm != eager_addmm);           // the case this checks: without its addend the GEMM launches differently
  CHECK(kernels(plan(b.g)) == mm + 1);  // the mm, then the relu with the bias added
}

TEST_CASE("inductor: a linear read through a view by contiguous() gives its bias to the clone") {
  // DeBERTa's query projection: linear -> view -> permute -> contiguous. contiguous lowers to
  // clone, which carries the pointwise tag, so is_pointwise_use holds and the bias is added in the
  // clone's loop: cuBLAS runs the product alone (float32 [256, 256] by a [256, 256] weight: split-K
  // and its reduction, where the bias in cuBLASLt's epilogue is one GEMM).
  auto count = [](const char* reader) {
    GraphBuilder b;
    const int y =
        b.op("aten::linear", {b.input({2, 128, 256}), weight(b, {256, 256}), weight(b, {256})}, {}, {2, 128, 256});
    b.name_arg(0, "input");
    b.name_arg(1, "weight");
    b.name_arg(2, "bias");
    const int v = b.view("aten::view", y, {2, 128, 4, 64});
    const int p = b.view("aten::permute", v, {2, 4, 128, 64});
    b.g.values[p].strides = {128 * 256, 64, 256, 1};
    const int c = b.op(reader, {p}, {}, {2, 4, 128, 64});
    b.output(c);
    return kernels(plan(b.g));
  };
  CHECK(count("aten::contiguous") == mm_kernels(256, 256, 256) + 1);  // the product, then the clone adding the bias
}

TEST_CASE("inductor: a loop read by nothing is dead code and costs nothing") {
  GraphBuilder b;
  int x = b.input({1000});
  b.pointwise("aten::exp", {x});
  b.output(b.pointwise("aten::relu", {x}));
  auto p = plan(b.g);
  CHECK(p.lowering[0].find("dead code") != std::string::npos);
  CHECK(kernels(p) == 1);
}

TEST_CASE("inductor: a reader of a transposed buffer does not fuse under its producer") {
  GraphBuilder b;
  int x = b.input({64, 32});
  int e = b.pointwise("aten::exp", {x});
  b.op("aten::mm", {e, weight(b, {32, 64})}, {}, {64, 64});  // e is computed into memory
  int t = b.op("aten::t", {e},
               [] {
                 kc::OpTraits v;
                 v.view = true;
                 return v;
               }(),
               {32, 64});
  b.g.values[t].strides = {1, 32};
  b.output(b.pointwise("aten::relu", {t}));
  auto p = plan(b.g);
  CHECK(p.group_of[0] != p.group_of[3]);
}

TEST_CASE("inductor: an in-place write into a buffer a loop computes joins that loop's kernel") {
  GraphBuilder b;
  int x = b.input({16, 16});
  int z = b.pointwise("aten::relu", {x});
  OpTraits inplace;
  inplace.pointwise = true;
  inplace.inplace = true;
  inplace.mutated_args = {0};
  b.op("aten::fill_", {z}, inplace);
  b.output(b.pointwise("aten::neg", {z}));
  auto p = plan(b.g);
  CHECK(p.group_of[1] == p.group_of[0]);
  CHECK(p.lowering[1].find("in-place write") != std::string::npos);
}

TEST_CASE("inductor: a GEMM operand its call cannot read as it is gets a Triton copy first") {
  GraphBuilder b;
  int x = b.strided({4, 8, 16, 32}, {4096, 32, 256, 1});  // heads of a [4, 16, 8, 32] tensor
  int w = b.input({4, 8, 32, 16});
  b.output(b.op("aten::matmul", {x, w}, {}, {4, 8, 16, 16}));
  auto p = plan(b.g);
  REQUIRE(p.group_of[0] >= 0);
  CHECK(p.groups[p.group_of[0]].kind == "extern");
  CHECK(kernels(p) >= 2);  // the copy and the batched GEMM
}

TEST_CASE("inductor: a matrix read with a row stride goes to cuBLAS as it is, no copy") {
  // BERT's pooler: token 0 of each sequence, rows a sequence apart, one unit-strided dim.
  GraphBuilder b;
  int x = b.strided({8, 64}, {64 * 512, 1});
  b.output(b.op("aten::mm", {x, weight(b, {64, 64})}, {}, {8, 64}));
  GraphBuilder dense;
  dense.output(dense.op("aten::mm", {dense.input({8, 64}), weight(dense, {64, 64})}, {}, {8, 64}));
  CHECK(kernels(plan(b.g)) == kernels(plan(dense.g)));
}

namespace {
// Heads [B, H, S, D] of a [B, S, H*D] linear projection of x (bf16): view, then transpose.
int heads_of_projection(GraphBuilder& b, int x) {
  const int y =
      b.op("aten::linear", {x, b.input({64, 64}, DType::kBFloat16, kc::ValueRole::kParameter)}, {}, {2, 16, 64});
  b.name_arg(0, "input");
  b.name_arg(1, "weight");
  const int v = b.view("aten::view", y, {2, 16, 4, 16});
  const int t = b.view("aten::transpose", v, {2, 4, 16, 16});
  b.g.values[t].strides = {1024, 16, 64, 1};
  return t;
}
}  // namespace

TEST_CASE("inductor: half-precision attention reads heads of a library kernel's output in place") {
  // sdpa_constraint: an aligned view of a buffer already in memory is passed as it is.
  GraphBuilder b;
  int x = b.input({2, 16, 64}, DType::kBFloat16);
  int q = heads_of_projection(b, x), k = heads_of_projection(b, x), v = heads_of_projection(b, x);
  b.output(b.op("aten::scaled_dot_product_attention", {q, k, v}, {}, {2, 4, 16, 16}));
  b.name_arg(0, "query");
  b.name_arg(1, "key");
  b.name_arg(2, "value");
  auto p = plan(b.g);
  const int attention = static_cast<int>(b.g.ops.size()) - 1;
  REQUIRE(p.group_of[attention] >= 0);
  CHECK(p.groups[p.group_of[attention]].fused_kernels == 1);  // the fused kernel, no operand copies
  // The same heads computed by a Triton loop through a permuted view are copied for the call.
  GraphBuilder c;
  int y = c.input({2, 16, 64}, DType::kBFloat16);
  int e = c.pointwise("aten::exp", {y});
  const int ev = c.view("aten::view", e, {2, 16, 4, 16});
  const int et = c.view("aten::transpose", ev, {2, 4, 16, 16});
  c.g.values[et].strides = {1024, 16, 64, 1};
  c.output(c.op("aten::scaled_dot_product_attention", {et, et, et}, {}, {2, 4, 16, 16}));
  c.name_arg(0, "query");
  c.name_arg(1, "key");
  c.name_arg(2, "value");
  auto pc = plan(c.g);
  CHECK(kernels(pc) > 1);
}

TEST_CASE("inductor: fused attention copies heads selected from a loop not in memory, one loop each") {
  // torchvision's MultiheadAttention: the packed projection made contiguous (a Triton loop),
  // q, k and v selected from it. sdpa_constraint's require_stride_order copies each view through
  // copy_input, in float32 (memory-efficient kernel) as in bfloat16: three loops, no buffer for
  // the packed loop (vit_b_32 float32: 3 Triton kernels before each attention call).
  for (DType dt : {DType::kFloat32, DType::kBFloat16}) {
    GraphBuilder b;
    const int x = b.input({2, 16, 192}, dt);
    const int packed = b.pointwise("aten::exp", {x});
    const int heads = b.view("aten::view", packed, {2, 16, 3, 4, 16});
    const int moved = b.view("aten::permute", heads, {3, 2, 4, 16, 16});
    b.g.values[moved].strides = {64, 3072, 16, 192, 1};
    std::vector<int> qkv;
    for (int i = 0; i < 3; ++i) {
      const int s = b.view("aten::select", moved, {2, 4, 16, 16});
      b.g.values[s].strides = {3072, 16, 192, 1};
      b.g.values[s].storage_offset = 64 * i;
      qkv.push_back(s);
    }
    b.output(b.op("aten::scaled_dot_product_attention", qkv, {}, {2, 4, 16, 16}, dt));
    b.name_arg(0, "query");
    b.name_arg(1, "key");
    b.name_arg(2, "value");
    CHECK(kernels(plan(b.g)) == 4);  // three copies and the attention kernel
    // The loop's own result, however strided, is computed in the order the kernel needs: no copy.
    GraphBuilder c;
    const int y = c.input({2, 4, 16, 16}, dt);
    const int e = c.pointwise("aten::exp", {y});
    c.g.values[e].strides = {1024, 16, 64, 1};
    c.output(c.op("aten::scaled_dot_product_attention", {e, e, e}, {}, {2, 4, 16, 16}, dt));
    c.name_arg(0, "query");
    c.name_arg(1, "key");
    c.name_arg(2, "value");
    CHECK(kernels(plan(c.g)) == 2);
  }
}

TEST_CASE("inductor: explicit attention in half precision becomes one attention call, not in float32") {
  // fx_passes/fuse_attention.py (pattern 14, BERT's): matmul(q, k^T) / scale + mask, softmax,
  // matmul by v, heads permuted out of projections, is replaced by scaled_dot_product_attention;
  // its _sfdp_params_check refuses float32, whose fused kernels would run in TF32.
  for (const DType dt : {DType::kBFloat16, DType::kFloat32}) {
    GraphBuilder b;
    const int x = b.input({2, 16, 64}, dt);
    auto heads = [&] {
      const int y = b.op("aten::linear", {x, b.input({64, 64}, dt, kc::ValueRole::kParameter)}, {}, {2, 16, 64});
      b.name_arg(0, "input");
      b.name_arg(1, "weight");
      const int t = b.view("aten::transpose", b.view("aten::view", y, {2, 16, 4, 16}), {2, 4, 16, 16});
      b.g.values[t].strides = {1024, 16, 64, 1};
      return t;
    };
    const int q = heads(), k = heads(), v = heads();
    const int kt = b.view("aten::transpose", k, {2, 4, 16, 16});
    b.arg_int("dim0", -1);
    b.arg_int("dim1", -2);
    b.g.values[kt].strides = {1024, 16, 1, 64};
    const int scores = b.op("aten::matmul", {q, kt}, {}, {2, 4, 16, 16});
    const int first = static_cast<int>(b.g.ops.size()) - 1;
    const int scaled = b.pointwise("aten::div", {scores});
    b.arg_float("other", 4.0);
    const int masked = b.pointwise("aten::add", {scaled, b.input({2, 1, 1, 16}, dt)});
    const int probs = b.reduction("aten::softmax", masked, {2, 4, 16, 16});
    b.arg_int("dim", -1);
    const int softmax = static_cast<int>(b.g.ops.size()) - 1;
    b.output(b.op("aten::matmul", {probs, v}, {}, {2, 4, 16, 16}));
    const int second = static_cast<int>(b.g.ops.size()) - 1;
    auto p = plan(b.g);
    REQUIRE(p.group_of[second] >= 0);
    if (dt == DType::kBFloat16) {
      CHECK(p.group_of[first] == p.group_of[second]);
      CHECK(p.group_of[softmax] == p.group_of[second]);
      CHECK(p.groups[p.group_of[second]].fused_kernels == 1);  // the fused kernel alone
    } else {
      CHECK(p.group_of[softmax] != p.group_of[second]);
      CHECK(p.group_of[first] != p.group_of[second]);
    }
  }
}

TEST_CASE("inductor: explicit attention matches pattern 14 only where q, k and v are the permutes it traced") {
  // RoFormer rotates q and k after permuting the heads out: a loop's result laid out as the
  // permute was, not a permute. Pattern 14 permutes its inputs itself, so it matches none, and
  // the two matmuls and the softmax stay apart; v alone rotated or none: the same graph matches.
  auto fused = [](bool rotated) {
    const DType dt = DType::kBFloat16;
    GraphBuilder b;
    const int x = b.input({2, 16, 64}, dt);
    auto heads = [&](bool rotate) {
      const int y = b.op("aten::linear", {x, b.input({64, 64}, dt, kc::ValueRole::kParameter)}, {}, {2, 16, 64});
      b.name_arg(0, "input");
      b.name_arg(1, "weight");
      int t = b.view("aten::transpose", b.view("aten::view", y, {2, 16, 4, 16}), {2, 4, 16, 16});
      b.g.values[t].strides = {1024, 16, 64, 1};
      if (rotate) {
        t = b.pointwise("aten::neg", {t});
        b.g.values[t].strides = {1024, 16, 64, 1};
      }
      return t;
    };
    const int q = heads(rotated), k = heads(rotated), v = heads(false);
    const int kt = b.view("aten::transpose", k, {2, 4, 16, 16});
    b.arg_int("dim0", -1);
    b.arg_int("dim1", -2);
    b.g.values[kt].strides = {1024, 16, 1, 64};
    const int scores = b.op("aten::matmul", {q, kt}, {}, {2, 4, 16, 16});
    const int first = static_cast<int>(b.g.ops.size()) - 1;
    const int scaled = b.pointwise("aten::div", {scores});
    b.arg_float("other", 4.0);
    const int masked = b.pointwise("aten::add", {scaled, b.input({2, 1, 1, 16}, dt)});
    const int probs = b.reduction("aten::softmax", masked, {2, 4, 16, 16});
    b.arg_int("dim", -1);
    b.output(b.op("aten::matmul", {probs, v}, {}, {2, 4, 16, 16}));
    const int second = static_cast<int>(b.g.ops.size()) - 1;
    const auto p = plan(b.g);
    return p.group_of[first] == p.group_of[second];
  };
  CHECK(fused(false));
  CHECK_FALSE(fused(true));
}

TEST_CASE("inductor: attention on the math path is decomposed, its mask computed inside the softmax") {
  // An expanded bool mask (stride 0 in its last dim) keeps the fused kernels out: Inductor traces
  // _scaled_dot_product_attention_math. bf16: q and k scaled and v converted into memory (3
  // loops), two cuBLAS matmuls, one softmax loop computing the mask's comparison itself, and
  // the result converted back (returned: a loop of its own). Eager runs 21 kernels.
  GraphBuilder b;
  const int q = b.input({2, 4, 16, 16}, DType::kBFloat16);
  const int k = b.input({2, 4, 16, 16}, DType::kBFloat16);
  const int v = b.input({2, 4, 16, 16}, DType::kBFloat16);
  const int pos = b.input({1, 1, 16, 1}, DType::kInt64);
  OpTraits pointwise;
  pointwise.pointwise = true;
  const int ge = b.op("aten::ge", {pos}, pointwise, {1, 1, 16, 1}, DType::kBool);
  const int mask = b.view("aten::expand", ge, {2, 1, 16, 16});
  b.g.values[mask].strides = {0, 16, 1, 0};
  b.output(b.op("aten::scaled_dot_product_attention", {q, k, v, mask}, {}, {2, 4, 16, 16}, DType::kBFloat16));
  b.name_arg(0, "query");
  b.name_arg(1, "key");
  b.name_arg(2, "value");
  b.name_arg(3, "attn_mask");
  auto l = kc::run_launches(b.g, kc::default_target(), {false, {}});
  const int attention = static_cast<int>(b.g.ops.size()) - 1;
  REQUIRE(l[attention].known);
  CHECK(l[attention].counts.kernels > 7);  // eager: the math path's ops one by one
  auto p = plan(b.g);
  CHECK(kernels(p) == 7);
  CHECK(p.group_of[0] == p.group_of[attention]);  // the comparison is part of the softmax's loop
}

namespace {
// exp(x) for x of [64, rows, 96] in dtype, then a linear by a [96, 96] weight.
kc::FusionPlan exp_then_linear(int64_t rows, DType dt) {
  GraphBuilder b;
  int e = b.pointwise("aten::exp", {b.input({64, rows, 96}, dt)});
  b.output(b.op("aten::linear", {e, b.input({96, 96}, dt, kc::ValueRole::kParameter)}, {}, {64, rows, 96}));
  b.name_arg(0, "input");
  b.name_arg(1, "weight");
  return plan(b.g);
}
}  // namespace

TEST_CASE("inductor: a padded buffer a linear folds into rows is copied out of its padding first") {
  // comprehensive_padding: the stride of 49 x 96 bf16 elements (9,408 bytes, above 1,024
  // elements) is rounded up to 128 bytes; folding [64, 49] into rows crosses it: exp, copy, GEMM.
  CHECK(kernels(exp_then_linear(49, DType::kBFloat16)) == kernels(exp_then_linear(48, DType::kBFloat16)) + 1);
  // 48 x 96 bf16 elements, and 49 x 96 f32 ones (18,816 bytes), are multiples of 128 bytes: no padding.
  CHECK(kernels(exp_then_linear(49, DType::kFloat32)) == kernels(exp_then_linear(48, DType::kFloat32)));
}

namespace {
// A ShuffleNet-V2 unit's end: cat(x1, relu(batch_norm(y))) along the channels, read by the
// channel shuffle's copy through a transpose (so the copy never fuses under the cat's kernel).
kc::FusionPlan shuffle_unit(DType dt) {
  GraphBuilder b;
  const int x1 = b.input({8, 58, 20, 20}, dt), y = b.input({8, 58, 20, 20}, dt);
  std::vector<int> bn = {y};
  for (int k = 0; k < 4; ++k) bn.push_back(b.input({58}, dt, kc::ValueRole::kParameter));
  const int n = b.op("aten::batch_norm", bn);
  const char* names[] = {"input", "weight", "bias", "running_mean", "running_var"};
  for (size_t k = 0; k < 5; ++k) b.name_arg(k, names[k]);
  b.arg_bool("training", false);
  const int r = b.pointwise("aten::relu", {n});
  const int c = b.op("aten::cat", {x1}, {}, {8, 116, 20, 20});
  b.g.ops.back().args.clear();
  b.arg_tensors("tensors", {x1, r});
  b.arg_int("dim", 1);
  const int v = b.view("aten::view", c, {8, 2, 58, 20, 20});
  const int t = b.view("aten::transpose", v, {8, 58, 2, 20, 20});
  b.g.values[t].strides = {46400, 400, 23200, 20, 1};
  OpTraits copy;
  b.output(b.op("aten::clone", {t}, copy));
  return plan(b.g);
}
}  // namespace

TEST_CASE(
    "inductor: a cat whose inlined loop counts over 30 operations, conversions included, is computed into memory") {
  // float32: 6 loads, the batch norm's 11 values, ReLU's 2, the cat's index, bounds and wheres
  // (11): 30, not over realize_opcount_threshold, so the cat is inlined into the copy.
  const auto f32 = shuffle_unit(DType::kFloat32);
  CHECK(f32.lowering[2].find("inlined into its readers") != std::string::npos);
  // bfloat16: the batch norm's decomposition converts its 5 operands to float32 and its result
  // back: 36, so the cat is computed into memory and the copy reads it, a kernel more.
  const auto bf16 = shuffle_unit(DType::kBFloat16);
  CHECK(bf16.lowering[2].find("computed into memory: its inlined expression reads too much") != std::string::npos);
  CHECK(kernels(bf16) == kernels(f32) + 1);
}

TEST_CASE("inductor: a value an expression reaches twice is counted once, as Inductor's CSE counts it") {
  // sin(t) * cos(t) with t a chain of 14 ops: 14 + 3 + 1 load, not 14 twice; inlined.
  GraphBuilder b;
  int t = b.input({4096});
  for (int k = 0; k < 14; ++k) t = b.pointwise("aten::exp", {t});
  const int s = b.pointwise("aten::sin", {t}), c = b.pointwise("aten::cos", {t});
  const int m = b.pointwise("aten::mul", {s, c});
  b.output(b.pointwise("aten::neg", {m}));
  const auto p = plan(b.g);
  CHECK(p.lowering[16].find("inlined into its readers") != std::string::npos);
  CHECK(kernels(p) == 1);
}

TEST_CASE("inductor: a Python number operand is a constant of its own in the count of a loop") {
  // (x + y) * 2.0, 14 times: two loads, the add, and each multiply with its constant: 31 values
  // at the fourteenth multiply, over the threshold (computed into memory). The same chain of exps
  // counts 17: inlined.
  auto chain = [](bool scalar) {
    GraphBuilder b;
    int t = b.pointwise("aten::add", {b.input({4096}), b.input({4096})});
    for (int k = 0; k < 14; ++k) {
      t = b.pointwise(scalar ? "aten::mul" : "aten::exp", {t});
      if (scalar) b.arg_float("other", 2.0);
    }
    b.output(b.pointwise("aten::neg", {t}));
    return plan(b.g);
  };
  CHECK(chain(true).lowering[14].find("its inlined expression reads too much") != std::string::npos);
  CHECK(chain(false).lowering[14].find("inlined into its readers") != std::string::npos);
}

TEST_CASE("inductor: a loop that loads nothing is recomputed by its readers until past 100 values") {
  // realize_hint acts only on a loop loading more than one element at a computed index: a
  // floating-point arange (the index, its conversion, two constants, a multiply and an add: 6)
  // and 25 exps, 31 values, stay inlined; GraphLowering.run_node realizes any loop past 100.
  auto arange_chain = [](int exps) {
    GraphBuilder b;
    int t = b.op("aten::arange", {}, {}, {64}, DType::kFloat32);
    b.arg_float("start", 0.5);
    b.arg_int("end", 64);
    for (int k = 0; k < exps; ++k) t = b.pointwise("aten::exp", {t});
    b.output(b.pointwise("aten::mul", {t, b.input({64})}));
    return plan(b.g).lowering[static_cast<size_t>(exps)];
  };
  CHECK(arange_chain(25).find("inlined into its readers") != std::string::npos);
  CHECK(arange_chain(95).find("too large to inline") != std::string::npos);
}

TEST_CASE("inductor: a stack counts as the cat of its inputs unsqueezed: the index, bounds and masked sources") {
  // stack([exp^16(x), -x]) read by a pointwise op: x loaded once (a stack reads its inputs at
  // one index), 17 values, two masked sources and a where, the index and bounds (8): 29, as
  // OpCounterCSE counts it (lowering_probe.py). One exp more, 30; with x + y for x, 31 and two
  // loads: computed into memory.
  auto stacked = [](int exps, bool two_loads) {
    GraphBuilder b;
    int x = b.input({64, 32});
    if (two_loads) x = b.pointwise("aten::add", {x, b.input({64, 32})});
    int t = x;
    for (int k = 0; k < exps; ++k) t = b.pointwise("aten::exp", {t});
    const int y = joined(b, "aten::stack", {t, b.pointwise("aten::neg", {x})}, -1, {64, 32, 2});
    b.output(b.pointwise("aten::neg", {y}));
    return plan(b.g).lowering[static_cast<size_t>(b.g.values[y].producer)];
  };
  CHECK(stacked(16, false).find("inlined into its readers") != std::string::npos);
  CHECK(stacked(16, true).find("its inlined expression reads too much") != std::string::npos);
}

TEST_CASE("inductor: an index by a host tensor falls back to ATen, by a device tensor it is a gather") {
  // lowering.py's check_and_broadcast_indices: indices on another device than the tensor indexed
  // raise NotImplementedError, and aten.index runs as eager does (BEiT's relative position
  // index, a host constant: a copy to the device and ATen's index kernel in the compiled run).
  for (const bool host : {true, false}) {
    GraphBuilder b;
    const int table = weight(b, {27, 96});
    const int idx = b.input({14, 7}, DType::kInt64, kc::ValueRole::kConstant);
    if (host) b.g.values[idx].placement = kc::Placement::kHost;
    const int y = b.op("aten::index", {table}, {}, {14, 7, 96});
    b.g.ops.back().overload = "Tensor";
    kc::Arg indices;
    indices.name = "indices";
    indices.kind = kc::Arg::Kind::kTensorList;
    indices.tensors = {idx};
    b.g.ops.back().args.push_back(indices);
    b.output(b.pointwise("aten::relu", {y}));
    const auto p = plan(b.g);
    CAPTURE(host);
    CHECK(p.groups[p.group_of[0]].kind == (host ? "fallback" : "pointwise"));
    CHECK(kernels(p) == (host ? 2 : 1));
  }
}

TEST_CASE("inductor: a gather inlined into a cat is a masked load, with no fill or where of its own") {
  // cat([exp^15(x), embedding(table, ids)]) along the last dim: the embedding's source needs no
  // fill and where; the exp chain's does. 3 loads, 16 values, the cat's where and one masked
  // source (2), its index and bounds (8): 30, inlined; counted as a computed input, 32.
  GraphBuilder b;
  const int ids = b.input({64}, DType::kInt64);
  const int table = weight(b, {1000, 32});
  const int e = b.op("aten::embedding", {table, ids}, {}, {64, 32});
  b.name_arg(0, "weight");
  b.name_arg(1, "indices");
  int t = b.input({64, 32});
  for (int k = 0; k < 15; ++k) t = b.pointwise("aten::exp", {t});
  b.op("aten::cat", {}, {}, {64, 64});
  b.g.ops.back().args.clear();
  b.arg_tensors("tensors", {t, e});
  b.arg_int("dim", -1);
  const int cat = static_cast<int>(b.g.ops.size()) - 1;
  b.output(b.pointwise("aten::neg", {static_cast<int>(b.g.values.size()) - 1}));
  CHECK(plan(b.g).lowering[cat].find("inlined into its readers") != std::string::npos);
}

TEST_CASE("inductor: a loop of over 4 reads its reader broadcasts is computed into memory, as expand marks it reused") {
  // The sum of five [64, 1] columns, read once by a multiply broadcasting it over [64, 128]:
  // expand (broadcast_tensors) marks it reused by the factor, and 5 reads pass
  // realize_reads_threshold. Read at its own size, the same sum is inlined.
  auto column = [](int64_t width) {
    GraphBuilder b;
    int t = b.input({64, 1});
    for (int k = 0; k < 4; ++k) t = b.pointwise("aten::add", {t, b.input({64, 1})});
    b.output(b.pointwise("aten::mul", {b.input({64, width}), t}));
    return plan(b.g).lowering[3];
  };
  CHECK(column(128).find("read by several ops and costly to recompute") != std::string::npos);
  CHECK(column(1).find("inlined into its readers") != std::string::npos);
}

namespace {
// A group norm of x in `groups` groups, with weight and bias.
int group_norm(GraphBuilder& b, int x, int64_t groups) {
  const int64_t c = b.g.values[x].sizes[1];
  const int w = weight(b, {c}), bias = weight(b, {c});
  const int y = b.op("aten::group_norm", {x, w, bias});
  b.name_arg(0, "input");
  b.name_arg(1, "weight");
  b.name_arg(2, "bias");
  b.arg_int("num_groups", groups);
  return y;
}
}  // namespace

TEST_CASE("inductor: a long reduction is split level by level, each level's size deciding again") {
  // One group of 200,704 channels-last elements per sample: 25 partial sums read at unit stride,
  // those of 8,029 elements apart in memory split again (63), then 128-element rows: three
  // reductions, and the normalization a loop of its own.
  GraphBuilder b;
  int x = b.strided({3, 64, 56, 56}, {200704, 1, 3584, 64});
  b.output(group_norm(b, x, 1));
  CHECK(kernels(plan(b.g)) == 4);
  // Contiguous, the partial sums' elements are adjacent: 25 of 8,029 each need no second split.
  GraphBuilder flat;
  flat.output(group_norm(flat, flat.input({3, 64, 56, 56}), 1));
  CHECK(kernels(plan(flat.g)) == 3);
}

TEST_CASE("inductor: a norm read broadcast per group normalizes in a loop of its own; one channel a group joins") {
  GraphBuilder b;
  b.output(group_norm(b, b.input({2, 64, 8, 8}), 32));
  CHECK(kernels(plan(b.g)) == 2);
  GraphBuilder per_channel;
  per_channel.output(group_norm(per_channel, per_channel.input({2, 64, 8, 8}), 64));
  CHECK(kernels(plan(per_channel.g)) == 1);
}

TEST_CASE("inductor: a split softmax is its maximum and its sum, each split, then the loop dividing") {
  GraphBuilder b;
  // Scores whose last dim steps by 4 (heads last in memory): 6,924 rows of 577 read apart.
  int x = b.strided({3, 4, 577, 577}, {4 * 577 * 577, 1, 577 * 4, 4});
  b.output(b.reduction("aten::softmax", x, {3, 4, 577, 577}));
  b.arg_ints("dim", {-1});
  CHECK(kernels(plan(b.g)) == 5);
  GraphBuilder rows;
  rows.output(rows.reduction("aten::softmax", rows.input({3, 4, 577, 577}), {3, 4, 577, 577}));
  rows.arg_ints("dim", {-1});
  CHECK(kernels(plan(rows.g)) == 1);
}

TEST_CASE("inductor: an unrolled softmax whose loads, once per element, pass 4 computes its statistics apart") {
  // ResNeSt's radix softmax: fewer than 8 elements, so the maximum and the sum are unrolled into
  // pointwise loops. A sum of two buffers read at each of 4 elements is 8 reads: past
  // realize_reads_threshold the maximum and the sum are realized, one loop writing both before
  // the loop dividing. At 2 elements, or of one buffer, the softmax is one loop.
  auto softmax_kernels = [](int64_t r, bool two_buffers) {
    GraphBuilder b;
    const int a = b.input({5, r, 80});
    const int x = two_buffers ? b.pointwise("aten::add", {a, b.input({5, r, 80})}) : b.pointwise("aten::relu", {a});
    b.output(b.reduction("aten::softmax", x, {5, r, 80}));
    b.arg_ints("dim", {1});
    return kernels(plan(b.g));
  };
  CHECK(softmax_kernels(4, true) == 2);
  CHECK(softmax_kernels(2, true) == 1);
  CHECK(softmax_kernels(4, false) == 1);
}

TEST_CASE("inductor: a loop's buffer is laid out as its reads vote, whatever strides the graph records") {
  // x + bias keeps x's transposed order (the bias, broadcast, votes for neither): the layer norm
  // reads its rows 196 apart, an outer reduction of few rows, split (two kernels), then the loop
  // normalizing.
  GraphBuilder b;
  int x = b.strided({3, 196, 768}, {150528, 1, 196});
  int y = b.pointwise("aten::add", {x, weight(b, {768})});
  int n = b.reduction("aten::layer_norm", y, {3, 196, 768});
  b.arg_ints("normalized_shape", {768});
  b.output(n);
  CHECK(kernels(plan(b.g)) == 3);
  CHECK(kc::inductor::pick_loop_order({{1, 3}, {3, 1}}, {2, 3}) == std::vector<int>{1, 0});
  CHECK(kc::inductor::pick_loop_order({{1, 3}, {1, 3}, {3, 1}}, {2, 3}) == std::vector<int>{0, 1});
  CHECK(kc::inductor::pick_loop_order({{1, 3}, {0, 1}}, {2, 3}) == std::vector<int>{0, 1});
}

TEST_CASE("inductor: a graph of 300 nodes or more per convolution keeps its layout, counting what AOT traces") {
  // One convolution and 75 linears of 3-d inputs: 75 ops, but each a view, a transpose, the GEMM
  // and a view back in the traced graph, with a placeholder per weight: over 300 nodes.
  GraphBuilder b;
  int y = conv(b, b.input({8, 64, 28, 28}), weight(b, {128, 64, 3, 3}));
  b.output(b.pointwise("aten::relu", {y}));
  int h = b.input({4, 16, 32});
  for (int k = 0; k < 75; ++k) {
    h = b.op("aten::linear", {h, weight(b, {32, 32})}, {}, {4, 16, 32});
    b.name_arg(0, "input");
    b.name_arg(1, "weight");
  }
  b.output(h);
  auto p = plan(b.g);
  CHECK(p.lowering[0].find("copied") == std::string::npos);
  CHECK(p.lowering[0].find("channels-last") == std::string::npos);
}

TEST_CASE("inductor: a linear upsampling counts its decomposition's nodes toward the count per convolution") {
  // One convolution and eight bilinear resamplings of a bfloat16 table: 10 ops, but each
  // resampling traces as about 40 nodes (source indices, four gathers, three lerps), past 300:
  // the layout is kept. Antialiased, Inductor calls the kernel as it is: one node each, and the
  // convolution runs channels last.
  auto channels_last = [](const char* resample) {
    GraphBuilder b;
    int y = conv(b, b.input({8, 64, 28, 28}), weight(b, {128, 64, 3, 3}));
    b.output(b.pointwise("aten::relu", {y}));
    for (int k = 0; k < 8; ++k) {
      const int up = b.op(resample, {b.input({1, 4, 27, 27}, DType::kBFloat16)}, {}, {1, 4, 40, 40});
      b.name_arg(0, "input");
      b.arg_bool("align_corners", false);
      b.output(up);
    }
    return plan(b.g).lowering[0].find("channels-last") != std::string::npos;
  };
  CHECK_FALSE(channels_last("aten::upsample_bilinear2d"));
  CHECK(channels_last("aten::_upsample_bilinear2d_aa"));
}

TEST_CASE("inductor: a linear's bias unfused before lowering is a node of its own in the count per convolution") {
  // One convolution and 55 biased linears, each read by a GELU: the post-grad pass that takes
  // the bias out of the GEMM into a pointwise add runs before GraphLowering counts the nodes, so
  // 55 adds join the 282 traced nodes, past 300: the layout is kept. Read by the next linear
  // instead (no pointwise reader), each bias stays in its addmm and the convolution runs
  // channels last.
  auto channels_last = [](bool gelu) {
    GraphBuilder b;
    int y = conv(b, b.input({8, 64, 28, 28}), weight(b, {128, 64, 3, 3}));
    b.output(b.pointwise("aten::relu", {y}));
    int h = b.input({16, 32});
    for (int k = 0; k < 55; ++k) {
      h = b.op("aten::linear", {h, weight(b, {32, 32}), weight(b, {32})}, {}, {16, 32});
      b.name_arg(0, "input");
      b.name_arg(1, "weight");
      b.name_arg(2, "bias");
      if (gelu) h = b.pointwise("aten::gelu", {h});
    }
    b.output(h);
    return plan(b.g).lowering[0].find("channels-last") != std::string::npos;
  };
  CHECK_FALSE(channels_last(true));
  CHECK(channels_last(false));
}

TEST_CASE("inductor: each output read of an op returning a tuple is a getitem node in the count per convolution") {
  // One convolution and 50 unbinds of a [3, 4, 8] input into three slices, each negated: an
  // unbind and three getitems each in the traced graph (Inductor lowers unbind itself,
  // undecomposed), 150 getitems that take the 256 other nodes past 300: the layout is kept.
  // Unbinding into one slice, there is no tuple to take apart.
  auto channels_last = [](int64_t parts) {
    GraphBuilder b;
    int y = conv(b, b.input({8, 64, 28, 28}), weight(b, {128, 64, 3, 3}));
    b.output(b.pointwise("aten::relu", {y}));
    for (int k = 0; k < 50; ++k) {
      int x = b.input({parts, 4, 8});
      OpTraits view;
      view.view = true;
      b.op("aten::unbind.int", {x}, view, {4, 8});
      b.arg_int("dim", 0);
      auto& outs = b.g.ops.back().outputs;
      for (int64_t p = 1; p < parts; ++p) {
        const int v = b.input({4, 8});
        b.g.inputs.pop_back();
        b.g.values[v].producer = static_cast<int>(b.g.ops.size()) - 1;
        outs.push_back(v);
      }
      for (int v : std::vector<int>(outs)) b.output(b.pointwise("aten::neg", {v}));
    }
    return plan(b.g).lowering[0].find("channels-last") != std::string::npos;
  };
  CHECK_FALSE(channels_last(3));
  CHECK(channels_last(1));
}

TEST_CASE("inductor: a convolution reading a loop through a view freezes its buffer row major, needing no copy") {
  // TinyViT's local convolution reads a residual add of [N, H, W, C] rows through a permute to
  // NCHW. realize_input freezes the add's buffer as it stands, row major, before its reads
  // (laid out NCHW, as eager records) vote: the permute is channels last, the layout
  // optimization asks nothing more. Reading the graph's input through the same permute, the
  // strides are NCHW and the input is copied to channels last.
  auto input_copied = [](bool through_loop) {
    GraphBuilder b;
    int x = b.strided({2, 28, 28, 64}, {50176, 28, 1, 784});
    if (through_loop) {
      x = b.pointwise("aten::relu", {x});
      b.g.values[x].strides = {50176, 28, 1, 784};
    }
    int p = b.view("aten::permute", x, {2, 64, 28, 28});
    b.arg_ints("dims", {0, 3, 1, 2});
    b.g.values[p].strides = {50176, 784, 28, 1};
    b.output(conv(b, p, weight(b, {32, 64, 3, 3})));
    auto pl = plan(b.g);
    return pl.lowering[through_loop ? 2 : 1].find("input copied") != std::string::npos;
  };
  CHECK_FALSE(input_copied(true));
  CHECK(input_copied(false));
}

TEST_CASE("inductor: only reads indexing every dim vote whether a reduction's elements lie apart") {
  // Patches read transposed plus two position tables broadcast over the batch: the tables do not
  // vote (get_read_indices), so the layer norm reads its rows apart and is split.
  GraphBuilder b;
  int x = b.strided({3, 196, 768}, {150528, 1, 196});
  int y = b.pointwise("aten::add", {x, weight(b, {1, 196, 768})});
  y = b.pointwise("aten::add", {y, weight(b, {1, 196, 768})});
  b.output(b.reduction("aten::layer_norm", y, {3, 196, 768}));
  b.arg_ints("normalized_shape", {768});
  CHECK(kernels(plan(b.g)) == 3);
}

TEST_CASE("inductor: a norm's output read out of order fuses only where its one reader inlines the epilogue") {
  // A layer norm's output partitioned into windows (a transpose of its rows, then a copy a
  // product reads): read by the copy alone, the epilogue is inlined into it, which reads the
  // statistics row by row in whatever order, one kernel; read by a residual add too, the output
  // is computed into a buffer, which the copy reads at other indices than the norm writes them.
  auto norm_and_copy_fuse = [](bool residual) {
    GraphBuilder b;
    int x = b.input({8, 8, 32});
    int n = b.reduction("aten::layer_norm", x, {8, 8, 32});
    b.arg_ints("normalized_shape", {32});
    int t = b.view("aten::transpose", n, {8, 8, 32});
    b.g.values[t].strides = {32, 256, 1};
    int c = b.op("aten::contiguous", {t}, {}, {8, 8, 32});
    b.op("aten::mm", {b.view("aten::view", c, {64, 32}), weight(b, {32, 32})}, {}, {64, 32});
    if (residual) b.output(b.pointwise("aten::add", {n, x}));
    auto p = plan(b.g);
    REQUIRE(p.group_of[0] >= 0);
    return p.group_of[0] == p.group_of[2];
  };
  CHECK(norm_and_copy_fuse(false));
  CHECK_FALSE(norm_and_copy_fuse(true));
}

TEST_CASE("inductor: an expression inlined through two views is computed twice, as Inductor counts it") {
  // A chain of 16 cheap loops read by a subtraction through two unsqueezes (a window mask's
  // pairwise difference): CSE merges only values computed at one index, so the chain counts twice,
  // past realize_opcount_threshold, and the difference, read twice, is computed into memory.
  auto sub_realized = [](bool two_views) {
    GraphBuilder b;
    int x = b.input({64});
    int m = x;
    for (int k = 0; k < 16; ++k) m = b.pointwise(k % 2 ? "aten::sin" : "aten::cos", {m});
    int u = b.view("aten::unsqueeze", m, {64, 1});
    b.g.values[u].strides = {1, 1};
    int w = b.view("aten::unsqueeze", m, two_views ? std::vector<int64_t>{1, 64} : std::vector<int64_t>{64, 1});
    b.g.values[w].strides = {two_views ? 64 : 1, 1};
    int d = b.pointwise("aten::sub", {u, w});
    b.output(b.pointwise("aten::relu", {d}));
    b.output(b.pointwise("aten::exp", {d}));
    auto p = plan(b.g);
    return p.lowering[b.g.values[d].producer].find("computed into memory") != std::string::npos;
  };
  CHECK_FALSE(sub_realized(false));
  CHECK(sub_realized(true));
}

TEST_CASE("inductor: each view a loop's value is read through is a user of its own") {
  // A sum of five inputs read by a cat through two slices has two users in the graph Inductor
  // lowers, and reads more than realize_reads_threshold buffers: it is computed into memory
  // once, not recomputed for each slice. Read through one slice, it is inlined.
  auto realized = [](bool two_slices) {
    GraphBuilder b;
    int s = b.input({8, 8});
    for (int k = 0; k < 4; ++k) s = b.pointwise("aten::add", {s, b.input({8, 8})});
    int top = b.view("aten::slice", s, {4, 8});
    int bottom = b.view("aten::slice", s, {4, 8});
    b.g.values[bottom].storage_offset = 32;
    b.output(b.op("aten::cat", {top, two_slices ? bottom : b.input({4, 8})}, {}, {8, 8}));
    auto p = plan(b.g);
    return p.lowering[b.g.values[s].producer].find("computed into memory") != std::string::npos;
  };
  CHECK_FALSE(realized(false));
  CHECK(realized(true));
}

TEST_CASE("inductor: copies of a buffer's parts at other offsets share no read and stay apart") {
  // q, k and v unbound from one projection, each copied dense for attention: the copies read
  // the buffer at other offsets, so no index is shared and each is a kernel of its own. Copies
  // of one part read the same elements and fuse.
  auto copies_fuse = [](int64_t second_offset) {
    GraphBuilder b;
    int x = b.input({2, 4, 8, 16});
    int e = b.pointwise("aten::exp", {x});
    b.op("aten::mm", {b.view("aten::view", e, {8, 128}), weight(b, {128, 8})}, {}, {8, 8});  // e in memory
    int q = b.view("aten::select", e, {2, 8, 16});
    int k = b.view("aten::select", e, {2, 8, 16});
    b.g.values[q].strides = b.g.values[k].strides = {512, 16, 1};
    b.g.values[k].storage_offset = second_offset;
    b.output(b.op("aten::contiguous", {q}, {}, {2, 8, 16}));
    b.output(b.op("aten::contiguous", {k}, {}, {2, 8, 16}));
    auto p = plan(b.g);
    const int n = static_cast<int>(b.g.ops.size());
    return p.group_of[n - 1] == p.group_of[n - 2];
  };
  CHECK(copies_fuse(0));
  CHECK_FALSE(copies_fuse(128));
}

TEST_CASE("inductor: a permuted operand's dense copy, padded in memory, is copied again for the call") {
  // CaiT's talking heads: a linear over the heads of attention scores [B, N, N, H]. The dense
  // copy's rows of 196 x 8 elements are padded to a multiple of 128 bytes in bfloat16 (1,600),
  // not in float32 (1,568 already is one), and the call folds the copy to rows of 8 across them.
  auto copied_again = [](DType dt) {
    GraphBuilder b;
    int s = b.input({5, 8, 196, 196}, dt);
    int t = b.op("aten::permute", {s},
                 [] {
                   kc::OpTraits v;
                   v.view = true;
                   return v;
                 }(),
                 {5, 196, 196, 8});
    b.g.values[t].strides = {307328, 196, 1, 38416};
    int w = b.input({8, 8}, dt, kc::ValueRole::kParameter);
    int y = b.op("aten::linear", {t, w}, {}, {5, 196, 196, 8});
    b.name_arg(0, "input");
    b.name_arg(1, "weight");
    b.output(y);
    auto p = plan(b.g);
    return p.lowering[b.g.values[y].producer].find("copied out of the padding again") != std::string::npos;
  };
  CHECK(copied_again(DType::kBFloat16));
  CHECK_FALSE(copied_again(DType::kFloat32));
}

TEST_CASE("inductor: a sum unrolled into a pointwise loop passes its input's layout on to the reduction reading it") {
  // ResNeSt's split attention: relu of a channels-last [5, 320, 56, 56], viewed as 4 radix
  // splits, summed over them (4 < unroll_reductions_threshold: a pointwise loop), then the mean
  // over H and W. Channels last, the mean's elements are far apart (an outer reduction): split
  // in two. Contiguous, each output's 3,136 elements are adjacent: one kernel.
  for (const bool channels_last : {true, false}) {
    GraphBuilder b;
    const int x = channels_last ? b.strided({5, 320, 56, 56}, {1003520, 1, 17920, 320}) : b.input({5, 320, 56, 56});
    const int r = b.pointwise("aten::relu", {x});
    const int v = b.view("aten::reshape", r, {5, 4, 80, 56, 56});
    b.g.values[v].strides = channels_last ? std::vector<int64_t>{1003520, 80, 1, 17920, 320}
                                          : std::vector<int64_t>{1003520, 250880, 3136, 56, 1};
    const int s = b.reduction("aten::sum", v, {5, 80, 56, 56});
    b.arg_ints("dim", {1});
    b.output(b.reduction("aten::mean", s, {5, 80, 1, 1}));
    b.arg_ints("dim", {2, 3});
    b.arg_bool("keepdim", true);
    CHECK(kernels(plan(b.g)) == (channels_last ? 2 : 1));
  }
}

TEST_CASE("inductor: loops that inline the same ops share the buffers those ops read") {
  // sin(e) and cos(e) of one e = exp(x * y), inlined into both: each reads x and y
  // (score_fusion_memory), so the scheduler fuses them into one kernel.
  GraphBuilder b;
  const int x = b.input({1000}), y = b.input({1000});
  const int e = b.pointwise("aten::exp", {b.pointwise("aten::mul", {x, y})});
  b.output(b.pointwise("aten::sin", {e}));
  b.output(b.pointwise("aten::cos", {e}));
  CHECK(kernels(plan(b.g)) == 1);
}

TEST_CASE("inductor: a loop fuses with the loop it reads however far apart they are") {
  // are_long_distant_nodes is a check of horizontal fusion only: relu's reader exp, 70 nodes
  // later, still joins its kernel; the 70 unrelated loops stay on their own.
  GraphBuilder b;
  const int x = b.input({1000});
  const int r = b.pointwise("aten::relu", {x});
  b.output(r);
  for (int k = 0; k < 70; ++k) b.output(b.pointwise("aten::neg", {b.input({1000})}));
  b.output(b.pointwise("aten::exp", {r}));
  CHECK(kernels(plan(b.g)) == 71);
}

TEST_CASE("inductor: loops reading different rows of one buffer share nothing") {
  // A .pt2 records no storage offsets: select(x, 0, 0) and select(x, 0, 1) look alike, yet
  // read other elements (Persimmon's q and k layer norms of one fused projection): two
  // kernels. Two loops reading the same row, through selects of their own, fuse.
  for (const int second_row : {1, 0}) {
    GraphBuilder b;
    const int x = b.input({2, 1000});
    const int r0 = b.view("aten::select", x, {1000});
    b.arg_int("dim", 0);
    b.arg_int("index", 0);
    const int r1 = b.view("aten::select", x, {1000});
    b.arg_int("dim", 0);
    b.arg_int("index", second_row);
    b.output(b.pointwise("aten::relu", {r0}));
    b.output(b.pointwise("aten::exp", {r1}));
    CHECK(kernels(plan(b.g)) == (second_row == 0 ? 1 : 2));
  }
}

TEST_CASE("inductor: pad_mm pads a GEMM the GPU's benchmark finds faster padded; each padded input is a loop") {
  auto linear = [](int64_t n, DType dt, int64_t m, int64_t k) {
    GraphBuilder b;
    const int x = b.input({m, k}, dt);
    const int w = b.input({n, k}, dt, kc::ValueRole::kParameter);
    b.output(b.op("aten::linear", {x, w}, {}, {m, n}));
    b.name_arg(0, "input");
    b.name_arg(1, "weight");
    return b;
  };
  auto head = [&](int64_t n, DType dt, int64_t m, int64_t k) {
    const GraphBuilder b = linear(n, dt, m, k);
    const int eager = kc::run_launches(b.g, kc::default_target(), {false, {}})[0].counts.kernels;
    return std::pair<int, int>(kernels(plan(b.g)), eager);
  };
  // A language-model head in bfloat16, 50,257 columns (GPT-2's vocabulary): padded to 50,264 on
  // the H200 (the sweep's answer for this shape, five times of five), so the weight is copied
  // into a padded buffer each call: one Triton loop beside the GEMM.
  const auto [padded, eager] = head(50257, DType::kBFloat16, 4096, 768);
  CHECK(padded == eager + 1);
  {
    // Another compile may keep it: the span goes down by the pad loop (the GEMM's kernels alike).
    const kc::FusionPlan p = plan(linear(50257, DType::kBFloat16, 4096, 768).g);
    CHECK(p.timed_fewer == 1);
    CHECK(p.timed_more == 0);
  }
  // Aligned, nothing to pad.
  const auto [aligned, eager_aligned] = head(50264, DType::kBFloat16, 4096, 768);
  CHECK(aligned == eager_aligned);
  // A tiny float32 product with unaligned sizes: the padded form is no faster, kept as it is.
  const auto [small, eager_small] = head(10, DType::kFloat32, 6, 10);
  CHECK(small == eager_small);
}

TEST_CASE("inductor: a GEMM pad_mm keeps is said to hang on a timing, with what a pad would add") {
  // pad_mm's answer is a benchmark on the GPU, which compiles answer differently from run to run;
  // the plan keeps the tree's answer and says what padding would cost.
  GraphBuilder b;
  const int x = b.input({6, 10});
  const int w = b.input({10, 10}, DType::kFloat32, kc::ValueRole::kParameter);
  b.output(b.op("aten::linear", {x, w}, {}, {6, 10}));
  b.name_arg(0, "input");
  b.name_arg(1, "weight");
  const kc::FusionPlan kept = plan(b.g);
  const std::string note = kept.lowering[0];
  CHECK(note.find("pad_mm times it on the GPU (MKN unaligned)") != std::string::npos);
  CHECK(note.find("2 more Triton loops each call") != std::string::npos);
  // The plan's span: the two loops more, and the GEMM cuBLAS runs at [8, 12] x [12, 12] for the
  // one at [6, 10] x [10, 10] (the same count by the target's rule: one kernel either way).
  CHECK(mm_kernels(6, 10, 10) == mm_kernels(8, 12, 12));
  CHECK(kept.timed_more == 2);
  CHECK(kept.timed_fewer == 0);
  GraphBuilder aligned;  // nothing unaligned: nothing for pad_mm to time
  const int y = aligned.input({8, 16});
  const int v = aligned.input({16, 16}, DType::kFloat32, kc::ValueRole::kParameter);
  aligned.output(aligned.op("aten::linear", {y, v}, {}, {8, 16}));
  aligned.name_arg(0, "input");
  aligned.name_arg(1, "weight");
  const kc::FusionPlan plain = plan(aligned.g);
  CHECK(plain.lowering[0].find("pad_mm") == std::string::npos);
  CHECK(plain.timed_more + plain.timed_fewer == 0);
}

TEST_CASE("inductor: a reused 4-d value is laid out channels last by its shape, so a norm over its last dim is outer") {
  // A downsampling convolution permuted to [N, H, W, C] and layer-normed (MambaOut's stages):
  // the norm's output, read by the next block's norm and by the residual add and reading six
  // buffers, is realized on reuse with make_channels_last_strides_for(its shape), H fastest and
  // its channels 14 apart. The next norm reduces 588 rows of 192 strided elements: an outer
  // reduction of few rows, split (two kernels), then its epilogue (a third); the first norm's
  // epilogue writes rows its statistics do not iterate in (a kernel of its own). Without a
  // convolution (no layout optimization) the value stays row major: the two norms are one
  // persistent kernel, each row normalized twice.
  auto norms_kernels = [](bool with_conv) {
    GraphBuilder b;
    int x;
    if (with_conv) {
      int c = conv(b, b.input({3, 96, 14, 14}), weight(b, {192, 96, 3, 3}));
      x = b.view("aten::permute", c, {3, 14, 14, 192});
      b.g.values[x].strides = {37632, 14, 1, 196};
    } else {
      x = b.input({3, 14, 14, 192});
    }
    auto norm = [&](int in) {
      int y = b.op("aten::layer_norm", {in, weight(b, {192}), weight(b, {192})}, {}, {3, 14, 14, 192});
      b.g.ops.back().traits.reduction = true;
      b.name_arg(0, "input");
      b.name_arg(1, "weight");
      b.name_arg(2, "bias");
      b.arg_ints("normalized_shape", {192});
      return y;
    };
    int y = norm(x);
    int z = norm(y);
    b.output(b.pointwise("aten::add", {z, y}));
    auto p = plan(b.g);
    int n = 0;
    for (const auto& grp : p.groups)
      if (grp.kind != "extern") n += grp.fused_kernels;
    return n;
  };
  // With the convolution: its bias peeled into the first norm's statistics; 2 + 3, the add
  // fused into the second norm's epilogue.
  CHECK(norms_kernels(true) == 5);
  CHECK(norms_kernels(false) == 1);
}

TEST_CASE("inductor: a reused permute back to [N, C, H, W] is realized channels last as itself, the loop's own order") {
  // GCViT's stem: a convolution permuted to [N, H, W, C], layer-normed, permuted back and read by
  // a convolution and a residual add. The permute is the node read twice: channels last for its
  // shape is the norm's row-major order, so the norm keeps its epilogue (one kernel); read twice
  // as [N, H, W, C], the norm's output is laid out H fastest and its epilogue is a kernel apart.
  auto norm_kernels = [](bool permuted_back) {
    GraphBuilder b;
    int c = conv(b, b.input({3, 96, 14, 14}), weight(b, {192, 96, 3, 3}));
    int x = b.view("aten::permute", c, {3, 14, 14, 192});
    b.g.values[x].strides = {37632, 14, 1, 196};
    b.arg_ints("dims", {0, 2, 3, 1});
    int y = b.op("aten::layer_norm", {x, weight(b, {192}), weight(b, {192})}, {}, {3, 14, 14, 192});
    b.g.ops.back().traits.reduction = true;
    b.name_arg(0, "input");
    b.name_arg(1, "weight");
    b.name_arg(2, "bias");
    b.arg_ints("normalized_shape", {192});
    const int norm = static_cast<int>(b.g.ops.size()) - 1;
    int r = y;
    if (permuted_back) {
      r = b.view("aten::permute", y, {3, 192, 14, 14});
      b.g.values[r].strides = {37632, 1, 2688, 192};
      b.arg_ints("dims", {0, 3, 1, 2});
    }
    b.output(b.pointwise("aten::relu", {r}));
    b.output(b.pointwise("aten::sigmoid", {r}));
    auto p = plan(b.g);
    REQUIRE(p.group_of[norm] >= 0);
    return p.groups[p.group_of[norm]].fused_kernels;
  };
  CHECK(norm_kernels(true) == 1);
  CHECK(norm_kernels(false) == 2);
}

TEST_CASE("inductor: a loop a product reads through views is frozen row major, and a slice's batch stride is kept") {
  // ShViT's attention: q and k are channel slices of one convolution's output after a Triton
  // loop, flattened, q transposed. realize_input converts the views to reinterpretations of the
  // loop's buffer, freezing its flexible layout row major (not channels last, as the
  // convolution's output would vote); the slices then step 3,920 elements from batch to batch,
  // past their 784-element matrices, which bmm reads in place: no operand copies.
  GraphBuilder b;
  int c = conv(b, b.input({2, 80, 7, 7}), weight(b, {80, 80, 1, 1}));
  int r = b.pointwise("aten::relu", {c});
  auto piece = [&](int64_t at) {
    int s = b.view("aten::slice.Tensor", r, {2, 16, 7, 7});
    b.g.values[s].strides = {3920, 49, 7, 1};
    b.g.values[s].storage_offset = at;
    int f = b.view("aten::flatten.using_ints", s, {2, 16, 49});
    b.g.values[f].strides = {3920, 49, 1};
    b.g.values[f].storage_offset = at;
    return f;
  };
  int q = b.view("aten::transpose.int", piece(0), {2, 49, 16});
  b.g.values[q].strides = {3920, 1, 49};
  int k = piece(784);
  const int mm = b.op("aten::matmul", {q, k}, {}, {2, 49, 49});
  b.output(mm);
  auto p = plan(b.g);
  const int op = static_cast<int>(b.g.ops.size()) - 1;
  REQUIRE(p.group_of[op] >= 0);
  CHECK(p.groups[p.group_of[op]].kind == "extern");
  CHECK(p.groups[p.group_of[op]].fused_kernels == 1);
}

TEST_CASE("inductor: a recurrent layer runs its decomposition, an mm and a cell loop per time step") {
  // nn.RNN(128, 256, batch_first=True) on [2, 32, 128] float32, as torch.export records it
  // (aten::rnn_tanh.input). Eager runs cuDNN's persistent kernel; compiled, the decomposition runs
  // (broad:rnn rnn_l1_s32_fp32 measured 32 x (sgemm + split-K reduce + the cell's Triton loop)
  // and one mm of every step's input): here also the input's sequence-major copy, as nothing
  // computes it in a Triton loop it could join.
  auto layer = [](const std::string& name, int64_t gates) {
    GraphBuilder b;
    const int x = b.input({2, 32, 128});
    const int h = b.input({1, 2, 256});
    std::vector<int> params = {weight(b, {gates * 256, 128}), weight(b, {gates * 256, 256}), weight(b, {gates * 256}),
                               weight(b, {gates * 256})};
    b.op(name, {x, h}, {}, {2, 32, 256});
    b.g.ops.back().overload = "input";
    b.name_arg(0, "input");
    b.name_arg(1, "hx");
    b.arg_tensors("params", params);
    b.arg_bool("has_biases", true);
    b.arg_int("num_layers", 1);
    b.arg_bool("train", false);
    b.arg_bool("bidirectional", false);
    b.arg_bool("batch_first", true);
    b.output(b.g.ops.back().outputs[0]);
    return b;
  };
  auto rnn = [&](const std::string& name, int64_t gates) {
    const GraphBuilder b = layer(name, gates);
    const int eager = kc::run_launches(b.g, kc::default_target(), {false, {}})[0].counts.kernels;
    const kc::FusionPlan p = plan(b.g);
    return std::tuple<int, int, int>(kernels(p), eager, transfers(p));
  };
  const auto [compiled, eager, moved] = rnn("aten::rnn_tanh", 1);
  CHECK(eager < 10);
  CHECK(compiled == 1 + 1 + 32 * (2 + 1));
  {
    // Its step GEMM multiplies 2 rows (float32 aligns at 4): kept, the tree's answer, though a
    // compile that pads it runs a pad loop of the hidden state every step (32 kernels more) and
    // the GEMM at 4 rows.
    const kc::FusionPlan p = plan(layer("aten::rnn_tanh", 1).g);
    const int64_t per_step = mm_kernels(4, 256, 256) - mm_kernels(2, 256, 256);
    CHECK(p.timed_more == 32 + 32 * per_step);
    CHECK(p.timed_fewer == 0);
  }
  // Each kernel reads its operands and writes its result: the copy (1 + 1), the input mm (2 + 1),
  // and per step the mm (h and the weight, 2 + 1) and the cell (the two products' slices and the
  // two biases, the new state: 4 + 1).
  CHECK(moved == 2 + 3 + 32 * (3 + 5));
  // A GRU's step GEMM is three times as wide; its cell is one loop too.
  const auto [gru, gru_eager, gru_moved] = rnn("aten::gru", 3);
  CHECK(gru > gru_eager);
  CHECK(gru == compiled);
  CHECK(gru_moved == moved);
}

TEST_CASE("inductor: pad_mm's GEMM is counted at its padded sizes, which can change what cuBLAS launches") {
  // A bfloat16 linear of [1022, 767] by a [1000, 767] weight: eagerly a split-K GEMM and its
  // reduction (K unaligned). Padded (the tree's answer for it), pad_mm multiplies [1024, 768] by a
  // new row-major [768, 1000] buffer: what aten::mm launches on those, beside the two pad loops.
  GraphBuilder b;
  const int x = b.input({1022, 767}, DType::kBFloat16);
  const int w = b.input({1000, 767}, DType::kBFloat16, kc::ValueRole::kParameter);
  b.output(b.op("aten::linear", {x, w}, {}, {1022, 1000}));
  b.name_arg(0, "input");
  b.name_arg(1, "weight");
  const int eager = kc::run_launches(b.g, kc::default_target(), {false, {}})[0].counts.kernels;
  const int padded = mm_kernels(1024, 768, 1000, DType::kBFloat16);
  REQUIRE(eager != padded);  // the case this checks: the padded shape launches differently
  CHECK(kernels(plan(b.g)) == padded + 2);
}

TEST_CASE("inductor: a cat of one tensor repeated is a copy of it read broadcast, not a cat") {
  // Inductor's cat decomposition makes torch.cat([t, t], -1) unsqueeze, expand and clone:
  // (x + y) then 22 exps, repeated, times z is one loop of 27 values (lowering_probe.py: the
  // clone 25, the product one buffer), where a cat's bounds and masked sources would pass 30.
  GraphBuilder b;
  int t = b.pointwise("aten::add", {b.input({256, 32}), b.input({256, 32})});
  for (int k = 0; k < 22; ++k) t = b.pointwise("aten::exp", {t});
  const int y = joined(b, "aten::cat", {t, t}, -1, {256, 64});
  const int cat = b.g.values[y].producer;
  b.output(b.pointwise("aten::mul", {y, b.input({256, 64})}));
  const auto p = plan(b.g);
  CHECK(p.lowering[static_cast<size_t>(cat)].find("one tensor repeated") != std::string::npos);
  CHECK(p.lowering[static_cast<size_t>(cat)].find("inlined into its readers") != std::string::npos);
  CHECK(kernels(p) == 1);
}

TEST_CASE("inductor: a cat a library kernel reads is a ConcatKernel where an input is a loop already in memory") {
  // DINOv3's rotary in float32: cat([prefix of a GEMM's output, rotated rest]) read by a GEMM.
  // With the rest's loop computed into memory (it reads too much), lowering.cat makes a
  // ConcatKernel: that loop is written into its slice and the prefix copied, a kernel more
  // than the one loop a pointwise cat is when the rest is still an expression.
  auto gemm_cat = [](int exps) {
    GraphBuilder b;
    const int y = b.op("aten::mm", {b.input({64, 96}), weight(b, {96, 128})}, {}, {64, 128});
    b.name_arg(0, "self");
    b.name_arg(1, "mat2");
    const int prefix = b.view("aten::slice", y, {64, 32});
    const int rest = b.view("aten::slice", y, {64, 96});
    b.g.values[prefix].strides = b.g.values[rest].strides = {128, 1};
    b.g.values[rest].storage_offset = 32;
    int t = b.pointwise("aten::add", {rest, b.input({64, 96})});
    for (int k = 0; k < exps; ++k) t = b.pointwise("aten::exp", {t});
    const int joined_value = joined(b, "aten::cat", {prefix, t}, 1, {64, 128});
    const int cat = b.g.values[joined_value].producer;
    b.output(b.op("aten::mm", {joined_value, weight(b, {128, 16})}, {}, {64, 16}));
    b.name_arg(0, "self");
    b.name_arg(1, "mat2");
    const auto p = plan(b.g);
    return std::make_pair(p.lowering[static_cast<size_t>(cat)], kernels(p));
  };
  const auto [concat, concat_kernels] = gemm_cat(28);
  const auto [pointwise, pointwise_kernels] = gemm_cat(1);
  CHECK(concat.find("ConcatKernel") != std::string::npos);
  CHECK(pointwise.find("pointwise loop choosing its source") != std::string::npos);
  CHECK(concat_kernels == pointwise_kernels + 1);
}

TEST_CASE("inductor: a pooling window inlined into a reader's loop keeps that loop apart from the pool's input") {
  // PoolFormer's token mixer, x + scale * (avg_pool(x) - x), after a batch norm: the pool is
  // inlined into the add's loop, which reads the norm's buffer through the window at other
  // indices than the norm's loop writes them: two kernels, as EfficientFormer's compiled
  // programs run them (data/results/compiled: efficientformer_l1, l3).
  GraphBuilder b;
  const int x = b.pointwise("aten::add", {b.input({8, 48, 56, 56}), b.input({8, 48, 56, 56})});
  const int r = b.pointwise("aten::relu", {x});
  const int pool = b.op("aten::avg_pool2d", {r}, {}, {8, 48, 56, 56});
  b.arg_ints("kernel_size", {3, 3});
  b.arg_ints("stride", {1, 1});
  b.arg_ints("padding", {1, 1});
  const int diff = b.pointwise("aten::sub", {pool, r});
  const int scaled = b.pointwise("aten::mul", {diff, weight(b, {48, 1, 1})});
  b.output(b.pointwise("aten::add", {r, scaled}));
  const auto p = plan(b.g);
  CHECK(p.lowering[1].find("pooling window") != std::string::npos);
  CHECK(p.group_of[1] != p.group_of[5]);
  CHECK(kernels(p) == 2);
}

TEST_CASE("inductor: an einsum's operand copies are loops of its traced graph, fused with what computes them") {
  // MaxViT's attention: q and k chunked out of one float32 projection with a bias and split into
  // heads, [2, 2, 128, 64] at strides (32768, 64, 256, 1). No view folds batch and heads for the
  // bmm, so at::einsum's reshape clones each (eager: two copies and the bmm). Traced, the clones
  // are pointwise uses of the projection: its bias leaves the call and each clone adds it.
  // `normed`: q and k are instead a layer norm's output, which the clones read out of order, so
  // neither joins the norm's loop.
  auto build = [](bool normed) {
    GraphBuilder b;
    int src = -1;
    if (normed) {
      src = b.reduction("aten::layer_norm", b.input({2, 128, 256}), {2, 128, 256});
      b.arg_ints("normalized_shape", {256});
    } else {
      src = b.op("aten::linear", {b.input({2, 128, 256}), weight(b, {256, 256}), weight(b, {256})}, {}, {2, 128, 256});
      b.name_arg(0, "input");
      b.name_arg(1, "weight");
      b.name_arg(2, "bias");
    }
    std::vector<int> heads;
    for (int i = 0; i < 2; ++i) {
      const int part = b.view("aten::slice", src, {2, 128, 128});
      const int split = b.view("aten::view", part, {2, 128, 2, 64});
      const int moved = b.view("aten::permute", split, {2, 2, 128, 64});
      b.g.values[part].strides = {32768, 256, 1};
      b.g.values[split].strides = {32768, 256, 64, 1};
      b.g.values[moved].strides = {32768, 64, 256, 1};
      for (int v : {part, split, moved}) b.g.values[v].storage_offset = 128 * i;
      heads.push_back(moved);
    }
    b.output(b.op("aten::einsum", {}, {}, {2, 2, 128, 128}));
    b.g.ops.back().args.clear();
    b.arg_text("equation", "bhid,bhjd->bhij");
    b.arg_tensors("tensors", heads);
    return b;
  };
  GraphBuilder projected = build(false);
  const int bmm = rules_only(projected).counts.kernels - 2;  // eager: the two copies, then the bmm
  REQUIRE(bmm >= 1);
  const kc::FusionPlan p = plan(projected.g);
  const int einsum = static_cast<int>(projected.g.ops.size()) - 1;
  REQUIRE(p.group_of[einsum] >= 0);
  CHECK(p.groups[p.group_of[einsum]].fused_kernels == 2 + bmm);
  // The product without its bias: split-K's two kernels (the bias test's 256 x 256 x 256).
  CHECK(kernels(p) == 2 + 2 + bmm);

  GraphBuilder normed = build(true);
  const kc::FusionPlan n = plan(normed.g);
  const int norm = n.group_of[0];
  REQUIRE(norm >= 0);
  CHECK(n.groups[norm].ops == std::vector<int>{0});  // the norm alone in its loop
  CHECK(kernels(n) == n.groups[norm].fused_kernels + 2 + bmm);
}

TEST_CASE("inductor: a permuted copy joins the loop computing its input where both keep as many loop variables") {
  // y = x * s, s broadcast over batch and heads ([1, 8, 1, 64] by [2, 8, 4, 64]): no two of y's
  // dims merge, four loop variables. y is computed into memory (an mm reads it) and a matmul reads
  // it permuted to [2, 4, 8, 64], which no view gives cuBLAS: the copy's loop has four variables
  // too, so Inductor reorders y's loop to it and one kernel writes both. Without s, y's loop
  // merges into one variable, and the copy is a kernel of its own.
  auto triton_kernels = [](bool broadcast) {
    GraphBuilder b;
    const int x = b.input({2, 8, 4, 64});
    const int y = broadcast ? b.pointwise("aten::mul", {x, b.input({1, 8, 1, 64})}) : b.pointwise("aten::exp", {x});
    b.output(b.op("aten::mm", {b.view("aten::view", y, {64, 64}), weight(b, {64, 64})}, {}, {64, 64}));
    const int moved = b.view("aten::permute", y, {2, 4, 8, 64});
    b.g.values[moved].strides = {2048, 64, 256, 1};
    b.output(b.op("aten::matmul", {moved, b.input({2, 4, 64, 8})}, {}, {2, 4, 8, 8}));
    const kc::FusionPlan p = plan(b.g);
    int n = 0;
    for (const auto& grp : p.groups)
      if (grp.kind == "pointwise" || grp.kind == "reduction") n += grp.fused_kernels;
    const int matmul = static_cast<int>(b.g.ops.size()) - 1;
    const int copies = p.groups[p.group_of[matmul]].fused_kernels - 1;  // the extern group holds its copy
    return n + copies;
  };
  CHECK(triton_kernels(true) == 1);
  CHECK(triton_kernels(false) == 2);
}
