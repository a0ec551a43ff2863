// FFTs of real inputs on the H200 (ATen's native/SpectralOps.cpp and native/cuda/SpectralOps.cpp).
// ATen resizes the signal to the requested lengths (constant_pad_nd: a fill and a copy when a
// length grows; a crop alone is a view), merges the untransformed dims into one batch dim (a copy
// when they cannot be), runs one cuFFT plan and scales the result for the normalization. Measured
// on PyTorch's OpInfo samples (float32 [5, 6, 7], lengths 3 to 12; data/results/opinfo; and [31],
// complex-to-real length 60, stft's n_fft 16; data/results/opinfo_heldout): every transformed dim of
// those lengths cost cuFFT one kernel, one kernel handling any radix up to 31 (regular_fft<31>);
// a dim of length 1 costs none (a plan of only such dims still one), and a normalization by a
// factor of 1 launches nothing (sweep:opinfo_edges: 1x1, 1xN, Nx1 signals).
// Lengths past 64 (where cuFFT may split a dim into several kernels or use Bluestein's algorithm),
// complex inputs and padded complex-to-real transforms stay unknown.
#include <algorithm>

#include "passes/torch2_11/rules.h"

namespace kc::torch2_11 {
namespace {

enum class Family { kOneDim, kTwoDim, kNDim };
Family family_of(const std::string& op) {
  if (op == "aten::fft_fft" || op == "aten::fft_ifft" || op == "aten::fft_rfft" || op == "aten::fft_ihfft" ||
      op == "aten::fft_irfft" || op == "aten::fft_hfft")
    return Family::kOneDim;
  if (op == "aten::fft_fft2" || op == "aten::fft_ifft2" || op == "aten::fft_rfft2" || op == "aten::fft_irfft2" ||
      op == "aten::fft_ihfft2")
    return Family::kTwoDim;
  return Family::kNDim;
}
// The inverse-direction transforms scale by 1/n under the default ("backward") normalization.
bool inverse_direction(const std::string& op) {
  return op == "aten::fft_ifft" || op == "aten::fft_ifft2" || op == "aten::fft_ifftn" || op == "aten::fft_ihfft";
}
// fft/ifft/fft2/fftn/ifft2/ifftn of a real input: the n-dim ones convert it to complex first; the
// 1-dim ones run a real-to-complex transform and fill the other half with conjugates.
bool complex_output_of_real(const std::string& op) {
  return op != "aten::fft_rfft" && op != "aten::fft_rfft2" && op != "aten::fft_rfftn" && op != "aten::fft_ihfft";
}

// The transformed dims (non-negative) and their lengths, as fft_*'s arguments name them.
struct Plan {
  std::vector<int64_t> dims, lengths;
};
std::optional<Plan> plan_of(const OpFacts& f) {
  const Value* x = f.input(0);
  if (!x) return std::nullopt;
  const int64_t rank = static_cast<int64_t>(x->sizes.size());
  auto norm_dim = [&](int64_t d) -> std::optional<int64_t> {
    if (d < -rank || d >= rank) return std::nullopt;
    return d < 0 ? d + rank : d;
  };
  Plan p;
  std::vector<int64_t> lengths;
  const Family fam = family_of(f.op->name);
  if (fam == Family::kOneDim) {
    const auto d = norm_dim(f.int_arg("dim", -1));
    if (!d) return std::nullopt;
    p.dims = {*d};
    const int64_t n = f.int_arg("n", -1);
    if (n != -1) lengths = {n};
  } else {
    const Arg* s = f.arg("s");
    const Arg* dim = f.arg("dim");
    const bool has_s = s && s->kind == Arg::Kind::kIntList;
    const bool has_dim = dim && dim->kind == Arg::Kind::kIntList;
    if (has_s) lengths = s->ints;
    if (has_dim) {
      for (int64_t d : dim->ints) {
        const auto nd = norm_dim(d);
        if (!nd) return std::nullopt;
        p.dims.push_back(*nd);
      }
    } else {
      // fft2: the last two dims; fftn: the last len(s) dims, or all of them.
      const int64_t k = fam == Family::kTwoDim ? 2 : has_s ? static_cast<int64_t>(lengths.size()) : rank;
      if (k > rank) return std::nullopt;
      for (int64_t d = rank - k; d < rank; ++d) p.dims.push_back(d);
    }
  }
  if (p.dims.empty() || (!lengths.empty() && lengths.size() != p.dims.size())) return std::nullopt;
  for (size_t i = 0; i < p.dims.size(); ++i) {
    for (size_t j = 0; j < i; ++j)
      if (p.dims[j] == p.dims[i]) return std::nullopt;
    p.lengths.push_back(lengths.empty() || lengths[i] == -1 ? x->sizes[p.dims[i]] : lengths[i]);
  }
  return p;
}

// _exec_fft puts the batch (untransformed) dims first and reshapes them into one: on a row-major
// tensor that copies when a transformed dim longer than 1 lies between two batch dims longer than 1
// (a transform of dim 1 of [5, 6, 7]; not of dims (1, 2) or (0, 1)).
bool batch_needs_copy(const std::vector<int64_t>& sizes, const Plan& p) {
  auto transformed = [&](int64_t d) { return std::find(p.dims.begin(), p.dims.end(), d) != p.dims.end(); };
  bool seen_batch = false, gap = false;
  for (int64_t d = 0; d < static_cast<int64_t>(sizes.size()); ++d) {
    if (sizes[d] == 1) continue;
    if (transformed(d)) {
      gap |= seen_batch;
    } else {
      if (gap) return true;
      seen_batch = true;
    }
  }
  return false;
}

// The longest transform length and signal dim the rules take: cuFFT ran every measured length up to
// 60 (a prime 31 among them) as one kernel.
constexpr int64_t kMaxLength = 64;

// The cuFFT kernels of one plan over these lengths: cuFFT drops the dims of length 1, one kernel
// per remaining dim at these lengths, and a plan of nothing but length-1 dims still runs one
// (sweep:opinfo_edges: fft2 of [1, 1] and [1, 5] one kernel, of [2, 2] two).
int plan_kernels(const std::vector<int64_t>& lengths) {
  const auto longer = std::count_if(lengths.begin(), lengths.end(), [](int64_t n) { return n > 1; });
  return std::max(1, static_cast<int>(longer));
}
// The cuFFT kernels of a complex-to-complex transform (_fft_c2c_cufft): one plan per group of at
// most 3 dims (cufft_max_ndim), taken innermost first.
int c2c_kernels(const std::vector<int64_t>& lengths) {
  int kernels = 0;
  for (size_t end = lengths.size(); end > 0;) {
    const size_t begin = end >= 3 ? end - 3 : 0;
    kernels += plan_kernels(std::vector<int64_t>(lengths.begin() + begin, lengths.begin() + end));
    end = begin;
  }
  return kernels;
}
// The normalization scales only when its factor is not 1: signals whose transformed lengths
// multiply to more than 1 (an ifft2 of [1, 1] runs no scaling kernel).
bool scales_signal(const std::vector<int64_t>& lengths) {
  int64_t n = 1;
  for (int64_t l : lengths) n *= l;
  return n != 1;
}
// use_optimized_cufft_path: real-to-complex and complex-to-real transforms of up to 3 dims take one
// cuFFT plan unless the dims start with 0 and 1; then the last dim is transformed alone and the
// others complex-to-complex.
bool one_plan(const std::vector<int64_t>& dims) {
  return dims.size() <= 3 && !(dims.size() >= 2 && dims[0] == 0 && dims[1] == 1);
}

// The output lengths of a complex-to-real transform: the last dim's defaults to 2 * (size - 1).
std::vector<int64_t> c2r_lengths(const OpFacts& f, const Plan& p) {
  std::vector<int64_t> n = p.lengths;
  const Value* x = f.input(0);
  const bool given = family_of(f.op->name) == Family::kOneDim ? f.int_arg("n", -1) != -1
                                                              : f.arg("s") && f.arg("s")->kind == Arg::Kind::kIntList;
  if (!given) n.back() = 2 * (x->sizes[p.dims.back()] - 1);
  return n;
}

// A two-sided real-to-complex transform (fft/ifft of a real input, stft with onesided=False)
// mirrors the conjugates into the half cuFFT leaves unwritten: _fft_fill_with_conjugate_symmetry_
// returns at once when the last transformed length is at most 2, as nothing is left to write.
bool fills_conjugate_half(int64_t n) {
  return n > 2;
}

bool real_fft_fits(const OpFacts& f) {
  const Value* x = f.input(0);
  if (!x || x->dtype != DType::kFloat32 || !x->contiguous() || x->numel() == 0 || x->numel() > 256) return false;
  const auto p = plan_of(f);
  if (!p) return false;
  bool grows = false, shrinks = false;
  for (size_t i = 0; i < p->dims.size(); ++i) {
    const int64_t size = x->sizes[p->dims[i]], n = p->lengths[i];
    if (n < 1 || n > kMaxLength || size > kMaxLength) return false;
    grows |= n > size;
    shrinks |= n < size;
  }
  // A crop with nothing padded leaves a strided view: not measured.
  if (shrinks && !grows) return false;
  const std::string norm = f.text_arg("norm", "backward");
  return norm == "backward" || norm == "forward" || norm == "ortho";
}
Counts real_fft_counts(const OpFacts& f) {
  const Value* x = f.input(0);
  const Plan p = *plan_of(f);
  const std::string& op = f.op->name;
  const Family fam = family_of(op);
  Counts c;
  if (complex_output_of_real(op) && fam != Family::kOneDim) c += Counts{1, 0, 0, 0};  // to complex
  bool grows = false;
  for (size_t i = 0; i < p.dims.size(); ++i) grows |= p.lengths[i] > x->sizes[p.dims[i]];
  if (grows) c += Counts{2, 0, 0, 0};  // constant_pad_nd: fill + copy
  if (batch_needs_copy(x->sizes, p)) c += Counts{1, 0, 0, 0};
  // cuFFT: one kernel per dim longer than 1 at these lengths, per plan.
  if (fam == Family::kOneDim)
    c += Counts{1, 0, 0, 0};
  else if (complex_output_of_real(op))
    c += Counts{c2c_kernels(p.lengths), 0, 0, 0};
  else if (one_plan(p.dims))
    c += Counts{plan_kernels(p.lengths), 0, 0, 0};
  else
    c += Counts{1 + c2c_kernels(std::vector<int64_t>(p.lengths.begin(), p.lengths.end() - 1)), 0, 0, 0};
  const std::string norm = f.text_arg("norm", "backward");
  const bool scales = norm == "ortho" || (inverse_direction(op) ? norm == "backward" : norm == "forward");
  if (scales && scales_signal(p.lengths)) c += Counts{1, 0, 0, 0};
  if (complex_output_of_real(op) && fam == Family::kOneDim && fills_conjugate_half(p.lengths.back()))
    c += Counts{1, 0, 0, 0};
  return c;
}

// Complex-to-real transforms (irfft, irfft2, irfftn, hfft) of a real input, converted to complex
// first. The last dim reads n / 2 + 1 input elements (n defaults to 2 * (size - 1)). On cuFFT's
// one-plan path (_fft_c2r_cufft: at most 3 dims, not starting with dims 0 and 1) the input is
// cloned first, as cuFFT overwrites it: a memcpy when it is dense, a copy kernel when a crop left
// a strided view; hfft materializes the conjugate (a kernel) and clones that. The other path (a
// complex transform of the leading dims, then a 1-d one) ran a different number of cuFFT kernels
// for the same last dim and stays unknown, as does a signal padded to a longer length.
// hfft, and hfftn of one dim: a complex-to-real transform of the conjugate.
bool hermitian_c2r(const std::string& op) {
  return op == "aten::fft_hfft" || op == "aten::fft_hfftn" || op == "aten::fft_hfft2";
}
// The signal fits the measured complex-to-real transforms: float32, dense, up to 256 elements,
// every length up to kMaxLength read from at most the input's elements, no padding.
bool c2r_signal_fits(const OpFacts& f, const Plan& p) {
  const Value* x = f.input(0);
  const std::vector<int64_t> n = c2r_lengths(f, p);
  for (size_t i = 0; i < p.dims.size(); ++i) {
    const int64_t size = x->sizes[p.dims[i]];
    const int64_t read = i + 1 == p.dims.size() ? n[i] / 2 + 1 : n[i];
    if (n[i] < 1 || n[i] > kMaxLength || size > kMaxLength || read > size) return false;
  }
  const std::string norm = f.text_arg("norm", "backward");
  return norm == "backward" || norm == "forward" || norm == "ortho";
}
bool dense_small_real(const Value* x) {
  return x && x->dtype == DType::kFloat32 && x->contiguous() && x->numel() > 0 && x->numel() <= 256;
}
bool c2r_fits(const OpFacts& f) {
  const Value* x = f.input(0);
  if (!dense_small_real(x)) return false;
  const auto p = plan_of(f);
  if (!p || p->dims.size() > 3) return false;
  if (p->dims.size() >= 2 && p->dims[0] == 0 && p->dims[1] == 1) return false;
  // hfft2 / hfftn of several dims transform the leading dims first (fft.hfftn below).
  if (hermitian_c2r(f.op->name) && p->dims.size() != 1) return false;
  const std::vector<int64_t> n = c2r_lengths(f, *p);
  for (size_t i = 0; i < p->dims.size(); ++i) {
    const int64_t size = x->sizes[p->dims[i]];
    const int64_t read = i + 1 == p->dims.size() ? n[i] / 2 + 1 : n[i];
    if (n[i] < 1 || n[i] > kMaxLength || size > kMaxLength || read > size) return false;
  }
  const std::string norm = f.text_arg("norm", "backward");
  return norm == "backward" || norm == "forward" || norm == "ortho";
}
Counts c2r_counts(const OpFacts& f) {
  const Value* x = f.input(0);
  const Plan p = *plan_of(f);
  const std::vector<int64_t> n = c2r_lengths(f, p);
  const bool hfft = hermitian_c2r(f.op->name);
  bool cropped = false;
  for (size_t i = 0; i < p.dims.size(); ++i)
    cropped |= (i + 1 == p.dims.size() ? n[i] / 2 + 1 : n[i]) < x->sizes[p.dims[i]];
  Counts c{1, 0, 0, 0};  // to complex
  if (hfft)
    c += Counts{1, 1, 0, 0};  // the conjugate materialized, then cloned
  else if (cropped)
    c += Counts{1, 0, 0, 0};
  else
    c += Counts{0, 1, 0, 0};
  if (batch_needs_copy(x->sizes, p)) c += Counts{1, 0, 0, 0};
  c += Counts{static_cast<int>(p.dims.size()), 0, 0, 0};
  const std::string norm = f.text_arg("norm", "backward");
  if (norm == "ortho" || (hfft ? norm == "forward" : norm == "backward")) c += Counts{1, 0, 0, 0};
  return c;
}

// Whether a transform's output is row-major: _exec_fft lays out the batch (untransformed) dims
// outermost and the transformed dims innermost, so it is only when no batch dim longer than 1
// follows a transformed dim longer than 1.
bool output_row_major(const std::vector<int64_t>& sizes, const std::vector<int64_t>& dims) {
  bool seen_transformed = false;
  for (int64_t d = 0; d < static_cast<int64_t>(sizes.size()); ++d) {
    if (sizes[d] == 1) continue;
    const bool t = std::find(dims.begin(), dims.end(), d) != dims.end();
    if (t)
      seen_transformed = true;
    else if (seen_transformed)
      return false;
  }
  return true;
}
// The scaling a transform applies once per cuFFT stage for its normalization: ortho always,
// "forward" on a forward transform (hfft*), "backward" on an inverse one (irfft*).
bool c2r_scales(const OpFacts& f, bool forward) {
  const std::string norm = f.text_arg("norm", "backward");
  return norm == "ortho" || (forward ? norm == "forward" : norm == "backward");
}

// hfft2 / hfftn of 2 or 3 dims (fft_hfftn_impl): the input made complex, a forward complex
// transform of all dims but the last (its own batch copy and scaling), the result's conjugate
// materialized and cloned row-major for cuFFT (a copy kernel, as the transform left the batch
// dims outermost), then the complex-to-real transform of the last dim and its scaling.
bool hfftn_fits(const OpFacts& f) {
  if (f.op->name != "aten::fft_hfft2" && f.op->name != "aten::fft_hfftn") return false;
  const Value* x = f.input(0);
  if (!dense_small_real(x)) return false;
  const auto p = plan_of(f);
  return p && p->dims.size() >= 2 && p->dims.size() <= 3 && c2r_signal_fits(f, *p);
}
Counts hfftn_counts(const OpFacts& f) {
  const Value* x = f.input(0);
  const Plan p = *plan_of(f);
  const std::vector<int64_t> rest(p.dims.begin(), p.dims.end() - 1);
  Plan leading;
  leading.dims = rest;
  const int scale = c2r_scales(f, true) ? 1 : 0;
  Counts c{1, 0, 0, 0};  // to complex
  c += Counts{(batch_needs_copy(x->sizes, leading) ? 1 : 0) + static_cast<int>(rest.size()) + scale, 0, 0, 0};
  c += Counts{1, 0, 0, 0};                                                          // the conjugate
  c += output_row_major(x->sizes, rest) ? Counts{0, 1, 0, 0} : Counts{1, 0, 0, 0};  // the clone
  c += Counts{1 + scale, 0, 0, 0};                                                  // c2r, scaling
  return c;
}

// irfftn / irfft2 whose dims start with (0, 1) (use_optimized_cufft_path refuses them): no clone;
// a complex transform of all dims but the last (its batch copy where needed, unscaled), then a
// one-dim complex-to-real transform of the last dim, which that transform left strided (the batch
// dims outermost): cuFFT ran it as 2 kernels (a preprocess and a half-length complex FFT), then
// the scaling.
// cuFFT's complex-to-real kernel for the last dim: one kernel for an output length that is a power
// of two (2 and 8 measured, strided and row-major alike), else a preprocess and a half-length
// complex FFT (6 and 12 measured, strided).
bool power_of_two(int64_t n) {
  return n > 0 && (n & (n - 1)) == 0;
}
bool c2r_leading_fits(const OpFacts& f) {
  if (f.op->name != "aten::fft_irfftn" && f.op->name != "aten::fft_irfft2") return false;
  const Value* x = f.input(0);
  if (!dense_small_real(x)) return false;
  const auto p = plan_of(f);
  if (!p || p->dims.size() < 2 || p->dims.size() > 3 || p->dims[0] != 0 || p->dims[1] != 1 || !c2r_signal_fits(f, *p))
    return false;
  // A row-major result of the leading transform was measured only with a power-of-two length.
  return power_of_two(c2r_lengths(f, *p).back()) ||
         !output_row_major(x->sizes, std::vector<int64_t>(p->dims.begin(), p->dims.end() - 1));
}
Counts c2r_leading_counts(const OpFacts& f) {
  const Value* x = f.input(0);
  const Plan p = *plan_of(f);
  const std::vector<int64_t> n = c2r_lengths(f, p);
  Plan leading;
  leading.dims.assign(p.dims.begin(), p.dims.end() - 1);
  Counts c{1, 0, 0, 0};  // to complex
  c += Counts{(batch_needs_copy(x->sizes, leading) ? 1 : 0) +
                  c2c_kernels(std::vector<int64_t>(p.lengths.begin(), p.lengths.end() - 1)),
              0, 0, 0};
  c += Counts{power_of_two(n.back()) ? 1 : 2, 0, 0, 0};
  if (c2r_scales(f, false) && scales_signal(n)) c += Counts{1, 0, 0, 0};
  return c;
}

// ihfft2 / ihfftn (fft_ihfftn_impl): a real-to-complex transform of the last dim (scaled), its
// conjugate materialized, then a complex transform of the other dims (scaled) on that result: one
// cuFFT kernel per dim and a batch copy for each transform as _exec_fft needs it.
bool ihfftn_fits(const OpFacts& f) {
  return real_fft_fits(f);
}
Counts ihfftn_counts(const OpFacts& f) {
  const Value* x = f.input(0);
  const Plan p = *plan_of(f);
  bool grows = false;
  for (size_t i = 0; i < p.dims.size(); ++i) grows |= p.lengths[i] > x->sizes[p.dims[i]];
  const std::string norm = f.text_arg("norm", "backward");
  const bool scale = norm == "ortho" || norm == "backward";
  Counts c{grows ? 2 : 0, 0, 0, 0};
  Plan last;
  last.dims = {p.dims.back()};
  Plan rest;
  rest.dims.assign(p.dims.begin(), p.dims.end() - 1);
  const std::vector<int64_t> rest_lengths(p.lengths.begin(), p.lengths.end() - 1);
  const int last_scale = scale && p.lengths.back() != 1 ? 1 : 0;
  c += Counts{(batch_needs_copy(x->sizes, last) ? 1 : 0) + 1 + last_scale, 0, 0, 0};  // r2c, scale
  if (rest.dims.empty()) return c;  // one dim: the conjugate stays a view
  c += Counts{1, 0, 0, 0};          // the conjugate
  const int rest_scale = scale && scales_signal(rest_lengths) ? 1 : 0;
  c += Counts{(batch_needs_copy(x->sizes, rest) ? 1 : 0) + c2c_kernels(rest_lengths) + rest_scale, 0, 0, 0};
  return c;
}

// stft without a window: the frames are a strided view of the signal (hop apart), transformed by
// one real-to-complex plan. With a batch of signals, _exec_fft merges (signal, frame) into one batch
// dim, which needs a copy unless the signals lie exactly frames * hop apart.
bool stft_fits(const OpFacts& f) {
  const Value* x = f.input(0);
  const Arg* w = f.arg("window");
  const int64_t n = f.int_arg("n_fft", 0);
  return x && x->dtype == DType::kFloat32 && x->contiguous() && !x->sizes.empty() && x->sizes.size() <= 2 &&
         (!w || w->kind == Arg::Kind::kNone) && !f.bool_arg("normalized", false) && n >= 1 && n <= kMaxLength &&
         x->sizes.back() >= n && f.int_arg("hop_length", n / 4) >= 1;
}
// stft of a real signal is one-sided unless onesided=False: then _fft_r2c mirrors the conjugate
// half after the transform (fills_conjugate_half).
int stft_conjugate_half(const OpFacts& f) {
  return !f.bool_arg("onesided", true) && fills_conjugate_half(f.int_arg("n_fft", 0)) ? 1 : 0;
}
Counts stft_counts(const OpFacts& f) {
  const Value* x = f.input(0);
  const int64_t n = f.int_arg("n_fft", 0), hop = f.int_arg("hop_length", n / 4);
  const int64_t frames = 1 + (x->sizes.back() - n) / hop;
  const bool copies = x->sizes.size() == 2 && x->sizes[0] > 1 && frames > 1 && x->sizes[1] != frames * hop;
  return {(copies ? 2 : 1) + stft_conjugate_half(f), 0, 0, 0};
}

}  // namespace

void add_fft_rules(std::vector<LaunchRule>& r) {
  r.push_back(
      rule("fft.real_input")
          .ops({"aten::fft_fft", "aten::fft_ifft", "aten::fft_rfft", "aten::fft_ihfft", "aten::fft_fft2",
                "aten::fft_ifft2", "aten::fft_rfft2", "aten::fft_fftn", "aten::fft_ifftn", "aten::fft_rfftn"})
          .when("float32 real input up to 256 elements, lengths up to 64: one cuFFT kernel per transformed dim longer "
                "than 1, at least one per plan (rfft2/rfftn over dims starting 0, 1: the last dim alone, then the "
                "others), + a fill and a copy when a length grows, + a copy when the batch dims cannot be merged, + "
                "the scaling unless its factor is 1 (ortho; forward for fft*/rfft*, backward for ifft*/ihfft), + the "
                "conversion to complex (fft2, fftn, ifft2, ifftn) or the conjugate half (fft, ifft; a length over 2)",
                real_fft_fits)
          .compute(real_fft_counts)
          .evidence(
              "opinfo:fft_fft, fft_ifft, fft_rfft, fft_ihfft, fft_fft2, fft_ifft2, fft_rfft2, fft_fftn, fft_ifftn, "
              "fft_rfftn ([5, 6, 7]: lengths 3 to 10, dims 1, last, last two, all; norms ortho and default); "
              "opinfo_heldout: fft_fft, fft_ifft, fft_rfft, fft_ihfft, fft_fftn, fft_ifftn, fft_rfftn ([31]); "
              "opinfo_heldout3: fft_fft, fft_ifft of [1] (vector_fft_r2c<1> alone); "
              "sweep:opinfo_edges (fft2, ifft2, rfft2, fftn, ifftn, rfftn of [1, 1], [1, 2], [2, 1], [1, 5], "
              "[1, 1, 1], [3, 1, 1], [2, 2], [4, 4], [2, 3, 4])")
          .why("An FFT pads the signal to the requested length, gathers the batch into one dim, runs one cuFFT plan "
               "(one kernel per dim at short lengths) and scales the result for its normalization."));
  r.push_back(rule("fft.c2r_real_input")
                  .ops({"aten::fft_irfft", "aten::fft_irfft2", "aten::fft_irfftn", "aten::fft_hfft", "aten::fft_hfftn",
                        "aten::fft_hfft2"})
                  .when("float32 real input up to 256 elements, lengths up to 64, up to 3 dims "
                        "not starting with dims 0 and 1, no padding: the conversion to complex, the input's clone (a "
                        "memcpy; a copy kernel after a crop; hfft, hfftn of one dim: the conjugate kernel + a memcpy), "
                        "a copy when the "
                        "batch dims cannot be merged, one cuFFT kernel per dim, the scaling",
                        c2r_fits)
                  .compute(c2r_counts)
                  .evidence("opinfo:fft_irfft, fft_irfft2, fft_irfftn, fft_hfft ([5, 6, 7]: lengths 3 to 12, dim 1, "
                            "last, last two; norms ortho and default), opinfo:fft_hfftn (one dim, s (8)); "
                            "opinfo_heldout: fft_irfft, fft_irfftn, fft_hfft, fft_hfftn ([31]: length 60), "
                            "fft_hfft2 of one dim ([5, 6, 7], dim 0)")
                  .why("A complex-to-real FFT clones its input (cuFFT overwrites it), runs one cuFFT plan and scales "
                       "the result."));
  r.push_back(
      rule("fft.hfftn")
          .ops({"aten::fft_hfft2", "aten::fft_hfftn"})
          .when("float32 real input up to 256 elements, 2 or 3 dims, lengths up to 64, no "
                "padding: the conversion to complex, a complex transform of the leading dims (a batch copy "
                "where needed, one cuFFT kernel per dim, the scaling), the conjugate, its clone (a copy kernel; "
                "a memcpy when the transform left it row-major), one complex-to-real cuFFT kernel, the scaling",
                hfftn_fits)
          .compute(hfftn_counts)
          .evidence("opinfo:fft_hfft2, fft_hfftn ([5, 6, 7]: s (3, 10) and (6, 8) over dims 1 and 2, all "
                    "dims; norms ortho and default)")
          .why("A Hermitian FFT of several dims transforms the leading dims complex-to-complex, conjugates the "
               "result and clones it row-major for cuFFT's complex-to-real transform of the last dim."));
  r.push_back(
      rule("fft.c2r_leading_dims")
          .ops({"aten::fft_irfftn", "aten::fft_irfft2"})
          .when("float32 real input up to 256 elements, 2 or 3 dims starting with dims 0 and 1, lengths up to "
                "64, no padding: the conversion to complex, a complex transform of the leading dims (one cuFFT "
                "kernel per dim longer than 1, at least one), the last dim's complex-to-real transform (one kernel "
                "for a power-of-two length, else 2), the scaling unless its factor is 1",
                c2r_leading_fits)
          .compute(c2r_leading_counts)
          .evidence("opinfo:fft_irfftn ([5, 6, 7], all dims: regular_fft<5>, vector_fft<6>, then "
                    "preprocess_kernel + vector_fft<6> for the last dim of 12); sweep:opinfo_edges (irfft2, irfftn "
                    "of [1, 2], [1, 5], [2, 2], [4, 4], [2, 3, 4]: lengths 2 and 8 one kernel, 6 two)")
          .why("When the dims start with 0 and 1, ATen does not give cuFFT one multi-dim plan: it transforms "
               "the leading dims complex-to-complex, then the last dim complex-to-real from the strided result."));
  r.push_back(rule("fft.ihfftn")
                  .ops({"aten::fft_ihfft2", "aten::fft_ihfftn"})
                  .when("float32 real input up to 256 elements, lengths up to 64: a real-to-complex transform of the "
                        "last dim, then (with 2 or more dims) its conjugate and a complex transform of the others (one "
                        "cuFFT kernel per dim longer than 1, at least one), each scaled (ortho, backward; not by a "
                        "factor of 1) and preceded by a batch copy where needed; + a fill and a copy when a length "
                        "grows",
                        ihfftn_fits)
                  .compute(ihfftn_counts)
                  .evidence("opinfo:fft_ihfft2, fft_ihfftn ([5, 6, 7]: lengths 3 to 10, dims last, last two and all; "
                            "norms ortho and default), opinfo_heldout:fft_ihfftn ([31]), sweep:opinfo_edges (ihfft2 "
                            "of [1, 1], [1, 2], [2, 1], [1, 5], [1, 1, 1], [3, 1, 1], [2, 2], [4, 4], [2, 3, 4])")
                  .why("An inverse Hermitian FFT transforms the last dim real-to-complex, conjugates the result and "
                       "transforms the other dims in place."));
  r.push_back(rule("fft.stft_no_window")
                  .ops({"aten::stft"})
                  .when("float32 signal, no window, not normalized, n_fft up to 64: one cuFFT kernel, + a copy when a "
                        "batch of signals and their frames cannot merge into one batch dim, + the conjugate half when "
                        "onesided=False and n_fft > 2",
                        stft_fits)
                  .compute(stft_counts)
                  .evidence("opinfo:stft (n_fft 10 over 110 samples, n_fft 7 over 10; complex and real results), "
                            "opinfo_heldout:stft (n_fft 16, hop 4 over [10, 100]: the copy + vector_fft_r2c<16>; "
                            "n_fft 7 over 16)")
                  .why("Without a window, a short-time Fourier transform is one batched real-to-complex cuFFT kernel "
                       "over the frames, read in place as a strided view unless a batch of signals makes the frames "
                       "unmergeable."));
  r.push_back(rule("stft")
                  .ops({"aten::stft"})
                  .when("f32, window given, power-of-two n_fft: the windowing product + one cuFFT kernel, + the "
                        "conjugate half when onesided=False and n_fft > 2",
                        [](const OpFacts& f) {
                          const int64_t n = f.int_arg("n_fft", 0);
                          return f.dtype == DType::kFloat32 && f.has_tensor_arg("window") && power_of_two(n) &&
                                 n <= 4096;
                        })
                  .compute([](const OpFacts& f) -> Counts {
                    return {2 + stft_conjugate_half(f), 0, 0, 0};
                  })
                  .evidence("opset:stft (n_fft 256), opinfo_heldout3:stft (n_fft 16, onesided=False: the product, "
                            "regular_fft_r2c<16> and _fft_conjugate_copy_kernel)")
                  .why("A short-time Fourier transform multiplies the framed signal by the window and runs one batched "
                       "cuFFT kernel; a two-sided result mirrors the conjugates into the other half."));
}

}  // namespace kc::torch2_11
