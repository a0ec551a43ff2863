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

const kc::Target& h200() { return kc::default_target(); }

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
};

// aten::<op>.input as torch.export records it: input, hx, params (w_ih, w_hh, b_ih, b_hh per
// layer and direction), has_biases, num_layers, dropout, train, bidirectional, batch_first.
kc::Launch rnn(const RnnCall& c) {
  GraphBuilder b;
  const int64_t gates = c.op == "aten::lstm" ? 4 : c.op == "aten::gru" ? 3 : 1;
  const int64_t d = c.bidirectional ? 2 : 1;
  std::vector<int64_t> xs = c.batch_first ? std::vector<int64_t>{c.batch, c.seq, c.input}
                                          : std::vector<int64_t>{c.seq, c.batch, c.input};
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
