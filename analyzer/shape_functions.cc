#include "analyzer/shape_functions.h"

#include <ATen/ATen.h>
#include <ATen/ExpandUtils.h>
#include <ATen/native/ConvUtils.h>
#include <torch/csrc/jit/passes/symbolic_shape_analysis.h>
#include <torch/csrc/jit/runtime/symbolic_shape_registry.h>
#include <torch/library.h>

#include <string>
#include <vector>

#include "analyzer/tensor_geometry.h"

namespace kc {
namespace {

namespace jit = torch::jit;

std::optional<std::vector<int64_t>> concrete(const c10::SymbolicShape& shape) {
  auto dims = shape.sizes();
  if (!dims) return std::nullopt;
  std::vector<int64_t> out;
  for (const auto& d : *dims) {
    if (!d.is_static()) return std::nullopt;
    out.push_back(d.static_size());
  }
  return out;
}

// The functional op an out= variant computes ("where.self_out" -> "where.self").
std::optional<c10::OperatorHandle> functional_of(const c10::FunctionSchema& out_variant) {
  std::string overload = out_variant.overload_name();
  bool found = false;
  for (const std::string suffix : {"out", "values"}) {
    if (overload == suffix) {
      overload.clear();
      found = true;
    } else if (overload.size() > suffix.size() + 1 &&
               overload.compare(overload.size() - suffix.size() - 1, std::string::npos, "_" + suffix) == 0) {
      overload.resize(overload.size() - suffix.size() - 1);
      found = true;
    }
    if (found) break;
  }
  if (!found) return std::nullopt;
  return c10::Dispatcher::singleton().findSchema({out_variant.name(), overload});
}

bool writes_out(const c10::FunctionSchema& schema) {
  for (const auto& a : schema.arguments())
    if (a.is_out()) return true;
  return false;
}

// One output as a rule gives it: sizes, and a dtype where the rule fixes one (indices are
// int64); otherwise the dtype follows the inputs.
struct OutSpec {
  std::vector<int64_t> sizes;
  std::optional<c10::ScalarType> dtype;
};

// Ops that have neither a C++ meta kernel nor a TorchScript shape function, by the way their
// outputs follow from their arguments. Checked one by one against the ops of traced models
// (each has its meta function in torch/_meta_registrations.py or torch/_refs).
enum class Family {
  kLikeSelf,       // roll, flip: self's sizes; a second output (log_sigmoid's buffer) is empty
  kReduceDims,     // var/std.correction(self, dim: int[]?, *, correction, keepdim)
  kReduceDim,      // kthvalue, median.dim, mode (self, ..., dim, keepdim) -> (values, int64 indices)
  kReduceAll,      // median(), min(), max(): a 0-dim result
  kIndexOfValue,   // bucketize.Tensor, searchsorted.Tensor: the sizes of `self`, int64 or int32
  kPairwise,       // _cdist_forward(x1, x2): x1's sizes with the last one x2.size(-2)
  kBroadcast,      // floor_divide(self, other): the broadcast sizes
  kPad,            // reflection/replication_pad{1,2,3}d(self, padding): the last dims grown by the pads
  kReduceDimsTwo,  // var_mean/std_mean.correction: two reduced outputs
  kReduceDimsIdx,  // count_nonzero.dim_IntList: reduced, int64
  kSelected,       // nonzero, masked_select, _unique2: data-dependent; the upper bound (all selected)
  kAdaptive,       // _adaptive_avg_pool2d(self, output_size): leading dims + output_size
  kPool3d,         // max_pool3d_with_indices: the pooling formula, values and int64 indices
  kGridSample,     // grid_sampler_2d(input, grid): [N, C, grid H, grid W]
  kEmbeddingBag,   // _embedding_bag_forward_only: [bags, D] + three index buffers
  kFft,            // _fft_r2c/_fft_c2c/_fft_c2r: complex or real, the last transformed dim resized
  kIm2col,         // im2col / col2im: the unfold formulas
  kPdist,          // _pdist_forward(self): [n (n - 1) / 2]
  kLikeSecond,     // linalg_solve_triangular(self, B): B's sizes
  kAddbmm,         // addbmm(self, batch1, batch2): [batch1.size(1), batch2.size(2)]
  kBins,           // histc(self, bins): [bins]; bincount(self, weights, minlength): [minlength] (data-dependent)
  // _native_multi_head_attention(query [B, T, D], key [B, S, D], ...): the output has query's
  // sizes; the weights are [B, T, S] averaged over heads, [B, num_head, T, S] not averaged,
  // and an empty tensor when need_weights is false (the CUDA kernel returns none).
  kMultiHeadAttention,
  // _transformer_encoder_layer_fwd(src [B, T, D], ...): a whole encoder layer (nn.TransformerEncoderLayer's
  // inference fast path) returns src's sizes.
  kEncoderLayer,
  // _convolution / convolution(input, weight, bias, stride, padding, dilation, transposed,
  // output_padding, groups): ATen's own conv_output_size / conv_input_size (ConvUtils.h). They
  // have a shape function too; this answers first because loading the registry of shape
  // functions costs a tenth of a second, and every CNN convolves.
  kConvolution,
  // _convolution_mode(input, weight, bias, stride, padding: "same" or "valid", dilation, groups):
  // "valid" convolves without padding, "same" keeps the input's spatial sizes (stride 1 only).
  kConvolutionMode,
  // _weight_norm(v, g, dim): v's sizes (its _weight_norm_interface has no meta kernel).
  kWeightNorm,
  // The ops that run through a shape function in nearly every model, answered here so that
  // TorchScript's shape functions load only for rarer ones; each the shape function's formula.
  kBatchNorm,    // native_batch_norm(input, ..., training): input's sizes, then [C] twice ([0] in eval)
  kIndexSelect,  // index_select(self, dim, index): self's sizes with dim's replaced by index's numel
  kWhere,        // where.self(condition, self, other): the broadcast of the three
};
struct FamilyRule {
  const char* name;
  const char* overload;
  Family family;
};
constexpr FamilyRule kFamilies[] = {
    {"aten::roll", "", Family::kLikeSelf},
    {"aten::flip", "", Family::kLikeSelf},
    {"aten::log_sigmoid_forward", "", Family::kLikeSelf},
    {"aten::var", "correction", Family::kReduceDims},
    {"aten::std", "correction", Family::kReduceDims},
    {"aten::kthvalue", "", Family::kReduceDim},
    {"aten::median", "dim", Family::kReduceDim},
    {"aten::mode", "", Family::kReduceDim},
    {"aten::median", "", Family::kReduceAll},
    {"aten::min", "", Family::kReduceAll},
    {"aten::max", "", Family::kReduceAll},
    {"aten::bucketize", "Tensor", Family::kIndexOfValue},
    {"aten::searchsorted", "Tensor", Family::kIndexOfValue},
    {"aten::_cdist_forward", "", Family::kPairwise},
    {"aten::_prelu_kernel", "", Family::kLikeSelf},
    {"aten::channel_shuffle", "", Family::kLikeSelf},
    {"aten::native_channel_shuffle", "", Family::kLikeSelf},
    {"aten::floor_divide", "", Family::kBroadcast},
    {"aten::floor_divide", "Scalar", Family::kBroadcast},
    {"aten::reflection_pad1d", "", Family::kPad},
    {"aten::reflection_pad2d", "", Family::kPad},
    {"aten::reflection_pad3d", "", Family::kPad},
    {"aten::replication_pad1d", "", Family::kPad},
    {"aten::replication_pad2d", "", Family::kPad},
    {"aten::replication_pad3d", "", Family::kPad},
    {"aten::var_mean", "correction", Family::kReduceDimsTwo},
    {"aten::std_mean", "correction", Family::kReduceDimsTwo},
    {"aten::nansum", "", Family::kReduceDims},
    {"aten::count_nonzero", "dim_IntList", Family::kReduceDimsIdx},
    {"aten::nonzero", "", Family::kSelected},
    {"aten::masked_select", "", Family::kSelected},
    {"aten::_unique2", "", Family::kSelected},
    {"aten::_adaptive_avg_pool2d", "", Family::kAdaptive},
    {"aten::max_pool3d_with_indices", "", Family::kPool3d},
    {"aten::grid_sampler_2d", "", Family::kGridSample},
    {"aten::_embedding_bag_forward_only", "", Family::kEmbeddingBag},
    {"aten::_embedding_bag", "", Family::kEmbeddingBag},
    {"aten::_fft_r2c", "", Family::kFft},
    {"aten::_fft_c2c", "", Family::kFft},
    {"aten::_fft_c2r", "", Family::kFft},
    {"aten::im2col", "", Family::kIm2col},
    {"aten::col2im", "", Family::kIm2col},
    {"aten::_pdist_forward", "", Family::kPdist},
    {"aten::linalg_solve_triangular", "", Family::kLikeSecond},
    {"aten::addbmm", "", Family::kAddbmm},
    {"aten::histc", "", Family::kBins},
    {"aten::bincount", "", Family::kBins},
    {"aten::_native_multi_head_attention", "", Family::kMultiHeadAttention},
    {"aten::_transformer_encoder_layer_fwd", "", Family::kEncoderLayer},
    {"aten::_convolution", "", Family::kConvolution},
    {"aten::convolution", "", Family::kConvolution},
    {"aten::_convolution_mode", "", Family::kConvolutionMode},
    {"aten::_weight_norm", "", Family::kWeightNorm},
    {"aten::native_batch_norm", "", Family::kBatchNorm},
    {"aten::index_select", "", Family::kIndexSelect},
    {"aten::where", "self", Family::kWhere},
    {"aten::relu", "", Family::kLikeSelf},
};

const c10::IValue* arg_named(const c10::FunctionSchema& schema, const std::vector<c10::IValue>& args,
                             const char* name) {
  auto idx = schema.argumentIndexWithName(name);
  return idx && static_cast<size_t>(*idx) < args.size() ? &args[*idx] : nullptr;
}

std::optional<std::vector<OutSpec>> family_specs(const c10::FunctionSchema& schema,
                                                 const std::vector<c10::IValue>& args) {
  const FamilyRule* rule = nullptr;
  for (const FamilyRule& r : kFamilies)
    if (schema.name() == r.name && schema.overload_name() == r.overload) rule = &r;
  if (!rule) return std::nullopt;
  const char* first = rule->family == Family::kPairwise             ? "x1"
                      : rule->family == Family::kGridSample         ? "input"
                      : rule->family == Family::kEmbeddingBag       ? "weight"
                      : rule->family == Family::kMultiHeadAttention ? "query"
                      : rule->family == Family::kEncoderLayer       ? "src"
                      : rule->family == Family::kConvolution        ? "input"
                      : rule->family == Family::kConvolutionMode    ? "input"
                      : rule->family == Family::kWeightNorm         ? "v"
                      : rule->family == Family::kBatchNorm          ? "input"
                                                                    : "self";
  const c10::IValue* self = arg_named(schema, args, first);
  if (!self || !self->isTensor()) return std::nullopt;
  const std::vector<int64_t> sizes = self->toTensor().sizes().vec();
  const int64_t rank = static_cast<int64_t>(sizes.size());
  auto reduced = [&](std::vector<int64_t> dims) {
    const c10::IValue* keep = arg_named(schema, args, "keepdim");
    const bool keepdim = keep && keep->isBool() && keep->toBool();
    std::vector<bool> drop(sizes.size(), false);
    for (int64_t d : dims) drop.at(static_cast<size_t>(rank == 0 ? 0 : (d % rank + rank) % rank)) = rank > 0;
    std::vector<int64_t> out;
    for (size_t i = 0; i < sizes.size(); ++i) {
      if (!drop[i])
        out.push_back(sizes[i]);
      else if (keepdim)
        out.push_back(1);
    }
    return out;
  };
  switch (rule->family) {
    case Family::kEncoderLayer:
    case Family::kLikeSelf: {
      std::vector<OutSpec> outs{{sizes, std::nullopt}};
      while (outs.size() < schema.returns().size()) outs.push_back({{0}, std::nullopt});
      return outs;
    }
    case Family::kReduceDims: {
      const c10::IValue* dim = arg_named(schema, args, "dim");
      std::vector<int64_t> dims;
      if (dim && dim->isIntList()) dims = dim->toIntVector();
      if (dims.empty())
        for (int64_t d = 0; d < rank; ++d) dims.push_back(d);
      return std::vector<OutSpec>{{reduced(dims), std::nullopt}};
    }
    case Family::kReduceDim: {
      const c10::IValue* dim = arg_named(schema, args, "dim");
      if (!dim || !dim->isInt()) return std::nullopt;
      auto out = reduced({dim->toInt()});
      return std::vector<OutSpec>{{out, std::nullopt}, {out, c10::kLong}};
    }
    case Family::kReduceAll:
      return std::vector<OutSpec>{{{}, std::nullopt}};
    case Family::kIndexOfValue: {
      const c10::IValue* int32 = arg_named(schema, args, "out_int32");
      return std::vector<OutSpec>{{sizes, int32 && int32->isBool() && int32->toBool() ? c10::kInt : c10::kLong}};
    }
    case Family::kBroadcast: {
      const c10::IValue* other = arg_named(schema, args, "other");
      if (!other || !other->isTensor()) return std::vector<OutSpec>{{sizes, std::nullopt}};
      return std::vector<OutSpec>{{at::infer_size(sizes, other->toTensor().sizes()), std::nullopt}};
    }
    case Family::kPad: {
      const c10::IValue* pad = arg_named(schema, args, "padding");
      if (!pad || !pad->isIntList()) return std::nullopt;
      const std::vector<int64_t> p = pad->toIntVector();
      if (p.size() % 2 || static_cast<int64_t>(p.size() / 2) > rank) return std::nullopt;
      std::vector<int64_t> out = sizes;
      for (size_t i = 0; i < p.size() / 2; ++i) out[out.size() - 1 - i] += p[2 * i] + p[2 * i + 1];
      return std::vector<OutSpec>{{out, std::nullopt}};
    }
    case Family::kReduceDimsTwo:
    case Family::kReduceDimsIdx: {
      const c10::IValue* dim = arg_named(schema, args, "dim");
      std::vector<int64_t> dims;
      if (dim && dim->isIntList()) dims = dim->toIntVector();
      if (dims.empty())
        for (int64_t d = 0; d < rank; ++d) dims.push_back(d);
      if (rule->family == Family::kReduceDimsIdx) return std::vector<OutSpec>{{reduced(dims), c10::kLong}};
      return std::vector<OutSpec>{{reduced(dims), std::nullopt}, {reduced(dims), std::nullopt}};
    }
    case Family::kSelected: {
      // The size depends on the values; every element selected is the upper bound (the .pt2
      // loader takes the export's upper bound for such sizes too).
      int64_t n = 1;
      for (int64_t v : sizes) n *= v;
      if (schema.name() == "aten::nonzero") return std::vector<OutSpec>{{{n, rank}, c10::kLong}};
      if (schema.name() == "aten::masked_select") {
        const c10::IValue* mask = arg_named(schema, args, "mask");
        if (mask && mask->isTensor()) {
          n = 1;
          for (int64_t v : at::infer_size(sizes, mask->toTensor().sizes())) n *= v;
        }
        return std::vector<OutSpec>{{{n}, std::nullopt}};
      }
      const c10::IValue* inverse = arg_named(schema, args, "return_inverse");
      const c10::IValue* counts = arg_named(schema, args, "return_counts");
      const bool inv = inverse && inverse->isBool() && inverse->toBool();
      const bool cnt = counts && counts->isBool() && counts->toBool();
      return std::vector<OutSpec>{
          {{n}, std::nullopt}, {inv ? sizes : std::vector<int64_t>{0}, c10::kLong}, {{cnt ? n : 0}, c10::kLong}};
    }
    case Family::kAdaptive: {
      const c10::IValue* os = arg_named(schema, args, "output_size");
      if (!os || !os->isIntList() || rank < 2) return std::nullopt;
      std::vector<int64_t> out(sizes.begin(), sizes.end() - 2);
      for (int64_t v : os->toIntVector()) out.push_back(v);
      return std::vector<OutSpec>{{out, std::nullopt}};
    }
    case Family::kPool3d: {
      auto ints = [&](const char* name, int64_t fallback) {
        const c10::IValue* v = arg_named(schema, args, name);
        std::vector<int64_t> out = v && v->isIntList() ? v->toIntVector() : std::vector<int64_t>{};
        if (out.empty()) out = {fallback};
        if (out.size() == 1) out.assign(3, out[0]);
        return out;
      };
      const std::vector<int64_t> k = ints("kernel_size", 1), pad = ints("padding", 0), dil = ints("dilation", 1);
      std::vector<int64_t> st = ints("stride", 0);
      if (st[0] == 0) st = k;
      const c10::IValue* ceil = arg_named(schema, args, "ceil_mode");
      const bool ceil_mode = ceil && ceil->isBool() && ceil->toBool();
      if (rank < 4 || k.size() != 3 || st.size() != 3 || pad.size() != 3 || dil.size() != 3) return std::nullopt;
      std::vector<int64_t> out = sizes;
      for (int i = 0; i < 3; ++i) {
        const int64_t in = sizes[rank - 3 + i];
        const int64_t span = in + 2 * pad[i] - dil[i] * (k[i] - 1) - 1 + (ceil_mode ? st[i] - 1 : 0);
        if (st[i] <= 0) return std::nullopt;
        int64_t o = span / st[i] + 1;
        if (ceil_mode && (o - 1) * st[i] >= in + pad[i]) --o;
        out[rank - 3 + i] = o;
      }
      return std::vector<OutSpec>{{out, std::nullopt}, {out, c10::kLong}};
    }
    case Family::kGridSample: {
      const c10::IValue* grid = arg_named(schema, args, "grid");
      if (!grid || !grid->isTensor() || rank != 4 || grid->toTensor().dim() != 4) return std::nullopt;
      const auto g = grid->toTensor().sizes();
      return std::vector<OutSpec>{{{sizes[0], sizes[1], g[1], g[2]}, std::nullopt}};
    }
    case Family::kEmbeddingBag: {
      const c10::IValue* indices = arg_named(schema, args, "indices");
      const c10::IValue* offsets = arg_named(schema, args, "offsets");
      const c10::IValue* last = arg_named(schema, args, "include_last_offset");
      if (!indices || !indices->isTensor() || !offsets || !offsets->isTensor() || rank != 2) return std::nullopt;
      int64_t bags = offsets->toTensor().numel();
      if (last && last->isBool() && last->toBool()) bags = std::max<int64_t>(bags - 1, 0);
      const int64_t n = indices->toTensor().numel();
      return std::vector<OutSpec>{
          {{bags, sizes[1]}, std::nullopt}, {{n}, c10::kLong}, {{bags}, c10::kLong}, {{bags}, c10::kLong}};
    }
    case Family::kFft: {
      const c10::IValue* dim = arg_named(schema, args, "dim");
      if (!dim || !dim->isIntList() || dim->toIntVector().empty() || rank == 0) return std::nullopt;
      const int64_t last = (dim->toIntVector().back() % rank + rank) % rank;
      std::vector<int64_t> out = sizes;
      const c10::ScalarType real = self->toTensor().scalar_type();
      if (schema.name() == "aten::_fft_r2c") {
        const c10::IValue* onesided = arg_named(schema, args, "onesided");
        if (onesided && onesided->isBool() && onesided->toBool()) out[last] = sizes[last] / 2 + 1;
        return std::vector<OutSpec>{{out, c10::toComplexType(real)}};
      }
      if (schema.name() == "aten::_fft_c2r") {
        const c10::IValue* n = arg_named(schema, args, "last_dim_size");
        if (!n || !n->isInt()) return std::nullopt;
        out[last] = n->toInt();
        return std::vector<OutSpec>{{out, c10::toRealValueType(real)}};
      }
      return std::vector<OutSpec>{{out, std::nullopt}};
    }
    case Family::kIm2col: {
      auto pair = [&](const char* name) {
        const c10::IValue* v = arg_named(schema, args, name);
        std::vector<int64_t> out = v && v->isIntList() ? v->toIntVector() : std::vector<int64_t>{};
        if (out.size() == 1) out.push_back(out[0]);
        return out;
      };
      const auto k = pair("kernel_size"), dil = pair("dilation"), pad = pair("padding"), st = pair("stride");
      if (k.size() != 2 || dil.size() != 2 || pad.size() != 2 || st.size() != 2 || st[0] <= 0 || st[1] <= 0)
        return std::nullopt;
      const bool batched = schema.name() == "aten::im2col" ? rank == 4 : rank == 3;
      const int64_t off = batched ? 1 : 0;
      auto blocks = [&](int64_t in, int i) { return (in + 2 * pad[i] - dil[i] * (k[i] - 1) - 1) / st[i] + 1; };
      std::vector<int64_t> out;
      if (batched) out.push_back(sizes[0]);
      if (schema.name() == "aten::im2col") {
        if (rank != 3 + off) return std::nullopt;
        out.push_back(sizes[off] * k[0] * k[1]);
        out.push_back(blocks(sizes[off + 1], 0) * blocks(sizes[off + 2], 1));
      } else {
        const auto os = pair("output_size");
        if (os.size() != 2 || rank != 2 + off || k[0] * k[1] == 0) return std::nullopt;
        out.push_back(sizes[off] / (k[0] * k[1]));
        out.push_back(os[0]);
        out.push_back(os[1]);
      }
      return std::vector<OutSpec>{{out, std::nullopt}};
    }
    case Family::kConvolution: {
      const c10::IValue* w = arg_named(schema, args, "weight");
      const c10::IValue* transposed = arg_named(schema, args, "transposed");
      const c10::IValue* groups = arg_named(schema, args, "groups");
      if (!w || !w->isTensor() || w->toTensor().dim() != rank || rank < 3 || !transposed || !transposed->isBool() ||
          !groups || !groups->isInt())
        return std::nullopt;
      // Anything the formulas cannot take (a zero stride, sizes that would overflow) is left to
      // the shape function, which rejects it as the op would.
      constexpr int64_t kLimit = int64_t{1} << 31;
      auto ints = [&](const char* name, int64_t lo) -> std::optional<std::vector<int64_t>> {
        const c10::IValue* v = arg_named(schema, args, name);
        if (!v || !v->isIntList()) return std::nullopt;
        std::vector<int64_t> out = v->toIntVector();
        if (static_cast<int64_t>(out.size()) != rank - 2) return std::nullopt;
        for (int64_t x : out)
          if (x < lo || x > kLimit) return std::nullopt;
        return out;
      };
      auto stride = ints("stride", 1), padding = ints("padding", 0), dilation = ints("dilation", 1),
           output_padding = ints("output_padding", 0);
      const std::vector<int64_t> weight = w->toTensor().sizes().vec();
      const int64_t g = groups->toInt();
      if (!stride || !padding || !dilation || !output_padding || g < 1 || g > kLimit) return std::nullopt;
      for (int64_t x : sizes)
        if (x > kLimit) return std::nullopt;
      for (int64_t x : weight)
        if (x < 1 || x > kLimit) return std::nullopt;
      std::vector<int64_t> out =
          transposed->toBool()
              ? at::native::conv_input_size(sizes, weight, *padding, *output_padding, *stride, *dilation, g)
              : at::native::conv_output_size(sizes, weight, *padding, *stride, *dilation);
      for (size_t d = 2; d < out.size(); ++d)
        if (out[d] < 1) return std::nullopt;
      return std::vector<OutSpec>{{out, std::nullopt}};
    }
    case Family::kWeightNorm:
      return std::vector<OutSpec>{{sizes, std::nullopt}};
    case Family::kConvolutionMode: {
      const c10::IValue* w = arg_named(schema, args, "weight");
      const c10::IValue* padding = arg_named(schema, args, "padding");
      const c10::IValue* stride = arg_named(schema, args, "stride");
      const c10::IValue* dilation = arg_named(schema, args, "dilation");
      if (!w || !w->isTensor() || w->toTensor().dim() != rank || rank < 3 || !padding || !padding->isString() ||
          !stride || !stride->isIntList() || !dilation || !dilation->isIntList())
        return std::nullopt;
      const std::vector<int64_t> weight = w->toTensor().sizes().vec();
      const std::string mode = padding->toStringRef();
      auto per_dim = [&](const c10::IValue* v, size_t d) {
        const std::vector<int64_t> xs = v->toIntVector();
        return xs.size() == 1 ? xs[0] : d < xs.size() ? xs[d] : 0;
      };
      std::vector<int64_t> out{sizes[0], weight[0]};
      for (size_t d = 0; d + 2 < sizes.size(); ++d) {
        const int64_t s = per_dim(stride, d), dil = per_dim(dilation, d), k = weight[d + 2];
        if (s < 1 || dil < 1 || k < 1) return std::nullopt;
        if (mode == "same") {
          if (s != 1) return std::nullopt;
          out.push_back(sizes[d + 2]);
        } else if (mode == "valid") {
          const int64_t span = dil * (k - 1) + 1;
          if (sizes[d + 2] < span) return std::nullopt;
          out.push_back((sizes[d + 2] - span) / s + 1);
        } else {
          return std::nullopt;
        }
      }
      return std::vector<OutSpec>{{out, std::nullopt}};
    }
    case Family::kBatchNorm: {
      const c10::IValue* training = arg_named(schema, args, "training");
      if (rank < 2 || !training || !training->isBool()) return std::nullopt;
      const std::vector<int64_t> stats{training->toBool() ? sizes[1] : 0};
      return std::vector<OutSpec>{{sizes, std::nullopt}, {stats, std::nullopt}, {stats, std::nullopt}};
    }
    case Family::kIndexSelect: {
      const c10::IValue* dim = arg_named(schema, args, "dim");
      const c10::IValue* index = arg_named(schema, args, "index");
      if (!dim || !dim->isInt() || !index || !index->isTensor() || index->toTensor().dim() > 1) return std::nullopt;
      const int64_t n = std::max<int64_t>(rank, 1), d = dim->toInt();
      if (d < -n || d >= n) return std::nullopt;
      std::vector<int64_t> out = sizes;
      if (rank > 0) out[static_cast<size_t>(d < 0 ? d + n : d)] = index->toTensor().numel();
      return std::vector<OutSpec>{{out, std::nullopt}};
    }
    case Family::kWhere: {
      const c10::IValue* condition = arg_named(schema, args, "condition");
      const c10::IValue* other = arg_named(schema, args, "other");
      if (!condition || !condition->isTensor() || !other || !other->isTensor()) return std::nullopt;
      const auto both = at::infer_size(sizes, other->toTensor().sizes());
      return std::vector<OutSpec>{{at::infer_size(condition->toTensor().sizes(), both), std::nullopt}};
    }
    case Family::kPdist:
      if (rank != 2) return std::nullopt;
      return std::vector<OutSpec>{{{sizes[0] * (sizes[0] - 1) / 2}, std::nullopt}};
    case Family::kLikeSecond: {
      const c10::IValue* b = arg_named(schema, args, "B");
      if (!b || !b->isTensor()) return std::nullopt;
      return std::vector<OutSpec>{{b->toTensor().sizes().vec(), std::nullopt}};
    }
    case Family::kAddbmm: {
      const c10::IValue* b1 = arg_named(schema, args, "batch1");
      const c10::IValue* b2 = arg_named(schema, args, "batch2");
      if (!b1 || !b2 || !b1->isTensor() || !b2->isTensor() || b1->toTensor().dim() != 3 || b2->toTensor().dim() != 3)
        return std::nullopt;
      return std::vector<OutSpec>{{{b1->toTensor().size(1), b2->toTensor().size(2)}, std::nullopt}};
    }
    case Family::kBins: {
      if (schema.name() == "aten::histc") {
        const c10::IValue* bins = arg_named(schema, args, "bins");
        return std::vector<OutSpec>{{{bins && bins->isInt() ? bins->toInt() : 100}, std::nullopt}};
      }
      // bincount's length is max(input) + 1 at least minlength: data-dependent; minlength is
      // the bound the schema gives.
      const c10::IValue* minlength = arg_named(schema, args, "minlength");
      const c10::IValue* weights = arg_named(schema, args, "weights");
      const bool weighted = weights && weights->isTensor();
      return std::vector<OutSpec>{{{std::max<int64_t>(minlength && minlength->isInt() ? minlength->toInt() : 0, 1)},
                                   weighted ? std::optional<c10::ScalarType>() : c10::kLong}};
    }
    case Family::kPairwise: {
      const c10::IValue* x2 = arg_named(schema, args, "x2");
      if (!x2 || !x2->isTensor() || rank < 2 || x2->toTensor().dim() < 2) return std::nullopt;
      std::vector<int64_t> out = sizes;
      out.back() = x2->toTensor().size(-2);
      return std::vector<OutSpec>{{out, std::nullopt}};
    }
    case Family::kMultiHeadAttention: {
      const c10::IValue* key = arg_named(schema, args, "key");
      const c10::IValue* heads = arg_named(schema, args, "num_head");
      const c10::IValue* need = arg_named(schema, args, "need_weights");
      const c10::IValue* average = arg_named(schema, args, "average_attn_weights");
      if (rank != 3 || !key || !key->isTensor() || key->toTensor().dim() != 3 || !heads || !heads->isInt())
        return std::nullopt;
      const int64_t b = sizes[0], t = sizes[1], s = key->toTensor().size(1);
      std::vector<int64_t> weights{0};
      if (need && need->isBool() && need->toBool())
        weights = average && average->isBool() && average->toBool() ? std::vector<int64_t>{b, t, s}
                                                                    : std::vector<int64_t>{b, heads->toInt(), t, s};
      return std::vector<OutSpec>{{sizes, std::nullopt}, {weights, std::nullopt}};
    }
  }
  return std::nullopt;
}

// The outputs of an op from its family's rule, else from TorchScript's shape function (the
// families are ops without one, and convolution, whose rule is ATen's own formula).
std::optional<std::vector<OutSpec>> output_specs(const c10::FunctionSchema& schema,
                                                 const std::vector<c10::IValue>& args) {
  if (auto specs = family_specs(schema, args)) return specs;
  auto shapes = shapes_from_shape_function(schema, args);
  if (!shapes) return std::nullopt;
  std::vector<OutSpec> specs;
  for (auto& s : *shapes) specs.push_back({std::move(s), std::nullopt});
  return specs;
}

// The boxed Meta kernel: arguments in, one meta tensor per returned shape out (an out=
// variant resizes its out tensors instead). Errors are c10::Errors, as from any kernel.
void run_shape_function(const c10::OperatorHandle& op, jit::Stack* stack) {
  const c10::FunctionSchema& schema = op.schema();
  const size_t n = schema.arguments().size();
  std::vector<c10::IValue> args(stack->end() - n, stack->end());
  std::vector<at::Tensor> outs;
  if (writes_out(schema)) {
    auto functional = functional_of(schema);
    std::vector<c10::IValue> inputs;
    for (size_t i = 0; i < n; ++i)
      if (!schema.arguments()[i].is_out()) inputs.push_back(args[i]);
    auto specs = functional ? output_specs(functional->schema(), inputs) : std::nullopt;
    TORCH_CHECK_NOT_IMPLEMENTED(specs || (functional && (has_family_rule(functional->schema()) ||
                                                         jit::shapeComputeGraphForSchema(functional->schema()))),
                                schema.operator_name(), ": no meta kernel and no shape function");
    TORCH_CHECK(specs, schema.operator_name(), ": no shape function for these inputs");
    size_t k = 0;
    for (size_t i = 0; i < n; ++i) {
      if (!schema.arguments()[i].is_out()) continue;
      TORCH_CHECK(k < specs->size() && args[i].isTensor(), schema.operator_name(), ": unexpected out= arguments");
      outs.push_back(args[i].toTensor().resize_((*specs)[k++].sizes));
    }
  } else {
    auto made = shape_only_outputs(schema, args, op.hasTag(at::Tag::pointwise));
    if (!made) {
      // Registered for every op without a meta kernel: one that has neither a rule here nor a
      // shape function is as unimplemented as before; one that has them rejects these inputs.
      TORCH_CHECK_NOT_IMPLEMENTED(has_family_rule(schema) || jit::shapeComputeGraphForSchema(schema),
                                  schema.operator_name(), ": no meta kernel and no shape function");
      TORCH_CHECK(false, schema.operator_name(),
                  ": neither its shape function nor its family's rule covers these inputs");
    }
    outs = std::move(*made);
  }
  jit::drop(*stack, n);
  for (auto& t : outs) stack->emplace_back(std::move(t));
}

bool needs_shape_function(const c10::OperatorHandle& op) {
  using K = c10::DispatchKey;
  for (K k : {K::Meta, K::CompositeImplicitAutograd, K::CompositeExplicitAutograd,
              K::CompositeExplicitAutogradNonFunctional, K::CompositeImplicitAutogradNestedTensor})
    if (op.hasKernelForDispatchKey(k)) return false;
  const c10::FunctionSchema& schema = op.schema();
  for (const auto& r : schema.returns())
    if (!r.type()->castRaw<c10::TensorType>()) return false;  // lists, scalars: not shapes
  return !schema.is_mutable() || writes_out(schema) || schema.returns().size() == 1;
}

std::string qualified(const c10::FunctionSchema& s) {
  return s.overload_name().empty() ? s.name() : s.name() + "." + s.overload_name();
}

}  // namespace

std::optional<std::vector<std::vector<int64_t>>> shapes_from_shape_function(const c10::FunctionSchema& schema,
                                                                            const std::vector<c10::IValue>& args) {
  if (!jit::shapeComputeGraphForSchema(schema)) return std::nullopt;
  std::vector<jit::SSAInput> inputs;
  for (const c10::IValue& v : args) {
    if (v.isTensor())
      inputs.emplace_back(c10::SymbolicShape(v.toTensor().sizes()));
    else
      inputs.emplace_back(v);
  }
  std::optional<std::vector<c10::SymbolicShape>> shapes;
  try {
    shapes = jit::calculateSymbolicShapesOnOp(&schema, inputs);
  } catch (const std::exception&) {
    return std::nullopt;  // the shape function rejects these inputs, as the op would
  }
  if (!shapes || shapes->size() != schema.returns().size()) return std::nullopt;
  std::vector<std::vector<int64_t>> out;
  for (const auto& s : *shapes) {
    auto sizes = concrete(s);
    if (!sizes) return std::nullopt;
    out.push_back(std::move(*sizes));
  }
  return out;
}

bool has_family_rule(const c10::FunctionSchema& schema) {
  for (const FamilyRule& r : kFamilies)
    if (schema.name() == r.name && schema.overload_name() == r.overload) return true;
  return false;
}

std::vector<int64_t> tensor_iterator_strides(const std::vector<int64_t>& shape, const std::vector<at::Tensor>& inputs) {
  const size_t nd = shape.size();
  // Each input's strides in the output's shape: 0 along broadcast (or size-1) dimensions.
  std::vector<std::vector<int64_t>> strides;
  for (const at::Tensor& t : inputs) {
    std::vector<int64_t> st(nd, 0);
    const size_t off = nd - std::min<size_t>(nd, static_cast<size_t>(t.dim()));
    for (size_t d = off; d < nd; ++d) {
      const int64_t src = static_cast<int64_t>(d - off);
      st[d] = t.size(src) == 1 ? 0 : t.stride(src);
    }
    strides.push_back(std::move(st));
  }
  return strides_in_order(shape, tensor_iterator_order(shape, strides));
}

std::optional<std::vector<at::Tensor>> shape_only_outputs(const c10::FunctionSchema& schema,
                                                          const std::vector<c10::IValue>& args, bool pointwise) {
  auto specs = output_specs(schema, args);
  if (!specs) return std::nullopt;
  // In place: the result is the written input itself.
  if (schema.is_mutable() && !args.empty() && args[0].isTensor() && specs->size() == 1)
    return std::vector<at::Tensor>{args[0].toTensor()};
  // An explicit dtype argument decides; otherwise promotion (pointwise) or the first input.
  std::optional<c10::ScalarType> dtype;
  for (const c10::IValue& v : args) {
    if (!v.isTensor()) continue;
    c10::ScalarType t = v.toTensor().scalar_type();
    if (!dtype || pointwise) dtype = dtype ? c10::promoteTypes(*dtype, t) : t;
  }
  if (const c10::IValue* d = arg_named(schema, args, "dtype"); d && d->isInt())
    dtype = static_cast<c10::ScalarType>(d->toInt());
  if (!dtype) return std::nullopt;
  std::vector<at::Tensor> outs;
  // An elementwise result is laid out as TensorIterator lays it out (a permuted input keeps its
  // order), which later decides kernels (attention's mask, copies before a view).
  std::vector<at::Tensor> inputs;
  for (const c10::IValue& v : args)
    if (v.isTensor()) inputs.push_back(v.toTensor());
  for (const auto& spec : *specs) {
    const auto options = at::TensorOptions().dtype(spec.dtype.value_or(*dtype)).device(at::kMeta);
    if (pointwise && specs->size() == 1 && !inputs.empty())
      outs.push_back(at::empty_strided(spec.sizes, tensor_iterator_strides(spec.sizes, inputs), options));
    else
      outs.push_back(at::empty(spec.sizes, options));
  }
  return outs;
}

ShapeFunctionKernels::ShapeFunctionKernels()
    : library_(
          std::make_unique<torch::Library>(torch::Library::IMPL, "aten", c10::DispatchKey::Meta, __FILE__, __LINE__)) {
  // Every aten op without a meta or composite kernel (out= variants included: composite kernels
  // call where.self_out, kthvalue.values), not only those known to have a shape function:
  // listing those would load TorchScript's shape functions, which only an op that needs one
  // should pay for. An op that neither they nor a family rule cover stays unimplemented.
  auto& dispatcher = c10::Dispatcher::singleton();
  for (const c10::OperatorName& name : dispatcher.getAllOpNames()) {
    if (name.name.rfind("aten::", 0) != 0) continue;
    auto op = dispatcher.findSchema(name);
    if (!op || !needs_shape_function(*op)) continue;
    if (writes_out(op->schema()) && !functional_of(op->schema())) continue;
    library_->impl(qualified(op->schema()).c_str(), torch::CppFunction::makeFromBoxedFunction<&run_shape_function>());
  }
}

ShapeFunctionKernels::~ShapeFunctionKernels() = default;

}  // namespace kc
