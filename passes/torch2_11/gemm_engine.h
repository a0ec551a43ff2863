// cuBLAS's and cuBLASLt's launch choices for one GEMM call, learned from the target's GPU
// (generators/fit_gemm.py writes its folder's gemm_tree.inc).
#pragma once

#include <cstdint>

#include "passes/counts.h"
#include "passes/torch2_11/tables.h"

namespace kc::torch2_11 {

// One cuBLAS call as ATen makes it (aten/src/ATen/native/cuda/Blas.cpp): C[M, N] = A[M, K] x B[K, N],
// `b` of them for a batched call. `ta`/`tb`: that operand is a transposed view of a row-major matrix
// (unit stride on its rows), which cuBLAS reads in place; linear's weight is one (w.t()). `bias`: a
// 1-D bias fused into the call (addmm's cuBLASLt epilogue, linear with its bias).
struct GemmCall {
  bool half = false;  // bf16 or fp16; else f32 (no TF32, PyTorch's default)
  bool bias = false;
  bool batched = false;  // bmm and matmul's batched path (cuBLAS's strided-batched GEMM)
  bool ta = false;
  bool tb = false;
  int64_t b = 1;
  int64_t m = 0, k = 0, n = 0;
};

// What the call launches: kernels (the GEMM; split-K's reduction; sgemm_largek's scaling kernel
// and epilogue; a dot product and its reduction; the bias broadcast when the epilogue cannot take
// it), device-to-device memcpys and memsets (a zeroed split-K or stream-K workspace). Copies ATen
// makes of operands cuBLAS cannot read are not included. An empty problem (M, K or N zero), which
// no sweep measured, counts one kernel. `tree`: the target's (Target::tables.gemm).
Counts cublas_launches(const Table<GemmTreeNode>& tree, const GemmCall& call);

}  // namespace kc::torch2_11
