// The H200 GEMM and attention rules (passes/torch2_11/gemm.cc, attention.cc): one case per
// mechanism, each on a hand-built graph.
#include <catch2/catch.hpp>

#include "passes/graph_builder.h"
#include "passes/launch_rules.h"
#include "passes/launches.h"
#include "passes/target.h"

using kc::DType;
using kc::test::GraphBuilder;
using kc::test::rules_only;

namespace {

// linear(x, w[, bias]) with x of the given layout; returns the builder.
GraphBuilder linear(std::vector<int64_t> x_sizes, std::vector<int64_t> x_strides, int64_t n, bool bias, DType dt) {
  GraphBuilder b;
  int x = x_strides.empty() ? b.input(x_sizes, dt) : b.strided(x_sizes, x_strides, dt);
  int w = b.input({n, x_sizes.back()}, dt, kc::ValueRole::kParameter);
  std::vector<int> ins = {x, w};
  if (bias) ins.push_back(b.input({n}, dt, kc::ValueRole::kParameter));
  std::vector<int64_t> out = x_sizes;
  out.back() = n;
  b.output(b.op("aten::linear", ins, {}, out));
  b.name_arg(0, "input");
  b.name_arg(1, "weight");
  if (bias) b.name_arg(2, "bias");
  return b;
}

GraphBuilder sdpa(std::vector<int64_t> q, std::vector<int64_t> k, DType dt, int mask = -1, GraphBuilder b = {}) {
  int qv = b.input(q, dt), kv = b.input(k, dt), vv = b.input(k, dt);
  b.output(b.op("aten::scaled_dot_product_attention", {qv, kv, vv}, {}, q));
  b.name_arg(0, "query");
  b.name_arg(1, "key");
  b.name_arg(2, "value");
  if (mask >= 0) b.g.ops.back().args.push_back(kc::Arg::tensor("attn_mask", mask));
  return b;
}

}  // namespace

TEST_CASE("gemm: bf16 GEMMs zero a stream-K workspace only for large outputs (M*N >= 12M)") {
  auto small = rules_only(linear({2, 128, 256}, {}, 1024, true, DType::kBFloat16));  // M*N = 0.26M
  CHECK(small.counts.kernels == 1);
  CHECK(small.counts.memset == 0);
  auto large = rules_only(linear({4096, 768}, {}, 3072, true, DType::kBFloat16));  // 12.6M
  CHECK(large.counts.kernels == 1);
  CHECK(large.counts.memset == 1);
  auto fp32 = rules_only(linear({4096, 768}, {}, 3072, true, DType::kFloat32));
  CHECK(fp32.counts.memset == 0);
}

TEST_CASE("gemm: f32 small-M, long-K linear with a bias takes split-K largek (3 kernels + memset)") {
  auto l = rules_only(linear({2, 128, 1024}, {}, 256, true, DType::kFloat32));  // M=256, K=4N
  CHECK(l.rule == "gemm.splitk_largek");
  CHECK(l.counts.kernels == 3);
  CHECK(l.counts.memset == 1);
  // Many output tiles: one kernel.
  auto wide = rules_only(linear({2, 128, 1024}, {}, 4096, true, DType::kFloat32));
  CHECK(wide.counts.kernels == 1);
  CHECK(wide.counts.memset == 0);
  // M >= 512: one kernel.
  auto tall = rules_only(linear({8, 128, 1024}, {}, 256, true, DType::kFloat32));
  CHECK(tall.counts.kernels == 1);
}

TEST_CASE("gemm: f32 small-M linear without a bias splits K into GEMM + reduction (2 kernels)") {
  auto l = rules_only(linear({2, 128, 256}, {}, 256, false, DType::kFloat32));
  CHECK(l.rule == "gemm.splitk_reduce");
  CHECK(l.counts.kernels == 2);
  CHECK(l.counts.memset == 0);
  // bf16 never takes this path.
  CHECK(rules_only(linear({2, 128, 256}, {}, 256, false, DType::kBFloat16)).counts.kernels == 1);
}

TEST_CASE("gemm: bf16 long-K GEMMs with a small output split K (nvjet + splitKreduce)") {
  auto l = rules_only(linear({2, 49, 3072}, {}, 768, true, DType::kBFloat16));  // M=98, K=3072
  CHECK(l.rule == "gemm.splitk_reduce");
  CHECK(l.counts.kernels == 2);
  CHECK(l.counts.memset == 0);
  // A wide output (N = 11008) is one GEMM.
  CHECK(rules_only(linear({7, 4096}, {}, 11008, true, DType::kBFloat16)).counts.kernels == 1);
  // Short K: one GEMM.
  CHECK(rules_only(linear({2, 49, 2048}, {}, 512, true, DType::kBFloat16)).counts.kernels == 1);
}

TEST_CASE("gemm: one row is a GEMV, 1 kernel, no split-K") {
  auto l = rules_only(linear({1, 4096}, {}, 11008, true, DType::kFloat32));
  CHECK(l.rule == "gemm");
  CHECK(l.counts.kernels == 1);
  CHECK(l.counts.memset == 0);
}

TEST_CASE("gemm: a non-contiguous 3-D input with a bias is copy + GEMM + bias add") {
  // Every other element of the last dim: folds to rows but no unit stride, so a copy.
  auto l = rules_only(linear({32, 197, 1024}, {403456, 2048, 2}, 4096, true, DType::kBFloat16));
  CHECK(l.counts.kernels == 3);
  // A transposed view [B, T, C] of [B, C, T]: the bmm path reads it as is, then adds the bias.
  auto t = rules_only(linear({2, 196, 128}, {25088, 1, 196}, 128, true, DType::kFloat32));
  CHECK(t.counts.kernels == 2);
  // The same without a bias: one bmm.
  CHECK(rules_only(linear({2, 196, 128}, {25088, 1, 196}, 128, false, DType::kFloat32)).counts.kernels == 1);
  // 2-D strided rows: addmm reads them with a leading dimension, bias fused.
  CHECK(rules_only(linear({2, 256}, {32768, 1}, 1000, true, DType::kFloat32)).counts.kernels == 1);
}

TEST_CASE("gemm: einsum is one bmm + a copy per operand whose permutation is not a view") {
  auto einsum = [](const std::string& eq, int a, int b, GraphBuilder& g) {
    g.output(g.op("aten::einsum", {}, {}, {1}));
    kc::Arg e;
    e.name = "equation";
    e.kind = kc::Arg::Kind::kString;
    e.text = eq;
    kc::Arg ts;
    ts.name = "tensors";
    ts.kind = kc::Arg::Kind::kTensorList;
    ts.tensors = {a, b};
    g.g.ops.back().args = {e, ts};
    return rules_only(g);
  };
  {
    GraphBuilder g;  // relative position, height: the query must be permuted (copy)
    int q = g.input({2, 4, 14, 14, 96}), r = g.input({14, 7, 96});
    auto l = einsum("byhwc,hkc->byhwk", q, r, g);
    CHECK(l.rule == "gemm.einsum");
    CHECK(l.counts.kernels == 2);
  }
  {
    GraphBuilder g;  // width: batch w, rows (b, y, h) fold as a view
    int q = g.input({2, 4, 14, 14, 96}), r = g.input({14, 7, 96});
    CHECK(einsum("byhwc,wkc->byhwk", q, r, g).counts.kernels == 1);
  }
  {
    GraphBuilder g;  // both operands permuted: 2 copies
    int q = g.strided({2, 4, 8, 49, 32}, {150528, 37632, 32, 768, 1});
    int k = g.strided({2, 4, 8, 49, 32}, {50176, 12544, 32, 256, 1});
    CHECK(einsum("B G H I D, B G H J D -> B G H I J", q, k, g).counts.kernels == 3);
  }
  {
    GraphBuilder g;  // nothing contracted: sumproduct_pair is one multiply
    int a = g.input({4, 8}), c = g.input({4, 16});
    CHECK(einsum("bi,bj->bij", a, c, g).counts.kernels == 1);
  }
  {
    GraphBuilder g;  // an ellipsis the output lacks: k summed on the left, then a multiply
    int a = g.input({1, 2, 3}), c = g.input({3});
    CHECK(einsum("...ik, ...j -> ij", a, c, g).counts.kernels == 2);
  }
  {
    GraphBuilder g;  // an ellipsis kept: batch dims broadcast, j contracted by one batched GEMM
    int a = g.input({4, 8, 16}), c = g.input({16, 32});
    CHECK(einsum("...ij,jk->...ik", a, c, g).rule == "gemm.einsum");
  }
  {
    // A mixture-of-experts combine: the contracted labels e, c go in subscript order (c, e),
    // which neither operand holds as one block: two copies, then a split-K GEMM (opset:
    // einsum_combine measured 4).
    GraphBuilder g;
    int x = g.input({512, 8, 64}), y = g.input({8, 64, 256});
    CHECK(einsum("nec,ecd->nd", x, y, g).counts.kernels == 4);
  }
  {
    // The dispatch: n contracted, the left operand read transposed as it is (no copy), one split-K
    // GEMM (opset:einsum_dispatch measured 2).
    GraphBuilder g;
    int x = g.input({512, 8, 64}), y = g.input({512, 256});
    CHECK(einsum("nec,nd->ecd", x, y, g).counts.kernels == 2);
  }
  {
    // A label one operand has and neither the other nor the output: summed first, one kernel.
    GraphBuilder g;
    int x = g.input({4, 8, 3}), y = g.input({8, 16});
    CHECK(einsum("bks,kn->bn", x, y, g).counts.kernels == 2);
  }
}

TEST_CASE("sdpa: fused kernels, bool-mask conversion and f32 mask padding") {
  CHECK(
      rules_only(sdpa({2, 12, 197, 64}, {2, 12, 197, 64}, DType::kBFloat16)).counts.same_work(kc::Counts{1, 0, 1, 0}));
  CHECK(rules_only(sdpa({2, 12, 197, 64}, {2, 12, 197, 64}, DType::kFloat32)).counts.same_work(kc::Counts{1, 0, 0, 0}));
  // Decode: one query row, no workspace.
  CHECK(rules_only(sdpa({2, 4, 1, 48}, {2, 4, 197, 48}, DType::kBFloat16)).counts.same_work(kc::Counts{1, 0, 0, 0}));
  for (DType dt : {DType::kBFloat16, DType::kFloat32}) {
    GraphBuilder b;
    int m = b.input({2, 1, 128, 128}, DType::kBool);
    auto l = rules_only(sdpa({2, 4, 128, 64}, {2, 4, 128, 64}, dt, m, b));
    CHECK(l.counts.kernels == 4);
    CHECK(l.counts.memset == (dt == DType::kBFloat16 ? 1 : 0));
  }
  {
    GraphBuilder b;  // f32 float mask with 197 keys: padded
    int m = b.input({1, 12, 197, 197}, DType::kFloat32);
    CHECK(rules_only(sdpa({2, 12, 197, 64}, {2, 12, 197, 64}, DType::kFloat32, m, b)).counts.kernels == 3);
  }
  {
    GraphBuilder b;  // bf16 4-D float mask (relative position bias): cuDNN, 1/0/1
    int m = b.input({1, 12, 197, 197}, DType::kBFloat16);
    CHECK(rules_only(sdpa({2, 12, 197, 64}, {2, 12, 197, 64}, DType::kBFloat16, m, b))
              .counts.same_work(kc::Counts{1, 0, 1, 0}));
  }
}

TEST_CASE("sdpa: an expanded stride-0 bool mask falls back to the math path") {
  for (DType dt : {DType::kBFloat16, DType::kFloat32}) {
    GraphBuilder b;
    int m = b.strided({2, 1, 128, 128}, {0, 128, 1, 0}, DType::kBool);
    auto l = rules_only(sdpa({2, 4, 128, 64}, {2, 4, 128, 64}, dt, m, b));
    CHECK(l.rule == "sdpa.math.mask");
    CHECK(l.counts.kernels == (dt == DType::kBFloat16 ? 21 : 16));
  }
}

TEST_CASE("sdpa: 5-D and 3-D q/k/v run the math path; other ranks match no rule") {
  GraphBuilder b5 = sdpa({2, 3, 16, 196, 32}, {2, 3, 16, 196, 32}, DType::kFloat32);
  CHECK(rules_only(b5).counts.kernels == 11);
  GraphBuilder b3 = sdpa({8, 196, 32}, {8, 196, 32}, DType::kFloat32);
  CHECK(rules_only(b3).rule == "sdpa.math.layout");
  CHECK(rules_only(b3).counts.kernels == 9);
  GraphBuilder b3h = sdpa({8, 196, 32}, {8, 196, 32}, DType::kBFloat16);
  CHECK(rules_only(b3h).counts.kernels == 14);
  GraphBuilder b2 = sdpa({196, 32}, {196, 32}, DType::kFloat32);
  CHECK_FALSE(rules_only(b2).known);
}

namespace {
// _native_multi_head_attention(x, x, x, 768, 12, ...) as a ViT traces it: query, key and value
// one tensor unless `cross`, no mask, need_weights as given.
GraphBuilder mha(int64_t tokens, DType dt, bool need_weights, bool cross = false) {
  GraphBuilder b;
  int x = b.input({2, tokens, 768}, dt);
  int kv = cross ? b.input({2, tokens, 768}, dt) : x;
  int qkv_w = b.input({2304, 768}, dt, kc::ValueRole::kParameter),
      qkv_b = b.input({2304}, dt, kc::ValueRole::kParameter);
  int out_w = b.input({768, 768}, dt, kc::ValueRole::kParameter), out_b = b.input({768}, dt, kc::ValueRole::kParameter);
  b.output(b.op("aten::_native_multi_head_attention", {x, kv, kv, qkv_w, qkv_b, out_w, out_b}));
  auto& args = b.g.ops.back().args;
  const char* names[] = {"query", "key", "value", "qkv_weight", "qkv_bias", "proj_weight", "proj_bias"};
  for (size_t i = 0; i < args.size(); ++i) args[i].name = names[i];
  auto int_arg = [&](const char* name, int64_t v, kc::Arg::Kind kind) {
    kc::Arg a;
    a.name = name;
    a.kind = kind;
    a.ints = {v};
    args.push_back(a);
  };
  int_arg("embed_dim", 768, kc::Arg::Kind::kInt);
  int_arg("num_head", 12, kc::Arg::Kind::kInt);
  int_arg("need_weights", need_weights, kc::Arg::Kind::kBool);
  return b;
}
}  // namespace

TEST_CASE("mha: the fast path is QKV GEMM + fused attention + output GEMM; other calls match no rule") {
  auto f32 = rules_only(mha(197, DType::kFloat32, false));
  CHECK(f32.rule == "mha.fused");
  CHECK(f32.counts.same_work(kc::Counts{3, 0, 0, 0}));
  CHECK(rules_only(mha(197, DType::kBFloat16, false)).counts.same_work(kc::Counts{3, 0, 1, 0}));
  CHECK(rules_only(mha(1, DType::kBFloat16, false)).counts.same_work(kc::Counts{3, 0, 0, 0}));  // one query row
  // ViT-B/32's 50 tokens (torchscript_rest:vit_b_32, f32): the output projection, [100, 768] x
  // [768, 768], is linear's split-K shape: scaling, sgemm_largek and epilogue, a zeroed workspace.
  CHECK(rules_only(mha(50, DType::kFloat32, false)).counts.same_work(kc::Counts{5, 0, 1, 0}));
  // Returned weights or a separate key take the unfused path, which no measurement covers.
  CHECK_FALSE(rules_only(mha(197, DType::kFloat32, true)).known);
  CHECK_FALSE(rules_only(mha(197, DType::kFloat32, false, true)).known);
}

TEST_CASE("sdpa: q/k/v whose head dim is not unit-strided run the math path") {
  GraphBuilder b;
  const std::vector<int64_t> shape{2, 4, 49, 32}, strides{6272, 1568, 1, 49};
  int q = b.strided(shape, strides), k = b.strided(shape, strides), v = b.strided(shape, strides);
  b.output(b.op("aten::scaled_dot_product_attention", {q, k, v}, {}, shape));
  b.name_arg(0, "query");
  b.name_arg(1, "key");
  b.name_arg(2, "value");
  CHECK(rules_only(b).rule == "sdpa.math.layout");
  CHECK(rules_only(b).counts.kernels == 9);
  // Unit-strided heads of the same shape: the fused kernel.
  CHECK(rules_only(sdpa(shape, shape, DType::kFloat32)).counts.kernels == 1);
}

TEST_CASE("sdpa: cuDNN attention with dropout unpacks the Philox state first; mem-efficient does not") {
  auto with_dropout = [](DType dt, int64_t rows) {
    GraphBuilder b = sdpa({4, 4, rows, 8}, {4, 4, 6, 8}, dt);
    b.arg_float("dropout_p", 0.5);
    return rules_only(b);
  };
  CHECK(with_dropout(DType::kBFloat16, 3).counts.kernels == 2);
  CHECK(with_dropout(DType::kBFloat16, 3).counts.memset == 1);
  CHECK(with_dropout(DType::kFloat32, 3).counts.kernels == 1);
  CHECK_FALSE(with_dropout(DType::kBFloat16, 1).known);  // one query row with dropout: not measured
}

TEST_CASE("sdpa: bf16 heads not a multiple of 8 are padded for flash attention (7 kernels, no memset)") {
  auto l = rules_only(sdpa({8, 4, 64, 20}, {8, 4, 64, 20}, DType::kBFloat16));
  CHECK(l.rule == "sdpa.flash.padded");
  CHECK(l.counts.kernels == 7);
  CHECK(l.counts.memset == 0);
  // f32 takes the memory-efficient kernel as it is.
  CHECK(rules_only(sdpa({8, 4, 64, 20}, {8, 4, 64, 20}, DType::kFloat32)).counts.kernels == 1);
}

TEST_CASE("gemm: f32 linear (transposed weight) and addmm (row-major [K, N]) take different cuBLAS paths") {
  // M=256, K=1024, N=256 with the bias in the GEMM: 64 output tiles of 32x32, 16 K per tile.
  auto lin = rules_only(linear({256, 1024}, {}, 256, true, DType::kFloat32));
  CHECK(lin.rule == "gemm.splitk_largek");
  CHECK(lin.counts.kernels == 3);
  CHECK(lin.counts.memset == 1);
  GraphBuilder b;
  int bias = b.input({256}, DType::kFloat32, kc::ValueRole::kParameter);
  int x = b.input({256, 1024});
  int w = b.input({1024, 256}, DType::kFloat32, kc::ValueRole::kParameter);
  b.output(b.op("aten::addmm", {bias, x, w}, {}, {256, 256}));
  auto mm = rules_only(b);
  CHECK(mm.rule == "gemm.workspace");
  CHECK(mm.counts.kernels == 1);
  CHECK(mm.counts.memset == 1);
  // Few tiles and a long K: split-K GEMM + reduction; K per tile under 8: one kernel.
  CHECK(rules_only(linear({128, 1024}, {}, 256, true, DType::kFloat32)).counts.kernels == 2);
  CHECK(rules_only(linear({392, 384}, {}, 128, true, DType::kFloat32)).counts.kernels == 1);
}

TEST_CASE("gemm: addmm with beta 0 copies no self; with K = 0 it fills or copies and scales") {
  auto addmm = [](std::vector<int64_t> self, int64_t m, int64_t k, int64_t n, double beta) {
    GraphBuilder b;
    int c = b.input(self), x = b.input({m, k}), w = b.input({k, n});
    b.output(b.op("aten::addmm", {c, x, w}, {}, {m, n}));
    kc::Arg a;
    a.name = "beta";
    a.kind = kc::Arg::Kind::kFloat;
    a.floats = {beta};
    b.g.ops.back().args.push_back(a);
    return rules_only(b);
  };
  // beta 0: the GEMM alone, whatever self is.
  auto zero = addmm({64, 10}, 64, 3, 10, 0.0);
  CHECK(zero.counts.memcpy == 0);
  auto half = addmm({64, 10}, 64, 3, 10, 0.5);
  CHECK(half.counts.memcpy == 1);
  CHECK(zero.counts.kernels == half.counts.kernels);
  // K = 0: a fill for beta 0; else self into the result (memcpy or copy kernel) and a multiply.
  auto fill = addmm({10}, 5, 0, 10, 0.0);
  CHECK(fill.rule == "gemm.addmm.empty_k");
  CHECK(fill.counts.kernels == 1);
  auto vec = addmm({10}, 5, 0, 10, 1.0);
  CHECK(vec.counts.kernels == 2);
  CHECK(vec.counts.memcpy == 0);
  auto mat = addmm({5, 10}, 5, 0, 10, 0.2);
  CHECK(mat.counts.kernels == 1);
  CHECK(mat.counts.memcpy == 1);
}

namespace {
kc::Arg int_list(const std::string& name, std::vector<int64_t> v) {
  kc::Arg a;
  a.name = name;
  a.kind = kc::Arg::Kind::kIntList;
  a.ints = std::move(v);
  return a;
}
kc::Arg text(const std::string& name, const std::string& t) {
  kc::Arg a;
  a.name = name;
  a.kind = kc::Arg::Kind::kString;
  a.text = t;
  return a;
}
}  // namespace

TEST_CASE("gemm: tensordot is a copy per operand that no view makes a matrix, then one mm") {
  GraphBuilder b;
  int a = b.input({32, 16, 64}, DType::kBFloat16), c = b.input({64, 32, 48}, DType::kBFloat16);
  b.output(b.op("aten::tensordot", {a, c}, {}, {16, 48}));
  b.g.ops.back().args.push_back(int_list("dims_self", {0, 2}));
  b.g.ops.back().args.push_back(int_list("dims_other", {1, 0}));
  auto l = rules_only(b);
  CHECK(l.rule == "gemm.tensordot");
  CHECK(l.counts.kernels == 3);  // measured (opset:tensordot_perm bf16)
  // Contracting trailing with leading dims: both reshapes are views, one GEMM.
  GraphBuilder v;
  int x = v.input({8, 128, 256}, DType::kBFloat16), y = v.input({256, 512}, DType::kBFloat16);
  v.output(v.op("aten::tensordot", {x, y}, {}, {8, 128, 512}));
  v.g.ops.back().args.push_back(int_list("dims_self", {2}));
  v.g.ops.back().args.push_back(int_list("dims_other", {0}));
  CHECK(rules_only(v).counts.kernels == 1);
  // A contracted dim of size 1 facing a longer one is summed away first: [1, 1, 1] by [2, 1, 2]
  // over (0, 1) and (2, 0) sums the second operand twice, then multiplies [1, 1] by [1, 1].
  GraphBuilder s;
  int p = s.input({1, 1, 1}), q = s.input({2, 1, 2});
  s.output(s.op("aten::tensordot", {p, q}, {}, {1, 1}));
  s.g.ops.back().args.push_back(int_list("dims_self", {0, 1}));
  s.g.ops.back().args.push_back(int_list("dims_other", {2, 0}));
  auto summed = rules_only(s);
  REQUIRE(summed.known);
  CHECK(summed.counts.kernels == 4);  // measured (opinfo:tensordot): 2 sums, cuBLAS's dot + its reduction
}

TEST_CASE("gemm: a one-operand einsum that permutes is a view; a bf16 grouped mm is 2 kernels") {
  GraphBuilder b;
  int x = b.input({128, 128, 2, 1});
  b.output(b.op("aten::einsum", {}, {}, {2, 1, 128, 128}));
  b.g.ops.back().args = {text("equation", "ijbn->bnij")};
  kc::Arg ts;
  ts.name = "tensors";
  ts.kind = kc::Arg::Kind::kTensorList;
  ts.tensors = {x};
  b.g.ops.back().args.push_back(ts);
  CHECK(rules_only(b).rule == "gemm.einsum.view");
  CHECK(rules_only(b).counts.kernels == 0);
  GraphBuilder g;
  int a = g.input({512, 256}, DType::kBFloat16), w = g.input({4, 256, 2048}, DType::kBFloat16);
  g.output(g.op("aten::_grouped_mm", {a, w}, {}, {512, 2048}));
  CHECK(rules_only(g).counts.kernels == 2);
  GraphBuilder f;
  int a32 = f.input({512, 256}), w32 = f.input({4, 256, 2048});
  f.output(f.op("aten::_grouped_mm", {a32, w32}, {}, {512, 2048}));
  CHECK_FALSE(rules_only(f).known);  // f32 not measured
}

TEST_CASE("sdpa: f32 head dims not a multiple of 4 run the math path; a [B, L, H, E] layout adds three copies") {
  // sweep:sdpa_layout, head dim 30, no mask.
  CHECK(rules_only(sdpa({2, 3, 49, 32}, {2, 3, 49, 32}, DType::kFloat32)).counts.kernels == 1);
  CHECK(rules_only(sdpa({2, 3, 49, 30}, {2, 3, 49, 30}, DType::kFloat32)).counts.kernels == 9);
  // Half precision pads the head dim for flash attention instead.
  CHECK(rules_only(sdpa({2, 3, 49, 30}, {2, 3, 49, 30}, DType::kBFloat16)).rule == "sdpa.flash.padded");
  // q, k and v as heads of a [B, L, H*E] projection: [B, H] folds by no view, so each is copied.
  GraphBuilder b;
  const std::vector<int64_t> sizes{2, 3, 49, 30}, bshd{49 * 90, 30, 90, 1};
  int q = b.strided(sizes, bshd), k = b.strided(sizes, bshd), v = b.strided(sizes, bshd);
  b.output(b.op("aten::scaled_dot_product_attention", {q, k, v}, {}, sizes));
  CHECK(rules_only(b).counts.kernels == 12);
}

TEST_CASE("gemm: matmul copies an operand broadcast over a batch dim before its batched GEMM") {
  // sweep:matmul_bcast: [B, H, M, K] @ [B, 1, K, N] expands the right operand with stride 0.
  GraphBuilder b;
  int a = b.input({2, 4, 64, 32});
  int r = b.input({2, 1, 32, 64});
  b.output(b.op("aten::matmul", {a, r}, {}, {2, 4, 64, 64}));
  CHECK(rules_only(b).counts.kernels == 2);
  GraphBuilder same;
  int a2 = same.input({2, 4, 64, 32});
  int r2 = same.input({2, 4, 32, 64});
  same.output(same.op("aten::matmul", {a2, r2}, {}, {2, 4, 64, 64}));
  CHECK(rules_only(same).counts.kernels == 1);
}

TEST_CASE("gemm: a weight that requires grad makes matmul fold a transposed input by copying it") {
  // MLP-Mixer's token mixing: linear over x.transpose(1, 2), [2, 512, 196] with strides
  // {100352, 1, 512}. As plain tensors (a .pt2's run): bmm reads the transposed rows, then the
  // bias add: 2 kernels. A TorchScript parameter requires grad: should_fold folds anyway and
  // the reshape copies x: copy, mm, bias add (measured 3 in the TorchScript corpus).
  GraphBuilder plain = linear({2, 512, 196}, {100352, 1, 512}, 256, true, DType::kFloat32);
  CHECK(rules_only(plain).counts.kernels == 2);
  GraphBuilder grad = linear({2, 512, 196}, {100352, 1, 512}, 256, true, DType::kFloat32);
  grad.g.values[grad.g.ops.back().tensor_inputs()[1]].requires_grad = true;
  CHECK(rules_only(grad).counts.kernels == 3);
  // A contiguous input folds into a view either way: no copy.
  GraphBuilder contiguous = linear({2, 196, 512}, {}, 256, true, DType::kFloat32);
  contiguous.g.values[contiguous.g.ops.back().tensor_inputs()[1]].requires_grad = true;
  CHECK(rules_only(contiguous).counts.kernels == 1);
}

TEST_CASE("gemm: one output column of many rows is a GEMV; few rows are not") {
  // linear [*, 2048] -> 1 on a strided input (a copy first): gemv from 256 rows.
  GraphBuilder many = linear({8, 512, 2048}, {2097152, 4096, 2}, 1, false, DType::kFloat32);
  CHECK(rules_only(many).rule == "gemm");
  CHECK(rules_only(many).counts.kernels == 2);
  // 64 rows: a dot product and its reduction (2 kernels), no copy.
  GraphBuilder few = linear({64, 2048}, {}, 1, false, DType::kFloat32);
  CHECK(rules_only(few).rule == "gemm.splitk_reduce");
  CHECK(rules_only(few).counts.kernels == 2);
}

TEST_CASE("sdpa: the 3-D math path builds and adds a causal mask and runs dropout") {
  auto math = [](DType dt, bool causal, double dropout) {
    GraphBuilder b = sdpa({4, 3, 8}, {4, 6, 8}, dt);
    b.arg_bool("is_causal", causal);
    b.arg_float("dropout_p", dropout);
    return rules_only(b).counts.kernels;
  };
  CHECK(math(DType::kFloat32, false, 0.0) == 9);
  CHECK(math(DType::kFloat32, true, 0.0) == 15);
  CHECK(math(DType::kBFloat16, true, 0.0) == 20);
  CHECK(math(DType::kFloat32, true, 0.5) == 16);
}

TEST_CASE("sdpa: q/k/v of ranks 3 and 4 mixed run the math path, matmul copying each operand it expands") {
  auto kernels = [](std::vector<int64_t> q, std::vector<int64_t> k, DType dt, bool causal) {
    GraphBuilder b = sdpa(std::move(q), std::move(k), dt);
    b.arg_bool("is_causal", causal);
    auto l = rules_only(b);
    CHECK(l.rule == "sdpa.math.layout");
    return l.counts.kernels;
  };
  // A [4, 3, 8] query against [4, 4, 6, 8] keys: the scaled query expanded to [4, 4, 3, 8] and copied.
  CHECK(kernels({4, 3, 8}, {4, 4, 6, 8}, DType::kFloat32, false) == 10);
  CHECK(kernels({4, 3, 8}, {4, 4, 6, 8}, DType::kBFloat16, true) == 21);
  // A 4-D query against 3-D keys and values: the keys, then the values, expanded and copied.
  CHECK(kernels({4, 4, 3, 8}, {4, 6, 8}, DType::kFloat32, false) == 11);
}

TEST_CASE("gemm: linear flattens a contiguous 1-d input to one row and fuses its bias") {
  auto one_d = rules_only(linear({3}, {}, 4, true, DType::kFloat32));
  auto two_d = rules_only(linear({1, 3}, {}, 4, true, DType::kFloat32));
  CHECK(one_d.counts.same_work(two_d.counts));
}

TEST_CASE("gemm: transformers' grouped_mm_fallback is a fill, a host read of the offsets and one mm per expert") {
  // fresh:qwen2-moe f32 (measured per op): [512, 256] by 4 experts of [256, 512] read transposed,
  // 128 rows each: a fill, a memcpy, 4 split-K GEMMs of 2 kernels; fresh:olmoe f32: K 256, N 2048
  // and K 1024, N 256, 5 and 9 kernels.
  auto fallback = [](std::vector<int64_t> a_sizes, std::vector<int64_t> w_sizes) {
    GraphBuilder b;
    const int a = b.input(a_sizes);
    const int64_t e = w_sizes[0], k = w_sizes[1], n = w_sizes[2];
    const int w = b.strided(w_sizes, {k * n, 1, k});  // the [E, N, K] parameter transposed
    b.output(b.op("transformers::grouped_mm_fallback", {a, w, b.input({e}, DType::kInt32)}, {}, {a_sizes[0], n}));
    return rules_only(b);
  };
  const auto qwen = fallback({512, 256}, {4, 256, 512});
  CHECK(qwen.rule == "gemm.grouped_fallback");
  CHECK(qwen.counts.kernels == 9);
  CHECK(qwen.counts.memcpy == 1);
  CHECK(qwen.counts.host_syncs == 1);
  CHECK(fallback({512, 256}, {4, 256, 2048}).counts.kernels == 5);
  CHECK(fallback({512, 1024}, {4, 1024, 256}).counts.kernels == 9);
}
