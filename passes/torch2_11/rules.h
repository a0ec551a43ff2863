// PyTorch 2.11's launch rules, one file per op family. Each file holds its family's rules and the
// shape mechanisms they are written with; rules.cc assembles them in match order. What a rule
// reads of the GPU it reads through the op's target (OpFacts::target: its device and tables).
// Evidence names: validate/truth cases (truth:), data/results/corpus (corpus:),
// data/results/broad (broad:), data/sweeps (sweep:), tests/models (test:),
// data/results/torchscript (torchscript:), data/results/opinfo (opinfo:: PyTorch's OpInfo
// samples), data/results/control (control:).
#pragma once

#include <initializer_list>
#include <optional>
#include <string>
#include <vector>

#include "passes/launch_rules.h"
#include "passes/rule_builder.h"
#include "passes/target.h"

namespace kc::torch2_11 {

// Every rule of PyTorch 2.11, in match order (rules.cc): a target's rule table.
std::vector<LaunchRule> launch_rules();

inline std::vector<std::string> ops(std::initializer_list<const char*> names) {
  return std::vector<std::string>(names.begin(), names.end());
}

void add_view_copies_rules(std::vector<LaunchRule>& r);        // empty results, *_copy views, aliases, no-ops
void add_copies_rules(std::vector<LaunchRule>& r);             // shape ops, copies, conversions, host reads
void add_gemm_rules(std::vector<LaunchRule>& r);               // cuBLAS / cuBLASLt
void add_conv_rules(std::vector<LaunchRule>& r);               // cuDNN and ATen's depthwise kernels
void add_norm_rules(std::vector<LaunchRule>& r);               // batch, layer, group norms and softmax
void add_attention_rules(std::vector<LaunchRule>& r);          // scaled dot-product attention
void add_rnn_rules(std::vector<LaunchRule>& r);                // cuDNN RNN, GRU, LSTM
void add_indexing_rules(std::vector<LaunchRule>& r);           // gathers, scatters, selections
void add_elementwise_rules(std::vector<LaunchRule>& r);        // untagged elementwise, pools, scans, factories
void add_selection_rules(std::vector<LaunchRule>& r);          // sorts, selections, scatters, data-dependent sizes
void add_loss_rules(std::vector<LaunchRule>& r);               // loss functions: elementwise chains and reductions
void add_composite_rules(std::vector<LaunchRule>& r);          // multi-kernel ATen composites, untagged elementwise
void add_generic_rules(std::vector<LaunchRule>& r);            // by class: views, reductions, pointwise
void add_numeric_composite_rules(std::vector<LaunchRule>& r);  // dist, isclose, nanmean, trapezoid, ...
void add_rearrange_rules(std::vector<LaunchRule>& r);          // stacks, rot90, diag, fftshift, take, put
void add_torchvision_rules(std::vector<LaunchRule>& r);        // torchvision's detection ops (nms, roi_align, ...)
void add_linalg_rules(std::vector<LaunchRule>& r);             // factorizations and solves (cuSOLVER, MAGMA)
void add_fft_rules(std::vector<LaunchRule>& r);                // FFTs of real inputs (cuFFT)

// The launches of aten::sort on one slice of n elements of dtype dt, as the sort rules count
// them (selection.cc): for composites that sort inside (torchvision's nms).
Counts sort_1d_launches(int64_t n, DType dt);

// The launches of nonzero on x, as the nonzero rule counts them (selection.cc): for ops that
// run it inside (masked_select, indexing with a boolean mask). `any_found`: whether any element
// is non-zero (the coordinates of a rank-2+ input are written only then).
Counts nonzero_launches(const Value& x, bool any_found = true);

// The launches of one 2-D GEMM without a bias, [M, K] x w.t() for a weight w of [N, K] in dtype
// `dt`, as the GEMM rules count them (gemm.cc's tree): for composites that run matrix multiplies
// inside (recurrent cells), with target t's GEMM tree.
Counts mm_launches(const Target& t, int64_t m, int64_t k, int64_t n, DType dt);
// `batch` products [M, K] x [K, N] as one strided-batched call (bmm, matmul's batched path), the
// right operand read transposed (a transposed view of a contiguous [batch, N, K]): for composites
// that multiply batches inside (cdist's Euclidean formulation).
Counts bmm_launches(const Target& t, int64_t batch, int64_t m, int64_t k, int64_t n, DType dt);
// The same with the bias in the GEMM's epilogue (linear's cuBLASLt call): for composites that
// project with a bias inside (the fast path of nn.MultiheadAttention).
Counts linear_launches(const Target& t, int64_t m, int64_t k, int64_t n, DType dt);

// A two-operand einsum as at::einsum runs it (gemm.cc): `sums` kernels summing labels one operand
// alone has, each operand `copied` when no view arranges it as [batch, rows, inner] or cuBLAS
// cannot read the view, then `product`: the batched GEMM's launches when labels are contracted
// (`contracts`), else one multiply. Eager's count is their sum; Inductor's model takes the copies
// as loops of the decomposed graph, which fuse with their producers. nullopt: not such an einsum.
struct EinsumSteps {
  int sums = 0;
  bool copied[2] = {false, false};
  bool contracts = false;
  Counts product;
};
std::optional<EinsumSteps> einsum_steps(const OpFacts& f);

// Whether ATen's reduce kernel, reducing the op's first input over its `dim` argument (all dims
// where that is absent, None or []), splits across blocks and so zeroes a semaphore buffer first
// (reduce_config.h); for the reduction rules and the composites that reduce inside (generic.cc).
bool reduction_splits(const OpFacts& f);

}  // namespace kc::torch2_11
