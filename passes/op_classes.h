// The one table of op classes: what kind of work an aten op does. Launch rules, HBM traffic,
// fusion and the time floor all read it, so an op is a GEMM or a convolution in one place.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "analyzer/graph.h"

namespace kc {

enum class OpClass : uint8_t {
  kGemm,       // cuBLAS matrix products: linear, mm, bmm, addmm, matmul, ...
  kConv,       // convolutions of any rank, transposed or not
  kAttention,  // scaled dot-product attention
  kNorm,       // batch, layer, group and RMS norms
  kCopy,       // elementwise copies and conversions: clone, to, contiguous, reshape that copies
  kPointwise,  // one output element from the same element of each input
  kReduction,  // reductions and softmax: fewer outputs than inputs along some dims
  kScan,       // cumulative ops along a dim
  kIndex,      // data movement by index maps: gathers, scatters, cat, pad, roll, topk
  kPool,       // windowed pooling and resampling
  kFactory,    // new tensors from nothing: empty, zeros, arange, randn
  kHostRead,   // a GPU value read by the host: item, Int
  kView,       // aliases of an input: no data moves
  kMetadata,   // sizes, strides, asserts: no tensor data touched
  kLinalg,     // matrix factorizations, solves and decompositions: cuSOLVER, MAGMA, batched cuBLAS
  kOther,      // no class: neither listed nor tagged
};

// Short name used in the JSON report and the docs: "gemm", "conv", ...
const char* op_class_name(OpClass c);

// The class of an aten op: the table entry for its name, else what libtorch's tags say
// (pointwise, reduction, view), else kOther.
OpClass op_class(const Op& op);

// Every op name the table lists, with its class (for the docs and the consistency test).
const std::vector<std::pair<std::string, OpClass>>& op_class_table();

// A batch norm in inference (training=False): a per-channel scale and shift, no reduction.
bool batch_norm_inference(const Op& op);

// Classes whose arithmetic runs on the matrix units (tensor cores or FMA GEMM kernels).
bool on_matrix_units(OpClass c);

// Floating-point operations of the op, by class: 2*M*N*K for GEMMs, 2 per weight element per
// output element for convolutions, 4*B*L*S*D for attention, one per output element otherwise.
int64_t op_flops(const Graph& g, const Op& op);

}  // namespace kc
