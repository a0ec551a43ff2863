#include "analyzer/graph.h"

#include <catch2/catch.hpp>

#include "passes/graph_builder.h"

using kc::test::GraphBuilder;

TEST_CASE("graph: sizes, bytes and contiguity of a value") {
  kc::Value v;
  v.sizes = {2, 3, 4};
  v.strides = {12, 4, 1};
  v.dtype = kc::DType::kBFloat16;
  CHECK(v.numel() == 24);
  CHECK(v.bytes() == 48);
  CHECK(v.contiguous());
  v.strides = {12, 1, 3};  // a transpose of the last two dims
  CHECK_FALSE(v.contiguous());
  v.sizes = {2, 1, 4};
  v.strides = {4, 99, 1};  // size-1 dims may carry any stride
  CHECK(v.contiguous());
}

TEST_CASE("graph: check accepts a well-formed graph") {
  GraphBuilder b;
  b.output(b.pointwise("aten::relu", {b.input({8})}));
  CHECK_FALSE(b.g.check());
}

TEST_CASE("graph: check names the first broken invariant") {
  GraphBuilder b;
  int x = b.input({8});
  b.output(b.pointwise("aten::relu", {x}));
  kc::Graph no_dtype = b.g;
  no_dtype.values[x].dtype = kc::DType::kUnknown;
  CHECK(no_dtype.check()->find("no dtype") != std::string::npos);
  kc::Graph overflow = b.g;
  overflow.values[x].sizes = {1LL << 40, 1LL << 40};
  overflow.values[x].strides = {1, 1};
  CHECK(overflow.check()->find("64 bits") != std::string::npos);
  kc::Graph producer = b.g;
  producer.values[producer.ops[0].outputs[0]].producer = -1;
  CHECK(producer.check()->find("producer") != std::string::npos);
}

TEST_CASE("graph: check refuses values read before they are written") {
  GraphBuilder b;
  int x = b.input({8});
  int a = b.pointwise("aten::relu", {x});
  int c = b.pointwise("aten::neg", {a});
  b.output(c);
  kc::Graph self_read = b.g;  // op 1 reads its own output
  self_read.ops[1].args[0].tensors = {c};
  CHECK(self_read.check()->find("reads its own output") != std::string::npos);
  kc::Graph reversed = b.g;  // op 0 reads what op 1 writes later
  std::swap(reversed.ops[0], reversed.ops[1]);
  reversed.values[a].producer = 1;
  reversed.values[c].producer = 0;
  CHECK(reversed.check()->find("before op 1 writes it") != std::string::npos);
  kc::Graph orphan = b.g;  // a value no op writes and no role provides
  orphan.values[x].role = kc::ValueRole::kIntermediate;
  CHECK(orphan.check()->find("which no op writes") != std::string::npos);
}

TEST_CASE("graph: views of a value that requires grad require grad; other ops' outputs never do") {
  GraphBuilder b;
  int w = b.input({64, 32}, kc::DType::kFloat32, kc::ValueRole::kParameter);
  b.g.values[w].requires_grad = true;
  int x = b.input({8, 32});
  int t = b.view("aten::t", w, {32, 64});
  int tt = b.view("aten::view", t, {2048});
  int y = b.op("aten::mm", {x, t}, {}, {8, 64});
  int yv = b.view("aten::view", y, {512});
  kc::propagate_requires_grad_to_views(b.g);
  CHECK(b.g.values[t].requires_grad);
  CHECK(b.g.values[tt].requires_grad);
  CHECK_FALSE(b.g.values[y].requires_grad);
  CHECK_FALSE(b.g.values[yv].requires_grad);
  CHECK_FALSE(b.g.values[x].requires_grad);
}

TEST_CASE("graph: with no value requiring grad, propagation changes nothing") {
  GraphBuilder b;
  int x = b.input({8, 32});
  int v = b.view("aten::view", x, {256});
  kc::propagate_requires_grad_to_views(b.g);
  CHECK_FALSE(b.g.values[x].requires_grad);
  CHECK_FALSE(b.g.values[v].requires_grad);
}
