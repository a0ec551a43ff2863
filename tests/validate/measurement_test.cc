#include "validate/measurement.h"

#include <catch2/catch.hpp>

#include "passes/report.h"
#include "validate/compare.h"

using kc::validate::GpuActivity;

TEST_CASE("validate: activities go to the op whose id was pushed, the rest to no op") {
  kc::validate::Measurement m;
  m.ops.resize(2);
  std::vector<GpuActivity> acts = {
      {GpuActivity::Kind::kKernel, 1, "k0", 0, 0},
      {GpuActivity::Kind::kMemset, 2, "", 64, 1},
      {GpuActivity::Kind::kKernel, 2, "k1", 0, 2},
      {GpuActivity::Kind::kMemcpy, 0, "DtoH", 4, 3},   // launched outside any op
      {GpuActivity::Kind::kKernel, 9, "stray", 0, 4},  // an id that maps to no op
  };
  kc::validate::attribute(acts, {0, 1}, m);
  CHECK(m.ops[0].counts.kernels == 1);
  CHECK(m.ops[1].counts.kernels == 1);
  CHECK(m.ops[1].counts.memset == 1);
  CHECK(m.unattributed.counts.memcpy == 1);
  CHECK(m.unattributed.counts.kernels == 1);
  CHECK(m.ops[1].kernel_names == std::vector<std::string>{"k1"});
}

TEST_CASE("validate: runtime ops align to graph ops by name, in order") {
  // The graph records aten::Int.Tensor, which runs as aten::item at run time.
  std::vector<std::string> graph = {"aten::size", "aten::floor_divide", "aten::Int", "aten::view", "aten::mul"};
  std::vector<bool> dispatched = {true, true, false, true, true};
  std::vector<std::string> runtime = {"aten::size", "aten::floor_divide", "aten::item", "aten::view", "aten::mul"};
  CHECK(kc::validate::align_by_name(runtime, graph, dispatched) == std::vector<int>{0, 1, 2, 3, 4});
  // A graph op that never shows up is skipped; the next one still matches.
  CHECK(kc::validate::align_by_name({"aten::view", "aten::mul"}, graph, dispatched) == std::vector<int>{3, 4});
}

TEST_CASE("validate: kernel names lose namespaces and parameter lists") {
  std::string full =
      "void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<float>, "
      "at::detail::Array<char*, 3> >(int, at::native::CUDAFunctor_add<float>, at::detail::Array<char*, 3>)";
  std::string s = kc::validate::short_kernel_name(full, 200);
  CHECK(s.rfind("vectorized_elementwise_kernel<4, CUDAFunctor_add<float>", 0) == 0);
  CHECK(s.find("(int") == std::string::npos);
  CHECK(kc::validate::short_kernel_name(full, 20).size() == 20);
}

TEST_CASE("validate: an op matches when kernels, memcpy and memset all equal; unknown never does") {
  std::vector<kc::Launch> predicted(3);
  predicted[0] = {true, {1, 0, 0, 0}, "pointwise", ""};
  predicted[1] = {true, {1, 0, 1, 0}, "gemm.linear.half", ""};
  predicted[2] = {false, {}, "no rule", ""};
  kc::validate::Measurement m;
  m.ops.resize(3);
  m.ops[0].counts.kernels = 1;
  m.ops[1].counts.kernels = 1;  // no memset measured
  m.ops[2].counts.kernels = 0;
  auto c = kc::validate::compare(predicted, m);
  CHECK(c.match == std::vector<bool>{true, false, false});
  CHECK(c.summary.matched == 1);
  CHECK(c.summary.unknown_predictions == 1);
  CHECK(c.summary.match_rate == Approx(1.0 / 3));
  CHECK(c.summary.predicted.kernels == 2);
  CHECK(c.summary.measured.kernels == 2);
  CHECK(*c.summary.kernels_error == Approx(0.0));
  CHECK_FALSE(c.summary.memset_error.has_value());  // 1 predicted, 0 measured: no ratio
}
