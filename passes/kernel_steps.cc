#include "passes/kernel_steps.h"

#include <algorithm>

#include "analyzer/dtype.h"

namespace kc {
namespace {

constexpr std::string_view kToNhwc = "nchwToNhwcKernel";
constexpr std::string_view kToNchw = "nhwcToNchwKernel";
constexpr std::string_view kElementwise = "elementwise_kernel";
constexpr std::string_view kMemoryEfficientAttention = "fmha_cutlassF";

bool not_a_kernel(std::string_view f) {
  return f.rfind("Memset", 0) == 0 || f.rfind("Memcpy", 0) == 0;
}
bool elementwise(std::string_view f);
// The kernel that computes the op: neither a layout transform, an elementwise copy or bias
// pass, nor a memset or memcpy.
bool core_kernel(std::string_view f) {
  return f != kToNhwc && f != kToNchw && !elementwise(f) && !not_a_kernel(f);
}

void whole(const Graph& g, const std::vector<int>& values, std::vector<Access>& out) {
  out.clear();
  for (int v : values) out.push_back({v, g.values[v].bytes()});
}

std::vector<Access> whole(const Graph& g, const std::vector<int>& values) {
  std::vector<Access> out;
  out.reserve(values.size());
  whole(g, values, out);
  return out;
}

// A gather's table: the rows it reads are at most its output's bytes.
OpSteps gather(const Graph& g, const Op& op, const HbmArrays& arrays) {
  OpSteps out{{{whole(g, arrays.reads), whole(g, arrays.writes)}}, {}};
  const std::vector<int> in = op.tensor_inputs();
  if (in.empty()) return out;
  int64_t rows = 0;
  for (const Access& w : out.steps[0].writes) rows += w.bytes;
  for (Access& r : out.steps[0].reads)
    if (r.array == in.front() && rows < r.bytes) {
      r.bytes = rows;
      r.rows = true;
    }
  return out;
}

bool elementwise(std::string_view f) {
  return f == kElementwise || f == "vectorized_elementwise_kernel" || f == "unrolled_elementwise_kernel";
}

// A GEMM's, convolution's or layer norm's kernels around its one core kernel (kernel_steps.h).
// `aten_copies`: an elementwise kernel before the core is ATen's contiguous copy of an operand
// (a GEMM's or a layer norm's), not the bias pass of a convolution.
OpSteps around_core(const Graph& g, const HbmArrays& arrays, const std::vector<std::string_view>& families,
                    bool aten_copies) {
  const auto core_at = std::find_if(families.begin(), families.end(), core_kernel);
  const bool back = std::find(core_at, families.end(), kToNchw) != families.end();
  const bool bias_after = std::any_of(core_at, families.end(), elementwise);
  const int y = arrays.writes.front();
  std::vector<Access> operand = whole(g, arrays.reads);  // input, weight, bias as the core kernel reads them
  // The operands a copy before the core makes: a convolution's input, then its weight; a GEMM's
  // or layer norm's operands that are not row-major dense (ATen's contiguous copies), else its
  // first ones.
  std::vector<size_t> copied;
  if (aten_copies)
    for (size_t k = 0; k < 2 && k < operand.size(); ++k)
      if (!g.values[arrays.reads[k]].contiguous()) copied.push_back(k);
  for (size_t k = 0; k < 2; ++k)
    if (std::find(copied.begin(), copied.end(), k) == copied.end()) copied.push_back(k);
  OpSteps out;
  auto scratch = [&](int64_t bytes) {
    out.scratch_bytes.push_back(bytes);
    return Access{-static_cast<int>(out.scratch_bytes.size()), bytes};
  };
  const Access out_y{y, g.values[y].bytes()};
  size_t next = 0;
  Access y_scratch{0, -1};
  for (auto f = families.begin(); f != families.end(); ++f) {
    if (f < core_at && (*f == kToNhwc || (aten_copies && elementwise(*f))) && next < copied.size()) {
      const size_t k = copied[next++];
      const Access s = scratch(operand[k].bytes);
      out.steps.push_back({{operand[k]}, {s}});
      operand[k] = s;
    } else if (f == core_at) {
      std::vector<Access> reads = operand;
      if (bias_after) reads.resize(2);
      if (back) y_scratch = scratch(out_y.bytes);
      out.steps.push_back({reads, {back ? y_scratch : out_y}});
    } else if (*f == kToNchw && f > core_at && y_scratch.bytes >= 0) {
      out.steps.push_back({{y_scratch}, {out_y}});
    } else if (elementwise(*f) && f > core_at) {
      std::vector<Access> reads = {out_y};
      reads.insert(reads.end(), operand.begin() + 2, operand.end());
      out.steps.push_back({reads, {out_y}});
    }
  }
  return out;
}

// The arrays with the reads in the op's argument order (input, weight, bias), as around_core
// reads them: hbm_arrays lists each array once by value id, and an exported program's
// parameters come before the activations.
HbmArrays in_argument_order(const Op& op, const HbmArrays& arrays) {
  HbmArrays out = arrays;
  out.reads.clear();
  for (int v : op.tensor_inputs())
    if (std::find(arrays.reads.begin(), arrays.reads.end(), v) != arrays.reads.end() &&
        std::find(out.reads.begin(), out.reads.end(), v) == out.reads.end())
      out.reads.push_back(v);
  return out;
}

int64_t groups_of(const Op& op) {
  const auto it = std::find_if(op.args.begin(), op.args.end(), [](const Arg& a) { return a.name == "groups"; });
  return it != op.args.end() && !it->ints.empty() ? it->ints.front() : 1;
}

// What a transform of cuDNN's with scattered 4-byte stores writes past the L2 (kernel_steps.h).
int64_t scattered(int64_t bytes) {
  return bytes > kScatteredStoreBytes ? bytes * kLinePerElement : 0;
}

// cuDNN's loop over a float32 NCHW convolution's groups (kernel_steps.h): per group the input's
// channel slice transposed into scratch, the GEMM over it and the weight's slice into a second
// scratch array, and that transposed into the output's slice; the scratch arrays serve every
// group. A bias is added over the whole output after.
OpSteps group_loop(const Graph& g, const HbmArrays& arrays, int64_t groups, bool bias) {
  const int x = arrays.reads[0], w = arrays.reads[1], y = arrays.writes.front();
  const int64_t in = g.values[x].bytes() / groups, wt = g.values[w].bytes() / groups,
                out = g.values[y].bytes() / groups;
  OpSteps s;
  s.scratch_bytes = {in, out};
  const Access x_in{-1, in}, y_out{-2, out};
  for (int64_t k = 0; k < groups; ++k) {
    s.steps.push_back({{{x, in}}, {x_in}});
    s.steps.push_back({{x_in, {w, wt}}, {y_out}});
    s.steps.push_back({{y_out}, {{y, out}}});
    s.written_through += scattered(in) + scattered(out);
  }
  if (bias && arrays.reads.size() >= 3)
    s.steps.push_back(
        {{{y, g.values[y].bytes()}, {arrays.reads[2], g.values[arrays.reads[2]].bytes()}}, {{y, g.values[y].bytes()}}});
  return s;
}

// cuDNN's loop over the groups with an NHWC engine (kernel_steps.h): per group the input's and
// the weight's slices copied by nchwToNhwcKernel into scratch, the GEMM into a third scratch
// array, and that copied back into the output's slice; by genericTranspose's scattered stores
// where the engine is kScatteredBackEngine, else by nhwcToNchwKernel.
OpSteps nhwc_group_loop(const Graph& g, const HbmArrays& arrays, int64_t groups, bool bias, int64_t engine) {
  const int x = arrays.reads[0], w = arrays.reads[1], y = arrays.writes.front();
  const int64_t in = g.values[x].bytes() / groups, wt = g.values[w].bytes() / groups,
                out = g.values[y].bytes() / groups;
  OpSteps s;
  s.scratch_bytes = {in, wt, out};
  const Access x_in{-1, in}, w_in{-2, wt}, y_out{-3, out};
  for (int64_t k = 0; k < groups; ++k) {
    s.steps.push_back({{{x, in}}, {x_in}});
    s.steps.push_back({{{w, wt}}, {w_in}});
    s.steps.push_back({{x_in, w_in}, {y_out}});
    s.steps.push_back({{y_out}, {{y, out}}});
    if (engine == kScatteredBackEngine) s.written_through += scattered(out);
  }
  if (bias && arrays.reads.size() >= 3)
    s.steps.push_back(
        {{{y, g.values[y].bytes()}, {arrays.reads[2], g.values[arrays.reads[2]].bytes()}}, {{y, g.values[y].bytes()}}});
  return s;
}

// A grouped float32 NCHW convolution whose launches say how cuDNN ran it (kernel_steps.h); no
// steps where they do not.
OpSteps grouped_f32(const Graph& g, const Op& op, const HbmArrays& arrays, const KernelLaunches& launched) {
  const int64_t groups = groups_of(op);
  const int x = arrays.reads[0], w = arrays.reads[1];
  const Value& wv = g.values[w];
  if (g.values[x].dtype != DType::kFloat32 || !g.values[x].contiguous() || wv.sizes.size() < 2) return {};
  const bool bias = arrays.reads.size() >= 3;
  const int core = launched.kernels - (bias ? 1 : 0);
  if (core == 3 * groups) return group_loop(g, arrays, groups, bias);
  if (core == 4 * groups) return nhwc_group_loop(g, arrays, groups, bias, launched.cudnn_engine);
  // One call of 4 kernels: the grouped implicit GEMM between transforms, as for an ungrouped
  // convolution; with two zeroed buffers its padded path, whose weight tensorTransformGeneric
  // writes. Four groups in 4 kernels may instead be engine 28's one launch per group.
  if (core != 4 || (groups == 4 && (launched.cudnn_engine == kLaunchPerGroupEngine || launched.cudnn_engine < 0)))
    return {};
  std::vector<std::string_view> call = {kToNhwc, kToNhwc, "xmma_fprop_implicit_gemm", kToNchw};
  if (bias) call.push_back(kElementwise);
  OpSteps s = around_core(g, arrays, call, false);
  if (launched.memsets == 2) s.written_through = scattered(wv.bytes());  // the padded weight
  return s;
}

// Marks an attention's key and value (its second and third tensor arguments) as read by CTAs
// on both sides of the chip (kernel_steps.h).
void keys_and_values_both(const Op& op, KernelStep& step) {
  const std::vector<int> in = op.tensor_inputs();
  for (Access& r : step.reads)
    if (in.size() >= 3 && (r.array == in[1] || r.array == in[2])) r.both = true;
}

}  // namespace

void op_kernel_steps(const Graph& g, const Op& op, const HbmArrays& arrays, std::string_view rule,
                     const std::vector<std::string_view>& families, KernelLaunches launched, OpSteps& out) {
  if (launched.kernels < 0)
    launched.kernels = static_cast<int>(
        std::count_if(families.begin(), families.end(), [](std::string_view f) { return !not_a_kernel(f); }));
  if (std::string_view(op.name) == "aten::embedding") {
    out = gather(g, op, arrays);
    return;
  }
  // Only sequences around one core kernel are laid out: the families are those of the rule,
  // dtype and launch count, and a grouped convolution with as many launches may be a loop over
  // its groups, which stays one kernel.
  const bool conv = rule == "conv", gemm = rule.rfind("gemm", 0) == 0, norm = rule == "layer_norm";
  auto grouped = [&] { return groups_of(op) > 1; };
  if (conv && grouped() && arrays.reads.size() >= 2 && arrays.writes.size() == 1)
    if (OpSteps s = grouped_f32(g, op, in_argument_order(op, arrays), launched); !s.steps.empty()) {
      out = std::move(s);
      return;
    }
  if ((conv || gemm || norm) && families.size() > 1 && !grouped() &&
      std::count_if(families.begin(), families.end(), core_kernel) == 1 && arrays.reads.size() >= 2 &&
      arrays.writes.size() == 1) {
    out = around_core(g, in_argument_order(op, arrays), families, gemm || norm);
    return;
  }
  // One kernel over the arrays, in the first step's lists as they are.
  out.steps.resize(1);
  whole(g, arrays.reads, out.steps[0].reads);
  whole(g, arrays.writes, out.steps[0].writes);
  out.scratch_bytes.clear();
  out.written_through = 0;
  if (rule.rfind("sdpa", 0) == 0 &&
      std::find(families.begin(), families.end(), kMemoryEfficientAttention) != families.end())
    keys_and_values_both(op, out.steps[0]);
}

OpSteps op_kernel_steps(const Graph& g, const Op& op, const HbmArrays& arrays, std::string_view rule,
                        const std::vector<std::string_view>& families, KernelLaunches launched) {
  OpSteps out;
  op_kernel_steps(g, op, arrays, rule, families, launched, out);
  return out;
}

const char* kernel_names_dtype(const Graph& g, const Op& op) {
  int first = -1;
  op.for_each_tensor_input([&](int v) {
    if (first < 0) first = v;
  });
  if (first >= 0) return dtype_name(g.values[first].dtype);
  for (int v : op.outputs)
    if (v >= 0) return dtype_name(g.values[v].dtype);
  return "";
}

}  // namespace kc
