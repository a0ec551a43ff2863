// The H200 rules for torchvision's detection ops (passes/torch2_11/torchvision.cc), checked
// against the sweep's measurements (data/sweeps/torchvision_ops.jsonl.xz).
#include <catch2/catch.hpp>

#include "passes/graph_builder.h"
#include "passes/launches.h"
#include "passes/target.h"

using kc::DType;
using kc::test::GraphBuilder;

namespace {

kc::Launch last(const GraphBuilder& b) {
  return kc::run_launches(b.g, kc::default_target()).back();
}
kc::Counts nms(int64_t n, DType dt, bool strided_boxes = false) {
  GraphBuilder b;
  int boxes = strided_boxes ? b.strided({n, 4}, {5, 1}, dt) : b.input({n, 4}, dt);
  b.op("torchvision::nms", {boxes, b.input({n}, dt)}, {}, {n / 2}, DType::kInt64);
  kc::Launch l = last(b);
  REQUIRE(l.known);
  return l.counts;
}
kc::Launch roi(const std::string& op, std::vector<int64_t> input, int64_t k, bool channels_last = false,
               DType dt = DType::kFloat32) {
  GraphBuilder b;
  int x = channels_last ? b.strided(input, {input[1] * input[2] * input[3], 1, input[3] * input[1], input[1]}, dt)
                        : b.input(input, dt);
  b.op(op, {x, b.input({k, 5}, dt)}, {}, {k, input[1], 7, 7});
  return last(b);
}
void check(const kc::Counts& c, int kernels, int memcpy, int memset) {
  CHECK(c.kernels == kernels);
  CHECK(c.memcpy == memcpy);
  CHECK(c.memset == memset);
}

}  // namespace

TEST_CASE("nms: the scores' sort, then 8 kernels (9 above 4096 boxes) and one copy the host waits for") {
  check(nms(0, DType::kFloat32), 0, 0, 0);
  check(nms(1, DType::kFloat32), 9, 4, 0);
  for (int64_t n : {2, 7, 100, 4096}) check(nms(n, DType::kFloat32), 10, 4, 0);
  check(nms(4097, DType::kFloat32), 16, 2, 6);    // cub radix sort: 4 passes of 8 key bits
  check(nms(100000, DType::kFloat16), 14, 2, 4);  // 2 passes
  check(nms(1000, DType::kFloat32, true), 10, 4, 0);
  CHECK(nms(100, DType::kFloat32).host_syncs == 1);
}

TEST_CASE("nms: bfloat16, which the GPU refuses, and wrong ranks stay unknown") {
  GraphBuilder b;
  b.op("torchvision::nms", {b.input({100, 4}, DType::kBFloat16), b.input({100}, DType::kBFloat16)}, {}, {50},
       DType::kInt64);
  CHECK_FALSE(last(b).known);
  GraphBuilder c;
  c.op("torchvision::nms", {c.input({100, 5}), c.input({100})}, {}, {50}, DType::kInt64);
  CHECK_FALSE(last(c).known);
}

TEST_CASE("roi ops: zeroed outputs, a copy of a channels-last input, one kernel; nothing when empty") {
  check(roi("torchvision::roi_align", {2, 256, 50, 50}, 1000).counts, 2, 0, 0);
  check(roi("torchvision::roi_align", {2, 256, 50, 50}, 1000, true).counts, 3, 0, 0);
  check(roi("torchvision::roi_align", {2, 256, 50, 50}, 0).counts, 0, 0, 0);
  check(roi("torchvision::roi_pool", {2, 8, 32, 32}, 64).counts, 3, 0, 0);
  check(roi("torchvision::ps_roi_align", {2, 392, 32, 32}, 64, true).counts, 4, 0, 0);
  check(roi("torchvision::ps_roi_pool", {2, 392, 32, 32}, 16, false, DType::kFloat16).counts, 3, 0, 0);
  CHECK_FALSE(roi("torchvision::roi_align", {2, 8, 32, 32}, 16, false, DType::kBFloat16).known);
  GraphBuilder b;  // strided boxes would be copied first: not measured, so unknown
  b.op("torchvision::roi_align", {b.input({2, 8, 32, 32}), b.strided({16, 5}, {6, 1})}, {}, {16, 8, 7, 7});
  CHECK_FALSE(last(b).known);
}

TEST_CASE("torchvision: _cuda_version launches nothing; other ops of the namespace stay unknown") {
  GraphBuilder b;
  int x = b.input({4});
  b.op("torchvision::_cuda_version", {}, {}, {1}, DType::kInt64);
  b.op("torchvision::deform_conv2d", {x});
  auto l = kc::run_launches(b.g, kc::default_target());
  CHECK(l[0].known);
  check(l[0].counts, 0, 0, 0);
  CHECK_FALSE(l[1].known);
}
