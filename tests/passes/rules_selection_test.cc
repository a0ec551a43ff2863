// The H200 rules for sorts, selections, scatters, data-dependent sizes and ATen composites
// (passes/targets/h200/selection.cc, composites.cc), checked against the opset blocks'
// measurements (validate/results/opset).
#include <catch2/catch.hpp>

#include "passes/graph_builder.h"
#include "passes/launches.h"
#include "passes/target.h"

using kc::Arg;
using kc::DType;
using kc::test::GraphBuilder;

namespace {

kc::Launch last(const GraphBuilder& b) {
  kc::LaunchOptions rules_only;
  rules_only.use_measured = false;
  return kc::run_launches(b.g, kc::default_target(), rules_only).back();
}
void int_arg(GraphBuilder& b, const std::string& name, int64_t v) {
  Arg a;
  a.name = name;
  a.kind = Arg::Kind::kInt;
  a.ints = {v};
  b.g.ops.back().args.push_back(a);
}
void text_arg(GraphBuilder& b, const std::string& name, const std::string& text, Arg::Kind kind = Arg::Kind::kString) {
  Arg a;
  a.name = name;
  a.kind = kind;
  a.text = text;
  b.g.ops.back().args.push_back(a);
}

}  // namespace

TEST_CASE("sort: slices up to 4096 elements sort in place (3 kernels, 2 memcpy); longer ones stay unknown") {
  GraphBuilder b;
  b.op("aten::sort", {b.input({8, 1024})});
  auto small = last(b);
  CHECK(small.rule == "sort.small");
  CHECK(small.counts.kernels == 3);
  CHECK(small.counts.memcpy == 2);
  b.op("aten::sort", {b.input({8, 8192})});
  CHECK_FALSE(last(b).known);
}

TEST_CASE("nonzero and boolean indexing read the count back to the host: a memcpy and a sync") {
  GraphBuilder b;
  int mask = b.input({8, 1024}, DType::kBool);
  b.op("aten::nonzero", {mask}, {}, {8192, 2}, DType::kInt64);
  auto nz = last(b);
  CHECK(nz.counts.kernels == 5);
  CHECK(nz.counts.memcpy == 1);
  CHECK(nz.counts.host_syncs == 1);
  int x = b.input({8, 1024});
  b.op("aten::index", {x}, {}, {8192});
  Arg idx;
  idx.name = "indices";
  idx.kind = Arg::Kind::kTensorList;
  idx.tensors = {mask};
  b.g.ops.back().args.push_back(idx);
  auto masked = last(b);
  CHECK(masked.counts.kernels == 6);
  CHECK(masked.counts.host_syncs == 1);
}

TEST_CASE("out-of-place scatters clone self: a memcpy when dense, a copy kernel when strided") {
  GraphBuilder b;
  b.op("aten::scatter_add", {b.input({8, 1024}), b.input({8, 16}, DType::kInt64), b.input({8, 16})});
  auto dense = last(b);
  CHECK(dense.counts.kernels == 1);
  CHECK(dense.counts.memcpy == 1);
  b.op("aten::scatter_add", {b.strided({8, 1024}, {1, 8}), b.input({8, 16}, DType::kInt64), b.input({8, 16})});
  auto strided = last(b);
  CHECK(strided.counts.kernels == 2);
  CHECK(strided.counts.memcpy == 0);
}

TEST_CASE("in-place scatters and index_put_ are the write kernel alone") {
  GraphBuilder b;
  b.op("aten::index_put_", {b.input({8, 1024})});
  auto put = last(b);
  CHECK(put.counts.kernels == 1);
  CHECK(put.counts.memcpy == 0);
  b.op("aten::scatter_add_", {b.input({8, 1024}), b.input({8, 16}, DType::kInt64), b.input({8, 16})});
  CHECK(last(b).counts.kernels == 1);
}

TEST_CASE("composites launch their parts: logsumexp 9, isfinite 4, bilinear 1 + 3 per output feature") {
  GraphBuilder b;
  b.op("aten::logsumexp", {b.input({2, 64, 32, 32})}, {}, {2, 64, 32});
  CHECK(last(b).counts.kernels == 9);
  b.op("aten::isfinite", {b.input({2, 64})}, {}, {}, DType::kBool);
  CHECK(last(b).counts.kernels == 4);
  b.op("aten::isfinite", {b.input({2, 64}, DType::kInt64)}, {}, {}, DType::kBool);
  CHECK_FALSE(last(b).known);  // integers take another path, not measured
  b.op("aten::bilinear", {b.input({8, 32}), b.input({8, 48}), b.input({16, 32, 48})}, {}, {8, 16});
  CHECK(last(b).counts.kernels == 49);
}

TEST_CASE("contiguous(channels_last) copies unless the input already is channels-last dense") {
  GraphBuilder b;
  b.op("aten::contiguous", {b.input({2, 64, 32, 32})});
  text_arg(b, "memory_format", "2", Arg::Kind::kMemoryFormat);
  CHECK(last(b).counts.kernels == 1);
  b.op("aten::contiguous", {b.strided({2, 64, 32, 32}, {65536, 1, 2048, 64})});
  text_arg(b, "memory_format", "2", Arg::Kind::kMemoryFormat);
  CHECK(last(b).counts.kernels == 0);
}

TEST_CASE("a full reduction zeroes semaphores only from 131072 inputs") {
  GraphBuilder b;
  b.reduction("aten::sum", b.input({8, 1024, 4}), {1});
  CHECK(last(b).counts.memset == 0);
  b.reduction("aten::sum", b.input({2, 64, 32, 32}), {1});
  CHECK(last(b).counts.memset == 1);
}

TEST_CASE("one_hot needs num_classes; scatter_reduce by mode") {
  GraphBuilder b;
  b.op("aten::one_hot", {b.input({8, 64}, DType::kInt64)}, {}, {8, 64, 100}, DType::kInt64);
  int_arg(b, "num_classes", 100);
  CHECK(last(b).counts.kernels == 2);
  b.op("aten::one_hot", {b.input({8, 64}, DType::kInt64)}, {}, {8, 64, 100}, DType::kInt64);
  int_arg(b, "num_classes", -1);
  CHECK_FALSE(last(b).known);
  b.op("aten::scatter_reduce", {b.input({8, 1024}), b.input({8, 16}, DType::kInt64), b.input({8, 16})});
  text_arg(b, "reduce", "mean");
  CHECK(last(b).counts.kernels == 7);  // mean including self
  b.op("aten::scatter_reduce", {b.input({8, 1024}), b.input({8, 16}, DType::kInt64), b.input({8, 16})});
  text_arg(b, "reduce", "sum");
  b.g.ops.back().args.push_back([] {
    Arg a;
    a.name = "include_self";
    a.kind = Arg::Kind::kBool;
    a.ints = {0};
    return a;
  }());
  CHECK_FALSE(last(b).known);  // sum excluding self: not measured
}
