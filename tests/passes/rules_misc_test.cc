// The H200 rules of the misc family: recurrent layers and the ops outside conv, GEMM,
// attention and norms.
#include <catch2/catch.hpp>

#include "passes/graph_builder.h"
#include "passes/launches.h"
#include "passes/target.h"

using kc::Arg;
using kc::DType;
using kc::test::GraphBuilder;

namespace {

const kc::Target& h200() {
  return kc::default_target();
}

// The rules alone, without the measured table.
kc::Launch last(const GraphBuilder& b) {
  kc::LaunchOptions rules_only;
  rules_only.use_measured = false;
  return kc::run_launches(b.g, h200(), rules_only).back();
}

Arg int_arg(const std::string& name, int64_t v) {
  Arg a;
  a.name = name;
  a.kind = Arg::Kind::kInt;
  a.ints = {v};
  return a;
}
Arg bool_arg(const std::string& name, bool v) {
  Arg a = int_arg(name, v);
  a.kind = Arg::Kind::kBool;
  return a;
}
Arg list_arg(const std::string& name, std::vector<int> vs) {
  Arg a;
  a.name = name;
  a.kind = Arg::Kind::kTensorList;
  a.tensors = std::move(vs);
  return a;
}

struct RnnCall {
  std::string op = "aten::lstm";
  int64_t layers = 1;
  bool bidirectional = false;
  bool batch_first = true;
  int64_t batch = 2, seq = 32, input = 128, hidden = 256;
  DType dtype = DType::kBFloat16;
  bool flat = false;  // the weights as views of one buffer (flatten_parameters(), as a trace saves them)
};

// aten::<op>.input as torch.export records it: input, hx, params (w_ih, w_hh, b_ih, b_hh per
// layer and direction), has_biases, num_layers, dropout, train, bidirectional, batch_first.
kc::Launch rnn(const RnnCall& c) {
  GraphBuilder b;
  const int64_t gates = c.op == "aten::lstm" ? 4 : c.op == "aten::gru" ? 3 : 1;
  const int64_t d = c.bidirectional ? 2 : 1;
  std::vector<int64_t> xs =
      c.batch_first ? std::vector<int64_t>{c.batch, c.seq, c.input} : std::vector<int64_t>{c.seq, c.batch, c.input};
  int x = b.input(xs, c.dtype);
  int h = b.input({c.layers * d, c.batch, c.hidden}, c.dtype);
  std::vector<int> params;
  for (int64_t l = 0; l < c.layers; ++l)
    for (int64_t dir = 0; dir < d; ++dir) {
      const int64_t in = l == 0 ? c.input : c.hidden * d;
      params.push_back(b.input({gates * c.hidden, in}, c.dtype, kc::ValueRole::kParameter));
      params.push_back(b.input({gates * c.hidden, c.hidden}, c.dtype, kc::ValueRole::kParameter));
      params.push_back(b.input({gates * c.hidden}, c.dtype, kc::ValueRole::kParameter));
      params.push_back(b.input({gates * c.hidden}, c.dtype, kc::ValueRole::kParameter));
    }
  int64_t offset = 0;
  for (int p : params)
    if (c.flat) {
      b.g.values[p].storage = 0;
      b.g.values[p].storage_offset = offset;
      offset += b.g.values[p].numel();
    }
  b.op(c.op, {x}, {}, {c.batch, c.seq, c.hidden * d});
  kc::Op& op = b.g.ops.back();
  op.overload = "input";
  op.args[0].name = "input";
  op.args.push_back(c.op == "aten::lstm" ? list_arg("hx", {h, h}) : Arg::tensor("hx", h));
  op.args.push_back(list_arg("params", params));
  op.args.push_back(bool_arg("has_biases", true));
  op.args.push_back(int_arg("num_layers", c.layers));
  op.args.push_back(bool_arg("train", false));
  op.args.push_back(bool_arg("bidirectional", c.bidirectional));
  op.args.push_back(bool_arg("batch_first", c.batch_first));
  return last(b);
}

}  // namespace

TEST_CASE("rnn: weights already one flat buffer are read in place: no fill, no copies") {
  RnnCall c;
  c.dtype = DType::kFloat32;
  const kc::Counts separate = rnn(c).counts;
  c.flat = true;
  const kc::Counts flat = rnn(c).counts;
  CHECK(separate.memcpy == 4);
  CHECK(flat.memcpy == 0);
  CHECK(flat.kernels == separate.kernels - 1);
}

TEST_CASE("rnn: bf16 runs two kernels per step, layer and direction, plus its weight copies") {
  // broad:rnn lstm_l2_bi_s64_bf16: 518/16/0 = input copy + buffer fill + 2*2*2*64 + 4 input GEMMs.
  RnnCall c;
  c.layers = 2;
  c.bidirectional = true;
  c.seq = 64;
  auto l = rnn(c);
  REQUIRE(l.known);
  CHECK(l.rule == "rnn.cudnn");
  CHECK(l.counts.kernels == 518);
  CHECK(l.counts.memcpy == 16);
  CHECK(l.counts.memset == 0);
}

TEST_CASE("rnn: unidirectional stacks run their input GEMMs in chunks of time steps") {
  // broad:rnn gru_l2_s64 266/8/0 (4 chunks per layer); rnn_tanh at the same shape 274 (8 chunks).
  RnnCall c;
  c.layers = 2;
  c.seq = 64;
  c.op = "aten::gru";
  CHECK(rnn(c).counts.kernels == 266);
  c.op = "aten::rnn_tanh";
  CHECK(rnn(c).counts.kernels == 274);
}

TEST_CASE("rnn: f32 with a small hidden size runs cuDNN's persistent kernels, whatever the length") {
  // broad:sequencer f32 LSTM H=48 bidirectional: 6/8/0; broad:rnn rnn_tanh H=256 (<= 384): 4/4/0.
  RnnCall c;
  c.dtype = DType::kFloat32;
  c.bidirectional = true;
  c.batch = 64;
  c.seq = 32;
  c.input = 192;
  c.hidden = 48;
  auto l = rnn(c);
  CHECK(l.counts.kernels == 6);
  CHECK(l.counts.memcpy == 8);
  c.seq = 128;
  CHECK(rnn(c).counts.kernels == 6);
  RnnCall t;
  t.op = "aten::rnn_tanh";
  t.dtype = DType::kFloat32;
  CHECK(rnn(t).counts.kernels == 4);
  // LSTM at H=256 is past the persistent limit: per-step kernels (broad:rnn lstm_l1_s32_fp32 67).
  t.op = "aten::lstm";
  CHECK(rnn(t).counts.kernels == 67);
}

TEST_CASE("rnn: a sequence-major contiguous input needs no copy") {
  RnnCall c;
  c.batch_first = false;
  CHECK(rnn(c).counts.kernels == 66);  // fill + 2*32 + 1 input GEMM
  c.batch_first = true;
  CHECK(rnn(c).counts.kernels == 67);
}

TEST_CASE("rnn: shapes the rule was not checked on stay unknown") {
  RnnCall c;
  c.dtype = DType::kFloat16;
  CHECK_FALSE(rnn(c).known);
  // The default overload without the schema's arguments (or a packed sequence) is not matched.
  GraphBuilder b;
  int x = b.input({16, 64, 256});
  b.op("aten::lstm", {x});
  CHECK_FALSE(last(b).known);
  // A rank-2 input (an unbatched sequence) is not matched either.
  GraphBuilder u;
  int y = u.input({16, 256});
  u.op("aten::gru", {y});
  u.g.ops.back().overload = "input";
  u.g.ops.back().args.push_back(list_arg("params", {}));
  CHECK_FALSE(last(u).known);
}

namespace {

// The last op of `b` with its overload set and its i-th argument renamed.
kc::Op& last_op(GraphBuilder& b) {
  return b.g.ops.back();
}

}  // namespace

TEST_CASE("where with Python scalars fills a 0-d tensor per scalar; with tensors it is one kernel") {
  GraphBuilder b;
  int c = b.input({2, 1, 128, 128}, DType::kBool), self = b.input({2, 1, 128, 128});
  b.op("aten::where", {c, self}, {}, {2, 1, 128, 128}, DType::kFloat32);
  b.name_arg(0, "condition");
  b.name_arg(1, "self");
  last_op(b).overload = "ScalarOther";
  CHECK(last(b).counts.kernels == 2);
  last_op(b).overload = "Scalar";
  CHECK(last(b).counts.kernels == 3);
  // A complex number beside a real tensor promotes the result: the tensor is converted first
  // (TensorCompare.cpp: other.to(result_type)), one kernel more.
  for (DType x_dtype : {DType::kComplex64, DType::kFloat32}) {
    GraphBuilder z;
    int cz = z.input({1, 10, 3}, DType::kBool), x = z.input({1, 3}, x_dtype);
    z.op("aten::where", {cz}, {}, {1, 10, 3}, DType::kComplex64);
    last_op(z).overload = "ScalarSelf";
    kc::Arg two_i;
    two_i.name = "self";
    two_i.kind = kc::Arg::Kind::kComplex;
    two_i.floats = {0.0, 2.0};
    last_op(z).args.push_back(two_i);
    last_op(z).args.push_back(kc::Arg::tensor("other", x));
    CAPTURE(kc::dtype_name(x_dtype));
    CHECK(last(z).counts.kernels == (x_dtype == DType::kFloat32 ? 3 : 2));
  }
  GraphBuilder t;
  int c2 = t.input({8, 8}, DType::kBool), x = t.input({8, 8}), y = t.input({8, 8});
  t.pointwise("aten::where", {c2, x, y});
  t.g.ops.back().overload = "self";
  CHECK(last(t).rule == "pointwise");
  CHECK(last(t).counts.kernels == 1);
}

TEST_CASE("matrix_power with n = 0 builds the identity even for an empty batch") {
  GraphBuilder b;
  b.op("aten::linalg_matrix_power", {b.input({0, 2, 2})}, {}, {0, 2, 2});
  b.arg_int("n", 0);
  CHECK(last(b).rule == "matrix_power.zero_of_nothing");
  CHECK(last(b).counts.kernels == 2);
  GraphBuilder two;  // n = 2 of nothing: nothing to multiply
  two.op("aten::linalg_matrix_power", {two.input({0, 2, 2})}, {}, {0, 2, 2});
  two.arg_int("n", 2);
  CHECK(last(two).counts.kernels == 0);
}

TEST_CASE("fill_ of a tensor with no elements launches nothing") {
  GraphBuilder b;
  int x = b.input({0, 7, 7});
  b.op("aten::fill_", {x});
  CHECK(last(b).known);
  CHECK(last(b).counts.kernels == 0);
  GraphBuilder n;
  int y = n.input({4, 4});
  n.op("aten::fill_", {y});
  CHECK(last(n).counts.kernels == 1);
}

TEST_CASE("cat of rank-5 results copies each input; rank <= 4 is one batched kernel") {
  GraphBuilder b;
  int a = b.input({1, 64, 8, 28, 28}), c = b.input({1, 32, 8, 28, 28});
  b.op("aten::cat", {}, {}, {1, 96, 8, 28, 28});
  last_op(b).args = {[&] {
                       Arg t;
                       t.name = "tensors";
                       t.kind = Arg::Kind::kTensorList;
                       t.tensors = {a, c};
                       return t;
                     }(),
                     int_arg("dim", 1)};
  auto l = last(b);
  CHECK(l.counts.kernels == 0);
  CHECK(l.counts.memcpy == 2);  // dense slices (batch 1): memcpy each (broad:s3d 0/4/0)
  // stack of two rank-4 tensors on the last dim: a rank-5 result, a copy kernel per input.
  GraphBuilder s;
  int p = s.input({2, 3, 256, 32}), q = s.input({2, 3, 256, 32});
  s.op("aten::stack", {}, {}, {2, 3, 256, 32, 2});
  s.g.ops.back().args = {list_arg("tensors", {p, q}), int_arg("dim", -1)};
  CHECK(last(s).counts.kernels == 2);
  // Stacking the same tensors at dim 1 is a cat at dim 1 viewed to rank 5: one kernel.
  GraphBuilder s1;
  int p1 = s1.input({2, 64, 56, 56}), q1 = s1.input({2, 64, 56, 56});
  s1.op("aten::stack", {}, {}, {2, 2, 64, 56, 56});
  s1.g.ops.back().args = {list_arg("tensors", {p1, q1}), int_arg("dim", 1)};
  CHECK(last(s1).counts.kernels == 1);
  // The same stack of rank-3 tensors stays within rank 4: one kernel.
  GraphBuilder s3;
  int u = s3.input({8, 128, 64}), v = s3.input({8, 128, 64});
  s3.op("aten::stack", {}, {}, {8, 128, 64, 2});
  s3.g.ops.back().args = {list_arg("tensors", {u, v}), int_arg("dim", -1)};
  CHECK(last(s3).counts.kernels == 1);
}

TEST_CASE("cat counts empty inputs: a legacy [0] beside one 2-D input is still the batched kernel") {
  GraphBuilder b;
  int e = b.input({0}), x = b.input({5, 5});
  b.op("aten::cat", {}, {}, {5, 5});
  b.g.ops.back().args = {list_arg("tensors", {x, e}), int_arg("dim", 0)};
  CHECK(last(b).counts.kernels == 1);
  CHECK(last(b).counts.memcpy == 0);
  // Every input empty: an empty result, nothing launched.
  GraphBuilder n;
  int e1 = n.input({0}), e2 = n.input({0});
  n.op("aten::cat", {}, {}, {0});
  n.g.ops.back().args = {list_arg("tensors", {e1, e2}), int_arg("dim", 0)};
  CHECK(last(n).counts.kernels == 0);
  CHECK(last(n).counts.memcpy == 0);
}

TEST_CASE("copy_ of a region onto itself is free; between different tensors it copies") {
  GraphBuilder b;
  int x = b.input({2, 4, 16, 16});
  kc::OpTraits view;
  view.view = true;
  kc::OpTraits inplace;
  inplace.inplace = true;
  auto slice = [&](int in) {
    int s = b.op("aten::slice", {in}, view, {2, 4, 15, 16});
    b.g.ops.back().overload = "Tensor";
    b.g.ops.back().args.push_back(int_arg("dim", 2));
    b.g.ops.back().args.push_back(int_arg("start", 1));
    b.g.values[s].strides = {1024, 256, 16, 1};
    return s;
  };
  int y = b.input({2, 4, 15, 16});
  int updated = b.op("aten::add_", {slice(x), y}, inplace);
  b.g.values[updated].strides = {1024, 256, 16, 1};  // an in-place result keeps its input's layout
  int dst = slice(x);
  b.op("aten::copy_", {dst, updated});
  CHECK(last(b).known);
  CHECK(last(b).counts.kernels + last(b).counts.memcpy == 0);
  // A copy into a fresh dense tensor of the same layout is a memcpy.
  GraphBuilder m;
  int d = m.input({2, 4, 196, 196}), src = m.input({2, 4, 196, 196});
  m.op("aten::copy_", {d, src});
  CHECK(last(m).counts.memcpy == 1);
  CHECK(last(m).counts.kernels == 0);
}

TEST_CASE("type_as to the same dtype returns its input; to another dtype converts") {
  GraphBuilder b;
  int x = b.input({2, 128, 256}), o = b.input({2, 128, 256});
  b.op("aten::type_as", {x, o});
  CHECK(last(b).counts.kernels == 0);
  GraphBuilder h;
  int hx = h.input({2, 128, 256}), ho = h.input({2, 128, 256}, DType::kBFloat16);
  h.op("aten::type_as", {hx, ho}, {}, {}, DType::kBFloat16);
  CHECK(last(h).counts.kernels == 1);
}

TEST_CASE("index with host index tensors copies each to the device first") {
  GraphBuilder b;
  int table = b.input({27, 96});
  int idx = b.input({14, 7}, DType::kInt64);
  b.g.values[idx].placement = kc::Placement::kHost;
  b.op("aten::index", {table}, {}, {14, 7, 96});
  last_op(b).overload = "Tensor";
  last_op(b).args.push_back(list_arg("indices", {idx}));
  auto l = last(b);
  CHECK(l.counts.kernels == 1);
  CHECK(l.counts.memcpy == 1);
  b.g.values[idx].placement = kc::Placement::kDevice;
  CHECK(last(b).counts.memcpy == 0);
}

TEST_CASE("embedding copies indices no view can flatten (expanded token type ids)") {
  GraphBuilder b;
  int w = b.input({2, 256});
  int ids = b.strided({2, 128}, {0, 1}, DType::kInt64);
  b.op("aten::embedding", {w, ids}, {}, {2, 128, 256});
  b.name_arg(0, "weight");
  b.name_arg(1, "indices");
  CHECK(last(b).counts.kernels == 2);
  b.g.values[ids].strides = {128, 1};
  CHECK(last(b).counts.kernels == 1);
}

TEST_CASE("scans cast to the result dtype first; a scan over every element runs cub's two kernels") {
  GraphBuilder b;
  int m = b.input({2, 128}, DType::kBool);
  b.op("aten::cumsum", {m}, {}, {2, 128}, DType::kInt64);
  last_op(b).args.push_back(int_arg("dim", -1));
  CHECK(last(b).counts.kernels == 2);
  GraphBuilder f;
  int x = f.input({2, 128});
  f.op("aten::cumsum", {x});
  f.g.ops.back().args.push_back(int_arg("dim", 1));
  CHECK(last(f).counts.kernels == 1);
  GraphBuilder w;
  int v = w.input({1000000});
  w.op("aten::cumsum", {v});
  w.g.ops.back().args.push_back(int_arg("dim", 0));
  CHECK(last(w).counts.kernels == 2);
}

TEST_CASE("scans: only a 0-d input is copied; one element of rank 1 is still cub's scan") {
  GraphBuilder z;
  z.op("aten::cumprod", {z.input({})}, {}, std::vector<int64_t>{});
  CHECK(last(z).counts.memcpy == 1);
  CHECK(last(z).counts.kernels == 0);
  GraphBuilder one;
  one.op("aten::cumprod", {one.input({1})}, {}, {1});
  CHECK(last(one).counts.kernels == 2);
  CHECK(last(one).counts.memcpy == 0);
  GraphBuilder col;
  col.op("aten::cumsum", {col.input({5, 1})}, {}, {5, 1});
  col.arg_int("dim", 1);
  CHECK(last(col).counts.kernels == 1);
}

TEST_CASE("roll launches one kernel per rolled dim") {
  GraphBuilder b;
  int x = b.input({1, 8, 14, 14, 384});
  b.op("aten::roll", {x});
  b.arg_ints("shifts", {0, 3, 3});
  b.arg_ints("dims", {1, 2, 3});
  CHECK(last(b).counts.kernels == 3);
}

TEST_CASE("pad: zero amounts copy, constant fills then copies, reflect is one kernel, circular copies per side") {
  auto pad = [](std::vector<int64_t> amounts, const std::string& mode, std::vector<int64_t> sizes = {2, 64, 56, 56}) {
    GraphBuilder b;
    int x = b.input(sizes);
    std::vector<int64_t> out = sizes;  // (left, right) pairs from the last dim inwards
    for (size_t i = 0; i + 1 < amounts.size(); i += 2) out[out.size() - 1 - i / 2] += amounts[i] + amounts[i + 1];
    b.op("aten::pad", {x}, {}, out);
    b.arg_ints("pad", amounts);
    Arg m;
    m.name = "mode";
    m.kind = Arg::Kind::kString;
    m.text = mode;
    b.g.ops.back().args.push_back(m);
    return last(b);
  };
  CHECK(pad({0, 0, 0, 0}, "constant").counts.memcpy == 1);
  CHECK(pad({1, 1, 1, 1}, "constant").counts.kernels == 2);
  // A row of a batch of one copied into the filled result is one dense block: a memcpy.
  const kc::Counts row = pad({1, 2}, "constant", {1, 3}).counts;
  CHECK(row.kernels == 1);
  CHECK(row.memcpy == 1);
  CHECK(pad({-1, -1, 0, 0}, "constant").counts.kernels == 1);
  CHECK(pad({1, 1, 1, 1}, "reflect").counts.kernels == 1);
  // Circular: the centre, then one copy per padded side.
  CHECK(pad({1, 1, 1, 1}, "circular").counts.kernels == 5);
  CHECK(pad({1, 0, 2, 0}, "circular").counts.kernels == 3);
  // Zero amounts clone the input in its own layout: channels last and dense is still one memcpy
  // (broad:davit), a transposed view a copy kernel.
  auto zero_pad = [](std::vector<int64_t> sizes, std::vector<int64_t> strides) {
    GraphBuilder b;
    int x = b.strided(sizes, strides);
    b.op("aten::pad", {x});
    b.arg_ints("pad", {0, 0, 0, 0});
    return last(b).counts;
  };
  const kc::Counts cl = zero_pad({2, 192, 28, 28}, {150528, 1, 5376, 192});
  CHECK(cl.memcpy == 1);
  CHECK(cl.kernels == 0);
  CHECK(zero_pad({2, 192, 28, 28}, {150528, 784, 1, 28}).kernels == 1);
}

TEST_CASE("pad: an empty input is only the fill; a crop clones the narrowed view, one block when dense") {
  auto constant_pad = [](std::vector<int64_t> sizes, std::vector<int64_t> amounts, std::vector<int64_t> out) {
    GraphBuilder b;
    b.op("aten::constant_pad_nd", {b.input(sizes)}, {}, out);
    b.arg_ints("pad", amounts);
    return last(b).counts;
  };
  const kc::Counts empty = constant_pad({0, 3, 3}, {1, 1, 1, 1, 1, 1}, {2, 5, 5});
  CHECK(empty.kernels == 1);
  CHECK(empty.memcpy == 0);
  // Cropping rows of a row-major tensor leaves a dense view: one memcpy; cropping columns, a kernel.
  const kc::Counts rows = constant_pad({5, 3}, {0, 0, -1, -2}, {2, 3});
  CHECK(rows.kernels == 0);
  CHECK(rows.memcpy == 1);
  const kc::Counts cols = constant_pad({5, 3}, {-1, 0}, {5, 2});
  CHECK(cols.kernels == 1);
  CHECK(cols.memcpy == 0);
}

TEST_CASE("im2col runs a kernel per batch element and copies the input over when the result outgrows it") {
  GraphBuilder b;
  int x = b.input({2, 128, 128, 1});
  b.op("aten::im2col", {x}, {}, {2, 1152, 128});
  auto l = last(b);
  CHECK(l.counts.kernels == 2);
  CHECK(l.counts.memcpy == 1);
  // A rank-2 input is no im2col input: not matched.
  GraphBuilder r;
  int y = r.input({16, 16});
  r.op("aten::im2col", {y}, {}, {16, 16});
  CHECK_FALSE(last(r).known);
}

TEST_CASE("upsampling to the input's own size is a memcpy, except bicubic") {
  GraphBuilder b;
  int x = b.input({1, 4, 27, 27});
  b.op("aten::upsample_bilinear2d", {x}, {}, {1, 4, 27, 27});
  CHECK(last(b).counts.memcpy == 1);
  CHECK(last(b).counts.kernels == 0);
  b.g.ops.back().name = "aten::upsample_bicubic2d";
  CHECK(last(b).counts.kernels == 2);
  GraphBuilder u;
  int y = u.input({2, 21, 28, 28});
  u.op("aten::upsample_bilinear2d", {y}, {}, {2, 21, 224, 224});
  CHECK(last(u).counts.kernels == 1);
}

TEST_CASE("index with several index tensors copies them only when they must be broadcast") {
  auto index = [](std::vector<int64_t> a, std::vector<int64_t> c) {
    GraphBuilder b;
    int x = b.input({2, 128});
    int i = b.input(a, DType::kInt64), j = b.input(c, DType::kInt64);
    b.op("aten::index", {x}, {}, {2, 1, 1, 128});
    b.g.ops.back().overload = "Tensor";
    b.g.ops.back().args.push_back(list_arg("indices", {i, j}));
    return last(b).counts.kernels;
  };
  CHECK(index({2, 1, 1, 1}, {1, 1, 1, 128}) == 3);  // broad:albert mask construction
  CHECK(index({2}, {2}) == 1);                      // broad:clip x[arange(B), argmax]
}

TEST_CASE("layer_norm: rows not a multiple of 4 take the two-kernel path; softmax converts to a requested dtype") {
  GraphBuilder b;
  auto ln = [&](int64_t n) {
    int x = b.input({2, 64, n});
    b.op("aten::layer_norm", {x});
    b.arg_ints("normalized_shape", {n});
    return kc::run_launches(b.g, kc::default_target(), {false, {}}).back();
  };
  CHECK(ln(384).counts.kernels == 1);
  CHECK(ln(386).counts.kernels == 2);
  CHECK(ln(1).counts.kernels == 2);
  GraphBuilder s;
  int x = s.input({256, 4}, DType::kBFloat16);
  s.op("aten::softmax", {x}, {}, {}, DType::kFloat32);
  CHECK(kc::run_launches(s.g, kc::default_target(), {false, {}}).back().counts.kernels == 2);
  int h = s.input({256, 4}, DType::kFloat16);
  s.op("aten::softmax", {h}, {}, {}, DType::kFloat32);
  CHECK(kc::run_launches(s.g, kc::default_target(), {false, {}}).back().counts.kernels == 1);
}

TEST_CASE("repeat_interleave: an integer count copies the expanded view; a count of 1 is a clone") {
  GraphBuilder b;
  auto run = [&](int64_t repeats) {
    int x = b.input({4, 14, 14, 256});
    b.op("aten::repeat_interleave", {x}, {}, {4 * repeats, 14, 14, 256});
    b.g.ops.back().overload = "self_int";
    Arg r;
    r.name = "repeats";
    r.kind = Arg::Kind::kInt;
    r.ints = {repeats};
    b.g.ops.back().args.push_back(r);
    return kc::run_launches(b.g, kc::default_target(), {false, {}}).back();
  };
  CHECK(run(2).counts.kernels == 1);
  auto once = run(1);
  CHECK(once.counts.kernels == 0);
  CHECK(once.counts.memcpy == 1);
}

TEST_CASE("upsample: bilinear 2-d copies a strided channels-last input first") {
  // fresh6 (coat_mini, batch 5): a channels-last view of 216 of a wider tensor's channels.
  GraphBuilder b;
  int x = b.strided({5, 216, 14, 14}, {42552, 1, 3024, 216});
  b.output(b.op("aten::upsample_bilinear2d", {x}, {}, {5, 216, 28, 28}));
  CHECK(last(b).counts.kernels == 2);
  GraphBuilder dense;
  int y = dense.strided({5, 216, 14, 14}, {216 * 196, 1, 216 * 14, 216});
  dense.output(dense.op("aten::upsample_bilinear2d", {y}, {}, {5, 216, 28, 28}));
  CHECK(last(dense).counts.kernels == 1);
}

TEST_CASE("rules: pow of a tensor to a scalar casts a base of another result dtype first") {
  kc::OpTraits pointwise;
  pointwise.pointwise = true;
  auto pow = [&](DType base, DType out) {
    GraphBuilder b;
    int x = b.input({}, base);
    b.op("aten::pow", {x}, pointwise, {}, out);
    b.g.ops.back().overload = "Tensor_Scalar";
    return last(b);
  };
  // An int64 head dim ** -0.5: base.to(float32), then pow.
  kc::Launch promoted = pow(DType::kInt64, DType::kFloat32);
  CHECK(promoted.rule == "pow.promote");
  CHECK(promoted.counts.kernels == 2);
  // Same dtype: the pointwise kernel alone.
  CHECK(pow(DType::kFloat32, DType::kFloat32).counts.kernels == 1);
}

TEST_CASE("antialiased bilinear and bicubic resampling are one kernel each") {
  for (const char* op : {"aten::_upsample_bilinear2d_aa", "aten::_upsample_bicubic2d_aa"}) {
    GraphBuilder b;
    int x = b.input({1, 96, 16, 16});
    b.op(op, {x}, {}, {1, 96, 64, 64});
    const auto l = last(b);
    CHECK(l.known);
    CHECK(l.counts.kernels == 1);
  }
}

TEST_CASE("index_reduce: a copy of self, an identity fill without include_self, and mean's counting") {
  auto index_reduce = [](const std::string& reduce, bool include_self) {
    GraphBuilder b;
    int self = b.input({5, 3});
    int index = b.input({4}, DType::kInt64);
    int source = b.input({4, 3});
    b.op("aten::index_reduce", {self, index, source});
    b.name_arg(1, "index");
    b.name_arg(2, "source");
    b.arg_int("dim", 0);
    b.arg_text("reduce", reduce);
    b.arg_bool("include_self", include_self);
    return last(b).counts;
  };
  CHECK(index_reduce("prod", true).kernels == 1);
  CHECK(index_reduce("prod", true).memcpy == 1);
  CHECK(index_reduce("amax", false).kernels == 2);
  CHECK(index_reduce("mean", true).kernels == 7);
  CHECK(index_reduce("mean", false).kernels == 8);
}

TEST_CASE("sum converts an input of another dtype than its result first, bf16 into float32 aside") {
  auto sum = [](DType in, DType out) {
    GraphBuilder b;
    int x = b.input({5, 5, 5}, in);
    kc::OpTraits reduction;
    reduction.reduction = true;
    b.op("aten::sum", {x}, reduction, {1, 1, 1}, out);
    b.g.ops.back().overload = "dim_IntList";
    return last(b);
  };
  kc::Launch mask = sum(DType::kBool, DType::kInt64);
  CHECK(mask.rule == "reduction.convert");
  CHECK(mask.counts.kernels == 2);
  CHECK(sum(DType::kBFloat16, DType::kFloat32).counts.kernels == 1);
  CHECK(sum(DType::kFloat32, DType::kFloat32).counts.kernels == 1);
}

TEST_CASE("linspace and logspace read tensor bounds back; steps=0 launches nothing") {
  auto spaced = [](bool tensor_start, bool tensor_end, int64_t steps) {
    GraphBuilder b;
    std::vector<int> ins;
    if (tensor_start) ins.push_back(b.input({}));
    if (tensor_end) ins.push_back(b.input({}));
    b.op("aten::logspace", ins, {}, {steps}, DType::kFloat32);
    b.g.ops.back().overload = tensor_start && tensor_end ? "Tensor_Tensor" : "Tensor_Scalar";
    if (tensor_start) b.name_arg(0, "start");
    if (tensor_end) b.name_arg(tensor_start ? 1 : 0, "end");
    return last(b).counts;
  };
  CHECK(spaced(true, true, 0).memcpy == 2);
  CHECK(spaced(true, true, 0).kernels == 0);
  CHECK(spaced(true, false, 4).memcpy == 1);
  CHECK(spaced(true, false, 4).host_syncs == 1);
  CHECK(spaced(true, false, 4).kernels == 1);
}

TEST_CASE("block_diag copies a block with a memcpy when its rows lie back to back in the result") {
  auto block_diag = [](std::vector<std::vector<int64_t>> blocks, std::vector<int64_t> out) {
    GraphBuilder b;
    std::vector<int> ts;
    for (auto& s : blocks) ts.push_back(b.input(s));
    b.op("aten::block_diag", {}, {}, out, DType::kFloat32);
    b.arg_tensors("tensors", ts);
    return last(b).counts;
  };
  kc::Counts rows = block_diag({{1, 5}, {2, 5}, {3, 5}}, {6, 15});  // one row: dense; 2 and 3 rows: strided
  CHECK(rows.kernels == 3);
  CHECK(rows.memcpy == 1);
  kc::Counts vectors = block_diag({{1}, {2}, {3}}, {3, 6});
  CHECK(vectors.kernels == 1);
  CHECK(vectors.memcpy == 3);
}

TEST_CASE("cartesian_prod copies the meshgrid views no view can flatten, then one cat") {
  auto prod = [](std::vector<int64_t> lengths) {
    GraphBuilder b;
    std::vector<int> ts;
    int64_t n = 1;
    for (int64_t l : lengths) {
      ts.push_back(b.input({l}));
      n *= l;
    }
    b.op("aten::cartesian_prod", {}, {},
         lengths.size() == 1 ? std::vector<int64_t>{n} : std::vector<int64_t>{n, static_cast<int64_t>(lengths.size())},
         DType::kFloat32);
    b.arg_tensors("tensors", ts);
    return last(b).counts.kernels;
  };
  CHECK(prod({4}) == 0);
  CHECK(prod({1, 2}) == 1);
  CHECK(prod({1, 2, 4}) == 3);
}

TEST_CASE("diff: order 0 is a copy, each order one subtraction, prepend a cat") {
  auto diff = [](int64_t n, bool prepend) {
    GraphBuilder b;
    int x = b.input({8, 5});
    std::vector<int> ins = {x};
    if (prepend) ins.push_back(b.input({8, 1}));
    b.op("aten::diff", ins);
    if (prepend) b.name_arg(1, "prepend");
    b.arg_int("n", n);
    b.arg_int("dim", -1);
    return last(b).counts;
  };
  CHECK(diff(0, false).kernels == 1);
  CHECK(diff(0, false).memcpy == 1);
  CHECK(diff(1, false).kernels == 1);
  CHECK(diff(2, false).kernels == 2);
  CHECK(diff(9, false).kernels == 5);  // capped at the dim's size
  CHECK(diff(1, true).kernels == 2);
}

TEST_CASE("gradient: 8 kernels a dim, 16 with edge_order 2") {
  auto gradient = [](std::vector<int64_t> sizes, int64_t edge_order) {
    GraphBuilder b;
    int x = b.input(sizes);
    b.op("aten::gradient", {x});
    b.g.ops.back().overload = "scalarint";
    b.arg_int("edge_order", edge_order);
    return last(b).counts.kernels;
  };
  CHECK(gradient({5}, 1) == 8);
  CHECK(gradient({5, 5}, 2) == 32);
}

TEST_CASE("gradient: a spacing scalar a dim costs what one scalar does, over the dims listed") {
  GraphBuilder all;
  all.op("aten::gradient", {all.input({5, 5})});
  all.g.ops.back().overload = "scalarrayint";
  CHECK(last(all).counts.kernels == 16);
  GraphBuilder one;
  one.op("aten::gradient", {one.input({5, 5, 5})});
  one.g.ops.back().overload = "scalarrayarray";
  one.arg_ints("dim", {2});
  CHECK(last(one).counts.kernels == 8);
}

TEST_CASE("gradient: coordinate tensors cost 21 kernels a dim, 52 with edge_order 2") {
  GraphBuilder all;
  all.op("aten::gradient", {all.input({4, 6}), all.input({4}), all.input({6})});
  all.g.ops.back().overload = "tensorarrayint";
  CHECK(last(all).rule == "gradient.tensors");
  CHECK(last(all).counts.kernels == 42);
  GraphBuilder one;
  one.op("aten::gradient", {one.input({3, 3, 3}), one.input({3})});
  one.g.ops.back().overload = "tensorarrayint";
  one.arg_int("dim", 0);
  one.arg_int("edge_order", 2);
  CHECK(last(one).counts.kernels == 52);
}

TEST_CASE("masked_fill clones its input at the mask's broadcast shape: a copy kernel when that is larger") {
  auto masked_fill = [](std::vector<int64_t> self, std::vector<int64_t> mask, std::vector<int64_t> out) {
    GraphBuilder b;
    b.op("aten::masked_fill", {b.input(std::move(self)), b.input(std::move(mask), DType::kBool)}, {}, std::move(out));
    return last(b).counts;
  };
  CHECK(masked_fill({5, 5}, {5}, {5, 5}).memcpy == 1);
  CHECK(masked_fill({5, 5}, {5}, {5, 5}).kernels == 1);
  CHECK(masked_fill({5}, {5, 5}, {5, 5}).memcpy == 0);
  CHECK(masked_fill({5}, {5, 5}, {5, 5}).kernels == 2);
}

TEST_CASE("_chunk_cat: one kernel for contiguous inputs; strided ones pad, reshape and cat") {
  auto chunk_cat = [](bool transposed, int64_t dim, int64_t chunks) {
    GraphBuilder b;
    std::vector<int> ins;
    for (int64_t k : {3, 4, 271}) {
      int x = b.input({2, 3, k});
      if (transposed) b.g.values[x].strides = {3 * k, 1, 3};
      ins.push_back(x);
    }
    b.op("aten::_chunk_cat", {}, {}, {2, 3, 278});
    b.g.ops.back().args = {list_arg("tensors", ins), int_arg("dim", dim), int_arg("num_chunks", chunks)};
    return last(b).counts;
  };
  CHECK(chunk_cat(false, 0, 3).kernels == 1);
  CHECK(chunk_cat(false, 0, 3).memcpy == 1);
  CHECK(chunk_cat(true, 1, 3).kernels == 1);  // 3 rows in 3 chunks: views, the cat
  CHECK(chunk_cat(true, 0, 8).kernels == 7);  // 2 rows padded to 8: a fill and a copy each, the cat
  CHECK(chunk_cat(true, 1, 1).kernels == 4);  // a reshape copy each, the cat
  CHECK(chunk_cat(true, 1, 1).memcpy == 0);
}

TEST_CASE("multinomial without replacement: device checks, noise, division and topk") {
  auto multinomial = [](std::vector<int64_t> sizes, int64_t samples) {
    GraphBuilder b;
    int x = b.input(sizes);
    b.op("aten::multinomial", {x}, {}, {samples}, DType::kInt64);
    b.arg_int("num_samples", samples);
    return last(b).counts.kernels;
  };
  CHECK(multinomial({10}, 3) == 14);
  CHECK(multinomial({3, 10}, 3) == 15);
  CHECK(multinomial({10}, 1) == 13);    // one sample: argmax instead of select + sort
  CHECK(multinomial({1, 1}, 1) == 13);  // one row: the any over rows is a memcpy
}

TEST_CASE("multinomial with replacement of rows: renorm, the rows' scan, the sampling") {
  auto multinomial = [](std::vector<int64_t> sizes, int64_t samples) {
    GraphBuilder b;
    int x = b.input(sizes);
    b.op("aten::multinomial", {x}, {}, {sizes[0], samples}, DType::kInt64);
    b.arg_int("num_samples", samples);
    b.arg_bool("replacement", true);
    return last(b).counts;
  };
  CHECK(multinomial({3, 4}, 3).kernels == 3);
  CHECK(multinomial({3, 4}, 3).memcpy == 2);
  CHECK(multinomial({1, 1}, 4).kernels == 4);  // one row: cub's scan
}

TEST_CASE("segment_reduce: offsets reduce directly, lengths are checked and scanned first") {
  auto segment = [](const char* by, const char* reduce, bool unsafe = false) {
    GraphBuilder b;
    int data = b.input({5});
    int seg = b.input({4}, DType::kInt64);
    b.op("aten::segment_reduce", {data, seg}, {}, {4});
    b.name_arg(0, "data");
    b.name_arg(1, by);
    b.arg_text("reduce", reduce);
    if (unsafe) b.arg_bool("unsafe", true);
    return last(b).counts;
  };
  CHECK(segment("offsets", "max").kernels == 2);
  CHECK(segment("offsets", "mean").kernels == 3);
  CHECK(segment("lengths", "max").kernels == 8);
  CHECK(segment("lengths", "max").memcpy == 3);
  CHECK(segment("lengths", "mean").kernels == 9);
  CHECK(segment("lengths", "max", true).kernels == 5);  // unsafe: no checks, nothing read back
  CHECK(segment("lengths", "max", true).memcpy == 0);
  CHECK(segment("offsets", "max", true).kernels == 2);
}

TEST_CASE("segment_reduce over data of rank >= 2: one forward kernel after the bounds' preparation") {
  auto segment = [](std::vector<int64_t> data_shape, std::vector<int64_t> bounds, const char* by, const char* reduce,
                    int64_t axis, bool unsafe = false) {
    GraphBuilder b;
    int data = b.input(data_shape);
    int seg = b.input(std::move(bounds), DType::kInt64);
    std::vector<int64_t> out = data_shape;
    out[axis] = 4;
    b.op("aten::segment_reduce", {data, seg}, {}, out);
    b.name_arg(0, "data");
    b.name_arg(1, by);
    b.arg_text("reduce", reduce);
    b.arg_int("axis", axis);
    if (unsafe) b.arg_bool("unsafe", true);
    return last(b);
  };
  // Offsets: the diff and the forward kernel; a mean divides inside it (no post_sum_div).
  CHECK(segment({5, 5}, {5}, "offsets", "max", 0).counts.kernels == 2);
  CHECK(segment({5, 5}, {5}, "offsets", "mean", 0).counts.kernels == 2);
  CHECK(segment({5, 5, 5}, {5, 5}, "offsets", "max", 1).counts.kernels == 2);
  // One row of lengths: the 1-d checks (3 kernels, 3 memcpy), fill, cat, cub's scan (2), forward.
  auto one_row = segment({5, 5}, {4}, "lengths", "mean", 0);
  CHECK(one_row.rule == "segment_reduce.nd");
  CHECK(one_row.counts.kernels == 8);
  CHECK(one_row.counts.memcpy == 3);
  CHECK(one_row.counts.host_syncs == 2);
  // Several rows: all() reduces them (a kernel, no copy) and the scan is one innermost-dim kernel.
  auto rows = segment({5, 5}, {5, 4}, "lengths", "max", 1);
  CHECK(rows.counts.kernels == 8);
  CHECK(rows.counts.memcpy == 2);
  CHECK(rows.counts.host_syncs == 2);
  // unsafe skips the checks.
  auto unsafe = segment({10, 5, 5}, {5}, "lengths", "sum", 0, true);
  CHECK(unsafe.counts.kernels == 5);
  CHECK(unsafe.counts.memcpy == 0);
  CHECK(segment({5, 5, 5}, {5, 4}, "lengths", "sum", 1, true).counts.kernels == 4);
  // An axis other than the bounds' last dim is an error in ATen: no rule.
  CHECK_FALSE(segment({5, 5}, {4}, "lengths", "max", 1).known);
}

TEST_CASE("slice_scatter copies into a dense slice with a memcpy, into a strided one with a kernel") {
  auto slice_scatter = [](std::vector<int64_t> src, int64_t dim, int64_t step) {
    GraphBuilder b;
    int self = b.input({20, 20, 20});
    int s = b.input(src);
    b.op("aten::slice_scatter", {self, s});
    b.name_arg(1, "src");
    b.arg_int("dim", dim);
    b.arg_int("step", step);
    return last(b).counts;
  };
  kc::Counts leading = slice_scatter({10, 20, 20}, 0, 1);
  CHECK(leading.kernels == 0);
  CHECK(leading.memcpy == 2);
  kc::Counts stepped = slice_scatter({5, 20, 20}, 0, 2);
  CHECK(stepped.kernels == 1);
  CHECK(stepped.memcpy == 1);
  CHECK(slice_scatter({20, 10, 20}, 1, 1).kernels == 1);  // rows of a middle dim: strided
}

TEST_CASE("max.dim of a 0-d tensor copies the value and fills the index; nonzero_static of nothing launches nothing") {
  GraphBuilder b;
  int x = b.input({});
  kc::OpTraits reduction;
  reduction.reduction = true;
  b.op("aten::max", {x}, reduction, {});
  b.g.ops.back().overload = "dim";
  b.arg_int("dim", 0);
  CHECK(last(b).counts.kernels == 1);
  CHECK(last(b).counts.memcpy == 1);
  GraphBuilder n;
  int y = n.input({});
  n.op("aten::nonzero_static", {y}, {}, {3, 0}, DType::kInt64);
  n.arg_int("size", 3);
  CHECK(last(n).known);
  CHECK(last(n).counts.kernels == 0);
  GraphBuilder e;  // an empty input, a result of 10 rows: the fill of the result alone
  e.op("aten::nonzero_static", {e.input({5, 0, 5})}, {}, {10, 3}, DType::kInt64);
  e.arg_int("size", 10);
  CHECK(last(e).counts.kernels == 1);
}

TEST_CASE("addmm fuses a bias of the result's width with beta 1; a broadcast self is copied first") {
  auto addmm = [](std::vector<int64_t> self, double beta) {
    GraphBuilder b;
    int s = b.input(self);
    int m1 = b.input({64, 128});
    int m2 = b.input({128, 96});
    b.op("aten::addmm", {s, m1, m2}, {}, {64, 96});
    b.name_arg(1, "mat1");
    b.name_arg(2, "mat2");
    b.arg_float("beta", beta);
    return last(b).counts;
  };
  // Without the epilogue: self written into the result (a copy kernel), then the plain mm's launches.
  GraphBuilder mm;
  mm.op("aten::mm", {mm.input({64, 128}), mm.input({128, 96})}, {}, {64, 96});
  const kc::Counts plain = last(mm).counts;
  CHECK(addmm({1}, 1.0).kernels == plain.kernels + 1);
  CHECK(addmm({96}, 0.5).kernels == plain.kernels + 1);
  CHECK(addmm({96}, 1.0).kernels <= plain.kernels + 1);
}

TEST_CASE("histc reads its range from the data only when min == max") {
  auto histc = [](double lo, double hi) {
    GraphBuilder b;
    int x = b.input({1000});
    b.op("aten::histc", {x}, {}, {100});
    b.arg_float("min", lo);
    b.arg_float("max", hi);
    return last(b).counts;
  };
  CHECK(histc(0, 0).kernels == 4);
  CHECK(histc(0, 0).memcpy == 2);
  CHECK(histc(0, 0).host_syncs == 2);
  CHECK(histc(-1, 1).kernels == 2);
  CHECK(histc(-1, 1).memcpy == 0);
}

TEST_CASE("histc of no element zeroes its bins and stops: no range read, no histogram") {
  for (double hi : {0.0, 1.0}) {
    GraphBuilder b;
    b.op("aten::histc", {b.input({5, 0, 5})}, {}, {10});
    b.arg_float("min", 0);
    b.arg_float("max", hi);
    auto l = last(b);
    CHECK(l.rule == "histc.empty");
    CHECK(l.counts.kernels == 1);
    CHECK(l.counts.memcpy == 0);
    CHECK(l.counts.host_syncs == 0);
  }
}

TEST_CASE("grid_sampler of a 5-d input is grid_sampler_3d's one kernel; other ranks have no rule") {
  auto grid = [](std::vector<int64_t> in, std::vector<int64_t> g) {
    GraphBuilder b;
    b.op("aten::grid_sampler", {b.input(std::move(in)), b.input(std::move(g))});
    return last(b);
  };
  CHECK(grid({2, 3, 5, 5, 5}, {2, 5, 5, 5, 3}).counts.kernels == 1);
  CHECK(grid({2, 3, 5, 5}, {2, 5, 5, 2}).counts.kernels == 1);
  CHECK_FALSE(grid({2, 3, 5}, {2, 5, 1}).known);
}

TEST_CASE("isin compares by brute force only with few test elements") {
  auto isin = [](int64_t elements, int64_t tests) {
    GraphBuilder b;
    b.op("aten::isin", {b.input({elements}), b.input({tests})}, {}, {elements}, DType::kBool);
    b.g.ops.back().overload = "Tensor_Tensor";
    return last(b);
  };
  CHECK(isin(20, 5).known);
  CHECK(isin(20, 5).counts.kernels == 3);
  // The sort-based path: two uniques (each count read back), a cat, a sort, the flags put back.
  CHECK(isin(5, 20).counts.kernels == 17);
  CHECK(isin(5, 20).counts.memcpy == 8);
  CHECK(isin(5, 20).counts.host_syncs == 2);
  CHECK_FALSE(isin(40, 400).known);  // sorts beyond the measured sizes
}

TEST_CASE("_unsafe_masked_index clamps each index, gathers as index does, then fills the masked-off values") {
  GraphBuilder b;
  int self = b.input({5, 5});
  int mask = b.input({10, 10}, DType::kBool);
  int i0 = b.input({10, 1}, DType::kInt64);
  int i1 = b.input({1, 10}, DType::kInt64);
  b.op("aten::_unsafe_masked_index", {self, mask}, {}, {10, 10});
  b.name_arg(1, "mask");
  b.arg_tensors("indices", {i0, i1});
  const kc::Counts c = last(b).counts;
  CHECK(c.kernels == 7);  // 2 clamps, 2 copies of the broadcast indices, gather, logical_not, fill
  CHECK(c.memcpy == 1);
}

TEST_CASE("masked_scatter copies a broadcast mask; index_put runs nonzero for a boolean index") {
  auto masked_scatter = [](std::vector<int64_t> mask) {
    GraphBuilder b;
    b.op("aten::masked_scatter", {b.input({5, 5}), b.input(mask, DType::kBool), b.input({5, 5})});
    return last(b).counts.kernels;
  };
  CHECK(masked_scatter({5, 5}) == 4);
  CHECK(masked_scatter({5}) == 5);
  GraphBuilder b;
  int self = b.input({5, 5});
  int values = b.input({5});
  int mask = b.input({5}, DType::kBool);
  b.op("aten::index_put", {self, values});
  b.name_arg(1, "values");
  b.arg_tensors("indices", {mask});
  const kc::Counts c = last(b).counts;
  CHECK(c.kernels == 4);  // nonzero's count and select (3), the write
  CHECK(c.memcpy == 2);   // the clone, the count read back
  CHECK(c.host_syncs == 1);
}

TEST_CASE("normal by overload: one draw, + an add for a tensor mean, + checks and scaling for a tensor std") {
  auto normal = [](const char* overload, int tensors) {
    GraphBuilder b;
    std::vector<int> ins;
    for (int i = 0; i < tensors; ++i) ins.push_back(b.input({3, 4}));
    b.op("aten::normal", ins, {}, {3, 4}, DType::kFloat32);
    b.g.ops.back().overload = overload;
    return last(b).counts;
  };
  CHECK(normal("float_float", 0).kernels == 1);
  CHECK(normal("Tensor_float", 1).kernels == 2);
  CHECK(normal("Tensor_Tensor", 2).kernels == 7);
  CHECK(normal("Tensor_Tensor", 2).memcpy == 2);
}

TEST_CASE("msort sorts along dim 0") {
  GraphBuilder b;
  int x = b.input({8000, 2});  // 8000-long slices along dim 0: the radix sort
  b.op("aten::msort", {x});
  const kc::Launch l = last(b);
  CHECK(l.rule == "sort.long");
}

TEST_CASE("tile of nothing repeated is a copy; inner of vectors is cuBLAS's dot") {
  GraphBuilder b;
  b.op("aten::tile", {b.input({2})});
  CHECK(last(b).counts.kernels == 0);
  CHECK(last(b).counts.memcpy == 1);
  GraphBuilder t;
  t.op("aten::tile", {t.input({2})}, {}, {4});
  CHECK(last(t).counts.kernels == 1);
  GraphBuilder i;
  i.op("aten::inner", {i.input({5}), i.input({5})}, {}, {1});
  i.g.values.back().sizes = {};
  i.g.values.back().strides = {};
  CHECK(last(i).counts.kernels == 2);
  GraphBuilder s;
  s.op("aten::inner", {s.input({}), s.input({5, 5})}, {}, {5, 5});
  CHECK(last(s).counts.kernels == 1);
}

TEST_CASE("cross_entropy over scores with extra dims runs nll_loss's 2-d kernels") {
  auto ce = [](std::vector<int64_t> scores, std::vector<int64_t> target) {
    GraphBuilder b;
    b.op("aten::cross_entropy_loss", {b.input(scores), b.input(target, DType::kInt64)}, {}, {});
    return last(b).counts.kernels;
  };
  CHECK(ce({2, 3}, {2}) == 2);
  CHECK(ce({2, 3, 1}, {2, 1}) == 5);
}

TEST_CASE("bilinear: a fill, three kernels per output feature (four for 1-d inputs), + the bias add") {
  auto bilinear = [](std::vector<int64_t> x1, std::vector<int64_t> x2, bool bias) {
    GraphBuilder b;
    std::vector<int> ins = {b.input(x1), b.input(x2), b.input({5, 3, 4})};
    if (bias) ins.push_back(b.input({5}));
    std::vector<int64_t> out = x1;
    out.back() = 5;
    b.op("aten::bilinear", ins, {}, out);
    if (bias) b.name_arg(3, "bias");
    return last(b);
  };
  CHECK(bilinear({8, 3}, {8, 4}, false).counts.kernels == 16);
  CHECK(bilinear({8, 3}, {8, 4}, true).counts.kernels == 17);
  CHECK(bilinear({3}, {4}, true).counts.kernels == 22);
}

TEST_CASE("index_put with accumulate: 8 kernels an index tensor, + 2 copies of a broadcast one, + the combine") {
  auto accumulate = [](std::vector<std::vector<int64_t>> indices) {
    GraphBuilder b;
    int self = b.input({5, 5});
    int values = b.input({2, 5});
    std::vector<int> idx;
    for (auto& s : indices) idx.push_back(b.input(s, DType::kInt64));
    b.op("aten::index_put", {self, values});
    b.name_arg(1, "values");
    b.arg_tensors("indices", idx);
    b.arg_bool("accumulate", true);
    return last(b).counts;
  };
  CHECK(accumulate({{2}}).kernels == 12);
  CHECK(accumulate({{2}}).memcpy == 1);
  CHECK(accumulate({{10, 1}, {1, 10}}).kernels == 25);  // 2 x (8 + 2 copies) + add + div, arange, sort, write
}

TEST_CASE("to the same dtype: nothing, unless a memory format changes the layout (a copy kernel); flip of no dims") {
  GraphBuilder b;
  int x = b.input({2, 3, 2, 3});
  b.op("aten::to", {x}, {}, {2, 3, 2, 3});
  b.g.ops.back().overload = "dtype";
  CHECK(last(b).counts.kernels == 0);
  // Recorded strides that differ (an input moved to the GPU dense again) change nothing:
  // to_will_alias reads the arguments, not the result.
  b.g.values[b.g.ops.back().outputs[0]].strides = {18, 1, 9, 3};
  CHECK(last(b).counts.kernels == 0);
  // memory_format=channels_last (2) of a contiguous input: a copy into that layout; of an input
  // already channels last, nothing.
  b.arg_memory_format(2);
  CHECK(last(b).counts.kernels == 1);
  b.g.values[x].strides = {18, 1, 9, 3};
  CHECK(last(b).counts.kernels == 0);
  // copy=True copies whatever the layout: a memcpy of a dense input kept as it is.
  b.arg_bool("copy", true);
  CHECK(last(b).counts.memcpy == 1);
  GraphBuilder f;
  f.op("aten::flip", {f.input({5, 10, 5})}, {}, {5, 10, 5});
  f.arg_ints("dims", {});
  CHECK(last(f).counts.memcpy == 1);
  CHECK(last(f).counts.kernels == 0);
}

TEST_CASE("memory-efficient attention is one kernel with dropout too: the mask is drawn inside it") {
  GraphBuilder b;
  b.op("aten::_efficient_attention_forward", {b.input({4, 11, 4, 8}), b.input({4, 32, 4, 8}), b.input({4, 32, 4, 8})},
       {}, {4, 11, 4, 8});
  b.arg_float("dropout_p", 0.5);
  CHECK(last(b).counts.kernels == 1);
}

TEST_CASE("memory-efficient attention reads an aligned bias in place; an unaligned one is not this rule's") {
  auto run = [](std::vector<int64_t> bias_sizes) {
    GraphBuilder b;
    b.op("aten::_efficient_attention_forward",
         {b.input({4, 11, 4, 8}), b.input({4, 32, 4, 8}), b.input({4, 32, 4, 8}), b.input(std::move(bias_sizes))}, {},
         {4, 11, 4, 8});
    b.name_arg(3, "bias");
    return last(b);
  };
  CHECK(run({4, 4, 11, 32}).counts.kernels == 1);
  CHECK(run({4, 4, 11, 30}).rule != "efficient_attention");  // ATen refuses it: nothing pads the bias here
}

TEST_CASE("what runs although the result is empty, or on the host, or through copies of strided operands") {
  // mvlgamma's arange of p offsets runs for an empty input; Scalar ** an empty exponent still
  // fills the wrapped base on the GPU.
  GraphBuilder mv;
  mv.op("aten::mvlgamma", {mv.input({0, 3, 3})}, {}, {0, 3, 3});
  mv.arg_int("p", 3);
  CHECK(last(mv).counts.kernels == 1);
  GraphBuilder pw;
  pw.op("aten::pow", {pw.input({0, 1, 3})}, {}, {0, 1, 3});
  pw.g.ops.back().args[0].name = "exponent";
  pw.arg_float("self", -1.75);
  CHECK(last(pw).counts.kernels == 1);
  // logsumexp of nothing: sum of exp (a fill of zeros) and log_.
  GraphBuilder lse;
  const int sum = lse.op("aten::logsumexp", {lse.input({0}, DType::kBFloat16)}, {}, {1});
  lse.g.values[sum].sizes.clear();  // a 0-d result
  lse.g.values[sum].strides.clear();
  lse.arg_ints("dim", {0});
  CHECK(last(lse).counts.kernels == 2);
  // Two numbers divided, in a program exported on the host: computed there, whatever the op's
  // rule would be (div is pointwise, floor_divide untagged elementwise, true_divide an alias of
  // div), since moving the program to the GPU rewrites only the devices its ops name.
  for (const char* name : {"aten::div", "aten::floor_divide", "aten::true_divide"}) {
    GraphBuilder host;
    const int q = host.op(name, {}, {}, {});
    host.g.values[q].device = "cpu";
    host.arg_float("self", -8.48);
    host.arg_float("other", -1.77);
    CHECK(last(host).counts.kernels == 0);
    CHECK(last(host).rule == "host.numbers");
    host.g.values[q].device = "cuda:0";  // a GPU export's default device: made there
    CHECK(last(host).rule != "host.numbers");
  }
  GraphBuilder full;
  const int filled = full.op("aten::full", {}, {}, {4});
  full.g.values[filled].device = "cpu";
  full.arg_float("fill_value", 2.0);
  full.arg_device("cpu");  // rewritten to the GPU with the program
  CHECK(last(full).rule != "host.numbers");
  // float_power with a number as its base: the exponent's cast to float64, the base's fill, pow.
  GraphBuilder fp;
  fp.op("aten::float_power", {fp.input({1, 5}, DType::kBFloat16)}, {}, {1, 5});
  fp.g.ops.back().overload = "Scalar";
  fp.name_arg(0, "exponent");
  fp.arg_float("self", 0.80859375);
  CHECK(last(fp).counts.kernels == 3);
  // rrelu in training copies a strided input before its kernel; contiguous, the kernel alone.
  GraphBuilder rr;
  const int x = rr.strided({5, 6, 2}, {1, 5, 30});
  rr.op("aten::rrelu", {x}, {}, {5, 6, 2});
  rr.arg_bool("training", true);
  CHECK(last(rr).counts.kernels == 2);
  rr.g.values[x].strides = {12, 2, 1};
  CHECK(last(rr).counts.kernels == 1);
  // Antialiased bilinear of a channels-last input: copied contiguous, resampled, copied back
  // into the channels-last result.
  GraphBuilder aa;
  const int img = aa.strided({2, 3, 345, 456}, {471960, 1, 1368, 3});
  aa.op("aten::_upsample_bilinear2d_aa", {img}, {}, {2, 3, 270, 270});
  CHECK(last(aa).counts.kernels == 3);
  aa.g.values[img].strides = {471960, 157320, 456, 1};
  CHECK(last(aa).counts.kernels == 1);
  // clone keeps a dense layout (a memcpy in any order); a strided one is a copy kernel.
  GraphBuilder cl;
  const int t = cl.strided({6, 5, 3}, {1, 6, 30});
  cl.op("aten::clone", {t}, {}, {6, 5, 3});
  CHECK(last(cl).counts.memcpy == 1);
  cl.g.values[t].strides = {2, 12, 60};
  CHECK(last(cl).counts.kernels == 1);
}
