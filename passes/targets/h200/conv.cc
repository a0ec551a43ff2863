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

#include "passes/targets/h200/conv_engine.h"
#include "passes/targets/h200/rules.h"

namespace kc::h200 {
namespace {

// c10's is_channels_last_strides_2d/3d (c10/core/MemoryFormat.h): strides ordered C fastest,
// then W, H, (D), N, size-1 dims tolerated; what Tensor::suggest_memory_format() calls channels
// last. A 4-d/5-d tensor only.
bool channels_last_like(const std::vector<int64_t>& sizes, const std::vector<int64_t>& strides) {
  const size_t n = sizes.size();
  if ((n != 4 && n != 5) || strides.size() != n || strides[1] == 0) return false;
  std::vector<size_t> order = {1};
  for (size_t d = n - 1; d >= 2; --d) order.push_back(d);
  order.push_back(0);
  int64_t min = 0;
  for (size_t d : order) {
    if (sizes[d] == 0 || strides[d] < min) return false;
    if (d == 0 && min == strides[1]) return false;  // ambiguous N111: NCHW
    min = strides[d];
    if (sizes[d] > 1) min *= sizes[d];
  }
  return true;
}

bool row_major_dense(const std::vector<int64_t>& sizes, const std::vector<int64_t>& strides) {
  if (strides.size() != sizes.size()) return false;
  int64_t expected = 1;
  for (size_t i = sizes.size(); i-- > 0;) {
    if (sizes[i] != 1 && strides[i] != expected) return false;
    expected *= sizes[i];
  }
  return true;
}

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
  int pre_copies = 0;  // the 1-d input's contiguous() copy
  DType dtype = DType::kUnknown;
  int spatial() const { return static_cast<int>(x_sizes.size()) - 2; }
  bool one_d = false;  // a 1-d convolution, viewed here as a 2-d one with H = 1
};

bool is_transposed(const OpFacts& f) {
  return f.op->name.find("conv_transpose") != std::string::npos || f.bool_arg("transposed", false);
}

// Fills v from the op, false when the shapes are not those of a 1-3 d convolution.
bool conv_view(const OpFacts& f, ConvView& v) {
  const Value* x = f.input(0);
  const Value* w = f.input(1);
  if (!x || !w) return false;
  const size_t rank = x->sizes.size();
  if (rank < 3 || rank > 5 || w->sizes.size() != rank) return false;
  if (x->strides.size() != rank || w->strides.size() != rank) return false;
  v.groups = f.int_arg("groups", 1);
  if (v.groups < 1) return false;
  v.transposed = is_transposed(f);
  // Channel check: input C = weight dim 1 x groups (dim 0 for a transposed weight).
  const int64_t cin_w = v.transposed ? w->sizes[0] : w->sizes[1] * v.groups;
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
  // Strides and dilations below 1 or negative padding are not a convolution ATen runs.
  for (size_t d = 0; d < v.stride.size(); ++d)
    if (v.stride[d] < 1 || v.dilation[d] < 1 || v.padding[d] < 0) return false;
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
  return channels_last_like(v.x_sizes, v.x_strides) || channels_last_like(v.w_sizes, v.w_strides);
}

int64_t product(const std::vector<int64_t>& a, size_t from) {
  int64_t p = 1;
  for (size_t i = from; i < a.size(); ++i) p *= a[i];
  return p;
}

// Output pixels x batch: the implicit GEMM's M.
int64_t gemm_m(const ConvView& v) {
  int64_t m = v.x_sizes[0];
  for (int i = 0; i < v.spatial(); ++i) m *= (v.x_sizes[2 + i] + v.stride[i] - 1) / v.stride[i];
  return m;
}

// An ungrouped 1-2 d convolution as cuDNN's engine heuristics see it (conv_engine.h).
ConvProblem conv_problem(const ConvView& v) {
  ConvProblem p;
  p.kernel = std::max(v.w_sizes[2], v.w_sizes[3]);
  p.stride = std::max(v.stride[0], v.stride[1]);
  p.dilation = std::max(v.dilation[0], v.dilation[1]);
  p.batch = v.x_sizes[0];
  p.height = v.x_sizes[2];
  p.width = v.x_sizes[3];
  p.c_in = v.x_sizes[1];
  p.c_out = v.w_sizes[0];
  p.out_pixels = 1;
  for (int d = 0; d < 2; ++d) {
    const int64_t span = v.dilation[d] * (v.w_sizes[2 + d] - 1) + 1;
    p.out_pixels *= std::max<int64_t>(0, (v.x_sizes[2 + d] + 2 * v.padding[d] - span) / v.stride[d] + 1);
  }
  p.gemm_m = p.batch * p.out_pixels;
  p.gemm_k = p.c_in * v.w_sizes[2] * v.w_sizes[3];
  return p;
}

// Grouped convolutions on channels-last tensors (sweep gconv: 842 grouped shapes by layout).
// cuDNN either runs one grouped call (a direct kernel, or the implicit GEMM, whose weight
// transform for a channel multiplier of 2 adds 2 kernels and 2 zeroed buffers), or loops over
// the groups: one launch per group (engines without group support) or three (GEMM + two
// channel slices). Which one follows the channels per group, the kernel size and the dtype;
// the most frequent behaviour per bucket (80% of the bf16 and 61-77% of the f32 shapes).
Counts grouped_channels_last(const ConvView& v, int extra) {
  const int64_t cin = v.x_sizes[1];
  const int64_t cout = v.w_sizes[0];
  const int64_t cpg = cin / v.groups;
  const int64_t mult = cout % cin == 0 ? cout / cin : 0;
  const bool k1 = product(v.w_sizes, 2) == 1;
  const int g = static_cast<int>(v.groups);
  enum { kDirect, kGemm, kLoop1, kLoop3 } path;
  if (is_half(v.dtype)) {
    if (cpg == 1)
      path = mult >= 2 ? kLoop1 : kDirect;
    else if (cpg == 2)
      path = kLoop1;
    else if (cpg <= 8)
      path = kGemm;
    else if (cpg < 32)
      path = k1 ? kLoop3 : kGemm;
    else
      path = kLoop3;
  } else {
    if (v.groups <= 2)
      path = kLoop1;
    else if (cpg == 1)
      path = kDirect;
    else
      path = k1 ? kLoop1 : kGemm;
  }
  switch (path) {
    case kDirect:
      return {1 + extra, 0, 0, 0};
    case kLoop1:
      return {g + extra, 0, 0, 0};
    case kLoop3:
      return {3 * g + extra, 0, 0, 0};
    case kGemm:
      break;
  }
  const int memsets = mult >= 2 || (cpg >= 24 && cpg % 32 != 0) ? 2 : 0;
  return {(mult >= 2 ? 3 : 1) + extra, 0, memsets, 0};
}

Counts conv_counts(const OpFacts& f) {
  ConvView v;
  conv_view(f, v);
  const int bias = v.bias ? 1 : 0;
  const bool cl = runs_channels_last(v);
  int copies = v.pre_copies;
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
    if (v.groups > 1) return grouped_channels_last(v, bias + copies);
    if (v.spatial() == 3) return {1 + bias + copies, 0, 0, 0};
    Counts c = cudnn_ungrouped_conv(is_half(v.dtype), true, conv_problem(v));
    c.kernels += bias + copies;
    return c;
  }
  copies += row_major_dense(v.x_sizes, v.x_strides) ? 0 : 1;
  if (v.groups > 1) {
    // Grouped: one T2 + core + T1 call for all groups, or cuDNN's per-group loop, which the
    // data ties to the channels per group (most frequent per bucket): half precision loops
    // (4 kernels a group) for >= 56 channels per group and >= 3 groups; f32 loops (3 a group)
    // for 16-56 channels per group and <= 7 groups.
    const int64_t cpg = cin / v.groups;
    const int g = static_cast<int>(v.groups);
    if (!v.one_d && v.spatial() == 2 && product(v.w_sizes, 2) == 1) {
      // 1x1: cuDNN loops over the groups. Half precision from 16 channels per group: NCHW to
      // NHWC, a GEMM and back, 3 launches a group. f32 from 3 groups: one implicit GEMM a group
      // up to 16 groups, one grouped direct kernel for all of them above (gconv sweep, 1x1 NCHW).
      if (is_half(v.dtype) && cpg >= 16) return {3 * g + bias + copies, 0, 0, 0};
      if (v.dtype == DType::kFloat32 && g >= 3 && cpg >= 4) return {(g <= 16 ? g : 1) + bias + copies, 0, 0, 0};
    }
    if (is_half(v.dtype) && cpg >= 56 && v.groups >= 3) return {4 * g + bias + copies, 0, 0, 0};
    // 1-d f32 with 16-31 channels per group loops at any group count (gconv sweep: a tie at
    // more than 7 groups; the wav2vec2 family's 16-group positional convolution loops).
    const bool loop_1d = v.one_d && cpg >= 16 && cpg < 32;
    if (v.dtype == DType::kFloat32 && cpg >= 16 && cpg <= 56 && (v.groups <= 7 || loop_1d))
      return {3 * g + bias + copies, 0, 0, 0};
    // One call: cuDNN's grouped kernels zero two workspaces when the channels per group are
    // not a multiple of 32 (from 24 up).
    return {4 + bias + copies, 0, cpg >= 24 && cpg % 32 != 0 ? 2 : 0, 0};
  }
  if (v.spatial() <= 2) {
    // cuDNN's engine for an ungrouped NCHW convolution: transforms around an NHWC implicit GEMM,
    // an NCHW-native kernel, a GEMM for 1x1, split-K with a zeroed workspace (conv_engine.h).
    Counts c = cudnn_ungrouped_conv(is_half(v.dtype), false, conv_problem(v));
    c.kernels += bias + copies;
    return c;
  }
  // 3-d (no tree: the sweeps hold 350 shapes), most frequent per bucket.
  const bool k1 = product(v.w_sizes, 2) == 1;
  const bool s1 = std::all_of(v.stride.begin(), v.stride.end(), [](int64_t s) { return s == 1; });
  if (k1 && s1) {
    // A GEMM on the NCHW tensor; f32 GEMMs with a handful of rows (1x1 maps: SE blocks,
    // classifier heads) and a long reduction take cuBLASLt's split-K, + 1 reduce kernel.
    const int split_k = v.dtype == DType::kFloat32 && gemm_m(v) <= 8 && cin >= 1024 ? 1 : 0;
    // Half precision on small maps (<= 7x7) with many rows (batch 32): cuDNN's NHWC engine
    // with input and output transforms instead.
    const int64_t hw = product(v.x_sizes, 2);
    if (is_half(v.dtype) && hw > 1 && hw <= 49 && gemm_m(v) >= 1024) return {3 + bias + copies, 0, 0, 0};
    return {1 + split_k + bias + copies, 0, 0, 0};
  }
  if (k1) return {3 + bias + copies, 0, 0, 0};        // input transform, core, output transform
  if (cin <= 4) return {1 + bias + copies, 0, 0, 0};  // stems: direct NCHW implicit GEMM
  if (v.dtype == DType::kFloat32) {
    // f32 (TF32): small cin runs the NCHW-native kernel; else the sm80 kernel reads
    // transformed input and weight and writes NCHW, large GEMMs add the output transform;
    // split-K (a memset) when the reduction is long and the output small.
    const int64_t m = gemm_m(v);
    const int64_t k = cin * product(v.w_sizes, 2);
    const int core = cin <= 32 ? 1 : m >= 16384 ? 4 : 3;
    const int memset = k >= 2304 && m <= 392 ? 1 : 0;
    return {core + bias + copies, 0, memset, 0};
  }
  return {4 + bias + copies, 0, 0, 0};
}

// Transposed convolutions (cuDNN dgrad engines), most frequent count per (dtype, layout, groups).
Counts conv_transpose_counts(const OpFacts& f) {
  ConvView v;
  conv_view(f, v);
  const int bias = v.bias ? 1 : 0;
  const bool cl = runs_channels_last(v);
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
  r.push_back(
      {"conv",
       {},
       OpClass::kConv,
       "1-3 d, not transposed. Depthwise (groups = C_in) NCHW: ATen's kernel, 1 (bias fused), +1 copy of "
       "a non-contiguous input. Ungrouped 1-2 d: cuDNN's engine choice (NHWC implicit GEMM with input, weight and "
       "output transforms, NCHW-native kernels, GEMMs for 1x1, split-K with a zeroed workspace) from decision trees "
       "over kernel, stride, dilation, batch, height, width, C_in, C_out and the implicit GEMM's M and K, fitted "
       "per dtype class and layout on the sweeps and the corpora's measured convolutions (validate/sweeps/"
       "fit_conv.py; leave-one-family-out 93.8% of the corpora's instances). Channels last (input or weight "
       "suggests it): +1 copy each for input/weight not dense channels last; f32 5-d depthwise loops per channel "
       "(2 x C_in) when C_in < 256; grouped: one call (direct 1, implicit GEMM 1, or 3 + 2 memsets with a channel "
       "multiplier of 2) or a loop of 1 or 3 launches per group, by channels per group, kernel size and dtype "
       "(most frequent per bucket). NCHW grouped 1x1 2-d: half 3 per group from C_in/g >= 16; f32 1 per group for "
       "3-16 groups, one direct kernel above 16 (C_in/g >= 4). Other NCHW grouped: 4, or a per-group loop (half: "
       "4/group when C_in/g >= 56 and "
       "g >= 3; f32: 3/group when C_in/g in 16-56 and g <= 7, 1-d also for more groups with C_in/g in 16-31), "
       "+ 2 memsets when one call and C_in/g >= 24 is not a multiple of 32. Ungrouped 3-d, most frequent per "
       "bucket: channels last 1; 1x1 stride 1 GEMM 1; 1x1 strided 3; C_in <= 4 1; half precision 4; f32 1-4 "
       "by C_in and M. +1 bias add (cuDNN), +1 copy of a non-contiguous input; conv1d as conv2d with H = 1",
       conv_forward,
       {},
       conv_counts,
       "sweep:conv_dense (6,030 ungrouped conv2d shapes), sweep:conv/conv2d (contig, cl_in, cl_both), "
       "sweep:conv/conv1d, sweep:conv/conv3d, sweep:gconv, broad, fresh, fresh2, fresh3 and corpus (their ungrouped "
       "convolutions), broad:pit, "
       "broad:resnet, broad:regnet, broad:convnext, broad:mobilenetv2, broad:efficientnet, broad:video-resnet, "
       "broad:s3d, broad:x3d, broad:pvt-v2, broad:squeezenet, broad:ecaresnet, "
       "corpus:regnet_y_400mf, corpus:efficientnet_b0, corpus:mobilenet_v2 (batch 32, 1x1 on 7x7)",
       "cuDNN (or ATen's own depthwise kernel) runs this convolution; NCHW tensors get layout transforms "
       "around cuDNN's channels-last implicit GEMM, a 1x1 stride-1 convolution is one GEMM, some grouped "
       "shapes loop over groups, and a bias is one more elementwise kernel."});
  r.push_back({"conv.transposed",
               {},
               OpClass::kConv,
               "transposed 1-3 d (cuDNN dgrad), most frequent per bucket: half precision 4 + 1 memset; f32 grouped 4; "
               "f32 channels last 2 + 1 memset; f32 NCHW 1 (dgrad reads NCHW); +1 bias add",
               conv_backward_data,
               {},
               conv_transpose_counts,
               "sweep:conv/conv_transpose1d, sweep:conv/conv_transpose2d, sweep:conv/conv_transpose3d",
               "A transposed convolution runs cuDNN's data-gradient kernel with the layout transforms it needs (and a "
               "zeroed workspace in bf16); a bias is one more elementwise kernel."});
}

}  // namespace kc::h200
