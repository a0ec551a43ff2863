#include "passes/dram_traffic.h"

#include <catch2/catch.hpp>
#include <cstdlib>

#include "passes/graph_builder.h"
#include "passes/kernel_steps.h"
#include "passes/pipeline.h"
#include "passes/target.h"

using kc::test::GraphBuilder;

namespace {
// x -> relu -> relu -> output, x holding `elements` floats.
kc::Graph chain(int64_t elements) {
  GraphBuilder b;
  int x = b.input({elements});
  b.output(b.pointwise("aten::relu", {b.pointwise("aten::relu", {x})}));
  return b.g;
}

int64_t total(const std::vector<kc::DramTraffic>& d) {
  int64_t s = 0;
  for (const auto& t : d) s += t.bytes();
  return s;
}
}  // namespace

TEST_CASE("dram: arrays that fit in L2 stay there from call to call") {
  kc::Graph g = chain(1 << 20);  // 4 MiB arrays, 60 MiB L2
  auto r = kc::analyze(g, kc::default_target());
  REQUIRE(r.dram.size() == g.ops.size());
  CHECK(r.totals.eager_hbm_bytes == 4 * (4 << 20));
  // The hashed sets lose a few lines of any working set (a line survives while fewer than the
  // ways' count of later lines land in its set): a thousandth of the arrays at most.
  CHECK(total(r.dram) * 1000 < r.totals.eager_hbm_bytes);
  CHECK(r.totals.eager_dram_read_bytes + r.totals.eager_dram_write_bytes == total(r.dram));
}

TEST_CASE("dram: arrays larger than L2 are read from DRAM and written back") {
  kc::Graph g = chain(int64_t{32} << 20);  // 128 MiB arrays
  auto r = kc::analyze(g, kc::default_target());
  for (size_t i = 0; i < g.ops.size(); ++i) CHECK(r.dram[i].read_bytes == r.traffic[i].read_bytes);
  // Each output is written back, but for what the L2 still holds when the next array reuses it.
  const int64_t array = int64_t{128} << 20;
  CHECK(r.totals.eager_dram_write_bytes > array);
  CHECK(r.totals.eager_dram_write_bytes <= 2 * array);
  CHECK(r.totals.eager_dram_read_bytes == 2 * array);
}

TEST_CASE("dram: a target without L2 facts gets the array-sized figures, which the L2 never changes") {
  kc::Graph g = chain(1 << 20);
  kc::Target no_l2 = kc::default_target();
  no_l2.device.l2_bytes = 0;
  auto plain = kc::analyze(g, no_l2);
  auto cached = kc::analyze(g, kc::default_target());
  for (size_t i = 0; i < g.ops.size(); ++i) {
    CHECK(plain.dram[i].read_bytes == plain.traffic[i].read_bytes);
    CHECK(plain.dram[i].write_bytes == plain.traffic[i].write_bytes);
    CHECK(cached.traffic[i].bytes() == plain.traffic[i].bytes());
  }
  CHECK(cached.totals.eager_hbm_bytes == plain.totals.eager_hbm_bytes);
}

TEST_CASE("dram: ops that launch nothing move nothing") {
  GraphBuilder b;
  int x = b.input({int64_t{32} << 20});
  b.output(b.view("aten::view", x, {int64_t{32} << 20}));
  auto r = kc::analyze(b.g, kc::default_target());
  CHECK(total(r.dram) == 0);
}

TEST_CASE("dram: an op that launches nothing and returns its input reads as that input") {
  // x -> relu -> dropout (train=False: no kernel, the same tensor) -> neg, 1 MiB arrays
  // through a 2.5 MiB L2: neg finds relu's result still in L2. Were dropout's result an array
  // of its own, never written, neg would read it from DRAM, call after call.
  GraphBuilder b;
  int x = b.input({1 << 18});
  int y = b.pointwise("aten::relu", {x});
  int z = b.op("aten::dropout", {y});
  b.arg_float("p", 0.1);
  b.arg_bool("train", false);
  b.output(b.pointwise("aten::neg", {z}));
  kc::Target t = kc::default_target();
  t.device.l2_bytes = 5 << 19;
  t.l2_usable_fraction = 1.0;
  auto r = kc::analyze(b.g, t);
  REQUIRE(r.launches[1].counts.kernels == 0);
  CHECK(r.dram[1].bytes() == 0);
  CHECK(r.dram[2].read_bytes == 0);
  CHECK(r.dram[0].read_bytes > 0);  // the L2 is short: x was partly evicted since the last call
}

TEST_CASE("dram: a may-alias result that a kernel copies has an array of its own") {
  // contiguous(x) of a transposed x is a copy kernel into new storage, though its schema
  // says its result may alias x: x, the copy and relu's result (3 MiB) overflow a 2.5 MiB L2,
  // where x and relu's result alone (2 MiB) would stay in it.
  GraphBuilder b;
  int x = b.strided({512, 512}, {1, 512});
  int c = b.view("aten::contiguous", x, {512, 512});
  b.output(b.pointwise("aten::relu", {c}));
  kc::Target t = kc::default_target();
  t.device.l2_bytes = 5 << 19;
  t.l2_usable_fraction = 1.0;
  auto r = kc::analyze(b.g, t);
  REQUIRE(r.launches[0].counts.kernels == 1);
  CHECK(total(r.dram) > 0);
}

namespace {
// The DRAM bytes read per call by chain(1 << 20) (4 MiB arrays: x, re-read each call after the
// two relus' 8 MiB) through an L2 of `l2_mib` MiB, all usable, of `ways` hashed ways (0: LRU
// with a hard cut-off).
int64_t chain_reads(int64_t l2_mib, int ways) {
  kc::Graph g = chain(1 << 20);
  kc::Target t = kc::default_target();
  t.device.l2_bytes = l2_mib << 20;
  t.l2_usable_fraction = 1.0;
  t.l2_ways = ways;
  auto r = kc::analyze(g, t);
  return r.totals.eager_dram_read_bytes;
}
}  // namespace

TEST_CASE("dram: hashed sets lose a line before the capacity is reached, more the further it is reused") {
  const int64_t array = 4 << 20;
  // 12 MiB of arrays in 16 MiB: an LRU cut-off keeps them all.
  CHECK(chain_reads(16, 0) == 0);
  // With 16 ways x is reused after half the capacity: a few of its lines find 16 later ones in
  // their set.
  const int64_t half = chain_reads(16, 16);
  CHECK(half > 0);
  CHECK(half < array / 20);
  // After 8 MiB of 10 MiB, a quarter of x or more is lost; fewer ways lose more at the same
  // distance (a set's count of later lines varies more against its size).
  const int64_t most = chain_reads(10, 16);
  CHECK(most > array / 4);
  CHECK(most < array);
  CHECK(chain_reads(10, 4) > most);
  // Far past the capacity nearly nothing survives, as with the cut-off.
  CHECK(std::llabs(chain_reads(2, 16) - chain_reads(2, 0)) < array / 1000);
}

TEST_CASE("dram: KERNELCOUNT_L2_MODEL replaces the fitted L2 parameters, and bad values are an error") {
  kc::Graph g = chain(1 << 20);
  kc::Target t = kc::default_target();
  t.device.l2_bytes = 16 << 20;
  t.l2_usable_fraction = 1.0;
  t.l2_ways = 16;
  setenv("KERNELCOUNT_L2_MODEL", "1,0", 1);
  CHECK(kc::analyze(g, t).totals.eager_dram_read_bytes == 0);
  setenv("KERNELCOUNT_L2_MODEL", "1.5,16", 1);
  CHECK_THROWS(kc::analyze(g, t));
  setenv("KERNELCOUNT_L2_MODEL", "0.5", 1);
  CHECK_THROWS(kc::analyze(g, t));
  unsetenv("KERNELCOUNT_L2_MODEL");
  CHECK(kc::analyze(g, t).totals.eager_dram_read_bytes > 0);
}

namespace {
// regnet_x_400mf's first grouped convolution of x [2, 32, 112, 112]: its output.
int regnet_grouped_conv(GraphBuilder& b, int x) {
  int w = b.input({32, 16, 3, 3}, kc::DType::kFloat32, kc::ValueRole::kParameter);
  int y = b.op("aten::conv2d", {x, w}, {}, {2, 32, 56, 56});
  b.arg_ints("stride", {2, 2});
  b.arg_ints("padding", {1, 1});
  b.arg_ints("dilation", {1, 1});
  b.arg_int("groups", 2);
  return y;
}
}  // namespace

TEST_CASE("dram: cuDNN's loop over a float32 convolution's groups writes its transposes' lines past the L2") {
  // regnet_x_400mf's first grouped convolution, which the H200 ran as 2 x (genericTranspose,
  // GEMM, genericTranspose).
  GraphBuilder b;
  int x = b.input({2, 32, 112, 112});
  int y = regnet_grouped_conv(b, x);
  b.output(y);
  auto r = kc::analyze(b.g, kc::default_target());
  REQUIRE(r.launches[0].counts.kernels == 6);
  const int64_t slices = (b.g.values[x].bytes() + b.g.values[y].bytes()) / 2;
  CHECK(r.dram[0].scattered_write_bytes == 2 * kc::kLinePerElement * slices);
  CHECK(r.dram[0].write_bytes >= r.dram[0].scattered_write_bytes);
}

TEST_CASE("dram: the lines a scattered transform loses take other arrays' place in the L2") {
  // The convolution above, then a ReLU over its 0.8 MB output: the output is the last array the
  // convolution wrote, but its transposes churned 64 times their slices through the L2 (more than
  // the L2 holds), so the ReLU reads it back from DRAM.
  GraphBuilder b;
  int x = b.input({2, 32, 112, 112});
  int y = regnet_grouped_conv(b, x);
  b.output(b.pointwise("aten::relu", {y}));
  auto r = kc::analyze(b.g, kc::default_target());
  REQUIRE(r.dram[0].scattered_write_bytes > kc::default_target().device.l2_bytes);
  CHECK(r.dram[1].read_bytes > b.g.values[y].bytes() / 2);
  // The output was dirty: its lines lost are written back, charged to the ReLU that touches them.
  CHECK(r.dram[1].write_bytes > b.g.values[y].bytes() / 2);
}

TEST_CASE("dram: a key and value read from both sides of the chip take their size twice in the L2") {
  // q, k, v of 12 MiB and the output in a 64 MiB L2 with the hard cut-off: 48 MiB fit from
  // call to call, the 72 MiB with the copies of k and v do not.
  auto attention = [](kc::DType dt, int64_t heads) {
    GraphBuilder b;
    const std::vector<int64_t> shape{1, heads, 4096, 64};
    int q = b.input(shape, dt), k = b.input(shape, dt), v = b.input(shape, dt);
    b.output(b.op("aten::scaled_dot_product_attention", {q, k, v}, {}, shape, dt));
    kc::Target t = kc::default_target();
    t.device.l2_bytes = int64_t{64} << 20;
    t.l2_usable_fraction = 1.0;
    t.l2_ways = 0;
    return kc::analyze(b.g, t);
  };
  const auto f32 = attention(kc::DType::kFloat32, 12);  // fmha_cutlassF
  REQUIRE(f32.launches[0].rule == "sdpa.fused");
  REQUIRE(f32.launches[0].counts.kernels == 1);
  CHECK(f32.dram[0].read_bytes > 0);
  const auto bf16 = attention(kc::DType::kBFloat16, 24);  // cuDNN's flash attention, the same bytes
  CHECK(bf16.dram[0].read_bytes == 0);
}
