#include "passes/torch2_11/dgrad_engine.h"

namespace kc::torch2_11 {
namespace {

// The NHWC implicit-GEMM dgrad engines whose launches the sweeps never saw vary, cuDNN's global
// engine indices: their kernels are "dgrad_implicit_gemm"/"dgrad_optimized" on NHWC tensors.
// Engine 57 (bfloat16) folds a stride into the channels, and then zeroes other buffers: stride 1
// only. Engines 67 (bfloat16) and 71 (float32), the sm90 kernels, split a deep reduction with a
// helper kernel (segment-K) and zero one more buffer on large outputs: only below both.
bool nhwc_engine(const DgradConv& c, int64_t e) {
  const bool small = c.dx_elements <= (int64_t{1} << 18) && c.reduction <= 768;
  if (c.dtype == DType::kBFloat16)
    return e == 22 || e == 40 || e == 64 || e == 73 || (e == 57 && c.unit_stride) || (e == 67 && small);
  return e == 28 || e == 65 || e == 76 || (e == 71 && small);
}

// The strided engines ("dgrad_implicit_gemm_indexed ... strided"): they zero dx before the GEMM,
// whatever the stride or the channels.
bool zeroes_dx(const DgradConv& c, int64_t e) {
  return (c.dtype == DType::kBFloat16 && e == 73) || (c.dtype == DType::kFloat32 && e == 76);
}

}  // namespace

// sweep:convt_decoder, sweep:conv (transposed) and sweep:opinfo_edges: 2,395 ungrouped NCHW
// transposed convolutions, 1-3 d, on these engines, every one as below. The legacy float32
// engines 2 and 25 zero the result, then run their dgrad kernel (2); float32 74 (the NCHW
// implicit GEMM) and bfloat16 0 (a direct kernel) run one. The NHWC engines (1,663 of them)
// transform dy and the weight to NHWC, run the GEMM and transform dx back (4), and pad channel
// counts to 16 bytes (8 bfloat16, 4 float32 values), zeroing a padded buffer before it is filled:
// the weight's when K or C is not a multiple (tensorTransformGeneric fills it), dy's when K is not
// (369 padded, every count as stated); the strided engines zero one more (850 of them).
// A kernel of one pixel at stride 1 runs as one GEMM on the GPU (cuBLASLt, which cuDNN offers
// only with a GPU): left out.
std::optional<Counts> dgrad_engine_launches(const DgradConv& c, const CudnnEngineChoice& e) {
  if (c.dtype != DType::kFloat32 && c.dtype != DType::kBFloat16) return std::nullopt;
  const bool f32 = c.dtype == DType::kFloat32;
  if (f32 && (e.engine == 2 || e.engine == 25)) return Counts{2, 0, 0, 0};
  if ((f32 && e.engine == 74) || (!f32 && e.engine == 0)) return Counts{1, 0, 0, 0};
  if (c.pointwise || !nhwc_engine(c, e.engine)) return std::nullopt;
  const int64_t align = f32 ? 4 : 8;
  const bool k_padded = c.k_channels % align != 0, c_padded = c.c_channels % align != 0;
  const int zeroed = (k_padded || c_padded ? 1 : 0) + (k_padded ? 1 : 0) + (zeroes_dx(c, e.engine) ? 1 : 0);
  return Counts{4, 0, zeroed, 0};
}

}  // namespace kc::torch2_11
