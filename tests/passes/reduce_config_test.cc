// ATen's reduce config as ported (passes/torch2_11/reduce_config.h) against the H200: every
// reduction of the `reduction` sweep (tests/passes/reduce_config_cases.inc) launched a memset
// exactly where the port says the input splits across blocks; and the rule reads the run-time
// layout, so a mean over H and W of a convolution's channels-last output zeroes its semaphores
// where the recorded NCHW strides would say it does not.
#include "passes/torch2_11/reduce_config.h"

#include <catch2/catch.hpp>
#include <cstdint>
#include <string>
#include <vector>

#include "passes/graph_builder.h"
#include "passes/launches.h"
#include "passes/layout.h"
#include "passes/target.h"

using kc::test::GraphBuilder;

namespace {
// The reductions were measured on the H200: its device is the default target's.
const kc::Device& kH200 = kc::default_target().device;
}  // namespace

namespace {

struct ReduceCase {
  const char* op;
  int rank;
  int64_t sizes[4], strides[4];
  int ndims;
  int64_t dims[4];
  int memset;   // memsets the GPU launched
  int kernels;  // kernels it launched; 0 where not compared

  std::vector<int64_t> sizes_v() const { return {sizes, sizes + rank}; }
  std::vector<int64_t> strides_v() const { return {strides, strides + rank}; }
  std::vector<int64_t> dims_v() const { return {dims, dims + ndims}; }
};

#include "tests/passes/reduce_config_cases.inc"

}  // namespace

TEST_CASE("reduce config: a memset exactly where the GPU launched one, for every reduction of the sweep") {
  int with_memset = 0;
  for (const ReduceCase& c : kReduceCases) {
    INFO(c.op << " rank " << c.rank << " sizes[0] " << c.sizes[0] << " strides[0] " << c.strides[0]);
    CHECK(kc::torch2_11::reduce_splits_across_blocks(kH200, c.sizes_v(), c.strides_v(), c.dims_v()) == (c.memset > 0));
    with_memset += c.memset > 0;
  }
  CHECK(with_memset > 100);  // the sweep holds both outcomes
}

TEST_CASE("reduce config: the same for 8,000 random reductions measured after the port was written") {
  int with_memset = 0;
  for (const ReduceCase& c : kRandomReduceCases) {
    INFO(c.op << " rank " << c.rank << " sizes[0] " << c.sizes[0] << " strides[0] " << c.strides[0]);
    CHECK(kc::torch2_11::reduce_splits_across_blocks(kH200, c.sizes_v(), c.strides_v(), c.dims_v()) == (c.memset > 0));
    with_memset += c.memset > 0;
  }
  CHECK(with_memset > 100);
}

TEST_CASE("reduce config: max() and argmax() of all elements copy an input that is not contiguous first") {
  int copies = 0;
  for (const ReduceCase& c : kRandomReduceCases) {
    const std::string op = c.op;
    if (c.ndims != 0 || (op != "argmax" && op != "max_dim")) continue;
    GraphBuilder b;
    int x = b.strided(c.sizes_v(), c.strides_v());
    b.output(b.reduction(op == "argmax" ? "aten::argmax" : "aten::max", x, {}));
    const auto got = kc::run_launches(b.g, kc::default_target(), kc::LaunchOptions{false, {}});
    INFO(op << " rank " << c.rank << " sizes[0] " << c.sizes[0] << " strides[0] " << c.strides[0]);
    CHECK(got[0].counts.kernels == c.kernels);
    CHECK(got[0].counts.memset == c.memset);
    copies += c.kernels == 2;
  }
  CHECK(copies > 50);  // the random layouts copy often
}

TEST_CASE("reduce config: logsumexp and count_nonzero zero a semaphore buffer for each reduction that splits") {
  int memsets = 0;
  for (const ReduceCase& c : kCompositeReduceCases) {
    const std::string op = c.op;
    GraphBuilder b;
    int x = b.strided(c.sizes_v(), c.strides_v());
    b.output(b.reduction("aten::" + op, x, {}));
    if (c.ndims > 0) b.arg_ints("dim", c.dims_v());
    const auto got = kc::run_launches(b.g, kc::default_target(), kc::LaunchOptions{false, {}});
    INFO(op << " rank " << c.rank << " sizes[0] " << c.sizes[0] << " strides[0] " << c.strides[0]);
    CHECK(got[0].counts.kernels == c.kernels);
    CHECK(got[0].counts.memset == c.memset);
    memsets += c.memset;
  }
  CHECK(memsets > 10);
}

TEST_CASE("reduce config: one value per thread block is no split; 2^17 values to one output is") {
  // opset:sum_all: 32,768 values no memset, 131,072 one.
  CHECK_FALSE(kc::torch2_11::reduce_splits_across_blocks(kH200, {32768}, {1}, {}));
  CHECK(kc::torch2_11::reduce_splits_across_blocks(kH200, {131072}, {1}, {}));
  CHECK_FALSE(kc::torch2_11::reduce_splits_across_blocks(kH200, {0, 4}, {4, 1}, {}));  // empty: nothing reduced
  CHECK_FALSE(kc::torch2_11::reduce_splits_across_blocks(kH200, {}, {}, {}));          // a 0-d tensor
}

TEST_CASE("reduce config: the rule reads run-time strides (a mean over H, W of a channels-last conv output)") {
  // focalnet_tiny_srf: mean(x, [2, 3], keepdim) of [2, 96, 56, 56] that a cuDNN conv returned
  // channels last, recorded contiguous by the export; measured one reduce kernel and one memset.
  GraphBuilder b;
  int x = b.strided({2, 96, 56, 56}, {301056, 1, 5376, 96});
  int w = b.input({96, 96, 1, 1}, kc::DType::kFloat32, kc::ValueRole::kParameter);
  int y = b.op("aten::conv2d", {x, w}, {}, {2, 96, 56, 56});
  b.name_arg(0, "input");
  b.name_arg(1, "weight");
  int m = b.reduction("aten::mean.dim", y, {2, 96, 1, 1});
  b.arg_ints("dim", {2, 3});
  b.output(m);
  const kc::LaunchOptions rules_only{false, {}};
  kc::Layout l = kc::run_layout(b.g);
  const auto recorded = kc::run_launches(b.g, kc::default_target(), rules_only);
  const auto run_time = kc::run_launches(b.g, kc::default_target(), rules_only, &l);
  CHECK(recorded[1].counts.memset == 0);
  CHECK(run_time[1].counts.kernels == 1);
  CHECK(run_time[1].counts.memset == 1);
  CHECK(run_time[1].rule == "reduction.global");
}
