// Convolutions on the H200: ATen's backend choice (aten/src/ATen/native/Convolution.cpp:
// _select_conv_backend, cudnn_conv_suggest_memory_format), cuDNN's v8 engines
// (aten/src/ATen/native/cudnn/Conv_v8.cpp) and ATen's own depthwise kernels
// (aten/src/ATen/native/cuda/DepthwiseConv2d.cu, DepthwiseConv3d.cu).
//
// A cuDNN convolution is `[layout copies] [nchwToNhwc(input)] [nchwToNhwc(weight)] core
// [nhwcToNchw(output)] [bias add]`; the layout copies are ATen's `.contiguous(format)` of input
// and weight, the transforms are cuDNN's own when its engine runs NHWC on NCHW tensors. Every
// rule reads the input's and weight's strides as the op sees them (OpFacts inputs), so a pass
// that corrects recorded strides to the run-time ones changes these predictions with it.
#include <algorithm>
#include <cmath>

#include "analyzer/tensor_geometry.h"
#include "passes/layout.h"
#include "passes/torch2_11/conv_engine.h"
#include "passes/torch2_11/cudnn_answers.h"
#include "passes/torch2_11/dgrad_engine.h"
#include "passes/torch2_11/grouped_conv.h"
#include "passes/torch2_11/rules.h"

namespace kc::torch2_11 {
namespace {

// The convolution as ATen's backends see it: conv1d's 3-d tensors become 4-d with H=1 after
// `input.contiguous()` (Convolution.cpp's view1d_as_2d), so 1-d input copies are counted here.
struct ConvView {
  std::vector<int64_t> x_sizes, x_strides, w_sizes, w_strides;
  std::vector<int64_t> stride;  // one per spatial dim
  std::vector<int64_t> padding;
  std::vector<int64_t> dilation;
  int64_t groups = 1;
  bool transposed = false;
  bool bias = false;
  int pre_copies = 0;   // the 1-d input's contiguous() copy
  int pad_kernels = 0;  // padding="same" padded asymmetrically: constant_pad_nd's fill and copy
  DType dtype = DType::kUnknown;
  int spatial() const { return static_cast<int>(x_sizes.size()) - 2; }
  bool one_d = false;  // a 1-d convolution, viewed here as a 2-d one with H = 1
};

int64_t product(const std::vector<int64_t>& a, size_t from) {
  int64_t p = 1;
  for (size_t i = from; i < a.size(); ++i) p *= a[i];
  return p;
}

bool is_transposed(const OpFacts& f) {
  return f.op->name.find("conv_transpose") != std::string::npos || f.bool_arg("transposed", false);
}

// Fills v from the op, false when the shapes are not those of a 1-3 d convolution.
bool conv_view(const OpFacts& f, ConvView& v) {
  const Value* xv = f.input(0);
  const Value* w = f.input(1);
  if (!xv || !w) return false;
  // An unbatched input ([C, spatial...], one dim fewer than the weight) runs as a batch of one
  // (Convolution.cpp's batchify: unsqueeze(0), then the batched path).
  Value unbatched;
  const Value* x = xv;
  if (xv->sizes.size() + 1 == w->sizes.size() && xv->strides.size() == xv->sizes.size() && !xv->sizes.empty()) {
    unbatched = *xv;
    unbatched.sizes.insert(unbatched.sizes.begin(), 1);
    unbatched.strides.insert(unbatched.strides.begin(), xv->sizes[0] * xv->strides[0]);
    x = &unbatched;
  }
  const size_t rank = x->sizes.size();
  if (rank < 3 || rank > 5 || w->sizes.size() != rank) return false;
  if (x->strides.size() != rank || w->strides.size() != rank) return false;
  v.groups = f.int_arg("groups", 1);
  if (v.groups < 1) return false;
  v.transposed = is_transposed(f);
  // Channel check: input C = weight dim 1 x groups (dim 0 for a transposed weight).
  int64_t cin_w = w->sizes[0];
  if (!v.transposed && __builtin_mul_overflow(w->sizes[1], v.groups, &cin_w)) return false;
  if (x->sizes[1] != cin_w) return false;
  v.bias = f.has_tensor_arg("bias");
  v.dtype = f.dtype;
  v.x_sizes = x->sizes;
  v.x_strides = x->strides;
  v.w_sizes = w->sizes;
  v.w_strides = w->strides;
  if (rank == 3) {
    v.one_d = true;
    if (!row_major_dense(x->sizes, x->strides)) v.pre_copies = 1;
    v.x_sizes.insert(v.x_sizes.begin() + 2, 1);
    v.w_sizes.insert(v.w_sizes.begin() + 2, 1);
    v.x_strides = {v.x_sizes[1] * v.x_sizes[3], v.x_sizes[3], v.x_sizes[3], 1};
    v.w_strides = {v.w_sizes[1] * v.w_sizes[3], v.w_sizes[3], v.w_sizes[3], 1};
  }
  const size_t nsp = rank - 2;
  // stride, padding, dilation: one value per spatial dim (a single one for all); 1-d gains H.
  auto per_dim = [&](const char* name, int64_t fallback, int64_t h_value, std::vector<int64_t>& out) {
    const Arg* a = f.arg(name);
    out = a && a->kind == Arg::Kind::kIntList ? a->ints : std::vector<int64_t>{};
    if (out.empty()) out = {fallback};
    if (out.size() == 1) out.assign(nsp, out[0]);
    if (out.size() != nsp) return false;
    if (rank == 3) out.insert(out.begin(), h_value);
    return true;
  };
  if (!per_dim("stride", 1, 1, v.stride) || !per_dim("padding", 0, 0, v.padding) ||
      !per_dim("dilation", 1, 1, v.dilation))
    return false;
  // padding="valid" or "same" (conv1d/2d/3d.padding, _convolution_mode): ATen's _convolution_same
  // pads dilation * (k - 1) in each dim, half on the left. Where that is odd (an even kernel at
  // an odd dilation) it pads the input's right side by the one left over first
  // (constant_pad_nd: a fill of the padded tensor, dense in the input's suggested layout, and a
  // copy of the input into it), then convolves the padded input with the left padding.
  if (const Arg* pad = f.arg("padding"); pad && pad->kind == Arg::Kind::kString) {
    if (pad->text != "valid" && pad->text != "same") return false;
    bool asymmetric = false;
    for (size_t d = 0; d < v.padding.size(); ++d) {
      if (pad->text == "same" && v.stride[d] != 1) return false;
      const int64_t total = pad->text == "same" ? v.dilation[d] * (v.w_sizes[2 + d] - 1) : 0;
      v.padding[d] = total / 2;
      if (total % 2 != 0) {
        v.x_sizes[2 + d] += 1;
        asymmetric = true;
      }
    }
    if (asymmetric) {
      if (std::find(v.x_sizes.begin(), v.x_sizes.end(), 0) != v.x_sizes.end()) return false;  // not measured
      v.x_strides = channels_last_strides(x->sizes, x->strides)
                        ? strides_in_order(v.x_sizes, channels_last_order(v.x_sizes.size()))
                        : contiguous_strides(v.x_sizes);
      v.pre_copies = 0;
      v.pad_kernels = 2;
    }
  }
  // Strides and dilations below 1 or negative padding are not a convolution ATen runs; nor are
  // arguments or spatial sizes beyond 2^31, which would overflow the output size arithmetic.
  constexpr int64_t kMax = int64_t{1} << 31;
  for (size_t d = 0; d < v.stride.size(); ++d) {
    if (v.stride[d] < 1 || v.dilation[d] < 1 || v.padding[d] < 0) return false;
    if (v.stride[d] > kMax || v.dilation[d] > kMax || v.padding[d] > kMax) return false;
    if (v.x_sizes[2 + d] > kMax || v.w_sizes[2 + d] > kMax) return false;
  }
  return true;
}

bool conv_shapes(const OpFacts& f) {
  ConvView v;
  return conv_view(f, v);
}

// ATen's is_depthwise: groups == input channels > 1 and output channels a multiple of them.
bool depthwise(const ConvView& v) {
  return !v.transposed && v.groups > 1 && v.groups == v.x_sizes[1] && v.w_sizes[0] % v.x_sizes[1] == 0;
}

// cudnn_conv_suggest_memory_format: channels last when the input or the weight suggests it.
bool runs_channels_last(const ConvView& v) {
  return channels_last_strides(v.x_sizes, v.x_strides) || channels_last_strides(v.w_sizes, v.w_strides);
}

// A 1-3 d convolution as cuDNN's engine heuristics see it (conv_engine.h); a grouped one by the
// channels and GEMM of one group.
ConvProblem conv_problem(const ConvView& v) {
  ConvProblem p;
  const int sp = v.spatial();        // 2 or 3: a 1-d convolution is viewed as a 2-d one
  const size_t h = sp == 3 ? 3 : 2;  // the height's index in the sizes
  p.three_d = sp == 3;
  p.one_d = v.one_d;
  p.groups = v.groups;
  p.kernel = std::max(v.w_sizes[h], v.w_sizes[h + 1]);
  p.stride = std::max(v.stride[h - 2], v.stride[h - 1]);
  p.dilation = *std::max_element(v.dilation.begin(), v.dilation.end());
  p.batch = v.x_sizes[0];
  p.height = v.x_sizes[h];
  p.width = v.x_sizes[h + 1];
  p.c_in = v.x_sizes[1] / v.groups;
  p.c_out = v.w_sizes[0] / v.groups;
  p.out_pixels = 1;
  for (int d = 0; d < sp; ++d) {  // each factor < 2^63: sizes and arguments are at most 2^31
    const int64_t span = v.dilation[d] * (v.w_sizes[2 + d] - 1) + 1;
    const int64_t out = std::max<int64_t>(0, (v.x_sizes[2 + d] + 2 * v.padding[d] - span) / v.stride[d] + 1);
    p.out_pixels = mul_checked(p.out_pixels, out, "convolution output size");
  }
  p.gemm_m = mul_checked(p.batch, p.out_pixels, "convolution output size");
  p.gemm_k = mul_checked(p.c_in, product(v.w_sizes, 2), "convolution weight size");
  p.gemm_shaped = v.groups == 1 && product(v.w_sizes, 2) == 1 &&
                  std::all_of(v.stride.begin(), v.stride.end(), [](int64_t s) { return s == 1; }) &&
                  std::all_of(v.padding.begin(), v.padding.end(), [](int64_t q) { return q == 0; });
  if (p.three_d) {
    p.depth = v.x_sizes[2];
    p.kernel_t = v.w_sizes[2];
    p.stride_t = v.stride[0];
  }
  return p;
}

// The convolution as ATen hands it to cuDNN: input and weight made dense in the suggested layout.
CudnnConvQuery cudnn_query(const ConvView& v, bool channels_last) {
  CudnnConvQuery q;
  q.dtype = v.dtype;
  q.x = v.x_sizes;
  q.w = v.w_sizes;
  q.channels_last = channels_last;
  q.padding = v.padding;
  q.stride = v.stride;
  q.dilation = v.dilation;
  return q;
}

// The engine cuDNN's heuristics pick for the convolution, where cuDNN or its kept answers can tell
// (cudnn_answers.h); notes the answer's source for the report.
std::optional<CudnnEngineChoice> cudnn_engine(const OpFacts& f, const ConvView& v, bool channels_last) {
  const bool cudnn_dtype = v.dtype == DType::kFloat32 || is_half(v.dtype);
  CudnnAnswers* answers = cudnn_dtype ? CudnnAnswers::get(f.target->device, f.target->tables.cudnn_answers) : nullptr;
  if (!answers) return std::nullopt;
  const CudnnAnswer a = answers->choose(cudnn_query(v, channels_last));
  if (f.cudnn_answer) *f.cudnn_answer = cudnn_source_name(a.source);
  if (f.cudnn_engine) *f.cudnn_engine = a.choice ? a.choice->engine : -1;
  return a.choice;
}

// Ungrouped float32 NCDHW convolutions whose engine settles the launches, as the tiny 3-d
// convolutions of sweep:opinfo_edges ran them (the trees never saw such): engine 28, cuDNN's
// implicit_convolveNd_sgemm, reads NCDHW in place (1 kernel); engines 67 and 38 with neither
// channel count a multiple of 8 run the NHWC implicit GEMM with the input and weight transformed
// to NHWC and the output back (4 kernels) and a zeroed buffer for each padded channel count (2
// memsets), as sweep:conv3d_dense's such shapes did too; with aligned channels they vary.
enum class Conv3dEngine { kNone, kNcdhwDirect, kNhwcUnaligned };
Conv3dEngine conv3d_engine(const OpFacts& f, const ConvView& v) {
  if (v.spatial() != 3 || v.one_d || v.groups != 1 || v.dtype != DType::kFloat32 || runs_channels_last(v))
    return Conv3dEngine::kNone;
  const std::optional<CudnnEngineChoice> e = cudnn_engine(f, v, false);
  if (!e) return Conv3dEngine::kNone;
  if (e->engine == 28) return Conv3dEngine::kNcdhwDirect;
  // A 1x1x1 kernel is a GEMM on the GPU itself (cuDNN's cuBLASLt engine, which it offers only there:
  // opinfo's 1x1x1 conv3d of one channel, engine 67 asked without a GPU, ran one kernel).
  const bool unaligned = v.x_sizes[1] % 8 != 0 && v.w_sizes[0] % 8 != 0;
  if ((e->engine == 67 || e->engine == 38) && unaligned && product(v.w_sizes, 2) > 1)
    return Conv3dEngine::kNhwcUnaligned;
  return Conv3dEngine::kNone;
}
bool conv3d_engine_fits(const OpFacts& f) {
  ConvView v;
  return !is_transposed(f) && conv_view(f, v) && conv3d_engine(f, v) != Conv3dEngine::kNone;
}
Counts conv3d_engine_counts(const OpFacts& f) {
  ConvView v;
  conv_view(f, v);
  Counts c = conv3d_engine(f, v) == Conv3dEngine::kNcdhwDirect ? Counts{1, 0, 0, 0} : Counts{4, 0, 2, 0};
  c.kernels += (v.bias ? 1 : 0) + v.pad_kernels + (row_major_dense(v.x_sizes, v.x_strides) ? 0 : 1);
  return c;
}

Counts conv_counts(const OpFacts& f) {
  ConvView v;
  conv_view(f, v);
  const int bias = v.bias ? 1 : 0;
  const bool cl = runs_channels_last(v);
  int copies = v.pre_copies + v.pad_kernels;
  const int64_t cin = v.x_sizes[1];
  // Depthwise, NCHW: ATen's native kernel on input.contiguous(), bias fused.
  if (depthwise(v) && !cl) {
    copies += row_major_dense(v.x_sizes, v.x_strides) ? 0 : 1;
    return {1 + copies, 0, 0, 0};
  }
  if (cl) {
    // cuDNN on channels-last tensors: ATen copies input and weight into channels last when
    // they are not already; the engine needs no transforms.
    copies += channels_last_dense(v.x_sizes, v.x_strides) ? 0 : 1;
    copies += channels_last_dense(v.w_sizes, v.w_strides) ? 0 : 1;
    if (depthwise(v) && v.spatial() == 3 && v.dtype == DType::kFloat32 && cin < 256)
      return {2 * static_cast<int>(cin) + bias + copies, 0, 0, 0};  // per-channel loop, 2 kernels each
  } else {
    copies += row_major_dense(v.x_sizes, v.x_strides) ? 0 : 1;
  }
  // cuDNN's engine: transforms around an NHWC implicit GEMM, an NCHW-native kernel, a GEMM for
  // 1x1, split-K with a zeroed workspace; for grouped tensors one call or a loop over the
  // groups (conv_engine.h, grouped_channels_last), with cuDNN's own heuristic choice where
  // cuDNN, or the answers it gave before (cudnn_answers.h), can tell it.
  const std::optional<CudnnEngineChoice> engine = cudnn_engine(f, v, cl);
  if (cl && v.groups > 1) {
    // The engines' launches were measured for 2-d convolutions only.
    const bool two_d = v.spatial() == 2 && !v.one_d;
    GroupedConv gc;
    gc.half = is_half(v.dtype);
    gc.c_in = v.x_sizes[1];
    gc.c_out = v.w_sizes[0];
    gc.groups = v.groups;
    gc.kernel_1x1 = product(v.w_sizes, 2) == 1;
    return grouped_channels_last(gc, bias + copies, engine && two_d ? &*engine : nullptr);
  }
  Counts c = cudnn_conv(f.target->tables.conv, is_half(v.dtype), cl, conv_problem(v), engine ? &*engine : nullptr);
  c.kernels += bias + copies;
  return c;
}

// An ungrouped NCHW transposed convolution as the convt_decoder sweep saw it.
struct ConvtShape {
  double half, dims, k, stride, cin, cout, aligned8, log2_in_px, log2_out_px, batch;
};
// cuDNN's data-gradient engine choice for it, without the bias add: the NHWC implicit GEMM (input
// and weight to NHWC, dgrad, output back: 4, with 0-2 zeroed workspaces), NCHW-native kernels
// (1-2) or one GEMM (1x1 at stride 1). A tree fitted on the 2,400 convolutions of the sweep by
// generators/fit_convt.py --depth 5 --cpp (71.9% exact on a held-out fifth).
Counts convt_tree(const ConvtShape& x) {
  if (x.k <= 1.5) {
    if (x.cout <= 112) {
      return {1, 0, 0, 0};  // 186 configurations
    }
    if (x.batch <= 12) {
      return {1, 0, 0, 0};  // 117 configurations
    }
    if (x.log2_in_px <= 11) {
      return {3, 0, 0, 0};  // 8 configurations
    }
    return {1, 0, 0, 0};  // 12 configurations
  }
  if (x.log2_out_px <= 12.5) {
    if (x.half <= 0.5) {
      if (x.cin <= 112) {
        if (x.dims <= 1.5) {
          return {1, 0, 0, 0};  // 57 configurations
        }
        return {2, 0, 0, 0};  // 144 configurations
      }
      if (x.k <= 2.5) {
        return {4, 0, 0, 0};  // 81 configurations
      }
      return {2, 0, 0, 0};  // 238 configurations
    }
    if (x.cout <= 6) {
      if (x.batch <= 3) {
        return {4, 0, 1, 0};  // 28 configurations
      }
      return {4, 0, 2, 0};  // 30 configurations
    }
    return {4, 0, 0, 0};  // 450 configurations
  }
  if (x.stride <= 3) {
    if (x.cout <= 12) {
      if (x.half <= 0.5) {
        return {2, 0, 0, 0};  // 59 configurations
      }
      return {4, 0, 2, 0};  // 57 configurations
    }
    if (x.stride <= 1.5) {
      return {4, 0, 0, 0};  // 89 configurations
    }
    return {4, 0, 1, 0};  // 616 configurations
  }
  if (x.cout <= 6) {
    if (x.half <= 0.5) {
      return {2, 0, 0, 0};  // 17 configurations
    }
    return {4, 0, 1, 0};  // 12 configurations
  }
  if (x.dims <= 1.5) {
    return {4, 0, 1, 0};  // 31 configurations
  }
  return {4, 0, 0, 0};  // 168 configurations
}
bool convt_shape(const OpFacts& f, const ConvView& v, ConvtShape& x) {
  const Value* out = f.output(0);
  if (!out || out->sizes.size() < 3) return false;
  double in_px = 1, out_px = 1, k = 1, stride = 1;
  for (size_t d = 2; d < v.x_sizes.size(); ++d) {  // a 1-d convolution is viewed with H = 1
    in_px *= static_cast<double>(v.x_sizes[d]);
    k = std::max(k, static_cast<double>(v.w_sizes[d]));
  }
  for (size_t d = 2; d < out->sizes.size(); ++d) out_px *= static_cast<double>(out->sizes[d]);
  for (int64_t s : v.stride) stride = std::max(stride, static_cast<double>(s));
  const double batch = static_cast<double>(v.x_sizes[0]);
  if (in_px * batch < 1 || out_px * batch < 1) return false;
  const int64_t cin = v.x_sizes[1], cout = v.w_sizes[1] * v.groups;
  x = {is_half(v.dtype) ? 1.0 : 0.0,
       static_cast<double>(v.one_d ? 1 : v.spatial()),
       k,
       stride,
       static_cast<double>(cin),
       static_cast<double>(cout),
       cin % 8 == 0 && cout % 8 == 0 ? 1.0 : 0.0,
       std::log2(in_px * batch),
       std::log2(out_px * batch),
       batch};
  return true;
}

// ConvParams::is_output_padding_big: an output padding at least the stride in some dim. ATen's
// use_cudnn refuses it, so the transposed convolution runs ATen's own slow_conv_transpose2d/3d.
bool output_padding_big(const OpFacts& f) {
  if (!is_transposed(f)) return false;
  ConvView v;
  if (!conv_view(f, v)) return false;
  const Arg* op = f.arg("output_padding");
  if (!op || op->kind != Arg::Kind::kIntList || op->ints.empty()) return false;
  const size_t nsp = static_cast<size_t>(v.one_d ? 1 : v.spatial());
  std::vector<int64_t> pads = op->ints;
  if (pads.size() == 1) pads.assign(nsp, pads[0]);
  if (pads.size() != nsp) return false;
  const size_t first = v.one_d ? 1 : 0;  // the 1-d view's leading H has stride 1, no padding
  for (size_t d = 0; d < nsp; ++d)
    if (pads[d] >= v.stride[first + d]) return true;
  return false;
}
// slow_conv_transpose2d/3d (NaiveConvolutionTranspose{2,3}d.cu), per group (Convolution.cpp's
// _convolution_nogroup on each group's slices): the input slice made contiguous (a copy when it is
// not: groups > 1 with a batch), the bias's buffer of ones filled, then per sample a GEMM into
// columns, col2im/vol2im and the bias's GEMM; the groups' outputs are then joined (2-d: one cat
// kernel; 3-d: a copy kernel and a memcpy a group for a batch of 2, two memcpys a group for one
// unbatched sample).
bool slow_convt_fits(const OpFacts& f) {
  ConvView v;
  return output_padding_big(f) && conv_view(f, v) && (v.dtype == DType::kFloat32 || v.dtype == DType::kBFloat16) &&
         v.groups <= 2 && v.x_sizes[0] >= 1 && v.x_sizes[0] <= 2 && (v.one_d || v.spatial() <= 3);
}
Counts slow_convt_counts(const OpFacts& f) {
  ConvView v;
  conv_view(f, v);
  const int n = static_cast<int>(v.x_sizes[0]), g = static_cast<int>(v.groups), bias = v.bias ? 1 : 0;
  const int slice_copy = g > 1 && n > 1 ? 1 : 0;
  Counts c{g * (slice_copy + bias + n * (2 + bias)), 0, 0, 0};
  // 3-d joins each group's output into its channel slice of the result and copies once more: a
  // kernel for a batch (the slice is strided), a memcpy for one sample (it is dense).
  if (g > 1 && !v.one_d && v.spatial() == 3) {
    c += n > 1 ? Counts{g, g, 0, 0} : Counts{0, 2 * g, 0, 0};
    return c;
  }
  if (g > 1) c += Counts{1, 0, 0, 0};
  return c;
}

// Transposed convolutions with a handful of channels on a few pixels, below every configuration of
// the convt_decoder sweep (16 input channels and up): cuDNN's heuristics take a direct kernel
// (dgrad2d_grouped_direct in bfloat16 and grouped float32) or the NCHW implicit-GEMM dgrad in 1-d
// and 2-d; in 3-d, float32 runs setTensor5d and convolveNd_dgrad, bfloat16 the NHWC implicit GEMM
// with its transforms (a generic one for the weight) and 2 zeroed workspaces.
bool few_channels_convt(const OpFacts& f) {
  ConvView v;
  if (!is_transposed(f) || !conv_view(f, v) || (v.dtype != DType::kFloat32 && v.dtype != DType::kBFloat16))
    return false;
  if (runs_channels_last(v) || v.x_sizes[0] > 2) return false;
  const int64_t cin = v.x_sizes[1] / v.groups, cout = v.w_sizes[1];
  return cin <= 4 && cout <= 4 && product(v.x_sizes, 2) <= 64;
}
Counts few_channels_convt_counts(const OpFacts& f) {
  ConvView v;
  conv_view(f, v);
  const int bias = v.bias ? 1 : 0;
  if (v.one_d || v.spatial() == 2) return {1 + bias + v.pre_copies, 0, 0, 0};
  return v.dtype == DType::kFloat32 ? Counts{2 + bias, 0, 0, 0} : Counts{4 + bias, 0, 2, 0};
}

// The data-gradient engine cuDNN's heuristics pick for a transposed convolution: the gradient of
// the convolution whose input is the transposed one's output (dx) and whose output is its input.
std::optional<CudnnEngineChoice> cudnn_dgrad_engine(const OpFacts& f, const ConvView& v, std::vector<int64_t>& dx) {
  const Value* out = f.output(0);
  if (!out || v.groups != 1) return std::nullopt;
  dx = out->sizes;
  if (dx.size() + 1 == v.x_sizes.size() - (v.one_d ? 1 : 0)) dx.insert(dx.begin(), 1);  // unbatched: a batch of one
  if (v.one_d && dx.size() == 3) dx.insert(dx.begin() + 2, 1);                          // viewed as 2-d, as the input
  if (dx.size() != v.x_sizes.size()) return std::nullopt;
  const bool cudnn_dtype = v.dtype == DType::kFloat32 || is_half(v.dtype);
  CudnnAnswers* answers = cudnn_dtype ? CudnnAnswers::get(f.target->device, f.target->tables.cudnn_answers) : nullptr;
  if (!answers) return std::nullopt;
  CudnnConvQuery q = cudnn_query(v, runs_channels_last(v));
  q.x = dx;
  q.backward_data = true;
  const CudnnAnswer a = answers->choose(q);
  if (f.cudnn_answer) *f.cudnn_answer = cudnn_source_name(a.source);
  return a.choice;
}

// The launches of an ungrouped NCHW transposed convolution on the data-gradient engine cuDNN picks,
// where that engine settles them (dgrad_engine.h); dense inputs only (the sweeps' were).
std::optional<Counts> dgrad_engine_launches(const OpFacts& f, const ConvView& v) {
  if (v.groups != 1 || runs_channels_last(v)) return std::nullopt;
  if (v.pre_copies || !row_major_dense(v.x_sizes, v.x_strides) || !row_major_dense(v.w_sizes, v.w_strides))
    return std::nullopt;
  if (v.dtype != DType::kFloat32 && v.dtype != DType::kBFloat16) return std::nullopt;
  std::vector<int64_t> dx;
  const std::optional<CudnnEngineChoice> e = cudnn_dgrad_engine(f, v, dx);
  if (!e) return std::nullopt;
  DgradConv c;
  c.dtype = v.dtype;
  c.k_channels = v.x_sizes[1];
  c.c_channels = v.w_sizes[1];
  c.unit_stride = std::all_of(v.stride.begin(), v.stride.end(), [](int64_t s) { return s == 1; });
  c.pointwise = c.unit_stride && product(v.w_sizes, 2) == 1;
  c.dx_elements = 1;
  for (int64_t d : dx) c.dx_elements = mul_checked(c.dx_elements, d, "transposed convolution output size");
  c.reduction = mul_checked(v.w_sizes[0], product(v.w_sizes, 2), "convolution weight size");
  return torch2_11::dgrad_engine_launches(c, *e);
}
bool dgrad_engine_fits(const OpFacts& f) {
  ConvView v;
  return is_transposed(f) && conv_view(f, v) && dgrad_engine_launches(f, v).has_value();
}
Counts dgrad_engine_counts(const OpFacts& f) {
  ConvView v;
  conv_view(f, v);
  Counts c = *dgrad_engine_launches(f, v);
  c.kernels += v.bias ? 1 : 0;
  return c;
}

// Transposed convolutions (cuDNN dgrad engines): ungrouped NCHW ones by the sweep's tree; others
// by the most frequent count per (dtype, layout, groups).
Counts conv_transpose_counts(const OpFacts& f) {
  ConvView v;
  conv_view(f, v);
  const int bias = v.bias ? 1 : 0;
  const bool cl = runs_channels_last(v);
  ConvtShape shape;
  if (v.groups == 1 && !cl && (v.dtype == DType::kFloat32 || is_half(v.dtype)) && convt_shape(f, v, shape)) {
    Counts c = convt_tree(shape);
    c.kernels += bias + v.pre_copies;
    return c;
  }
  if (is_half(v.dtype)) return {4 + bias, 0, 1, 0};
  if (v.groups > 1) return {4 + bias, 0, 0, 0};
  if (cl) return {2 + bias, 0, 1, 0};
  return {1 + bias + v.pre_copies, 0, 0, 0};
}

bool conv_forward(const OpFacts& f) {
  return !is_transposed(f) && conv_shapes(f);
}
bool conv_backward_data(const OpFacts& f) {
  return is_transposed(f) && conv_shapes(f);
}

}  // namespace

void add_conv_rules(std::vector<LaunchRule>& r) {
  r.push_back(rule("conv.transposed.empty")
                  .cls(OpClass::kConv)
                  .when("transposed, a result with no element (padding eats the output): nothing, bias or not",
                        [](const OpFacts& f) {
                          const Value* out = f.output(0);
                          return is_transposed(f) && conv_shapes(f) && out && !out->sizes.empty() && out->numel() == 0;
                        })
                  .counts({0, 0, 0, 0})
                  .evidence("sweep:opinfo_edges (conv_transpose3d of [1, 1, 1, 1, 10] by a 1x1x4 kernel, stride 2, "
                            "padding 1, output padding 1, and by 2x2x2 at stride 1, padding 1: empty results, 0 "
                            "launches with and without a bias; f32 and bf16)")
                  .why("ATen returns an empty result before calling cuDNN or adding the bias."));
  r.push_back(rule("conv.3d_engine")
                  .cls(OpClass::kConv)
                  .when("3-d, not transposed, ungrouped float32 NCDHW, where cuDNN's heuristics (or their kept "
                        "answers) pick engine 28 (implicit_convolveNd_sgemm on NCDHW: 1 kernel), or engine 67 or 38 "
                        "with neither channel count a multiple of 8 and a kernel larger than 1x1x1 (NHWC implicit "
                        "GEMM: input and weight to NHWC, "
                        "the GEMM, the output back, 4 kernels + 2 memsets); +1 bias add, +1 copy of a non-contiguous "
                        "input, +2 for padding='same' padded asymmetrically (a fill and a copy of the input)",
                        conv3d_engine_fits)
                  .compute(conv3d_engine_counts)
                  .evidence("sweep:opinfo_edges (conv3d float32 of [1, 5, 5, 5], [2, 1, 5, 5, 5], [1, 1, 1, 1, 10], "
                            "[1, 4, 5, 2], [2, 3, 6, 6, 6] by 3x3x3, 1x1x4, 2x2x2 kernels, stride 1-2, padding 0-1: "
                            "engine 28 on 32 of them, 1 kernel each; 1 or 3 channels in, 1 or 2 out, engines 67 and "
                            "38 on 84, 4 kernels + 2 memsets each), sweep:conv3d_dense (engine 38 with unaligned "
                            "channels: 4 + 2 on 4 of 4)")
                  .why("cuDNN's engine decides the launches: its implicit-GEMM kernel for NCDHW tensors reads them as "
                       "they are, while its NHWC engines transform input and weight to channels last and the output "
                       "back, zeroing a buffer for each channel count padded to 8."));
  r.push_back(
      rule("conv")
          .cls(OpClass::kConv)
          .when(
              "1-3 d, not transposed. Depthwise (groups = C_in) NCHW: ATen's kernel, 1 (bias fused), +1 copy of a "
              "non-contiguous input. Otherwise cuDNN's engine choice (NHWC implicit GEMM with input, weight and output "
              "transforms, NCHW-native kernels, GEMMs for 1x1, split-K with a zeroed workspace; for grouped NCHW "
              "tensors one call or a loop of 1-4 launches a group) from decision trees over kernel, stride, dilation, "
              "batch, height, width, channels in and out (a group's), output pixels, the implicit GEMM's M and K, "
              "channel alignment, groups and for 3-d depth, temporal kernel and stride, fitted per kind (ungrouped 1-2 "
              "d, ungrouped 3-d, grouped NCHW), dtype class and layout on the sweeps and the corpora's measured "
              "convolutions (generators/fit_conv.py, which prints each family left out of the fit in turn); where "
              "cuDNN 9.19 can be loaded (KERNELCOUNT_CUDNN), trees that also read the engine configuration cuDNN's own "
              "heuristics pick for the H200, asked without a GPU, and for a 1x1 convolution at stride 1 whether the "
              "GPU itself would take the cuBLASLt GEMM engine cuDNN offers only there (a classifier fitted on the "
              "GPU's answers); grouped 3-d (none measured) takes the grouped trees' answer. Grouped channels last "
              "(input or weight suggests it), 2-d, by the engine cuDNN's heuristics pick: one call (engine 0: direct "
              "1; "
              "bf16 22/62, f32 67: implicit GEMM 1, 3 + 2 memsets with a channel multiplier of 2, 4 + 2 memsets for "
              "channels per group no power of two or under 2 (bf16) or 4 (f32)) or a loop per group (engine 28: 1 "
              "launch; bf16 27/45: 3; f32 35/46/70: 4); without cuDNN, or 1-d/3-d, most frequent per bucket: one call "
              "(direct 1, implicit GEMM 1, or 3 + 2 memsets with a channel multiplier of 2) or a loop of 1 or 3 "
              "launches per group, by channels per group, kernel size and dtype; f32 5-d depthwise channels last loops "
              "per channel (2 x C_in) when C_in < 256. "
              "Channels last: +1 copy each for input/weight not dense channels last. +1 bias add (cuDNN), +1 copy of a "
              "non-contiguous NCHW input; conv1d as conv2d with H = 1; padding='same' where a dim's total pad is odd: "
              "+2 "
              "(ATen pads the input's right side first: a fill and a copy), then the padded input's convolution",
              conv_forward)
          .compute(conv_counts)
          .evidence("sweep:conv_dense (6,030 ungrouped conv2d shapes), sweep:conv3d_dense (2,081 conv3d shapes), "
                    "sweep:gconv_model (1,857 grouped NCHW conv2d), sweep:gconv_dense (4,927), sweep:gconv_wide, "
                    "sweep:gconv, sweep:conv_align, sweep:conv/conv2d (contig, cl_in, cl_both), sweep:conv/conv1d, "
                    "sweep:conv/conv3d, broad, fresh, fresh2-6 and corpus (their convolutions), broad:pit, "
                    "broad:resnet, broad:regnet, broad:convnext, broad:mobilenetv2, broad:efficientnet, "
                    "broad:video-resnet, broad:s3d, broad:x3d, broad:pvt-v2, broad:squeezenet, broad:ecaresnet, "
                    "corpus:regnet_y_400mf, corpus:efficientnet_b0, corpus:mobilenet_v2 (batch 32, 1x1 on 7x7), "
                    "opinfo_heldout3:nn_functional_conv3d (padding 'same' by a 1x2x5 kernel: fill, copy and the "
                    "convolution, 3 kernels, float32 and bfloat16)")
          .why("cuDNN (or ATen's own depthwise kernel) runs this convolution; NCHW tensors get layout transforms "
               "around cuDNN's channels-last implicit GEMM, a 1x1 stride-1 convolution is one GEMM, some grouped "
               "shapes loop over groups, and a bias is one more elementwise kernel."));
  r.push_back(rule("conv.transposed.slow")
                  .cls(OpClass::kConv)
                  .when("transposed, an output padding at least the stride in some dim (ATen keeps it from cuDNN), "
                        "float32 or bfloat16, at most 2 groups and 2 samples: per group the input slice's copy "
                        "(grouped, batched), the bias's ones, per sample GEMM + col2im/vol2im + the bias's GEMM; the "
                        "groups joined (2-d: a cat; 3-d: a copy and a memcpy each)",
                        slow_convt_fits)
                  .compute(slow_convt_counts)
                  .evidence("opinfo:nn_functional_conv_transpose2d, opinfo:nn_functional_conv_transpose3d (batch 2, 2 "
                            "groups, stride (3, 2[, 1]), output padding (2, 3[, 1]), dilation 4: 17 and 18 kernels, "
                            "float32 and bfloat16), opinfo_heldout:nn_functional_conv_transpose3d (the same unbatched: "
                            "8 kernels + 4 memcpy)")
                  .why("cuDNN cannot take an output padding as large as the stride, so ATen runs its own transposed "
                       "convolution: one GEMM and one col2im per sample and group, and a GEMM for the bias."));
  r.push_back(rule("conv.transposed.dgrad_engine")
                  .cls(OpClass::kConv)
                  .when("transposed, ungrouped, dense NCHW, 1-3 d (1-d viewed as 2-d), where cuDNN's data-gradient "
                        "heuristics (or their kept answers) pick an engine whose launches the sweeps never saw vary: "
                        "float32 engines 2 and 25 (zero the result, then the legacy dgrad kernel: 2), float32 74 (NCHW "
                        "implicit GEMM: 1), bfloat16 0 (direct kernel: 1); the NHWC implicit-GEMM engines (bfloat16 "
                        "22, 40, 64, 73, 57 at stride 1, 67 and float32 28, 65, 76, 71, the last two of each below "
                        "2^18 output elements and a reduction of 768), but for a kernel of one pixel at stride 1: 4 "
                        "kernels (dy and weight to NHWC, the GEMM, dx back) + a zeroed buffer for each padded input "
                        "(channels padded to 16 bytes, 8 bfloat16 or 4 float32 values: the weight's where either "
                        "channel count is not a multiple, dy's where its own is not) + 1 on the strided engines 73 "
                        "and 76; +1 bias add",
                        dgrad_engine_fits)
                  .compute(dgrad_engine_counts)
                  .evidence("sweep:convt_decoder (1,821 ungrouped NCHW transposed convolutions on these engines: "
                            "legacy 335, engine 74 on 107, bf16 0 on 38, NHWC 1,341 of which 92 padded and 787 "
                            "strided), sweep:conv (conv_transpose1d-3d: 114, NHWC 66 of which 21 padded), "
                            "sweep:opinfo_edges (conv_transpose3d of tiny and unbatched inputs: 460, NHWC 256, "
                            "all padded), every one as stated; opinfo:nn_functional_conv_transpose1d-3d (32)")
                  .why("A transposed convolution is cuDNN's data-gradient convolution; for these engines what it "
                       "launches follows from the engine: a zero fill and the legacy kernel, one kernel, or the NHWC "
                       "GEMM between layout transforms, each buffer padded to whole 16-byte channel groups zeroed "
                       "before it is filled and, for the strided kernels, dx zeroed too."));
  r.push_back(rule("conv.transposed.few_channels")
                  .cls(OpClass::kConv)
                  .when("transposed, float32 or bfloat16 NCHW, at most 4 channels in and out a group, 64 input pixels "
                        "and 2 samples (below the sweep): 1-d and 2-d one cuDNN kernel (direct or NCHW implicit GEMM); "
                        "3-d float32 2, bfloat16 4 + 2 memsets; +1 bias add",
                        few_channels_convt)
                  .compute(few_channels_convt_counts)
                  .evidence("opinfo:nn_functional_conv_transpose1d, opinfo:nn_functional_conv_transpose2d, "
                            "opinfo:nn_functional_conv_transpose3d (3 channels on 4, 4x4, 4x4x4 pixels, batch 1 and "
                            "unbatched; 2 groups of 1 channel; float32 and bfloat16)")
                  .why("On a few channels and pixels cuDNN runs its transposed convolution as one direct kernel "
                       "(3-d: with a layout set-up, or in bfloat16 its channels-last GEMM with transforms); a bias is "
                       "one more elementwise kernel."));
  r.push_back(
      rule("conv.transposed")
          .cls(OpClass::kConv)
          .when("transposed 1-3 d (cuDNN dgrad). Ungrouped NCHW, f32 or half: cuDNN's engine (NHWC implicit GEMM with "
                "transforms, 4 + 0-2 memsets; NCHW-native, 1-2; a GEMM for 1x1) from a tree over dtype, rank, kernel, "
                "stride, channels, their alignment, batch and pixels in and out, fitted on the convt_decoder sweep "
                "(generators/fit_convt.py). Otherwise most frequent per bucket: half precision 4 + 1 memset; f32 "
                "grouped 4; f32 channels last 2 + 1 memset; f32 NCHW 1. +1 bias add",
                conv_backward_data)
          .compute(conv_transpose_counts)
          .evidence("sweep:convt_decoder (2,400 ungrouped transposed convolutions at decoder shapes; the tree is exact "
                    "on 71.9% of a held-out fifth, the buckets it replaced on 27.8% of the sweep), "
                    "sweep:conv/conv_transpose1d, sweep:conv/conv_transpose2d, sweep:conv/conv_transpose3d")
          .why("A transposed convolution runs cuDNN's data-gradient kernel with the layout transforms it needs (and a "
               "zeroed workspace in bf16); a bias is one more elementwise kernel."));
}

}  // namespace kc::torch2_11
