// Rearrangements, ATen composites and data-dependent selections: counts read off ATen's code
// paths, as the H200 measured them for PyTorch's OpInfo samples and the select_sizes sweep.
#include <catch2/catch.hpp>

#include "passes/graph_builder.h"
#include "passes/launches.h"
#include "passes/target.h"
#include "passes/torch2_11/rules.h"

using kc::DType;
using kc::test::GraphBuilder;
using kc::test::rules_only;

namespace {
kc::Arg tensor_list(const std::string& name, std::vector<int> values) {
  kc::Arg a;
  a.name = name;
  a.kind = kc::Arg::Kind::kTensorList;
  a.tensors = std::move(values);
  return a;
}
kc::Counts counts(const GraphBuilder& b) {
  const kc::Launch l = rules_only(b);
  REQUIRE(l.known);
  return l.counts;
}
}  // namespace

TEST_CASE("nonzero: cub's count in one kernel up to 4096 elements, the select, coordinates for rank >= 2") {
  auto nonzero = [](std::vector<int64_t> sizes) {
    GraphBuilder b;
    int x = b.input(sizes, DType::kBool);
    int64_t n = 1;
    for (int64_t d : sizes) n *= d;
    // Every element found non-zero (the export's upper bound of the data-dependent row count).
    b.op("aten::nonzero", {x}, {}, {n, static_cast<int64_t>(sizes.size())}, DType::kInt64);
    return counts(b);
  };
  CHECK(nonzero({450}).kernels == 3);      // single tile, init, sweep
  CHECK(nonzero({13500}).kernels == 4);    // two reduce kernels
  CHECK(nonzero({64, 64}).kernels == 4);   // 4096: still one tile, + write_indices
  CHECK(nonzero({8, 1024}).kernels == 5);  // two reduce kernels, + write_indices
  CHECK(nonzero({}).kernels == 1);         // a 0-d input: the count only
  const kc::Counts c = nonzero({100});
  CHECK(c.memcpy == 1);
  CHECK(c.host_syncs == 1);
  // A transposed input is made contiguous first.
  GraphBuilder b;
  int t = b.strided({8, 16}, {1, 8}, DType::kBool);
  b.op("aten::nonzero", {t}, {}, {128, 2}, DType::kInt64);
  CHECK(counts(b).kernels == 5);
}

TEST_CASE("max_unpool: strided input and indices are made contiguous first") {
  auto unpool = [](std::vector<int64_t> strides) {
    GraphBuilder b;
    int x = b.strided({1, 2, 1, 2}, strides, DType::kBFloat16);
    int i = b.strided({1, 2, 1, 2}, strides, DType::kInt64);
    b.op("aten::max_unpool2d", {x, i}, {}, {1, 2, 3, 6});
    return counts(b).kernels;
  };
  CHECK(unpool({4, 2, 2, 1}) == 2);  // the zero fill, the unpooling kernel
  CHECK(unpool({4, 1, 4, 2}) == 4);  // channels last: a copy of each first
}

TEST_CASE("ldexp of nothing still fills its base 2 on the device") {
  GraphBuilder b;
  b.pointwise("aten::ldexp", {b.input({0, 1, 3}), b.input({0, 10, 3})});
  b.g.values[b.g.ops.back().outputs[0]].sizes = {0, 10, 3};
  const kc::Launch l = rules_only(b);
  CHECK(l.rule == "ldexp.empty");
  CHECK(l.counts.kernels == 1);
}

TEST_CASE("index: indices are copied only when their broadcast strides differ") {
  auto index = [](std::vector<int64_t> a, std::vector<int64_t> c) {
    GraphBuilder b;
    int x = b.input({500, 500});
    int i = b.input(a, DType::kInt64), j = b.input(c, DType::kInt64);
    b.op("aten::index", {x}, {}, {8, 300});
    b.g.ops.back().args.push_back(tensor_list("indices", {i, j}));
    return counts(b).kernels;
  };
  CHECK(index({8, 1}, {1, 300}) == 3);  // both expanded: a copy of each, then the gather
  CHECK(index({1, 1}, {1, 450}) == 2);  // one expanded
  CHECK(index({450}, {450}) == 1);      // same strides: the gather alone
}

TEST_CASE("topk: one select kernel, or the multi-block radix select on long slices; then the sort") {
  auto topk = [](std::vector<int64_t> sizes, int64_t k, DType dt = DType::kFloat32) {
    GraphBuilder b;
    int x = b.input(sizes, dt);
    std::vector<int64_t> out = sizes;
    out.back() = k;
    b.op("aten::topk", {x}, {}, out);
    b.arg_int("k", k);
    return counts(b);
  };
  CHECK(topk({1, 1000}, 10).kernels == 2);
  const kc::Counts long_slice = topk({8190000}, 1000);  // retinanet's candidates
  CHECK(long_slice.kernels == 20);                      // fill, 4 passes x 3, kth counts, 2 scans x 2, gather, sort
  CHECK(long_slice.memset == 2);
  CHECK(topk({40131}, 1000, DType::kBFloat16).kernels == 14);  // 2 passes for a 2-byte key
  CHECK(topk({40131}, 1).kernels == 19);                       // k = 1: nothing to sort
}

TEST_CASE("rearrangements: stacks, rot90, diag, fftshift, take and put") {
  GraphBuilder b;
  int u = b.input({5}), v = b.input({5});
  b.op("aten::hstack", {}, {}, {10});
  b.g.ops.back().args.push_back(tensor_list("tensors", {u, v}));
  CHECK(counts(b).kernels == 1);
  int m = b.input({5, 5, 5});
  b.op("aten::rot90", {m});
  CHECK(counts(b).kernels == 1);  // k = 1: a flip
  b.op("aten::rot90", {m});
  b.arg_int("k", 4);
  CHECK(counts(b).memcpy == 1);  // a full turn: a clone
  b.op("aten::diag", {u}, {}, {5, 5});
  CHECK(counts(b).kernels == 2);  // fill, copy into the diagonal
  b.op("aten::diag", {b.input({10, 10})}, {}, {10});
  CHECK(counts(b).kernels == 1);
  b.op("aten::diagflat", {b.input({})}, {}, {1, 1});
  const kc::Counts one = counts(b);
  CHECK(one.kernels == 1);  // the fill; one element copied by memcpy
  CHECK(one.memcpy == 1);
  b.op("aten::fft_fftshift", {b.input({9, 10})});
  CHECK(counts(b).kernels == 2);  // one roll per dim
  int idx = b.input({3}, DType::kInt64);
  b.op("aten::put", {b.input({3, 3}), idx, b.input({3})});
  const kc::Counts put = counts(b);
  CHECK(put.kernels == 1);
  CHECK(put.memcpy == 1);
}

TEST_CASE("composites: dist, pairwise_distance, isclose, nanmean, trapezoid") {
  GraphBuilder b;
  int x = b.input({5, 10}), y = b.input({5, 10});
  b.op("aten::dist", {x, y}, {}, std::vector<int64_t>{});
  CHECK(counts(b).kernels == 2);
  b.op("aten::pairwise_distance", {x, y}, {}, {5});
  CHECK(counts(b).kernels == 3);
  b.op("aten::isclose", {x, y}, {}, {}, DType::kBool);
  CHECK(counts(b).kernels == 13);
  b.op("aten::isclose", {x, y}, {}, {}, DType::kBool);
  b.arg_float("rtol", 0.0);
  b.arg_float("atol", 0.0);
  CHECK(counts(b).kernels == 1);  // zero tolerances: the equality only
  b.op("aten::isclose", {x, y}, {}, {}, DType::kBool);
  b.arg_float("rtol", 0.0);
  b.arg_float("atol", 0.0);
  b.arg_bool("equal_nan", true);
  CHECK(counts(b).kernels == 5);  // and the NaN test: isnan twice, and, or
  b.op("aten::isclose", {x, y}, {}, {}, DType::kBool);
  b.arg_bool("equal_nan", true);
  CHECK(counts(b).kernels == 17);
  int i = b.input({5, 10}, DType::kInt64), j = b.input({5, 10}, DType::kInt64);
  b.op("aten::isclose", {i, j}, {}, {}, DType::kBool);
  CHECK_FALSE(rules_only(b).known);  // integers with a tolerance cast first: not measured
  b.op("aten::nanmean", {x}, {}, std::vector<int64_t>{});
  CHECK(counts(b).kernels == 6);
  b.op("aten::trapezoid", {x, y}, {}, {5});
  b.g.ops.back().overload = "x";
  CHECK(counts(b).kernels == 5);
  b.op("aten::cumulative_trapezoid", {b.input({6}), b.input({6})}, {}, {5});
  b.g.ops.back().overload = "x";
  CHECK(counts(b).kernels == 6);  // a cumsum over every element: two kernels
}

TEST_CASE("composites: trapezoid with a scalar spacing sums and subtracts the halved edges") {
  GraphBuilder b;
  b.op("aten::trapz", {b.input({6})}, {}, std::vector<int64_t>{});
  b.g.ops.back().overload = "dx";
  CHECK(counts(b).kernels == 5);
  b.op("aten::cumulative_trapezoid", {b.input({6})}, {}, {5});
  b.g.ops.back().overload = "dx";
  CHECK(counts(b).kernels == 4);  // add, mul, a cumsum over every element
  b.op("aten::cumulative_trapezoid", {b.input({3, 6})}, {}, {3, 5});
  b.g.ops.back().overload = "dx";
  CHECK(counts(b).kernels == 3);
}

TEST_CASE("dropout in training with p = 1 multiplies by a filled zero: the fused kernel takes 0 < p < 1 only") {
  for (const char* op : {"aten::dropout", "aten::feature_dropout"}) {
    GraphBuilder b;
    b.op(op, {b.input({5, 5, 5})}, {}, {5, 5, 5});
    b.arg_float("p", 1.0);
    b.arg_bool("train", true);
    CHECK(counts(b).kernels == 2);
  }
}

TEST_CASE("alpha dropout in training: mask, offset and scale, product and offset; a product with zero at p = 1") {
  auto alpha = [](const char* name, double p, bool train) {
    GraphBuilder b;
    int x = b.input({4, 8, 16});
    b.op(name, {x}, {}, {4, 8, 16});
    b.arg_float("p", p);
    b.arg_bool("train", train);
    return rules_only(b).counts;
  };
  CHECK(alpha("aten::alpha_dropout", 0.5, true).kernels == 7);
  CHECK(alpha("aten::feature_alpha_dropout", 0.5, true).kernels == 7);
  CHECK(alpha("aten::feature_alpha_dropout", 1.0, true).kernels == 2);
  CHECK(alpha("aten::alpha_dropout", 0.0, true).kernels == 0);
  CHECK(alpha("aten::alpha_dropout", 0.5, false).kernels == 0);
}

TEST_CASE("sum_to_size: nothing when the size is the input's, one reduction otherwise, all of it for an empty size") {
  auto sum_to = [](std::vector<int64_t> in, std::vector<int64_t> size) {
    GraphBuilder b;
    int x = b.input(in);
    b.op("aten::sum_to_size", {x}, {}, size);
    b.arg_ints("size", size);
    return counts(b);
  };
  CHECK(sum_to({4, 8}, {4, 8}).kernels == 0);
  CHECK(sum_to({4, 8}, {1, 8}).kernels == 1);
  CHECK(sum_to({3, 4, 8}, {8}).kernels == 1);
  CHECK(sum_to({}, {}).kernels == 1);  // a 0-d input still sums (ExpandUtils.h's sum_to)
}

TEST_CASE("trace, special_ndtr and _safe_softmax follow their ATen composites") {
  GraphBuilder t;
  int m = t.input({5, 7});
  t.op("aten::trace", {m}, {}, {});
  CHECK(counts(t).kernels == 1);
  GraphBuilder n;
  int x = n.input({16});
  n.op("aten::special_ndtr", {x}, {}, {16});
  CHECK(counts(n).kernels == 4);
  GraphBuilder e;
  int z = e.input({0});
  e.op("aten::special_ndtr", {z}, {}, {0});
  CHECK(counts(e).kernels == 0);
  GraphBuilder s;
  int y = s.input({4, 32});
  s.op("aten::_safe_softmax", {y}, {}, {4, 32});
  s.arg_int("dim", -1);
  CHECK(counts(s).kernels == 5);
}

TEST_CASE("cdist: inputs expanded to one batch and made contiguous, then one kernel (p != 2)") {
  auto run = [](std::vector<int64_t> a, std::vector<int64_t> b, std::vector<int64_t> out) {
    GraphBuilder g;
    int x = g.input(std::move(a)), y = g.input(std::move(b));
    g.op("aten::cdist", {x, y}, {}, std::move(out));
    g.arg_float("p", 0.0);
    return rules_only(g);
  };
  auto same = run({2, 5, 3}, {2, 4, 3}, {2, 5, 4});
  CHECK(same.rule == "cdist.direct");
  CHECK(same.counts.kernels == 1);
  // [2, 1, 1, 2] by [1, 2, 2]: the second's batch grows to [2, 1], a copy before the kernel.
  CHECK(run({2, 1, 1, 2}, {1, 2, 2}, {2, 1, 1, 2}).counts.kernels == 2);
  CHECK(run({2, 0, 3}, {2, 4, 3}, {2, 0, 4}).rule != "cdist.direct");  // empty: not this rule's
}

TEST_CASE("cdist, p = 2: one kernel on few rows or with compute_mode 2, the matrix product otherwise") {
  auto run = [](std::vector<int64_t> a, std::vector<int64_t> b, int64_t mode) {
    GraphBuilder g;
    int x = g.input(std::move(a)), y = g.input(std::move(b));
    g.op("aten::cdist", {x, y}, {}, {});
    g.arg_float("p", 2.0);
    g.arg_int("compute_mode", mode);
    return rules_only(g);
  };
  CHECK(run({5, 5, 2}, {5, 6, 2}, 0).rule == "cdist.direct");  // 25 rows or fewer a side
  CHECK(run({5, 5, 2}, {5, 6, 2}, 2).counts.kernels == 1);
  CHECK(run({2, 30, 4}, {2, 6, 4}, 2).rule == "cdist.direct");  // mode 2: never the product
  auto mm = run({2, 256, 64}, {2, 128, 64}, 0);
  CHECK(mm.rule == "cdist.mm");
  CHECK(mm.counts.kernels == 12);  // as the opset block measured
  auto forced = run({5, 5}, {5, 5}, 1);
  CHECK(forced.rule == "cdist.mm");
  CHECK(forced.counts.kernels ==
        11 + kc::torch2_11::mm_launches(kc::default_target(), 5, 7, 5, DType::kFloat32).kernels);
  // [1, 1, 2] by [2, 1, 2, 2]: the first's batch grows to [2, 1], one copy more.
  CHECK(run({1, 1, 2}, {2, 1, 2, 2}, 1).counts.kernels == forced.counts.kernels + 1);
}
