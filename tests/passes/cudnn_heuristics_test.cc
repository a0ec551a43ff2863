// cuDNN's own engine heuristics asked without a GPU (passes/torch2_11/cudnn_heuristics.h),
// and the convolution rule taking the trees that read them. Runs in its own process: the
// library is loaded once a process (kc_pass_tests runs with KERNELCOUNT_CUDNN=off).
#include "passes/torch2_11/cudnn_heuristics.h"

#include <catch2/catch.hpp>
#include <cstdlib>

#include "passes/target.h"
#include "passes/torch2_11/conv_engine.h"

using kc::DType;
using kc::torch2_11::CudnnConvQuery;
using kc::torch2_11::CudnnHeuristics;

namespace {

CudnnConvQuery conv(DType dt, std::vector<int64_t> x, std::vector<int64_t> w, bool cl = false) {
  CudnnConvQuery q;
  q.dtype = dt;
  q.x = std::move(x);
  q.w = std::move(w);
  q.channels_last = cl;
  const size_t sp = q.x.size() - 2;
  for (size_t d = 0; d < sp; ++d) {
    q.padding.push_back((q.w[2 + d] - 1) / 2);
    q.stride.push_back(1);
    q.dilation.push_back(1);
  }
  return q;
}

}  // namespace

TEST_CASE("cudnn heuristics: loaded where a cuDNN 9.19 is found, else a reason") {
  const CudnnHeuristics* h = CudnnHeuristics::get(kc::default_target().device.cudnn_properties);
  const std::string& status = CudnnHeuristics::status();
  INFO(status);
  if (!h) {
    // Where none is loaded the status says why, and the rules use the shape trees alone.
    const bool explained = status.find("unavailable") != std::string::npos ||
                           status.find("not built in") != std::string::npos || status.find("off") != std::string::npos;
    CHECK(explained);
    return;
  }
  CHECK(status.find("cuDNN 919") != std::string::npos);
}

TEST_CASE("cudnn heuristics: the engine configuration ATen would run, the same every time") {
  const CudnnHeuristics* h = CudnnHeuristics::get(kc::default_target().device.cudnn_properties);
  if (!h) return;  // the case above checks why
  // A ResNet 3x3 convolution in f32 NCHW: cuDNN 9.19's heuristics rank engine 38 first for the H200.
  const auto a = h->choose(conv(DType::kFloat32, {8, 64, 56, 56}, {64, 64, 3, 3}));
  REQUIRE(a.has_value());
  CHECK(a->engine == 38);
  CHECK(a->workspace > 0);
  CHECK(a->next_engine >= 0);
  const auto again = h->choose(conv(DType::kFloat32, {8, 64, 56, 56}, {64, 64, 3, 3}));
  REQUIRE(again.has_value());
  CHECK(again->engine == a->engine);
  CHECK(again->knobs == a->knobs);
  // Half precision, channels last, and 3-d problems are answered too.
  const auto cl = h->choose(conv(DType::kBFloat16, {8, 64, 56, 56}, {64, 64, 3, 3}, true));
  REQUIRE(cl.has_value());
  CHECK(cl->engine >= 0);
  const auto v = h->choose(conv(DType::kFloat16, {2, 32, 8, 28, 28}, {64, 32, 3, 3, 3}));
  REQUIRE(v.has_value());
  CHECK(v->engine >= 0);
}

TEST_CASE("cudnn heuristics: a transposed convolution is answered as cuDNN's data-gradient convolution") {
  const CudnnHeuristics* h = CudnnHeuristics::get(kc::default_target().device.cudnn_properties);
  if (!h) return;
  // conv_transpose3d of [1, 1, 1, 1, 13] by a 1x1x4 kernel: the gradient of a [1, 2, 1, 1, 13]
  // convolution; float32 takes engine 74 (NCHW implicit GEMM), the forward problem another.
  CudnnConvQuery q = conv(DType::kFloat32, {1, 2, 1, 1, 13}, {1, 2, 1, 1, 4});
  q.padding = {0, 0, 0};
  q.backward_data = true;
  const auto a = h->choose(q);
  REQUIRE(a.has_value());
  CHECK(a->engine == 74);
  q.backward_data = false;
  const auto forward = h->choose(q);
  REQUIRE(forward.has_value());
  CHECK(forward->engine != 74);
}

TEST_CASE("cudnn heuristics: what cuDNN does not take is no answer, not an error") {
  const CudnnHeuristics* h = CudnnHeuristics::get(kc::default_target().device.cudnn_properties);
  if (!h) return;
  CHECK_FALSE(h->choose(conv(DType::kFloat64, {1, 8, 8, 8}, {8, 8, 3, 3})).has_value());
  CHECK_FALSE(h->choose(conv(DType::kInt64, {1, 8, 8, 8}, {8, 8, 3, 3})).has_value());
  CudnnConvQuery wrong_rank = conv(DType::kFloat32, {1, 8, 8, 8}, {8, 8, 3, 3});
  wrong_rank.x = {1, 8, 8};
  CHECK_FALSE(h->choose(wrong_rank).has_value());
  CudnnConvQuery too_small = conv(DType::kFloat32, {1, 8, 2, 2}, {8, 8, 5, 5});
  too_small.padding = {0, 0};  // no output pixel
  CHECK_FALSE(h->choose(too_small).has_value());
  // Sizes at the rules' limits (2^31 a dimension or an argument) are answered or refused, no more.
  CudnnConvQuery huge = conv(DType::kFloat32, {1, 3, int64_t{1} << 31, int64_t{1} << 31}, {64, 3, 3, 3});
  (void)h->choose(huge);
  CudnnConvQuery far = conv(DType::kBFloat16, {1, 3, 8, 8}, {64, 3, 3, 3}, true);
  far.padding = {int64_t{1} << 31, 1};
  far.stride = {int64_t{1} << 31, 1};
  far.dilation = {int64_t{1} << 31, 1};
  (void)h->choose(far);
  CudnnConvQuery wide = conv(DType::kFloat16, {1, int64_t{1} << 40, 8, 8}, {64, int64_t{1} << 40, 3, 3});
  (void)h->choose(wide);
}

TEST_CASE(
    "cudnn heuristics: a 1x1 convolution the GPU runs as a cuBLASLt GEMM, which cuDNN without a GPU never offers") {
  const CudnnHeuristics* h = CudnnHeuristics::get(kc::default_target().device.cudnn_properties);
  if (!h) return;
  // DenseNet-161's transition 1x1 in f32 (data/results/broad: 1 kernel on the H200, where
  // cuDNN took engine 58, its GEMM through cuBLASLt). Asked without a GPU cuDNN answers another
  // engine; the classifier fitted on the GPU's own answers says the GPU takes the GEMM.
  CudnnConvQuery q = conv(DType::kFloat32, {2, 1584, 14, 14}, {192, 1584, 1, 1});
  const auto a = h->choose(q);
  REQUIRE(a.has_value());
  CHECK(a->engine != 58);
  kc::torch2_11::ConvProblem p;
  p.batch = 2;
  p.height = p.width = 14;
  p.c_in = p.gemm_k = 1584;
  p.c_out = 192;
  p.out_pixels = 14 * 14;
  p.gemm_m = 2 * 14 * 14;
  p.gemm_shaped = true;
  const kc::Counts c = kc::torch2_11::cudnn_conv(kc::default_target().tables.conv, false, false, p, &*a);
  CHECK(c.kernels == 1);
  CHECK(c.memset == 0);
}

TEST_CASE("cudnn heuristics: asked with each target's device properties, one instance a set") {
  const std::string& h200 = kc::default_target().device.cudnn_properties;
  const CudnnHeuristics* h = CudnnHeuristics::get(h200);
  if (!h || std::getenv("KERNELCOUNT_CUDNN_GPU")) return;  // a GPU's own properties answer for every set
  CHECK(CudnnHeuristics::get(h200) == h);
  // The same GPU described as compute capability 8.0: another descriptor, another instance.
  std::string sm80 = h200;
  const size_t at = sm80.find("\"deviceVer\": 900");
  REQUIRE(at != std::string::npos);
  sm80.replace(at, 16, "\"deviceVer\": 800");
  const CudnnHeuristics* other = CudnnHeuristics::get(sm80);
  REQUIRE(other != nullptr);
  CHECK(other != h);
  CHECK(other->choose(conv(DType::kFloat32, {8, 64, 56, 56}, {64, 64, 3, 3})).has_value());
  // Properties cuDNN cannot read are no heuristics, not an error.
  CHECK(CudnnHeuristics::get("not json") == nullptr);
}
