// The H200 rules for sorts, selections, scatters, data-dependent sizes and ATen composites
// (passes/torch2_11/selection.cc, composites.cc), checked against the opset blocks'
// measurements (data/results/opset).
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

TEST_CASE("sort: slices up to 4096 elements sort in place; longer ones take cub's radix sort by key bytes") {
  GraphBuilder b;
  b.op("aten::sort", {b.input({8, 1024})});
  auto small = last(b);
  CHECK(small.rule == "sort.small");
  CHECK(small.counts.kernels == 3);
  CHECK(small.counts.memcpy == 2);
  // One slice: the values' copy is a memcpy.
  b.op("aten::sort", {b.input({512}, DType::kInt64)});
  CHECK(last(b).counts.kernels == 2);
  CHECK(last(b).counts.memcpy == 3);
  // Several slices of 8192 f32 (4 radix passes): sorted together, 7 + 4 kernels, 5 + 4 memsets.
  b.op("aten::sort", {b.input({8, 8192})});
  auto seg = last(b);
  CHECK(seg.rule == "sort.long");
  CHECK(seg.counts.kernels == 11);
  CHECK(seg.counts.memcpy == 1);
  CHECK(seg.counts.memset == 9);
  // One long bf16 slice (2 passes): 1 + (2 + 2) kernels, 4 memsets.
  b.op("aten::sort", {b.input({65536}, DType::kBFloat16)});
  CHECK(last(b).counts.kernels == 5);
  CHECK(last(b).counts.memset == 4);
  // Slices of a million int64 elements (8 passes) one after another: 1 + 4 x 10.
  b.op("aten::sort", {b.input({4, 1048576}, DType::kInt64)});
  CHECK(last(b).counts.kernels == 41);
  CHECK(last(b).counts.memset == 40);
}

TEST_CASE("mode: one kernel up to 2048 elements a slice, thrust per slice from 3000 (f32) or 2049 (bf16)") {
  GraphBuilder b;
  b.op("aten::mode", {b.input({8, 2048})});
  CHECK(last(b).counts.kernels == 1);
  b.op("aten::mode", {b.input({16, 3000})});
  auto f32 = last(b);
  CHECK(f32.rule == "mode.long");
  CHECK(f32.counts.kernels == 16 * 15);
  CHECK(f32.counts.memcpy == 16 * 8 + 1);
  CHECK(f32.counts.memset == 16 * 6);
  b.op("aten::mode", {b.input({4, 65536}, DType::kBFloat16)});
  CHECK(last(b).counts.kernels == 4 * 19);
  CHECK(last(b).counts.memset == 0);
  // bf16 below 4096 elements: 8 kernels a slice (sweep at 2049, opset at 3000).
  b.op("aten::mode", {b.input({16, 3000}, DType::kBFloat16)});
  CHECK(last(b).counts.kernels == 16 * 8);
  CHECK(last(b).counts.memcpy == 16 * 8 + 1);
  CHECK(last(b).counts.memset == 0);
  // f32 at 2049-2999 elements takes yet another thrust path, not measured between: unknown.
  b.op("aten::mode", {b.input({4, 2500})});
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

TEST_CASE("nonzero writes coordinates only when it found an element; kthvalue of one number copies it") {
  GraphBuilder b;
  int x = b.input({5, 5});
  b.op("aten::nonzero", {x}, {}, {25, 2}, DType::kInt64);
  CHECK(last(b).counts.kernels == 4);  // count, compact init, select, write_indices
  b.op("aten::nonzero", {x}, {}, {0, 2}, DType::kInt64);
  CHECK(last(b).counts.kernels == 3);  // an all-zero input: no coordinates to write
  b.op("aten::kthvalue", {b.input({})}, {}, std::vector<int64_t>{});
  int_arg(b, "k", 1);
  const kc::Launch scalar = last(b);
  CHECK(scalar.counts.kernels == 1);  // the index zeroed
  CHECK(scalar.counts.memcpy == 1);   // the value copied
  b.op("aten::kthvalue", {b.input({5, 5, 5})}, {}, {5, 5});
  int_arg(b, "k", 2);
  CHECK(last(b).counts.kernels == 1);
  CHECK(last(b).counts.memcpy == 0);
}

TEST_CASE("0-d inputs: masked_select indexes one element of rank 1; mode copies the value, fills the index") {
  GraphBuilder b;
  b.op("aten::masked_select", {b.input({}), b.input({}, DType::kBool)}, {}, {1});
  auto ms = last(b);
  CHECK(ms.counts.kernels == 4);  // the count, cub's select (init + sweep), the gather
  CHECK(ms.counts.memcpy == 1);
  GraphBuilder m;
  m.op("aten::mode", {m.input({})}, {}, std::vector<int64_t>{});
  CHECK(last(m).counts.kernels == 1);
  CHECK(last(m).counts.memcpy == 1);
}

TEST_CASE("unique and unique_consecutive with counts run-length encode instead of select: the same launches") {
  for (const char* op : {"aten::_unique2", "aten::unique_consecutive"}) {
    GraphBuilder b;
    b.op(op, {b.input({5})}, {}, {5});
    b.arg_bool("return_counts", true);
    auto with_counts = last(b);
    CHECK(with_counts.counts.kernels == (std::string(op) == "aten::_unique2" ? 3 : 2));
    CHECK(with_counts.counts.memcpy == 1);
  }
}

TEST_CASE("unique: the inverse and a dim add fixed steps, whatever the values") {
  GraphBuilder inv;  // _unique2 with the inverse: 8 with or without counts
  inv.op("aten::_unique2", {inv.input({7})}, {}, {7});
  inv.arg_bool("return_inverse", true);
  CHECK(last(inv).rule == "unique.inverse");
  CHECK(last(inv).counts.kernels == 8);
  CHECK(last(inv).counts.host_syncs == 1);
  GraphBuilder dim;  // unique_dim: 5 plain, + 3 counts, + 5 inverse
  dim.op("aten::unique_dim", {dim.input({2, 3})}, {}, {2, 3});
  dim.arg_int("dim", 0);
  dim.arg_bool("return_inverse", true);
  dim.arg_bool("return_counts", true);
  CHECK(last(dim).counts.kernels == 13);
  GraphBuilder uc;  // unique_consecutive along a dim: 4 plain, + 3 counts
  uc.op("aten::unique_consecutive", {uc.input({7})}, {}, {7});
  uc.arg_int("dim", 0);
  uc.arg_bool("return_counts", true);
  CHECK(last(uc).counts.kernels == 7);
  CHECK(last(uc).counts.memcpy == 1);
  GraphBuilder uci;  // no dim, with the inverse: 5
  uci.op("aten::unique_consecutive", {uci.input({7})}, {}, {7});
  uci.arg_bool("return_inverse", true);
  CHECK(last(uci).counts.kernels == 5);
  GraphBuilder big;  // beyond the measured sizes: unknown
  big.op("aten::_unique2", {big.input({100000})}, {}, {100000});
  big.arg_bool("return_inverse", true);
  CHECK_FALSE(last(big).known);
}

TEST_CASE("unique along a dim of size 0 returns its empty results without launching or reading back") {
  for (const char* op : {"aten::unique_dim", "aten::unique_consecutive"}) {
    for (bool options : {false, true}) {
      GraphBuilder b;
      b.op(op, {b.input({5, 0, 5})}, {}, {5, 0, 5});
      b.arg_int("dim", 1);
      b.arg_bool("return_inverse", options);
      b.arg_bool("return_counts", options);
      auto l = last(b);
      CHECK(l.rule == "unique.dim.empty");
      CHECK(l.counts.kernels == 0);
      CHECK(l.counts.memcpy == 0);
      CHECK(l.counts.host_syncs == 0);
    }
  }
  GraphBuilder other;  // the dim is not the empty one: not this rule (ATen rejects it)
  other.op("aten::unique_dim", {other.input({5, 0, 5})}, {}, {5, 0, 5});
  other.arg_int("dim", 0);
  CHECK(last(other).rule != "unique.dim.empty");
}

TEST_CASE("unique along a dim copies the input contiguous first when moving the dim to the front breaks it") {
  auto kernels = [](const char* op, std::vector<int64_t> sizes, int64_t dim) {
    GraphBuilder b;
    b.op(op, {b.input(sizes)}, {}, sizes);
    b.arg_int("dim", dim);
    return last(b).counts.kernels;
  };
  CHECK(kernels("aten::unique_dim", {5, 5, 5}, 0) == 5);
  CHECK(kernels("aten::unique_dim", {5, 5, 5}, 1) == 6);  // opinfo_heldout7: direct_copy first
  CHECK(kernels("aten::unique_dim", {5, 5, 5}, -1) == 6);
  CHECK(kernels("aten::unique_dim", {5, 1, 5}, 1) == 5);  // only a size-1 dim crossed: still dense
  CHECK(kernels("aten::unique_consecutive", {5, 5}, 1) == 5);
  CHECK(kernels("aten::unique_consecutive", {5, 5}, 0) == 4);
}

TEST_CASE("searchsorted: a sorter's range read back, a scalar filled and cast, operands of another type cast") {
  auto search = [](std::vector<int64_t> seq, DType seq_type, int values, bool sorter) {
    GraphBuilder b;
    std::vector<int> ins = {b.input(seq, seq_type)};
    if (values >= 0) ins.push_back(values == 0 ? b.input({10, 10}) : b.input({10, 10}, DType::kFloat64));
    if (sorter) ins.push_back(b.input(seq, DType::kInt64));
    b.op("aten::searchsorted", ins, {}, {10, 10}, DType::kInt64);
    b.name_arg(0, "sorted_sequence");
    if (values >= 0) b.name_arg(1, "self");
    if (sorter) b.name_arg(ins.size() - 1, "sorter");
    if (values < 0) {
      b.g.ops.back().overload = "Scalar";
      b.arg_float("self", 0.5);
    }
    return last(b).counts;
  };
  CHECK(search({10}, DType::kFloat32, 0, false).kernels == 1);
  auto sorted = search({10}, DType::kFloat32, 0, true);  // aminmax, 2 items, the search
  CHECK(sorted.kernels == 2);
  CHECK(sorted.memcpy == 2);
  CHECK(sorted.host_syncs == 2);
  CHECK(search({20}, DType::kFloat32, -1, false).kernels == 3);  // fill, cast to float32, search
  CHECK(search({20}, DType::kBFloat16, -1, true).kernels == 4);
  CHECK(search({20}, DType::kFloat64, -1, false).kernels == 2);  // a double scalar needs no cast
  CHECK(search({20}, DType::kInt64, -1, false).kernels == 4);    // both cast to float32
  CHECK(search({10}, DType::kFloat32, 1, false).kernels == 2);   // the boundaries cast to float64
}

TEST_CASE("embedding_renorm_: the indices' sort, cub's unique, the renorm kernel") {
  auto renorm = [](std::vector<int64_t> idx) {
    GraphBuilder b;
    b.op("aten::embedding_renorm_", {b.input({100, 5}), b.input(std::move(idx), DType::kInt64)}, {}, {100, 5});
    return last(b);
  };
  CHECK(renorm({7}).counts.kernels == 5);
  CHECK(renorm({7}).counts.memcpy == 3);
  CHECK(renorm({2, 2}).counts.kernels == 6);
  CHECK(renorm({2, 2}).counts.memcpy == 2);
  CHECK(renorm({2, 2}).counts.host_syncs == 0);
  CHECK_FALSE(renorm({0}).known);
}

TEST_CASE("selection: shapes that change a copy into a memcpy or drop a step") {
  GraphBuilder ms;  // a [5] self broadcast over a [5, 5] mask: the expanded self is copied, not memcpy'd
  ms.op("aten::masked_scatter", {ms.input({5}), ms.input({5, 5}, DType::kBool), ms.input({5, 5})}, {}, {5, 5});
  CHECK(last(ms).counts.kernels == 5);
  CHECK(last(ms).counts.memcpy == 0);
  GraphBuilder tad;  // no dim: one gather of the flattened input
  tad.op("aten::take_along_dim", {tad.input({5, 5}), tad.input({5, 2}, DType::kInt64)}, {}, {10});
  CHECK(last(tad).counts.kernels == 1);
  tad.arg_int("dim", 1);
  CHECK(last(tad).counts.kernels == 2);
  GraphBuilder ri;  // output_size given: nothing read back
  ri.op("aten::repeat_interleave", {ri.input({4, 1}), ri.input({4}, DType::kInt64)}, {}, {6, 1});
  ri.g.ops.back().overload = "self_Tensor";
  ri.arg_int("output_size", 6);
  CHECK(last(ri).counts.kernels == 4);
  CHECK(last(ri).counts.memcpy == 0);
  GraphBuilder ss;  // a 0-d src into [5]: clone and the one element, two memcpys
  ss.op("aten::select_scatter", {ss.input({5}), ss.input({})}, {}, {5});
  ss.arg_int("dim", 0);
  ss.arg_int("index", 2);
  CHECK(last(ss).counts.memcpy == 2);
  CHECK(last(ss).counts.kernels == 0);
  GraphBuilder col;  // a column of a [5, 5] self is strided: a copy kernel
  col.op("aten::select_scatter", {col.input({5, 5}), col.input({5})}, {}, {5, 5});
  col.arg_int("dim", 1);
  CHECK(last(col).counts.kernels == 1);
  CHECK(last(col).counts.memcpy == 1);
  GraphBuilder aw;  // an empty input: the count and cub's init, no copy of the "strided" empty tensor
  aw.op("aten::argwhere", {aw.strided({5, 0}, {0, 1})}, {}, {0, 2}, DType::kInt64);
  CHECK(last(aw).counts.kernels == 2);
}

TEST_CASE("multinomial with replacement and bincount with integer weights") {
  GraphBuilder m;
  m.op("aten::multinomial", {m.input({3})}, {}, {3}, DType::kInt64);
  m.arg_int("num_samples", 3);
  m.arg_bool("replacement", true);
  CHECK(last(m).counts.kernels == 4);
  CHECK(last(m).counts.memcpy == 2);
  GraphBuilder bc;
  int x = bc.input({5}, DType::kInt64);
  int w = bc.input({5}, DType::kInt64);
  bc.op("aten::bincount", {x, w}, {}, {5}, DType::kFloat64);
  bc.name_arg(1, "weights");
  CHECK(last(bc).counts.kernels == 5);  // the weights cast to float64 first
  CHECK(last(bc).counts.memcpy == 2);
}

TEST_CASE("to_sparse is nonzero, then the values gathered; with fewer sparse dims, a unique of the rows too") {
  GraphBuilder b;
  b.op("aten::to_sparse", {b.input({5, 5})}, {}, {5, 5});
  auto all = last(b);
  CHECK(all.rule == "to_sparse");
  CHECK(all.counts.kernels == 5);
  CHECK(all.counts.memcpy == 3);
  GraphBuilder d;
  d.op("aten::to_sparse", {d.input({5, 5})}, {}, {5, 5});
  d.g.ops.back().overload = "sparse_dim";
  d.arg_int("sparse_dim", 1);
  auto rows = last(d);
  CHECK(rows.rule == "to_sparse.sparse_dim");
  CHECK(rows.counts.kernels == 10);
  CHECK(rows.counts.host_syncs == 2);
  GraphBuilder big;
  big.op("aten::to_sparse", {big.input({64, 64})}, {}, {64, 64});
  CHECK_FALSE(last(big).known);
}

TEST_CASE("combinations: arange, the mask, masked_select's nonzero and gather per grid, the stack") {
  GraphBuilder b;
  b.op("aten::combinations", {b.input({1})}, {}, {1, 1});
  b.arg_int("r", 1);
  auto one = last(b);
  CHECK(one.counts.kernels == 6);
  CHECK(one.counts.memcpy == 2);
  CHECK(one.counts.host_syncs == 1);
  GraphBuilder pairs;
  pairs.op("aten::combinations", {pairs.input({4})}, {}, {6, 2});
  pairs.arg_int("r", 2);
  CHECK(last(pairs).counts.kernels == 15);  // 4 for the mask, 5 a grid, the cat
  CHECK(last(pairs).counts.host_syncs == 2);
  GraphBuilder none;  // r > n without replacement: nothing selected, nothing gathered or stacked
  none.op("aten::combinations", {none.input({1})}, {}, {0, 2});
  none.arg_int("r", 2);
  CHECK(last(none).counts.kernels == 10);
  GraphBuilder big;  // a mask past 4096 elements: not measured
  big.op("aten::combinations", {big.input({100})}, {}, {4950, 2});
  big.arg_int("r", 2);
  CHECK_FALSE(last(big).known);
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

TEST_CASE("index_put_ of a 0-dim host value copies it to the device first, and waits") {
  // mask[idx] = True in a GPU export: the True is a lifted host constant.
  GraphBuilder b;
  int mask = b.input({1000}, DType::kBool);
  int idx = b.input({40}, DType::kInt64);
  int host_true = b.input({}, DType::kBool);
  b.g.values[host_true].placement = kc::Placement::kHost;
  b.op("aten::index_put_", {mask});
  b.arg_tensors("indices", {idx});
  b.g.ops.back().args.push_back(kc::Arg::tensor("values", host_true));
  auto put = last(b);
  CHECK(put.counts.kernels == 1);
  CHECK(put.counts.memcpy == 1);
  CHECK(put.counts.host_syncs == 1);
  // The same value on the device: the write alone.
  int device_true = b.input({}, DType::kBool);
  b.op("aten::index_put_", {mask});
  b.arg_tensors("indices", {idx});
  b.g.ops.back().args.push_back(kc::Arg::tensor("values", device_true));
  CHECK(last(b).counts.memcpy == 0);
  CHECK(last(b).counts.host_syncs == 0);
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
  // Excluding self: the targets reset to the identity first (opinfo: scatter_reduce_sum, include_self=False).
  CHECK(last(b).rule == "scatter_reduce.excluding_self");
  CHECK(last(b).counts.kernels == 2);
  CHECK(last(b).counts.memcpy == 2);
}

TEST_CASE("recurrent cells: two GEMMs without bias as the mm rules count them, + the fused cell kernel") {
  GraphBuilder b;
  int x = b.input({32, 128}), h = b.input({32, 256}), c = b.input({32, 256});
  int wi = b.input({1024, 128}, DType::kFloat32, kc::ValueRole::kParameter);
  int wh = b.input({1024, 256}, DType::kFloat32, kc::ValueRole::kParameter);
  b.op("aten::lstm_cell", {x, h, wi, wh}, {}, {32, 256});
  auto& args = b.g.ops.back().args;
  args[0].name = "input";
  args[1] = Arg();
  args[1].name = "hx";
  args[1].kind = Arg::Kind::kTensorList;
  args[1].tensors = {h, c};
  args[2].name = "w_ih";
  args[3].name = "w_hh";
  auto l = last(b);
  CHECK(l.rule == "rnn_cell");
  CHECK(l.counts.kernels == 4);  // measured: opset:lstm_cell_b32 f32 (the hidden GEMM splits K)
  CHECK(l.counts.memset == 0);
}

TEST_CASE("index_put with a boolean mask and accumulate: nonzero, then the sorted accumulate of every element") {
  GraphBuilder b;
  int self = b.input({5, 5});
  int mask = b.input({5}, DType::kBool);
  int values = b.input({5});
  b.op("aten::index_put", {self});
  b.arg_tensors("indices", {mask});
  b.g.ops.back().args.push_back(kc::Arg::tensor("values", values));
  b.arg_bool("accumulate", true);
  // The clone (memcpy), nonzero (3 + the count read back), the index's checks (8), division, arange
  // and sort (3), values [5] made contiguous over 5 rows (1), the accumulate (1).
  auto put = last(b);
  REQUIRE(put.known);
  CHECK(put.counts.kernels == 16);
  CHECK(put.counts.memcpy == 2);
  CHECK(put.counts.host_syncs == 1);
  // Values already one per selected element: no copy.
  int full = b.input({5, 5});
  b.op("aten::index_put", {self});
  b.arg_tensors("indices", {mask});
  b.g.ops.back().args.push_back(kc::Arg::tensor("values", full));
  b.arg_bool("accumulate", true);
  CHECK(last(b).counts.kernels == 15);
  // A 2-d mask: nonzero's index columns are not measured.
  int mask2 = b.input({5, 5}, DType::kBool);
  b.op("aten::index_put", {self});
  b.arg_tensors("indices", {mask2});
  b.g.ops.back().args.push_back(kc::Arg::tensor("values", values));
  b.arg_bool("accumulate", true);
  CHECK_FALSE(last(b).known);
}
