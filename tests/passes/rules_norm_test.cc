// The H200 rules of the norm family: batch norm's backend choice, native_batch_norm's own
// kernels and instance norm's repeats and running statistics.
#include <catch2/catch.hpp>

#include "passes/graph_builder.h"

using kc::DType;
using kc::test::GraphBuilder;
using kc::test::rules_only;

namespace {

struct BatchNorm {
  std::string op = "aten::batch_norm";
  std::vector<int64_t> sizes = {5, 5, 5};
  DType dtype = DType::kFloat32;
  bool weight = true;
  bool running = true;
  int training = 1;  // -1: no training argument (_batch_norm_with_update)
};

kc::Launch batch_norm(const BatchNorm& c) {
  GraphBuilder b;
  const int64_t ch = c.sizes[1];
  std::vector<int> ins = {b.input(c.sizes, c.dtype)};
  std::vector<std::string> names = {"input"};
  if (c.weight) {
    ins.push_back(b.input({ch}, c.dtype, kc::ValueRole::kParameter));
    ins.push_back(b.input({ch}, c.dtype, kc::ValueRole::kParameter));
    names.insert(names.end(), {"weight", "bias"});
  }
  if (c.running) {
    ins.push_back(b.input({ch}, c.dtype, kc::ValueRole::kBuffer));
    ins.push_back(b.input({ch}, c.dtype, kc::ValueRole::kBuffer));
    names.insert(names.end(), {"running_mean", "running_var"});
  }
  b.op(c.op, ins);
  for (size_t i = 0; i < names.size(); ++i) b.name_arg(i, names[i]);
  if (c.training >= 0) b.arg_bool("training", c.training != 0);
  b.arg_float("eps", 1e-5);
  return rules_only(b);
}

}  // namespace

TEST_CASE("batch norm with batch statistics: cuDNN for float32 rank 3+ with weight and bias, else ATen's three") {
  BatchNorm c;
  CHECK(batch_norm(c).counts.kernels == 1);  // cuDNN's bn_fw_tr
  c.dtype = DType::kBFloat16;
  CHECK(batch_norm(c).counts.kernels == 3);  // cuDNN takes no bf16
  c = BatchNorm{};
  c.weight = false;
  CHECK(batch_norm(c).counts.kernels == 3);  // no weight: native
  c = BatchNorm{};
  c.sizes = {3, 1};
  CHECK(batch_norm(c).counts.kernels == 3);  // rank 2: native
  c = BatchNorm{};
  c.op = "aten::native_batch_norm";
  CHECK(batch_norm(c).counts.kernels == 3);  // ATen's own op never calls cuDNN
  c = BatchNorm{};
  c.op = "aten::_batch_norm_with_update";
  c.training = -1;
  kc::Launch update = batch_norm(c);
  CHECK(update.rule == "batch_norm.with_update");
  CHECK(update.counts.kernels == 1);
}

TEST_CASE("native_batch_norm in inference runs ATen's kernels and copies a statistic; batch_norm runs cuDNN") {
  BatchNorm c;
  c.training = 0;
  c.op = "aten::native_batch_norm";
  kc::Launch native = batch_norm(c);
  CHECK(native.counts.kernels == 2);
  CHECK(native.counts.memcpy == 1);
  c.op = "aten::batch_norm";
  CHECK(batch_norm(c).counts.kernels == 1);
}

TEST_CASE("instance norm repeats its parameters and writes running statistics back") {
  BatchNorm c;
  c.op = "aten::instance_norm";
  c.training = -1;
  kc::Launch with_stats = batch_norm(c);
  CHECK(with_stats.counts.kernels == 7);  // 4 repeats, cuDNN, 2 means
  CHECK(with_stats.counts.memcpy == 2);
  c.running = false;
  kc::Launch affine = batch_norm(c);
  CHECK(affine.counts.kernels == 3);  // 2 repeats, cuDNN
  CHECK(affine.counts.memcpy == 0);
  c.dtype = DType::kBFloat16;
  CHECK(batch_norm(c).counts.kernels == 5);  // 2 repeats, ATen's 3
}
