#include <algorithm>
#include <cstdlib>

#include "passes/inductor_builder.h"
#include "passes/op_classes.h"
#include "passes/target.h"

namespace kc::inductor {
namespace {

// Gathers and index maps Inductor writes as pointwise loads (lowering.py); other index ops
// (boolean masks, sorts, scatters with accumulation, nonzero) fall back to ATen.
bool pointwise_index(const Graph& g, const Op& op) {
  static const char* const kNames[] = {"aten::embedding",
                                       "aten::gather",
                                       "aten::index_select",
                                       "aten::constant_pad_nd",
                                       "aten::pad",
                                       "aten::roll",
                                       "aten::flip",
                                       "aten::repeat",
                                       "aten::tile",
                                       "aten::narrow",
                                       "aten::slice_scatter",
                                       "aten::select_scatter",
                                       "aten::stack",
                                       "aten::reflection_pad1d",
                                       "aten::reflection_pad2d",
                                       "aten::replication_pad1d",
                                       "aten::replication_pad2d",
                                       "aten::take_along_dim",
                                       "aten::tril",
                                       "aten::triu",
                                       "aten::diagonal_scatter",
                                       "aten::im2col",  // unfold: decomposed (torch/_decomp's im2col) to a gather
                                       "aten::cat",
                                       "aten::concat",
                                       "aten::concatenate"};
  for (const char* n : kNames)
    if (op.name == n) return true;
  if (op.name == "aten::index") {
    // lowering.py's check_and_broadcast_indices falls back to ATen for a boolean or uint8 mask (a
    // data-dependent output size: nonzero first) and for indices on another device than the
    // tensor indexed (a host index of a device tensor, which eager copies over each call).
    bool fallback = false;
    int indexed = -1;
    op.for_each_tensor_input([&](int v) {
      if (indexed < 0) {
        indexed = v;  // the tensor indexed; the rest are indices
        return;
      }
      const Value& index = g.values[v];
      fallback = fallback || index.dtype == DType::kBool || index.dtype == DType::kUInt8 ||
                 index.placement != g.values[indexed].placement;
    });
    return !fallback;
  }
  return false;
}

}  // namespace

// ir.Reduction.num_splits: how many pieces a reduction of n outputs over r elements is split
// into (a first kernel of partial results, a second reducing them); 1: not split.
int64_t Builder::num_splits(int64_t n, int64_t r, bool outer) const {
  const int64_t sms = std::max<int64_t>(target.device.sms, 1);
  const int64_t min_ept = 32, max_ept = 512, threads_per_sm = 2048, threads = 256;
  const int64_t min_device = min_ept * sms * threads_per_sm, max_device = max_ept * sms * threads_per_sm;
  auto closest_divisor = [](int64_t x, int64_t target_size) {
    int64_t best = 1;
    for (int64_t d = 1; d * d <= x; ++d)
      if (x % d == 0)
        for (int64_t c : {d, x / d})
          if (std::abs(c - target_size) < std::abs(best - target_size)) best = c;
    return best;
  };
  auto inner = [&]() -> int64_t {
    if (n >= 2 * sms || r <= 8192) return 1;
    int64_t split_size;
    if (r * n <= min_device) {
      split_size = min_ept;
    } else if (r * n < max_device) {
      const int64_t target_blocks = sms * threads_per_sm / (2 * threads);
      const int64_t per_output = (target_blocks + n - 1) / n;
      const int64_t tmp = (r + threads * per_output - 1) / (threads * per_output);
      const int64_t c = closest_divisor(r, tmp);
      split_size = std::abs(c - tmp) < 30 ? std::max(c, min_ept) : tmp;
    } else {
      const int64_t c = closest_divisor(r, max_ept);
      split_size = std::abs(c - max_ept) < 50 ? c : max_ept;
    }
    return (r + split_size * threads - 1) / (split_size * threads);
  };
  if (n == 1) return inner();
  if (r <= min_ept || n >= sms * 2 * 32) return 1;
  if (!outer) return inner();
  const int64_t xblocks = (n + 127) / 128;
  int64_t split_size;
  if (r * n < min_device) {
    split_size = min_ept;
  } else if (r * n < max_device) {
    const int64_t target_blocks = (sms * threads_per_sm / threads + xblocks - 1) / xblocks;
    const int64_t tmp = (r + 4 * target_blocks - 1) / (4 * target_blocks);
    const int64_t c = closest_divisor(r, tmp);
    split_size = std::abs(tmp - c) < 20 ? std::max(c, min_ept) : tmp;
  } else {
    const int64_t c = closest_divisor(r, max_ept);
    split_size = std::abs(c - max_ept) < 50 ? c : max_ept;
  }
  return (r + 4 * split_size - 1) / (4 * split_size);
}

// The reduction size of a reduction-like op, 0 when it reduces nothing.
int64_t Builder::reduction_size(const Op& op) const {
  const Value* x = in0(op);
  if (!x) return 0;
  const int64_t in = x->numel(), out = out_numel(op);
  const int rank = static_cast<int>(x->sizes.size());
  auto dim_size = [&] {
    int64_t d = int_arg(op, "dim", -1);
    if (d < 0) d += rank;
    return d >= 0 && d < rank ? x->sizes[d] : 0;
  };
  if (name_has(op, "softmax") || op_class(op) == OpClass::kScan) return dim_size();
  if (name_has(op, "layer_norm") || name_has(op, "rms_norm")) {
    const Arg* shape = arg(op, "normalized_shape");
    return shape ? product(shape->ints) : 0;
  }
  if (name_has(op, "group_norm")) {
    const int64_t groups = std::max<int64_t>(int_arg(op, "num_groups", int_arg(op, "group", 1)), 1);
    const int64_t batch = rank > 0 ? x->sizes[0] : 1;
    return batch * groups > 0 ? in / (batch * groups) : 0;
  }
  if (op_class(op) == OpClass::kNorm)  // batch norm with batch statistics: per channel
    return rank > 1 && x->sizes[1] > 0 ? in / x->sizes[1] : 0;
  return out > 0 && in > out ? in / out : 0;
}

void Builder::lower_op(int i) {
  const Op& op = g.ops[i];
  const OpClass c = op_class(op);
  if (!launches[i].known) return set(i, Lower::kFallback, "no launch rule: run as eager runs it");
  if (launches_nothing(i)) return set(i, Lower::kFree, "launches nothing: a view or no-op");
  const int64_t n = out_numel(op);
  auto pointwise = [&](const char* words) {
    n_of[i] = n;
    set(i, Lower::kPointwise, words);
  };
  auto reduction = [&](int64_t r, const char* words) {
    const Value* x = in0(op);
    const int64_t outputs = x && r > 0 ? x->numel() / r : n;
    if (r <= 1 || (r < kUnrollReductionBelow && outputs != 1)) return pointwise(words);
    set(i, Lower::kReduction, words);
    plan_reduction(i, outputs, r);
  };
  switch (c) {
    case OpClass::kView:
      return pointwise("a view that copies here: a Triton copy");
    case OpClass::kMetadata:
      return set(i, Lower::kFallback, "a check on the device: run as eager runs it");
    case OpClass::kPointwise:
    case OpClass::kCopy:
    case OpClass::kFactory:
      return pointwise("a Triton pointwise loop");
    case OpClass::kNorm:
      if (batch_norm_inference(op))
        return pointwise("batch norm in inference decomposes to a per-channel scale and shift");
      return reduction(reduction_size(op), "a norm decomposes to a Triton reduction with its normalizing epilogue");
    case OpClass::kReduction:
      return reduction(reduction_size(op), "a Triton reduction loop");
    case OpClass::kScan:
      return reduction(reduction_size(op), "a Triton scan loop");
    case OpClass::kPool: {
      if (name_has(op, "adaptive_avg_pool")) {
        // Inductor's decomposition makes a pool to 1x1 a mean; other windows are a pointwise
        // loop, or a fallback beyond 25 elements (lowering.py's _adaptive_avg_pool2d).
        const Value* x = in0(op);
        const Value* y = op.outputs.empty() || op.outputs[0] < 0 ? nullptr : &g.values[op.outputs[0]];
        const bool to_one = y && y->sizes.size() >= 2 && y->sizes.back() == 1 && y->sizes[y->sizes.size() - 2] == 1;
        if (x && n > 0 && to_one)
          return reduction(x->numel() / n, "an adaptive average pool to 1x1 decomposes to a mean reduction");
        if (x && n > 0 && x->numel() / n > kMaxPoolWindow)
          return set(i, Lower::kFallback, "an adaptive average pool over windows of more than 25 falls back to ATen");
        return pointwise("an adaptive average pool with small windows is a pointwise window loop");
      }
      const Arg* k = arg(op, "kernel_size");
      if (k && product(k->ints) > kMaxPoolWindow)
        return set(i, Lower::kFallback, "a pooling window over 25 elements falls back to ATen");
      return pointwise("pooling and resampling are pointwise window loops");
    }
    case OpClass::kIndex:
      if (repeated_cat(op)) return pointwise("a cat of one tensor repeated is a copy of it read broadcast");
      if (op.name == "aten::cat" || op.name == "aten::concat") {
        int inputs = 0;
        for (const Arg& a : op.args)
          if (a.kind == Arg::Kind::kTensorList) inputs += static_cast<int>(a.tensors.size());
        if (inputs > kMaxPointwiseCatInputs)
          return set(i, Lower::kConcat, "a cat of more than 8 inputs: each input is written into its slice");
        return pointwise("a cat of few inputs is a pointwise loop choosing its source");
      }
      if (op.name == "aten::stack") {
        // Decomposed to a cat of its inputs unsqueezed: past 8 inputs, a cat kernel too.
        int inputs = 0;
        for (const Arg& a : op.args)
          if (a.kind == Arg::Kind::kTensorList) inputs += static_cast<int>(a.tensors.size());
        if (inputs > kMaxPointwiseCatInputs)
          return set(i, Lower::kConcat, "a stack of more than 8 inputs: each input is written into its slice");
      }
      if (pointwise_index(g, op)) return pointwise("a gather Inductor writes as indirect pointwise loads");
      return set(i, Lower::kFallback, "an index op without a Triton lowering falls back to ATen");
    case OpClass::kGemm:
      return set(i, Lower::kExtern,
                 "a matrix product: cuBLAS through extern_kernels, its bias a pointwise add where a pointwise reader "
                 "takes it");
    case OpClass::kConv:
      return set(i, Lower::kExtern, "a convolution: cuDNN through extern_kernels, bias peeled off as a pointwise add");
    case OpClass::kAttention:
      return set(i, Lower::kExtern, "attention stays the flash, efficient or cuDNN kernel");
    default:
      return set(i, Lower::kFallback, "no Triton lowering: run as eager runs it");
  }
}

}  // namespace kc::inductor
