// Inductor's pad_mm (torch/_inductor/fx_passes/pad_mm.py): an mm, addmm or bmm whose M, K or N is
// no multiple of the dtype's alignment (8 elements for 16-bit types, 4 for float32; a size of 1
// is left alone) is replaced by pads of its inputs to aligned sizes, the aligned GEMM and a slice
// of its result, when its compute-bound check passes and its benchmark on the GPU finds the
// padded form 10% faster. Each padded input is a Triton loop (constant_pad_nd) that the compiled
// program runs every call, a padded bias one more (pad_dim's cat). The benchmark's answer is the
// GPU's: the target's pad_mm tree, fitted on a sweep of random GEMMs benchmarked as pad_mm does
// (generators/fit_pad_mm.py), gives it.
#include <algorithm>
#include <cmath>

#include "analyzer/tensor_geometry.h"
#include "passes/inductor_builder.h"
#include "passes/launch_rules.h"
#include "passes/op_classes.h"
#include "passes/target.h"

namespace kc::inductor {
namespace {

// One GEMM as pad_mm's pattern sees it after decomposition.
struct PadMmCall {
  enum Kind { kMm, kAddmm, kBmm } kind = kMm;
  bool half = false;
  int64_t m = 0, k = 0, n = 0, b = 1;
  int mat1 = -1, mat2 = -1, bias = -1;  // values (mat1 before any fold of its leading dims)
  bool mat1_pre_padded = false;         // its pad left out of the timing (planned away)
  bool mat2_pre_padded = false;
  bool mat2_transposed = false;  // read column-major (a weight through .t())
};

int64_t padded_length(int64_t x, int64_t align) {  // pad_mm.get_padded_length
  if (x % align == 0 || x == 1) return 0;
  return (x / align + 1) * align - x;
}

// In generators/fit_pad_mm.py's FEATURES order; single precision as the fit compared them.
constexpr size_t kFeatures = 19;
void features(const PadMmCall& c, double* x) {
  const int64_t align = c.half ? 8 : 4, elem = c.half ? 2 : 4;
  const int64_t mp = padded_length(c.m, align), kp = padded_length(c.k, align), np = padded_length(c.n, align);
  const bool timed1 = (mp || kp) && !c.mat1_pre_padded;
  const bool timed2 = (kp || np) && !c.mat2_pre_padded;
  const double pad_bytes =
      static_cast<double>(c.b) * static_cast<double>(elem) *
      (static_cast<double>((c.m + mp) * (c.k + kp)) * timed1 + static_cast<double>((c.k + kp) * (c.n + np)) * timed2);
  const double m = static_cast<double>(c.m), k = static_cast<double>(c.k), n = static_cast<double>(c.n),
               b = static_cast<double>(c.b);
  const double v[kFeatures] = {c.half ? 1.0 : 0.0,
                               c.kind == PadMmCall::kBmm ? 1.0 : 0.0,
                               c.kind == PadMmCall::kAddmm ? 1.0 : 0.0,
                               std::log2(m),
                               std::log2(k),
                               std::log2(n),
                               std::log2(b),
                               mp > 0 ? 1.0 : 0.0,
                               kp > 0 ? 1.0 : 0.0,
                               np > 0 ? 1.0 : 0.0,
                               c.mat1_pre_padded ? 1.0 : 0.0,
                               c.mat2_pre_padded ? 1.0 : 0.0,
                               c.mat2_transposed ? 1.0 : 0.0,
                               static_cast<double>(c.k % 2),
                               static_cast<double>(c.n % 2),
                               static_cast<double>(c.m % 2),
                               std::log2(b * m * k * n),
                               std::log2(b * (m * k + k * n + m * n) * static_cast<double>(elem)),
                               std::log2(1.0 + pad_bytes)};
  for (size_t i = 0; i < kFeatures; ++i) x[i] = static_cast<double>(static_cast<float>(v[i]));
}

bool tree_pads(const torch2_11::Table<torch2_11::PadMmNode>& tree, const PadMmCall& c) {
  if (tree.size == 0) return false;
  double x[kFeatures];
  features(c, x);
  size_t i = 0;
  for (size_t steps = 0; steps < tree.size && tree.nodes[i].feature >= 0; ++steps) {
    const torch2_11::PadMmNode& node = tree.nodes[i];
    i = static_cast<size_t>(x[node.feature] <= node.threshold ? node.left : node.right);
  }
  return tree.nodes[i].pads != 0;
}

}  // namespace

// pad_mm's should_exclude_padding_time: an input's pad is left out of the timing (Inductor
// expects to plan it away) when the input is contiguous and computed by the graph, not a graph
// input (a weight, a user input) nor a library call's output (mm, bmm, addmm, a convolution,
// attention: their outputs are fixed dense).
bool Builder::pad_planned_away(int v) const {
  if (!row_major_dense(g.values[v].sizes, inductor_strides(v))) return false;
  const int p = g.values[base[v]].producer;
  if (p < 0) return false;
  const OpClass c = op_class(g.ops[p]);
  return !(lower[p] == Lower::kExtern && (c == OpClass::kGemm || c == OpClass::kConv || c == OpClass::kAttention));
}

// The Triton pad loops pad_mm adds for x[m, k] @ w[n, k].t(), a weight read transposed (a recurrent
// layer's step GEMM): one per unaligned operand where the tree pads it, else none; the GEMM that
// runs is then the padded one (pad_mm's aten.mm of the padded operands, its result sliced).
// `x_planned_away`: x is a contiguous result the graph computes (its pad left out of pad_mm's
// timing).
Builder::PaddedMm Builder::padded_mm(int64_t m, int64_t k, int64_t n, DType dtype, bool x_planned_away) const {
  if (!(dtype == DType::kFloat32 || is_half(dtype)) || m <= 0 || k <= 0 || n <= 0) return {0, m, k, n, true};
  PadMmCall c;
  c.half = is_half(dtype);
  c.m = m;
  c.k = k;
  c.n = n;
  c.mat2_transposed = true;
  const int64_t align = c.half ? 8 : 4;
  c.mat1_pre_padded = (padded_length(m, align) || padded_length(k, align)) && x_planned_away;
  return padded_mm_as(m, k, n, dtype, tree_pads(target.tables.pad_mm, c));
}

Builder::PaddedMm Builder::padded_mm_as(int64_t m, int64_t k, int64_t n, DType dtype, bool pads) const {
  const PaddedMm as_given{0, m, k, n, true};
  if (!pads || !(dtype == DType::kFloat32 || is_half(dtype)) || m <= 0 || k <= 0 || n <= 0) return as_given;
  const int64_t align = is_half(dtype) ? 8 : 4;
  const int64_t mp = padded_length(m, align), kp = padded_length(k, align), np = padded_length(n, align);
  if (mp == 0 && kp == 0 && np == 0) return as_given;
  return {((mp || kp) ? 1 : 0) + ((kp || np) ? 1 : 0), m + mp, k + kp, n + np, !(kp || np)};
}

void Builder::find_padded_gemms() {
  gemm_pads.assign(g.ops.size(), {});
  padded_gemm.assign(g.ops.size(), std::nullopt);
  timed_more.assign(g.ops.size(), 0);
  timed_fewer.assign(g.ops.size(), 0);
  for (size_t k = 0; k < g.ops.size(); ++k) {
    const int i = static_cast<int>(k);
    const Op& op = g.ops[i];
    if (lower[i] != Lower::kExtern || op_class(op) != OpClass::kGemm) continue;
    const std::vector<int> in = op.tensor_inputs();
    PadMmCall c;
    auto rank = [&](int v) { return g.values[v].sizes.size(); };
    if ((op.name == "aten::linear" || op.name == "aten::matmul") && in.size() >= 2 && rank(in[0]) >= 2 &&
        rank(in[1]) == 2) {
      // Leading dims of the left operand fold into M: one mm (or addmm with a kept bias).
      const Value& x = g.values[in[0]];
      c.mat1 = in[0];
      c.mat2 = in[1];
      c.k = x.sizes.back();
      c.m = c.k > 0 ? x.numel() / c.k : 0;
      const bool linear = op.name == "aten::linear";
      c.n = linear ? g.values[in[1]].sizes[0] : g.values[in[1]].sizes[1];
      if (linear && in.size() >= 3 && !bias_unfused(i)) {
        c.kind = PadMmCall::kAddmm;
        c.bias = in[2];
      }
    } else if ((op.name == "aten::matmul" || op.name == "aten::bmm") && in.size() >= 2 && rank(in[0]) >= 3 &&
               rank(in[0]) == rank(in[1])) {
      const Value& a = g.values[in[0]];
      const Value& w = g.values[in[1]];
      const size_t r = rank(in[0]);
      c.kind = PadMmCall::kBmm;
      c.mat1 = in[0];
      c.mat2 = in[1];
      c.m = a.sizes[r - 2];
      c.k = a.sizes[r - 1];
      c.n = w.sizes[r - 1];
      c.b = 1;
      for (size_t d = 0; d + 2 < r; ++d) c.b *= std::max(a.sizes[d], w.sizes[d]);
    } else if (op.name == "aten::mm" && in.size() >= 2 && rank(in[0]) == 2 && rank(in[1]) == 2) {
      c.mat1 = in[0];
      c.mat2 = in[1];
      c.m = g.values[in[0]].sizes[0];
      c.k = g.values[in[0]].sizes[1];
      c.n = g.values[in[1]].sizes[1];
    } else if (op.name == "aten::addmm" && in.size() >= 3 && rank(in[1]) == 2 && rank(in[2]) == 2) {
      c.kind = PadMmCall::kAddmm;
      c.bias = in[0];
      c.mat1 = in[1];
      c.mat2 = in[2];
      c.m = g.values[in[1]].sizes[0];
      c.k = g.values[in[1]].sizes[1];
      c.n = g.values[in[2]].sizes[1];
    } else {
      continue;
    }
    const DType dt = g.values[c.mat1].dtype;
    if (dt != g.values[c.mat2].dtype || !(dt == DType::kFloat32 || is_half(dt))) continue;
    if (c.m <= 0 || c.k <= 0 || c.n <= 0 || c.b <= 0) continue;  // pad_mm leaves zero sizes alone
    c.half = is_half(dt);
    const int64_t align = c.half ? 8 : 4;
    const int64_t mp = padded_length(c.m, align), kp = padded_length(c.k, align), np = padded_length(c.n, align);
    if (mp == 0 && kp == 0 && np == 0) continue;
    const bool linear = op.name == "aten::linear";
    const std::vector<int64_t> ws = inductor_strides(c.mat2);
    const size_t r2 = ws.size();
    c.mat2_transposed = linear || (r2 >= 2 && ws[r2 - 2] == 1 && g.values[c.mat2].sizes[r2 - 1] > 1);
    c.mat1_pre_padded = (mp || kp) && pad_planned_away(c.mat1);
    c.mat2_pre_padded = (kp || np) && !c.mat2_transposed && pad_planned_away(c.mat2);
    // pad_dim's cat pads a bias of more than one element along N.
    const bool bias_padded = c.kind == PadMmCall::kAddmm && np && g.values[c.bias].numel() != 1;
    const char* called = c.kind == PadMmCall::kBmm     ? "aten::bmm"
                         : c.kind == PadMmCall::kAddmm ? "aten::addmm"
                                                       : "aten::mm";
    // What the other answer would change: the pad loops, and the GEMM cuBLAS runs at the padded
    // sizes instead of the given ones.
    const int loops = ((mp || kp) ? 1 : 0) + ((kp || np) ? 1 : 0) + (bias_padded ? 1 : 0);
    const Counts padded =
        gemm_alone(called, c.b, c.m + mp, c.k + kp, c.n + np, dt, c.mat2_transposed && kp == 0 && np == 0);
    const int gemm_change = padded.kernels - gemm_alone(called, c.b, c.m, c.k, c.n, dt, c.mat2_transposed).kernels;
    if (!tree_pads(target.tables.pad_mm, c)) {
      timed_more[k] = std::max(0, loops + gemm_change);
      timed_fewer[k] = std::max(0, -(loops + gemm_change));
      // The answer is a timing on the GPU, and compiles answer differently from run to run
      // (research/accuracy/pad_mm_compiled.py: of 271 GEMM sizes padded in some compiled program,
      // 224 were kept in another), so the note says what a pad would add.
      why[k] += "; pad_mm times it on the GPU (" + std::string(mp ? "M" : "") + (kp ? "K" : "") + (np ? "N" : "") +
                " unaligned): kept as the target's pad_mm tree answers, though a compile may pad it (" +
                std::to_string(loops) + " more Triton loop" + (loops > 1 ? "s" : "") + " each call)";
      continue;
    }
    // The pads: each unaligned input copied into a zero-bordered buffer by a Triton loop (the
    // copy a non-dense operand needed anyway becomes this pad); the bias concatenated with zeros.
    auto pad = [&](int v, int64_t numel) {
      auto& copies = operand_copies[k];
      if (std::find(copies.begin(), copies.end(), v) == copies.end()) copies.push_back(v);
      gemm_pads[k].push_back({v, numel});
    };
    if (mp || kp) pad(c.mat1, c.b * (c.m + mp) * (c.k + kp));
    if (kp || np) pad(c.mat2, c.b * (c.k + kp) * (c.n + np));
    // The GEMM runs on the padded operands: a padded one is a new row-major buffer, an unpadded
    // weight through .t() stays read transposed.
    padded_gemm[k] = padded;
    timed_fewer[k] = std::max(0, loops + gemm_change);
    timed_more[k] = std::max(0, -(loops + gemm_change));
    if (bias_padded) ++padded_copies[k];
    why[k] += "; pad_mm pads it to aligned sizes (M " + std::to_string(c.m) + "+" + std::to_string(mp) + ", K " +
              std::to_string(c.k) + "+" + std::to_string(kp) + ", N " + std::to_string(c.n) + "+" + std::to_string(np) +
              "): Inductor's benchmark on the GPU finds the padded GEMM faster (the target's pad_mm tree)";
  }
}

}  // namespace kc::inductor
