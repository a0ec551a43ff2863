// Pass "layout" (run-time strides) and the norm family's rules that read them.
#include <catch2/catch.hpp>

#include "analyzer/error.h"
#include "passes/graph_builder.h"
#include "passes/launches.h"
#include "passes/layout.h"
#include "passes/pipeline.h"
#include "passes/target.h"

using kc::DType;
using kc::test::GraphBuilder;

namespace {
const kc::Target& h200() {
  return kc::default_target();
}
const kc::LaunchOptions kRulesOnly{false, {}};

// conv2d(x, w) with named arguments, as the loader gives them.
int conv(GraphBuilder& b, int x, std::vector<int64_t> w_sizes, std::vector<int64_t> out_sizes) {
  int w = b.input(std::move(w_sizes), b.g.values[x].dtype, kc::ValueRole::kParameter);
  int y = b.op("aten::conv2d", {x, w}, {}, std::move(out_sizes));
  b.name_arg(0, "input");
  b.name_arg(1, "weight");
  return y;
}
int permute(GraphBuilder& b, int x, std::vector<int64_t> dims) {
  std::vector<int64_t> sizes;
  for (int64_t d : dims) sizes.push_back(b.g.values[x].sizes[d]);
  int y = b.view("aten::permute", x, sizes);
  b.arg_ints("dims", dims);
  // The export records a permute of a contiguous tensor.
  std::vector<int64_t> st;
  for (int64_t d : dims) st.push_back(b.g.values[x].strides[d]);
  b.g.values[y].strides = st;
  return y;
}
std::vector<int64_t> cl_strides(int64_t n, int64_t c, int64_t h, int64_t w) {
  return {c * h * w, 1, w * c, c};
}
}  // namespace

TEST_CASE("layout: a conv reading a channels_last input returns channels_last (cudnn_conv_suggest_memory_format)") {
  GraphBuilder b;
  int x = b.strided({2, 96, 56, 56}, cl_strides(2, 96, 56, 56));  // permute of an NHWC tensor
  int y = conv(b, x, {96, 1, 7, 7}, {2, 96, 56, 56});             // recorded contiguous
  kc::Layout l = kc::run_layout(b.g);
  CHECK(l.strides(b.g, y) == cl_strides(2, 96, 56, 56));
  CHECK(l.diverges[y]);
  CHECK_FALSE(l.diverges[x]);
}

TEST_CASE("layout: ConvNeXt block: permute of the conv output is contiguous at run time, layer_norm is 1 kernel") {
  GraphBuilder b;
  int x = b.strided({2, 96, 56, 56}, cl_strides(2, 96, 56, 56));
  int y = conv(b, x, {96, 1, 7, 7}, {2, 96, 56, 56});
  int p = permute(b, y, {0, 2, 3, 1});  // recorded {301056,56,1,3136}
  b.output(b.op("aten::layer_norm", {p}));
  kc::Layout l = kc::run_layout(b.g);
  CHECK(l.strides(b.g, p) == std::vector<int64_t>{301056, 5376, 96, 1});
  CHECK(kc::run_launches(b.g, h200(), kRulesOnly)[2].counts.kernels == 2);      // recorded strides
  CHECK(kc::run_launches(b.g, h200(), kRulesOnly, &l)[2].counts.kernels == 1);  // run-time strides
}

TEST_CASE("layout: an NCHW conv stays NCHW, so the stem's layer_norm keeps its copy (nothing diverges)") {
  GraphBuilder b;
  int x = b.input({2, 3, 224, 224});
  int y = conv(b, x, {96, 3, 4, 4}, {2, 96, 56, 56});
  int p = permute(b, y, {0, 2, 3, 1});
  b.output(b.op("aten::layer_norm", {p}));
  kc::Layout l = kc::run_layout(b.g);
  CHECK(l.diverging == 0);
  CHECK(kc::run_launches(b.g, h200(), kRulesOnly, &l)[2].counts.kernels == 2);
}

TEST_CASE("layout: pointwise ops follow TensorIterator's permutation of their inputs") {
  GraphBuilder b;
  int x = b.strided({2, 64, 8, 8}, cl_strides(2, 64, 8, 8));
  int y = conv(b, x, {64, 64, 1, 1}, {2, 64, 8, 8});
  int gamma = b.input({64, 1, 1});
  int m = b.pointwise("aten::mul", {gamma, y});  // broadcast gamma first: y decides
  b.g.values[m].sizes = {2, 64, 8, 8};
  b.g.values[m].strides = {4096, 64, 8, 1};
  int c = b.input({2, 64, 8, 8});
  int a = b.pointwise("aten::add", {c, m});  // contiguous first operand decides
  kc::Layout l = kc::run_layout(b.g);
  CHECK(l.strides(b.g, m) == cl_strides(2, 64, 8, 8));
  CHECK(l.strides(b.g, a) == std::vector<int64_t>{4096, 64, 8, 1});
}

TEST_CASE("layout: flatten+transpose of a channels_last conv output (Twins/PVT/SegFormer) is contiguous") {
  GraphBuilder b;
  int x = b.strided({2, 32, 7, 7}, cl_strides(2, 32, 7, 7));
  int y = conv(b, x, {32, 32, 3, 3}, {2, 32, 7, 7});
  int f = b.view("aten::reshape", y, {2, 32, 49});
  int t = b.view("aten::transpose", f, {2, 49, 32});
  b.g.values[t].strides = {1568, 1, 49};
  kc::Arg d0, d1;
  d0.name = "dim0", d0.kind = kc::Arg::Kind::kInt, d0.ints = {1};
  d1.name = "dim1", d1.kind = kc::Arg::Kind::kInt, d1.ints = {2};
  b.g.ops.back().args.push_back(d0);
  b.g.ops.back().args.push_back(d1);
  b.output(b.op("aten::layer_norm", {t}));
  kc::Layout l = kc::run_layout(b.g);
  CHECK(l.strides(b.g, f) == std::vector<int64_t>{1568, 1, 32});
  CHECK(l.strides(b.g, t) == std::vector<int64_t>{1568, 32, 1});
  CHECK(kc::run_launches(b.g, h200(), kRulesOnly, &l)[3].counts.kernels == 1);
}

TEST_CASE("layout: a reshape no view fits copies to contiguous; layer_norm/linear outputs are contiguous") {
  GraphBuilder b;
  int x = b.strided({2, 8, 4, 4}, cl_strides(2, 8, 4, 4));
  int y = conv(b, x, {8, 8, 1, 1}, {2, 8, 4, 4});
  int r = b.view("aten::reshape", y, {2, 4, 32});  // merges C with H: impossible on NHWC
  int n = b.op("aten::layer_norm", {b.view("aten::alias", y, {2, 8, 4, 4})});
  kc::Layout l = kc::run_layout(b.g);
  CHECK(l.strides(b.g, r) == std::vector<int64_t>{128, 32, 1});
  CHECK(l.strides(b.g, n) == std::vector<int64_t>{128, 16, 4, 1});
}

TEST_CASE("layout: attention's output is [B, S, H, D] in memory when fused, contiguous on the math path") {
  // Recorded as the CPU's math path wrote it (contiguous): on the GPU the fused kernel's output
  // makes transpose(1, 2) + reshape a view, not a copy.
  GraphBuilder b;
  int q = b.input({4, 6, 197, 64}), k = b.input({4, 6, 197, 64}), v = b.input({4, 6, 197, 64});
  int o = b.op("aten::scaled_dot_product_attention", {q, k, v}, {}, {4, 6, 197, 64});
  b.name_arg(0, "query");
  b.name_arg(1, "key");
  b.name_arg(2, "value");
  const kc::Layout fused = kc::run_layout(b.g);
  CHECK(fused.strides(b.g, o) == std::vector<int64_t>{197 * 6 * 64, 64, 6 * 64, 1});
  // bf16 (cuDNN attention) follows the query's dim order: contiguous here, as recorded.
  GraphBuilder h;
  int hq = h.input({4, 6, 197, 64}, DType::kBFloat16), hk = h.input({4, 6, 197, 64}, DType::kBFloat16),
      hv = h.input({4, 6, 197, 64}, DType::kBFloat16);
  int ho = h.op("aten::scaled_dot_product_attention", {hq, hk, hv}, {}, {4, 6, 197, 64});
  CHECK(kc::run_layout(h.g).strides(h.g, ho) == std::vector<int64_t>{6 * 197 * 64, 197 * 64, 64, 1});
  // Heads read across a transposed activation: the math path, contiguous output.
  GraphBuilder m;
  const std::vector<int64_t> shape{2, 4, 49, 32}, strides{6272, 1568, 1, 49};
  int mq = m.strided(shape, strides), mk = m.strided(shape, strides), mv = m.strided(shape, strides);
  int mo = m.op("aten::scaled_dot_product_attention", {mq, mk, mv}, {}, shape);
  m.g.values[mo].strides = {6272, 32, 128, 1};  // as a fused run would record it
  const kc::Layout math = kc::run_layout(m.g);
  CHECK(math.strides(m.g, mo) == std::vector<int64_t>{6272, 1568, 32, 1});
}

namespace {
// torchvision's MultiheadAttention as exported on the CPU: a query read as heads of an [S, B, E]
// activation ([B, H, S, D] with [S, B, H, D] strides), attention, permute(2, 0, 1, 3) and a view
// to [S * B, E] that the CPU's output layout allows. Returns the view's op index.
int mha_tail(GraphBuilder& b, DType dt) {
  const int64_t B = 32, H = 12, S = 50, D = 64;
  const std::vector<int64_t> shape{B, H, S, D}, sbhd{H * D, D, B * H * D, 1};
  int q = b.strided(shape, sbhd, dt), k = b.strided(shape, sbhd, dt), v = b.strided(shape, sbhd, dt);
  int o = b.op("aten::scaled_dot_product_attention", {q, k, v}, {}, shape);
  b.name_arg(0, "query");
  b.name_arg(1, "key");
  b.name_arg(2, "value");
  b.g.values[o].strides = sbhd;  // as the CPU wrote it
  int p = permute(b, o, {2, 0, 1, 3});
  b.view("aten::view", p, {S * B, H * D});
  return static_cast<int>(b.g.ops.size()) - 1;
}
}  // namespace

TEST_CASE("layout: a dense query's strides are cuDNN attention's output strides (alloc_with_matching_layout)") {
  GraphBuilder b;
  mha_tail(b, DType::kBFloat16);
  const kc::Layout l = kc::run_layout(b.g);
  CHECK(l.diverging == 0);
  CHECK(l.failing_views.empty());
}

TEST_CASE("layout: a view the GPU's strides do not allow is a failing view, with the input's run-time strides") {
  // f32 runs the memory-efficient kernel, whose [B, S, H, D] output the permute cannot merge.
  GraphBuilder b;
  const int view = mha_tail(b, DType::kFloat32);
  const kc::Layout l = kc::run_layout(b.g);
  REQUIRE(l.failing_views.size() == 1);
  CHECK(l.failing_views[0].op == view);
  CHECK(l.failing_views[0].sizes == std::vector<int64_t>{50, 32, 12, 64});
  CHECK(l.failing_views[0].strides == std::vector<int64_t>{768, 50 * 768, 64, 1});
  // A reshape copies where the view fails: not a failure.
  GraphBuilder r;
  mha_tail(r, DType::kFloat32);
  r.g.ops.back().name = "aten::reshape";
  CHECK(kc::run_layout(r.g).failing_views.empty());
}

TEST_CASE("layout: the pipeline runs it and checks ranks; an empty graph has nothing to diverge") {
  GraphBuilder b;
  int x = b.input({4, 4});
  b.output(b.pointwise("aten::relu", {x}));
  kc::Report r = kc::analyze(b.g, h200());
  CHECK(r.layout.diverges.size() == b.g.values.size());
  CHECK(r.layout.runtime.empty());
  CHECK(r.layout.diverging == 0);
}

TEST_CASE("layout: channels_last_strides is ATen's is_channels_last_strides_2d") {
  CHECK(kc::channels_last_strides({2, 96, 56, 56}, cl_strides(2, 96, 56, 56)));
  CHECK_FALSE(kc::channels_last_strides({2, 96, 56, 56}, {301056, 3136, 56, 1}));
  CHECK_FALSE(kc::channels_last_strides({2, 1, 1, 1}, {1, 1, 1, 1}));  // ambiguous N111: NCHW
  CHECK_FALSE(kc::channels_last_strides({2, 3, 4}, {12, 4, 1}));       // only 4-D/5-D
}

namespace {
kc::Launch norm(GraphBuilder& b, const std::string& name, int x, bool training = false, DType wdt = DType::kUnknown) {
  std::vector<int> ins = {x};
  if (wdt != DType::kUnknown)
    ins.push_back(b.input({b.g.values[x].sizes.size() > 1 ? b.g.values[x].sizes[1] : 1}, wdt));
  b.op(name, ins);
  b.name_arg(0, "input");
  if (wdt != DType::kUnknown) b.name_arg(1, "weight");
  b.arg_bool("training", training);
  return kc::run_launches(b.g, h200(), kRulesOnly).back();
}
}  // namespace

TEST_CASE("norm: batch_norm eval f32 is one cuDNN kernel on 3-D+, native 2/1/0 on [N, C]") {
  GraphBuilder b;
  CHECK(norm(b, "aten::batch_norm", b.input({2, 64, 56, 56}), false, DType::kFloat32).counts.kernels == 1);
  CHECK(norm(b, "aten::batch_norm", b.strided({2, 64, 8, 8}, cl_strides(2, 64, 8, 8)), false, DType::kFloat32)
            .counts.kernels == 1);
  auto sliced = norm(b, "aten::batch_norm", b.strided({2, 64, 16, 16}, {36864, 256, 16, 1}), false, DType::kFloat32);
  CHECK(sliced.counts.kernels == 2);  // copied before cuDNN
  auto bn1d = norm(b, "aten::batch_norm", b.input({392, 256}), false, DType::kFloat32);
  CHECK(bn1d.counts.kernels == 2);
  CHECK(bn1d.counts.memcpy == 1);
}

TEST_CASE("norm: batch_norm eval bf16: 3 kernels with bf16 weights, 2/1/0 with f32 weights") {
  GraphBuilder b;
  CHECK(norm(b, "aten::batch_norm", b.input({2, 64, 8, 8}, DType::kBFloat16), false, DType::kBFloat16).counts.kernels ==
        3);
  auto mixed = norm(b, "aten::batch_norm", b.input({2, 64, 8, 8}, DType::kBFloat16), false, DType::kFloat32);
  CHECK(mixed.counts.kernels == 2);
  CHECK(mixed.counts.memcpy == 1);
}

TEST_CASE("norm: batch_norm with batch statistics (training=True) and instance_norm are 3 kernels") {
  GraphBuilder b;
  auto train = norm(b, "aten::batch_norm", b.input({2, 64, 32}), true, DType::kFloat32);
  CHECK(train.rule == "batch_norm.train");
  CHECK(train.counts.kernels == 3);
  CHECK(norm(b, "aten::instance_norm", b.input({2, 32, 64, 64})).counts.kernels == 3);
}

TEST_CASE("norm: group_norm and softmax copy a non-contiguous input first") {
  GraphBuilder b;
  // No weight and no bias: moments + elementwise (2); with them, + the fused parameters (3).
  CHECK(norm(b, "aten::group_norm", b.input({2, 48, 7, 7})).counts.kernels == 2);
  CHECK(norm(b, "aten::group_norm", b.strided({2, 48, 7, 7}, cl_strides(2, 48, 7, 7))).counts.kernels == 3);
  CHECK(norm(b, "aten::softmax", b.input({2, 6, 196, 81})).counts.kernels == 1);
  CHECK(norm(b, "aten::softmax", b.strided({2, 6, 196, 9, 9}, {95256, 81, 486, 9, 1})).counts.kernels == 2);
  CHECK(norm(b, "aten::rms_norm", b.strided({2, 56, 56, 96}, {301056, 56, 1, 3136})).counts.kernels == 2);
}

TEST_CASE("norm: group_norm with one element per channel applies weight and bias in its elementwise kernel") {
  GraphBuilder b;
  // HxW = 1 (a [N, C] input): moments + GroupNorm1dForward, no fused parameters, weight or not.
  CHECK(norm(b, "aten::group_norm", b.input({1, 3}), false, DType::kFloat32).counts.kernels == 2);
  CHECK(norm(b, "aten::group_norm", b.input({2, 6, 1}), false, DType::kFloat32).counts.kernels == 2);
  CHECK(norm(b, "aten::group_norm", b.input({2, 6, 3}), false, DType::kFloat32).counts.kernels == 3);
  // A batch of none returns before launching.
  CHECK(norm(b, "aten::group_norm", b.input({0, 6, 3}), false, DType::kFloat32).counts.kernels == 0);
}

TEST_CASE("norm: rank-0 and rank-1 inputs to batch_norm / instance_norm are refused, never guessed") {
  GraphBuilder b;
  CHECK_THROWS_AS(norm(b, "aten::batch_norm", b.input({}), false, DType::kFloat32), kc::OpError);
  CHECK_THROWS_AS(norm(b, "aten::batch_norm", b.input({7}), true), kc::OpError);
  CHECK_THROWS(norm(b, "aten::instance_norm", b.input({7})).known);
  GraphBuilder c;
  int x = c.input({});
  c.output(c.op("aten::conv2d", {x, c.input({})}));
  CHECK(kc::run_layout(c.g).diverging == 0);
}

TEST_CASE("layout: cat of one channels_last tensor keeps its format: a memcpy, not a copy kernel") {
  GraphBuilder b;
  int x = b.strided({2, 128, 28, 28}, cl_strides(2, 128, 28, 28));
  int y = conv(b, x, {128, 128, 1, 1}, {2, 128, 28, 28});
  kc::Op cat;
  cat.name = "aten::cat";
  kc::Arg ts;
  ts.name = "tensors";
  ts.kind = kc::Arg::Kind::kTensorList;
  ts.tensors = {y};
  cat.args = {ts};
  kc::Value out = b.g.values[y];
  cat.outputs = {b.g.add_value(out)};
  b.g.ops.push_back(cat);
  kc::Layout l = kc::run_layout(b.g);
  auto launches = kc::run_launches(b.g, h200(), kRulesOnly, &l);
  CHECK(launches[1].counts.memcpy == 1);
  CHECK(launches[1].counts.kernels == 0);
}
