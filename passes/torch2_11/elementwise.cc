// Elementwise ops without a pointwise tag, dropout, pools, resampling, scans and factories on
// the H200.
#include <algorithm>

#include "passes/torch2_11/rules.h"

namespace kc::torch2_11 {
namespace {

// max_pool2d and avg_pool2d read their input contiguous in its suggested memory format:
// anything else (a channel slice of a larger tensor) is copied first.
// A 4-D tensor dense in NHWC order.
bool nhwc_dense(const Value& x) {
  return x.sizes.size() == 4 && x.strides.size() == 4 && x.strides[1] == 1 && x.strides[3] == x.sizes[1] &&
         x.strides[2] == x.sizes[1] * x.sizes[3] && x.strides[0] == x.sizes[1] * x.sizes[2] * x.sizes[3];
}
Counts pool_counts(const OpFacts& f) {
  const Value* x = f.input(0);
  if (!x) return {1, 0, 0, 0};
  const bool copies = f.op->name == "aten::max_pool2d" || f.op->name == "aten::avg_pool2d";
  const bool dense = x->contiguous() || nhwc_dense(*x);
  return {copies && !dense ? 2 : 1, 0, 0, 0};
}
// upsample_*: one kernel; bicubic 2 (the output is zeroed first, then accumulated). An output
// of the input's size is a copy (the kernels return a copy of the input): one memcpy.
Counts upsample_counts(const OpFacts& f) {
  const Value* in = f.input(0);
  const Value* out = f.output(0);
  if (!in || !out || out->numel() == 0) return {};
  const bool bicubic = f.op->name == "aten::upsample_bicubic2d";
  if (!bicubic && in->sizes == out->sizes) return {0, 1, 0, 0};
  // The 2-d bilinear kernel on a channels-last input of >= 16 channels runs its NHWC frame on
  // input.contiguous(channels_last): a copy first when the input is a strided view (fresh6: coat's
  // sliced feature maps, 2 kernels).
  const bool nhwc_copy = f.op->name == "aten::upsample_bilinear2d" && in->sizes.size() == 4 &&
                         in->strides.size() == 4 && in->strides[1] == 1 && in->sizes[1] >= 16 && !nhwc_dense(*in);
  return {(bicubic || f.op->name == "aten::upsample_linear1d" ? 2 : 1) + (nhwc_copy ? 1 : 0), 0, 0, 0};
}
// Scans: a cast of the input to the result dtype first (bool/int32 -> int64 by default, or the
// dtype argument); a scan over every element (all other dims 1) runs cub's two-kernel scan,
// any other one scan kernel.
Counts scan_counts(const OpFacts& f) {
  const Value* in = f.input(0);
  const Value* out = f.output(0);
  if (!in || !out) return {2, 0, 0, 0};
  if (out->numel() == 0) return {};
  const int cast = in->dtype != out->dtype ? 1 : 0;
  int64_t dim = f.int_arg("dim", 0);
  const int64_t rank = static_cast<int64_t>(in->sizes.size());
  if (dim < 0) dim += rank;
  // A 0-d input is copied (impl_func_cum_ops fills the result with it): a memcpy; cummax also
  // fills its indices with zeros (opinfo: cumsum, logcumsumexp, cummax of a 0-d tensor). Any
  // other input is scanned, even one element: cub's scan when the dim holds every element
  // (opinfo_heldout: cumprod of [1], 2 kernels).
  if (rank == 0) return {f.op->name == "aten::cummax" || f.op->name == "aten::cummin" ? 1 : 0, 1, 0, 0};
  const bool whole = dim >= 0 && dim < rank && in->sizes[dim] == in->numel();
  return {cast + (whole ? 2 : 1), 0, 0, 0};
}
// _weight_norm on the device with dim first or last: one fused kernel (weight_norm_fwd);
// other dims go through norm_except_dim's composite and are not predicted.
bool weight_norm_fused(const OpFacts& f) {
  const Value* v = f.input(0);
  if (!v || v->sizes.empty()) return false;
  int64_t dim = f.int_arg("dim", 0);
  const int64_t rank = static_cast<int64_t>(v->sizes.size());
  return dim == 0 || dim == rank - 1 || dim == -1;
}

// linspace / logspace with a start or end given as a tensor (RangeFactories.cpp): each such
// scalar is read back with .item() (a device-to-host memcpy and a wait), then the sequence is one
// kernel, none when steps is 0.
Counts spaced_counts(const OpFacts& f) {
  Counts c = one_kernel_unless_empty(f);
  for (const char* name : {"start", "end"}) {
    const Value* bound = f.tensor_arg(name);
    if (bound && bound->placement == Placement::kDevice) c += Counts{0, 1, 0, 1};
  }
  return c;
}
// normal (Distributions.h, normal_out_impl): from two floats one draw; with a tensor mean, a draw
// of N(0, std) and an in-place add of the mean; with a tensor std, CHECK_NORMAL_TENSOR_STD reads
// `std.min() >= 0` back twice (min, compare and a memcpy each: at::normal and normal_out both
// check), then a draw of N(0, 1), mul_ by std and add_ of the mean.
Counts normal_counts(const OpFacts& f) {
  if (f.out_numel == 0) return {};
  const std::string& o = f.op->overload;
  if (o == "Tensor_Tensor") return {7, 2, 0, 2};
  if (o == "Tensor_float") return {2, 0, 0, 0};
  return {1, 0, 0, 0};
}

// diff (ReduceOps.cpp): prepend/append are joined by one cat; diff_helper then subtracts
// narrowed slices once per order, n capped at the dim's size; n = 0 returns a copy of the input
// (zeros_like + copy_: a fill and a memcpy).
Counts diff_counts(const OpFacts& f) {
  const Value& x = *f.input(0);
  const int64_t n = f.int_arg("n", 1);
  if (n == 0) return x.numel() > 0 ? Counts{1, 1, 0, 0} : Counts{};
  const int64_t rank = static_cast<int64_t>(x.sizes.size());
  int64_t dim = f.int_arg("dim", -1);
  if (dim < 0) dim += rank;
  const bool joined = f.has_tensor_arg("prepend") || f.has_tensor_arg("append");
  const int64_t size = dim >= 0 && dim < rank ? x.sizes[dim] : 1;
  const int64_t orders = joined ? n : std::min(n, size);
  return {static_cast<int>((joined ? 1 : 0) + std::max<int64_t>(orders, 0)), 0, 0, 0};
}

}  // namespace

void add_elementwise_rules(std::vector<LaunchRule>& r) {
  r.push_back(
      rule("dropout.eval")
          .ops({"aten::dropout", "aten::dropout_", "aten::feature_dropout", "aten::alpha_dropout",
                "aten::feature_alpha_dropout"})
          .when("train=False", eval_mode)
          .counts({0, 0, 0, 0})
          .evidence("truth:dropout_eval_float32, truth:dropout_eval_bfloat16, corpus:efficientnet_b0 (dropout_), "
                    "opinfo: feature_dropout, alpha_dropout, feature_alpha_dropout with train=False (0 kernels)")
          .why("In evaluation mode dropout does nothing: no kernel."));
  r.push_back(rule("float_power")
                  .ops({"aten::float_power"})
                  .when("each tensor operand not already float64 converted to it, then one pow; a number as the "
                        "base is first filled into a device tensor, as pow.Scalar does")
                  .compute([](const OpFacts& f) {
                    int casts = 0;
                    for (int id : f.inputs) casts += f.graph->values[id].dtype != DType::kFloat64 ? 1 : 0;
                    const int fill = f.op->overload == "Scalar" ? 1 : 0;
                    return Counts{1 + casts + fill, 0, 0, 0};
                  })
                  .evidence("opinfo: float_power (Tensor, Tensor) in float32 and bfloat16 (3 kernels); "
                            "opinfo_reference2: float_power.Scalar of a bfloat16 exponent (the cast, a FillFunctor, "
                            "pow)")
                  .why("float_power computes in double precision: each operand is converted to float64 (one kernel "
                       "each), then one pow kernel. With a number as its base it calls pow(Scalar, Tensor), which "
                       "wraps the number into a device tensor by one fill first."));
  r.push_back(
      rule("ldexp")
          .ops({"aten::ldexp"})
          .when("self * pow(2, other): a fill of 2s, the pow and the multiply")
          .counts({3, 0, 0, 0})
          .evidence("opinfo: ldexp (3 kernels)")
          .why("ldexp is self * 2**other: the base 2 is filled into a tensor, raised to other, and multiplied in."));
  r.push_back(rule("mvlgamma")
                  .ops({"aten::mvlgamma"})
                  .when("arange, add, lgamma, sum, add")
                  .counts({5, 0, 0, 0})
                  .evidence("opinfo: mvlgamma p = 1, 2, 3 (5 kernels)")
                  .why("The multivariate log-gamma is a composite: an arange of offsets, their sum with the input, "
                       "lgamma, a sum over the offsets and the constant term: five kernels."));
  r.push_back(rule("dropout.p0")
                  .ops({"aten::dropout", "aten::feature_dropout"})
                  .when("p = 0: the input is returned",
                        [](const OpFacts& f) {
                          const Arg* p = f.arg("p");
                          return p && !p->floats.empty() && p->floats[0] == 0.0;
                        })
                  .counts({0, 0, 0, 0})
                  .evidence("opinfo: dropout, dropout2d, dropout3d with p = 0 and train = True (0 kernels)")
                  .why("Dropout with probability 0 drops nothing: ATen returns the input."));
  r.push_back(rule("dropout.p1")
                  .ops({"aten::dropout", "aten::feature_dropout"})
                  .when("train, p = 1: a zero scalar filled, the product with it",
                        [](const OpFacts& f) {
                          const Arg* p = f.arg("p");
                          return f.bool_arg("train", true) && p && !p->floats.empty() && p->floats[0] >= 1.0;
                        })
                  .compute([](const OpFacts& f) {
                    return f.out_numel > 0 ? Counts{2, 0, 0, 0} : Counts{};
                  })
                  .evidence("opinfo_heldout: dropout, dropout2d, dropout3d with p = 1 and train = True (FillFunctor + "
                            "the product: 2 kernels)")
                  .why("Dropout with probability 1 drops everything: ATen's fused kernel takes only 0 < p < 1, so "
                       "_dropout_impl multiplies the input by a zero scalar it fills first."));
  r.push_back(rule("feature_dropout.train")
                  .ops({"aten::feature_dropout"})
                  .when("train, 0 < p < 1: a Bernoulli mask per channel, its scaling, the product",
                        [](const OpFacts& f) {
                          const Arg* p = f.arg("p");
                          return f.bool_arg("train", true) && p && !p->floats.empty() && p->floats[0] > 0.0 &&
                                 p->floats[0] < 1.0;
                        })
                  .compute([](const OpFacts& f) {
                    return f.out_numel > 0 ? Counts{3, 0, 0, 0} : Counts{};
                  })
                  .evidence("opinfo: dropout2d, dropout3d with p = 0.5 (4 of 4)")
                  .why("Channel dropout draws one keep-bit per channel (a Bernoulli kernel), scales the mask by "
                       "1/(1-p) and multiplies the input by it: three kernels."));
  r.push_back(rule("dropout.train")
                  .ops({"aten::dropout", "aten::native_dropout"})
                  .when("train=True")
                  .counts({1, 0, 0, 0})
                  .evidence("truth:dropout_train_float32, truth:dropout_train_bfloat16")
                  .why("In training mode dropout draws a random mask and applies it in one fused kernel."));
  r.push_back(
      rule("pool")
          .ops({"aten::max_pool2d", "aten::adaptive_avg_pool2d", "aten::avg_pool2d", "aten::avg_pool1d",
                "aten::adaptive_avg_pool1d", "aten::max_pool3d", "aten::avg_pool3d", "aten::adaptive_avg_pool3d"})
          .when("one kernel; max/avg_pool2d copy an input dense in neither NCHW nor NHWC first")
          .compute(pool_counts)
          .evidence(
              "truth:maxpool_*, truth:adaptive_avgpool_*, sweep:resample/pool:max_pool3d, "
              "sweep:resample/pool:adaptive_avg_pool3d, corpus:densenet121 (avg_pool2d), broad:nextvit (avg_pool1d), "
              "broad:swin (adaptive_avg_pool1d), broad:mvit, broad:s3d, broad:res2net (sliced avg_pool2d input)")
          .why("Pooling and nearest upsampling are one kernel each."));
  r.push_back(rule("pool.max_backward")
                  .ops({"aten::max_pool2d_with_indices_backward"})
                  .when("a zero fill of the input gradient, then the scatter of the output gradient")
                  .counts({2, 0, 0, 0})
                  .evidence("opinfo: max_pool2d_with_indices_backward (FillFunctor + max_pool_backward_nchw, 6 of 6)")
                  .why("The gradient of a max pool zeroes the input gradient with one fill kernel, then adds each "
                       "output gradient at its recorded index with a second."));
  r.push_back(rule("upsample")
                  .ops({"aten::upsample_nearest1d", "aten::upsample_nearest2d", "aten::upsample_nearest3d",
                        "aten::_upsample_nearest_exact1d", "aten::_upsample_nearest_exact2d",
                        "aten::_upsample_nearest_exact3d", "aten::upsample_linear1d", "aten::upsample_bilinear2d",
                        "aten::upsample_bicubic2d", "aten::upsample_trilinear3d"})
                  .when("one kernel (bicubic, linear 1-d: 2), + a copy of a strided channels-last input to bilinear "
                        "2-d; the input's own size: one memcpy")
                  .compute(upsample_counts)
                  .evidence("truth:upsample_nearest, sweep:resample/interpolate, broad:deeplabv3, broad:beit (identity "
                            "size), fresh6:coat (sliced channels-last input)")
                  .why("An upsample is one kernel (bicubic and 1-d linear take two); an output of the input's own size "
                       "is a device-to-device memcpy."));
  r.push_back(rule("scan")
                  .ops({"aten::cumsum", "aten::cumprod", "aten::cummax", "aten::cummin", "aten::logcumsumexp"})
                  .when("+ a cast to the result dtype; a scan over all elements: 2 (cub), else 1")
                  .compute(scan_counts)
                  .evidence("sweep:scan/cumsum, sweep:scan/cumsum_int, sweep:scan/cumprod, corpus:gpt2, broad:codegen, "
                            "broad:bloom, opinfo: cumsum, logcumsumexp, cummax of a 0-d tensor (a memcpy), "
                            "opinfo_heldout: cumprod of [1] (cub: 2)")
                  .why("A scan over one dimension is one kernel (two when it scans every element); an input of another "
                       "dtype is converted first."));
  r.push_back(rule("diff")
                  .ops({"aten::diff"})
                  .when("n = 0: a zero fill and a memcpy (a copy of the input); else one cat of prepend/append, then "
                        "one subtraction per order (at most the dim's size)",
                        [](const OpFacts& f) { return f.input(0) != nullptr; })
                  .compute(diff_counts)
                  .evidence("corpus:gpt2, corpus:llama (prepend, n=1: 2), opinfo: diff (n=0: 1 + 1 memcpy; n=1: 1)")
                  .why("diff subtracts neighbouring slices with one kernel per order, after joining any prepended or "
                       "appended values with a cat; of order 0 it returns a copy of its input."));
  r.push_back(rule("elementwise")
                  .ops({"aten::hardswish", "aten::hardswish_", "aten::hardsigmoid", "aten::hardsigmoid_",
                        "aten::__and__", "aten::__or__", "aten::__xor__", "aten::floor_divide", "aten::leaky_relu",
                        "aten::leaky_relu_", "aten::multiply"})
                  .when("elementwise ops libtorch does not tag pointwise")
                  .counts({1, 0, 0, 0})
                  .evidence("corpus:mobilenet_v3_large, corpus:gpt2 (__and__), test:traced_shape_arith (floor_divide), "
                            "broad:cspnet, broad:tresnet (leaky_relu_), broad:convbert (multiply)")
                  .why("An elementwise op: one kernel that reads its inputs and writes its output once."));
  r.push_back(rule("pow.scalar_base")
                  .ops({"aten::pow"})
                  .when("Scalar ** Tensor: the base becomes a 0-d device tensor (a fill), then pow",
                        [](const OpFacts& f) { return f.op->overload == "Scalar"; })
                  .counts({2, 0, 0, 0})
                  .evidence("broad:pow.Scalar (6 instances 2/0/0)")
                  .why("A Python number raised to a tensor: the number is filled into a tensor by one kernel, then pow "
                       "is a second."));
  r.push_back(rule("pow.promote")
                  .ops({"aten::pow"})
                  .when("Tensor ** Scalar of another result dtype: base.to(result dtype), then pow",
                        [](const OpFacts& f) {
                          const Value* base = f.input(0);
                          const Value* out = f.output(0);
                          return f.op->overload == "Tensor_Scalar" && base && out && base->dtype != out->dtype &&
                                 out->numel() > 0;
                        })
                  .counts({2, 0, 0, 0})
                  .evidence("sweep:grad_fold/pow_scalar (40 calls: int and float bases, 0-2-d), torchscript:swin "
                            "(int64 head dim ** -0.5)")
                  .why("pow's meta function converts the base to the result dtype first (an int64 tensor raised to a "
                       "float power): a cast kernel, then pow."));
  r.push_back(rule("weight_norm")
                  .ops({"aten::_weight_norm"})
                  .when("dim first or last: one fused kernel", weight_norm_fused)
                  .counts({1, 0, 0, 0})
                  .evidence("broad:hubert")
                  .why("Weight normalization over the first or last dimension is one fused kernel."));
  // Factories.
  r.push_back(rule("factory.empty")
                  .ops({"aten::empty", "aten::empty_like", "aten::empty_strided", "aten::new_empty"})
                  .when("always")
                  .counts({0, 0, 0, 0})
                  .evidence("truth:empty")
                  .why("empty only allocates memory from PyTorch's caching allocator: no kernel."));
  r.push_back(rule("factory.fill")
                  .ops({"aten::zeros", "aten::ones", "aten::full", "aten::zeros_like", "aten::ones_like",
                        "aten::full_like", "aten::new_zeros", "aten::new_ones", "aten::new_full", "aten::fill_",
                        "aten::zero_", "aten::scalar_tensor"})
                  .when("one fill kernel; nothing for an empty tensor")
                  .compute(one_kernel_unless_empty)
                  .evidence("truth:zeros, truth:ones, broad:swin3d (fill_ of empty windows)")
                  .why("A filled tensor (zeros, ones, full) is allocated, then written by one fill kernel."));
  r.push_back(rule("factory.arange")
                  .ops({"aten::arange"})
                  .when("always")
                  .counts({1, 0, 0, 0})
                  .evidence("truth:arange")
                  .why("arange writes its sequence with one kernel."));
  // The generators measured so far; others (random_, bernoulli_) stay unknown until they are.
  r.push_back(rule("factory.random")
                  .ops({"aten::randn", "aten::rand", "aten::cauchy_", "aten::exponential_", "aten::geometric_",
                        "aten::log_normal_", "aten::normal_", "aten::uniform_", "aten::randint", "aten::randint_like"})
                  .when("one distribution kernel (nothing for an empty tensor)")
                  .compute(one_kernel_unless_empty)
                  .evidence("truth:randn, opinfo: rand (fractional_max_pool's samples), cauchy_, exponential_, "
                            "geometric_, log_normal_ (36 of 36), normal_, uniform_, randint, randint.low, "
                            "randint_like, randint_like.low_dtype (1 each)")
                  .why("A random tensor, or one refilled in place from a distribution, is written by one random-number "
                       "kernel (distribution_elementwise_grid_stride_kernel)."));
  r.push_back(
      rule("factory.normal")
          .ops({"aten::normal"})
          .when("float mean and std: one draw; tensor mean: draw + add; tensor mean and std: two std >= 0 checks (min, "
                "compare, memcpy, sync each) + draw + mul + add",
                [](const OpFacts& f) {
                  const std::string& o = f.op->overload;
                  return o == "float_float" || o == "Tensor_float" || o == "Tensor_Tensor";
                })
          .compute(normal_counts)
          .evidence(
              "opinfo: normal.float_float (1), normal.Tensor_float (2), normal.Tensor_Tensor (7 kernels, 2 memcpy)")
          .why("normal draws from N(0, std) or N(0, 1) with one kernel and shifts and scales by tensor arguments in "
               "place; a tensor std is first checked to be non-negative on the host, twice."));
  r.push_back(
      rule("factory.spaced")
          .ops({"aten::linspace", "aten::logspace"})
          .when("one kernel (none for steps=0), + a memcpy and a host sync per start or end given as a device tensor")
          .compute(spaced_counts)
          .evidence("opset:linspace, opinfo: logspace (steps=0: 0), linspace and logspace Tensor_Tensor (2 memcpy), "
                    "Tensor_Scalar and Scalar_Tensor (1 memcpy)")
          .why("A linspace or logspace writes its sequence with one kernel; a start or end passed as a tensor is first "
               "read back to the host, a copy the host waits for."));
  r.push_back(rule("elementwise.one")
                  .ops({"aten::addr", "aten::chalf", "aten::fill", "aten::isreal", "aten::special_polygamma"})
                  .when("one kernel (nothing for an empty result)")
                  .compute(one_kernel_unless_empty)
                  .evidence("opinfo: addr, chalf, fill, isreal, special_polygamma (n 1 to 3)")
                  .why("One TensorIterator kernel writes the result: addr's scaled outer product plus the input, a "
                       "conversion, a fill (isreal of a real tensor fills with true), a polygamma."));
}

}  // namespace kc::torch2_11
