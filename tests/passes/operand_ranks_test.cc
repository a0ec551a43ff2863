// Each rule family fed operands of ranks 0-5: the launches pass predicts for the ranks ATen
// accepts and refuses the others with an OpError at the op, never indexing a missing dim.
#include <catch2/catch.hpp>

#include "analyzer/error.h"
#include "passes/graph_builder.h"
#include "passes/launches.h"
#include "passes/target.h"

using kc::test::GraphBuilder;

namespace {

std::vector<int64_t> dims(size_t rank) {
  return std::vector<int64_t>(rank, 4);
}

// True when the launches pass predicts the graph's op, false when it refuses it (at op 0).
bool accepted(const kc::Graph& g) {
  try {
    kc::run_launches(g, kc::default_target(), {});
    return true;
  } catch (const kc::OpError& e) {
    CHECK(e.op() == 0);
    return false;
  }
}

}  // namespace

TEST_CASE("operand ranks: GEMMs take the ranks ATen's schemas require") {
  for (size_t ra = 0; ra <= 5; ++ra)
    for (size_t rb = 0; rb <= 5; ++rb) {
      INFO("ranks " << ra << " and " << rb);
      for (auto [name, want] : {std::pair<const char*, size_t>{"aten::mm", 2}, {"aten::bmm", 3}}) {
        GraphBuilder b;
        b.op(name, {b.input(dims(ra)), b.input(dims(rb))}, {}, {4, 4});
        CHECK(accepted(b.g) == (ra == want && rb == want));
      }
      for (auto [name, want] : {std::pair<const char*, size_t>{"aten::addmm", 2}, {"aten::baddbmm", 3}}) {
        GraphBuilder b;
        b.op(name, {b.input({4}), b.input(dims(ra)), b.input(dims(rb))}, {}, {4, 4});
        CHECK(accepted(b.g) == (ra == want && rb == want));
      }
      GraphBuilder lin;  // linear: any input of rank >= 1, a weight of rank 1 or 2
      lin.op("aten::linear", {lin.input(dims(ra)), lin.input(dims(rb))}, {}, {4, 4});
      CHECK(accepted(lin.g) == (ra >= 1 && (rb == 1 || rb == 2)));
      GraphBuilder mm;
      mm.op("aten::matmul", {mm.input(dims(ra)), mm.input(dims(rb))}, {}, {4, 4});
      CHECK(accepted(mm.g) == (ra >= 1 && rb >= 1));
    }
  GraphBuilder b;  // contracted dims that differ
  b.op("aten::mm", {b.input({4, 3}), b.input({4, 4})}, {}, {4, 4});
  CHECK_FALSE(accepted(b.g));
}

TEST_CASE("operand ranks: convolutions need input rank = weight rank (or one less, unbatched)") {
  for (size_t rx = 0; rx <= 5; ++rx)
    for (size_t rw = 0; rw <= 5; ++rw) {
      INFO("input rank " << rx << ", weight rank " << rw);
      GraphBuilder b;
      b.op("aten::conv2d", {b.input(dims(rx)), b.input(dims(rw), kc::DType::kFloat32, kc::ValueRole::kParameter)}, {},
           {4, 4, 4, 4});
      CHECK(accepted(b.g) == (rw >= 3 && rw <= 5 && (rx == rw || rx + 1 == rw)));
    }
}

TEST_CASE("operand ranks: attention needs query, key and value of rank >= 2") {
  for (size_t r = 0; r <= 5; ++r) {
    INFO("rank " << r);
    GraphBuilder b;
    b.op("aten::scaled_dot_product_attention", {b.input(dims(r)), b.input(dims(r)), b.input(dims(r))});
    CHECK(accepted(b.g) == (r >= 2));
  }
}

TEST_CASE("operand ranks: norms, cat, pooling and softmax") {
  for (size_t r = 0; r <= 5; ++r) {
    INFO("rank " << r);
    GraphBuilder ln;
    ln.op("aten::layer_norm", {ln.input(dims(r))});
    ln.arg_ints("normalized_shape", {4, 4});
    CHECK(accepted(ln.g) == (r >= 2));
    // rms_norm normalizes its last dims as layer_norm does: a vector over one dim is accepted.
    GraphBuilder rms;
    rms.op("aten::rms_norm", {rms.input(dims(r))});
    rms.arg_ints("normalized_shape", {4});
    CHECK(accepted(rms.g) == (r >= 1));
    GraphBuilder bn;
    bn.op("aten::batch_norm", {bn.input(dims(r))});
    CHECK(accepted(bn.g) == (r >= 2));
    GraphBuilder pool;
    pool.op("aten::max_pool2d", {pool.input(dims(r))});
    CHECK(accepted(pool.g) == (r == 3 || r == 4));
    GraphBuilder pool3;
    pool3.op("aten::max_pool3d", {pool3.input(dims(r))});
    CHECK(accepted(pool3.g) == (r == 4 || r == 5));
    for (size_t r2 = 0; r2 <= 5; ++r2) {
      GraphBuilder cat;
      int a = cat.input(dims(r)), c = cat.input(dims(r2));
      cat.op("aten::cat", {a});
      kc::Arg& list = cat.g.ops.back().args[0];
      list.name = "tensors";
      list.kind = kc::Arg::Kind::kTensorList;
      list.tensors = {a, c};
      CHECK(accepted(cat.g) == (r == r2 && r >= 1));
    }
    GraphBuilder sm;
    sm.op("aten::softmax", {sm.input(dims(r))});
    kc::Arg dim;
    dim.name = "dim";
    dim.kind = kc::Arg::Kind::kInt;
    dim.ints = {3};
    sm.g.ops.back().args.push_back(dim);
    CHECK(accepted(sm.g) == (r >= 4));
  }
}

TEST_CASE("operand ranks: linalg matrices need rank >= 2; the tensor forms take any rank") {
  for (size_t r = 0; r <= 5; ++r) {
    INFO("rank " << r);
    for (const char* name : {"aten::linalg_qr", "aten::linalg_inv", "aten::linalg_cholesky", "aten::linalg_svdvals",
                             "aten::linalg_eigh", "aten::linalg_det"}) {
      GraphBuilder b;
      b.op(name, {b.input(dims(r))});
      CHECK(accepted(b.g) == (r >= 2));
    }
    GraphBuilder legacy;  // triangular_solve(B, A): both matrices
    legacy.op("aten::triangular_solve", {legacy.input(dims(2)), legacy.input(dims(r))});
    CHECK(accepted(legacy.g) == (r >= 2));
    GraphBuilder solve;  // linalg_solve(A, B): B may be a vector
    solve.op("aten::linalg_solve", {solve.input(dims(2)), solve.input(dims(r))});
    CHECK(accepted(solve.g));
    GraphBuilder tensor;
    tensor.op("aten::linalg_tensorinv", {tensor.input(dims(r))});
    CHECK(accepted(tensor.g));
  }
}

TEST_CASE("operand ranks: host-only ops are not checked (they launch nothing)") {
  GraphBuilder b;
  int x = b.input({});
  b.g.values[x].device = "cpu";
  b.op("aten::mm", {x, x});
  for (auto& v : b.g.values) v.placement = kc::Placement::kHost;
  CHECK(accepted(b.g));
}
