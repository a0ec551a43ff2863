// The H200 rules for FFTs of real inputs (passes/torch2_11/fft.cc), checked against PyTorch's
// OpInfo samples as the H200 ran them (data/results/opinfo: float32 [5, 6, 7]).
#include <catch2/catch.hpp>

#include "passes/graph_builder.h"

using kc::test::GraphBuilder;
using kc::test::rules_only;

namespace {

struct Fft {
  std::string op;
  std::vector<int64_t> lengths;  // s (or n); empty: None
  std::vector<int64_t> dims;     // empty: the op's default
  std::string norm;              // empty: None
};
kc::Launch run(const Fft& f, std::vector<int64_t> sizes = {5, 6, 7}) {
  GraphBuilder b;
  b.op(f.op, {b.input(sizes)});
  const bool one_dim = f.op == "aten::fft_fft" || f.op == "aten::fft_ifft" || f.op == "aten::fft_rfft" ||
                       f.op == "aten::fft_ihfft" || f.op == "aten::fft_irfft" || f.op == "aten::fft_hfft";
  if (one_dim) {
    if (!f.lengths.empty()) b.arg_int("n", f.lengths[0]);
    if (!f.dims.empty()) b.arg_int("dim", f.dims[0]);
  } else {
    if (!f.lengths.empty()) b.arg_ints("s", f.lengths);
    if (!f.dims.empty()) b.arg_ints("dim", f.dims);
  }
  if (!f.norm.empty()) b.arg_text("norm", f.norm);
  return rules_only(b);
}
int kernels(const Fft& f) {
  kc::Launch l = run(f);
  REQUIRE(l.known);
  CHECK(l.counts.memcpy == 0);
  CHECK(l.counts.memset == 0);
  return l.counts.kernels;
}

}  // namespace

TEST_CASE("fft: one cuFFT kernel per dim, + padding, + the copy for inner dims, + the scaling") {
  CHECK(kernels({"aten::fft_rfft", {7}, {}, ""}) == 1);
  CHECK(kernels({"aten::fft_rfft", {}, {}, "ortho"}) == 2);
  CHECK(kernels({"aten::fft_rfft", {10}, {1}, "ortho"}) == 5);  // pad (2) + transpose copy + cuFFT + scale
  CHECK(kernels({"aten::fft_rfft2", {6, 8}, {}, ""}) == 4);
  CHECK(kernels({"aten::fft_rfftn", {}, {}, "ortho"}) == 4);
  CHECK(kernels({"aten::fft_rfftn", {8}, {}, ""}) == 3);
}

TEST_CASE("fft: real inputs of complex transforms: converted (n-dim) or completed by conjugates (1-dim)") {
  CHECK(kernels({"aten::fft_fft", {7}, {}, ""}) == 2);
  CHECK(kernels({"aten::fft_fft", {}, {}, "ortho"}) == 3);
  CHECK(kernels({"aten::fft_fft", {10}, {1}, "ortho"}) == 6);
  CHECK(kernels({"aten::fft_fft2", {}, {-2, -1}, "ortho"}) == 4);
  CHECK(kernels({"aten::fft_fft2", {3, 10}, {1, 2}, "ortho"}) == 6);  // a crop and a pad: one pad call
  CHECK(kernels({"aten::fft_fftn", {}, {}, "ortho"}) == 5);
  CHECK(kernels({"aten::fft_fftn", {8}, {}, ""}) == 4);
}

TEST_CASE("fft: a length of at most 2 leaves no conjugate half to fill") {
  auto count = [](const char* op, std::vector<int64_t> sizes) {
    kc::Launch l = run({op, {}, {}, ""}, std::move(sizes));
    REQUIRE(l.known);
    return l.counts.kernels;
  };
  CHECK(count("aten::fft_fft", {1}) == 1);   // the transform alone
  CHECK(count("aten::fft_ifft", {1}) == 1);  // and no scaling by 1 / 1
  CHECK(count("aten::fft_fft", {2}) == 1);
  CHECK(count("aten::fft_ifft", {2}) == 2);  // scaled by 1 / 2
  CHECK(count("aten::fft_fft", {3}) == 2);   // one conjugate to mirror
}

TEST_CASE("fft: the inverse direction scales by default, the forward one only when asked") {
  CHECK(kernels({"aten::fft_ifft", {7}, {}, ""}) == 3);
  CHECK(kernels({"aten::fft_ifft2", {6, 8}, {}, ""}) == 6);
  CHECK(kernels({"aten::fft_ifftn", {8}, {}, ""}) == 5);
  CHECK(kernels({"aten::fft_ihfft", {7}, {}, ""}) == 2);
  CHECK(kernels({"aten::fft_fft2", {6, 8}, {}, ""}) == 5);
  CHECK(kernels({"aten::fft_fft2", {6, 8}, {}, "forward"}) == 6);
}

TEST_CASE("fft: lengths, crops and dtypes outside the measurements stay unknown") {
  CHECK_FALSE(run({"aten::fft_rfft", {70}, {}, ""}).known);             // cuFFT above 64: not measured
  CHECK_FALSE(run({"aten::fft_rfft2", {3, 4}, {}, ""}).known);          // a crop alone: a strided view
  CHECK_FALSE(run({"aten::fft_fft", {}, {}, ""}, {4, 64, 64}).known);   // longer and larger
  CHECK_FALSE(run({"aten::fft_irfft", {20}, {}, ""}).known);            // padded: not measured
  CHECK_FALSE(run({"aten::fft_irfftn", {20, 6, 7}, {}, ""}).known);     // dims 0, 1, 2 padded
  CHECK_FALSE(run({"aten::fft_hfft2", {}, {}, ""}, {5, 6, 40}).known);  // longer than measured
}

TEST_CASE("fft: dims starting with 0 and 1 run two plans; hfft2/hfftn transform the leading dims first") {
  auto counts = [](const Fft& f) {
    kc::Launch l = run(f);
    REQUIRE(l.known);
    return std::vector<int>{l.counts.kernels, l.counts.memcpy};
  };
  // irfftn over all dims: to complex, 2 complex kernels, the strided last dim (2), the scaling.
  CHECK(counts({"aten::fft_irfftn", {}, {}, "ortho"}) == std::vector<int>{6, 0});
  // hfft2 over dims 1, 2: to complex, batch copy, 1 kernel, scaling, conjugate, clone, c2r, scaling.
  CHECK(counts({"aten::fft_hfft2", {3, 10}, {1, 2}, "ortho"}) == std::vector<int>{8, 0});
  CHECK(counts({"aten::fft_hfft2", {6, 8}, {}, ""}) == std::vector<int>{6, 0});  // unscaled
  // hfftn over all dims: no batch copy (the batch dim is last), 2 complex kernels.
  CHECK(counts({"aten::fft_hfftn", {}, {}, "ortho"}) == std::vector<int>{8, 0});
  // hfftn of one dim is hfft: the conjugate kernel and its clone.
  CHECK(counts({"aten::fft_hfftn", {8}, {}, ""}) == std::vector<int>{3, 1});
}

TEST_CASE("fft: complex-to-real transforms clone their input: a memcpy, or a copy kernel after a crop") {
  auto counts = [](const Fft& f) {
    kc::Launch l = run(f);
    REQUIRE(l.known);
    return std::vector<int>{l.counts.kernels, l.counts.memcpy};
  };
  CHECK(counts({"aten::fft_irfft", {7}, {}, ""}) == std::vector<int>{4, 0});  // reads 4 of 7: cropped
  CHECK(counts({"aten::fft_irfft", {}, {}, "ortho"}) == std::vector<int>{3, 1});
  CHECK(counts({"aten::fft_irfft", {10}, {1}, "ortho"}) == std::vector<int>{4, 1});  // + the inner-dim copy
  CHECK(counts({"aten::fft_irfft2", {}, {-2, -1}, "ortho"}) == std::vector<int>{4, 1});
  CHECK(counts({"aten::fft_irfftn", {3, 10}, {1, 2}, "ortho"}) == std::vector<int>{5, 0});
  CHECK(counts({"aten::fft_hfft", {7}, {}, ""}) == std::vector<int>{3, 1});  // conjugate kernel + clone
  CHECK(counts({"aten::fft_hfft", {10}, {1}, "ortho"}) == std::vector<int>{5, 1});
}

TEST_CASE("fft: ihfft2/ihfftn transform the last dim, conjugate, then the others, each step scaled") {
  CHECK(kernels({"aten::fft_ihfft2", {}, {-2, -1}, "ortho"}) == 6);  // the second step copies: dim 1 of 3
  CHECK(kernels({"aten::fft_ihfft2", {6, 8}, {}, ""}) == 8);         // + the padding
  CHECK(kernels({"aten::fft_ihfftn", {}, {}, "ortho"}) == 6);        // dims 0 and 1: no batch copy
  CHECK(kernels({"aten::fft_ihfftn", {8}, {}, ""}) == 4);            // one dim: the conjugate stays a view
  CHECK(kernels({"aten::fft_ihfftn", {}, {}, "forward"}) == 4);      // no scaling under "forward"
}

TEST_CASE("fft: one cuFFT kernel for any length up to 64, a prime 31 too; hfft2 of one dim is hfft") {
  CHECK(kernels({"aten::fft_rfft", {40}, {}, ""}) == 3);  // padded to 40 (fill + copy), one cuFFT kernel
  kc::Launch prime = run({"aten::fft_fft", {}, {}, ""}, {31});
  REQUIRE(prime.known);
  CHECK(prime.counts.kernels == 2);                             // r2c + the conjugate half
  kc::Launch c2r = run({"aten::fft_irfft", {}, {}, ""}, {31});  // length 60
  REQUIRE(c2r.known);
  CHECK(c2r.counts.kernels == 3);
  CHECK(c2r.counts.memcpy == 1);
  kc::Launch h2 = run({"aten::fft_hfft2", {}, {0}, ""});
  REQUIRE(h2.known);
  CHECK(h2.counts.kernels == 3);
  CHECK(h2.counts.memcpy == 1);
}

TEST_CASE("stft: a batch of signals whose frames cannot merge into one batch dim is copied first") {
  auto stft = [](std::vector<int64_t> sizes, int64_t n_fft, int64_t hop) {
    GraphBuilder b;
    b.op("aten::stft", {b.input(sizes)});
    b.arg_int("n_fft", n_fft);
    if (hop > 0) b.arg_int("hop_length", hop);
    return rules_only(b);
  };
  CHECK(stft({10, 100}, 16, 4).counts.kernels == 2);
  CHECK(stft({110}, 10, 0).counts.kernels == 1);
  CHECK(stft({1, 100}, 16, 4).counts.kernels == 1);  // one signal: the frames alone
  CHECK(stft({4, 88}, 16, 4).counts.kernels == 2);   // 19 frames of hop 4 do not reach 88: copied
  CHECK(stft({4, 80}, 16, 16).counts.kernels == 1);  // 5 frames of hop 16 tile each signal: merged
  CHECK_FALSE(stft({110}, 128, 0).known);
}

TEST_CASE("stft: a two-sided result (onesided=False) mirrors the conjugate half, with or without a window") {
  auto stft = [](bool window, bool onesided, int64_t n_fft) {
    GraphBuilder b;
    std::vector<int> ins = {b.input({10, 116})};
    if (window) ins.push_back(b.input({n_fft}));
    b.op("aten::stft", ins);
    if (window) b.name_arg(1, "window");
    b.arg_int("n_fft", n_fft);
    b.arg_bool("onesided", onesided);
    return rules_only(b);
  };
  CHECK(stft(true, true, 16).counts.kernels == 2);    // the windowing product, cuFFT
  CHECK(stft(true, false, 16).counts.kernels == 3);   // + _fft_conjugate_copy_kernel
  CHECK(stft(true, false, 2).counts.kernels == 2);    // nothing left to mirror
  CHECK(stft(false, false, 16).counts.kernels == 3);  // the frames' copy, cuFFT, the conjugates
}

TEST_CASE("fft: length-1 dims cost no cuFFT kernel, a plan at least one; a factor of 1 scales nothing") {
  auto count = [](const char* op, std::vector<int64_t> sizes) {
    kc::Launch l = run({op, {}, {}, ""}, std::move(sizes));
    REQUIRE(l.known);
    return l.counts.kernels;
  };
  CHECK(count("aten::fft_fft2", {1, 1}) == 2);      // to complex, one cuFFT kernel
  CHECK(count("aten::fft_fft2", {1, 5}) == 2);      // the length-1 dim dropped
  CHECK(count("aten::fft_ifft2", {1, 1}) == 2);     // 1 / (1 * 1): no scaling
  CHECK(count("aten::fft_ifftn", {3, 1, 1}) == 3);  // to complex, one kernel, the scaling
  CHECK(count("aten::fft_rfft2", {3, 1, 1}) == 1);  // one plan over dims (1, 2)
  CHECK(count("aten::fft_rfftn", {1, 1, 1}) == 2);  // dims 0, 1: the last alone, then the others
  CHECK(count("aten::fft_ihfft2", {2, 1}) == 4);    // r2c (unscaled), conjugate, c2c, scaling
  CHECK(count("aten::fft_irfft2", {1, 5}) == 4);    // to complex, c2c, one c2r kernel for 8, scaling
  CHECK(count("aten::fft_irfft2", {4, 4}) == 5);    // length 6: preprocess + half-length FFT
}
