#include "analyzer/shape_functions.h"

#include <ATen/ATen.h>
#include <ATen/core/dispatch/Dispatcher.h>

#include <catch2/catch.hpp>

namespace {
at::Tensor meta(std::vector<int64_t> sizes) {
  return at::empty(sizes, at::TensorOptions().device(at::kMeta));
}
}  // namespace

TEST_CASE("shape functions: composites reach Python-only meta functions only while registered") {
  // layer_norm on meta -> native_layer_norm's math kernel -> native_batch_norm, whose meta
  // function exists only in Python.
  at::Tensor x = meta({2, 16, 64});
  CHECK_THROWS(at::layer_norm(x, {64}));
  {
    kc::ShapeFunctionKernels kernels;
    at::Tensor y = at::layer_norm(x, {64});
    CHECK(y.sizes() == x.sizes());
    CHECK(y.is_meta());
    // An op with a real Meta kernel keeps it: add's broadcasting and promotion.
    at::Tensor z = at::add(meta({4, 1}), at::empty({3}, at::TensorOptions().device(at::kMeta).dtype(at::kDouble)));
    CHECK(z.sizes() == at::IntArrayRef{4, 3});
    CHECK(z.scalar_type() == at::kDouble);
  }
  CHECK_THROWS(at::layer_norm(x, {64}));  // undone with the object
}

TEST_CASE("shape functions: family rules for ops with neither a meta kernel nor a shape function") {
  // By reference: TorchScript's registry knows schemas by address.
  auto schema = [](const char* name, const char* overload) -> const c10::FunctionSchema& {
    return c10::Dispatcher::singleton().findSchemaOrThrow(name, overload).schema();
  };
  at::Tensor x = meta({2, 5, 16});
  auto var = kc::shape_only_outputs(schema("aten::var", "correction"),
                                    {x, c10::IValue(std::vector<int64_t>{-1}), c10::IValue(), true}, false);
  REQUIRE(var);
  CHECK((*var)[0].sizes() == at::IntArrayRef{2, 5, 1});
  auto kth = kc::shape_only_outputs(schema("aten::kthvalue", ""), {x, 2, 1, false}, false);
  REQUIRE(kth);
  REQUIRE(kth->size() == 2);
  CHECK((*kth)[0].sizes() == at::IntArrayRef{2, 16});
  CHECK((*kth)[1].scalar_type() == at::kLong);  // indices
  auto roll = kc::shape_only_outputs(
      schema("aten::roll", ""), {x, c10::IValue(std::vector<int64_t>{1}), c10::IValue(std::vector<int64_t>{1})}, false);
  REQUIRE(roll);
  CHECK((*roll)[0].sizes() == x.sizes());
  // TorchScript's own shape function: linear.
  auto lin = kc::shape_only_outputs(schema("aten::linear", ""), {x, meta({8, 16}), c10::IValue()}, false);
  REQUIRE(lin);
  CHECK((*lin)[0].sizes() == at::IntArrayRef{2, 5, 8});
  // Not covered: nothing is made up.
  CHECK_FALSE(
      kc::shape_only_outputs(schema("aten::_cummax_helper", ""), {x, meta({2, 5, 16}), meta({2, 5, 16}), 0}, false));
}

TEST_CASE("shape functions: pads, data-dependent sizes, pools and transforms traced models use") {
  auto schema = [](const char* name, const char* overload) -> const c10::FunctionSchema& {
    return c10::Dispatcher::singleton().findSchemaOrThrow(name, overload).schema();
  };
  at::Tensor x = meta({2, 64, 32, 32});
  auto pad = kc::shape_only_outputs(schema("aten::reflection_pad2d", ""),
                                    {x, c10::IValue(std::vector<int64_t>{1, 1, 2, 2})}, false);
  REQUIRE(pad);
  CHECK((*pad)[0].sizes() == at::IntArrayRef{2, 64, 36, 34});
  // nonzero's row count depends on the data: every element selected is the bound.
  auto nz = kc::shape_only_outputs(schema("aten::nonzero", ""), {meta({8, 1024})}, false);
  REQUIRE(nz);
  CHECK((*nz)[0].sizes() == at::IntArrayRef{8192, 2});
  CHECK((*nz)[0].scalar_type() == at::kLong);
  auto vm = kc::shape_only_outputs(schema("aten::var_mean", "correction"),
                                   {x, c10::IValue(std::vector<int64_t>{1}), c10::IValue(), false}, false);
  REQUIRE(vm);
  REQUIRE(vm->size() == 2);
  CHECK((*vm)[1].sizes() == at::IntArrayRef{2, 32, 32});
  auto grid = kc::shape_only_outputs(schema("aten::grid_sampler_2d", ""), {x, meta({2, 16, 8, 2}), 0, 0, false}, false);
  REQUIRE(grid);
  CHECK((*grid)[0].sizes() == at::IntArrayRef{2, 64, 16, 8});
  auto rfft = kc::shape_only_outputs(schema("aten::_fft_r2c", ""),
                                     {meta({8, 1024}), c10::IValue(std::vector<int64_t>{1}), 0, true}, false);
  REQUIRE(rfft);
  CHECK((*rfft)[0].sizes() == at::IntArrayRef{8, 513});
  CHECK((*rfft)[0].scalar_type() == at::kComplexFloat);
}

TEST_CASE("shape functions: the rules that answer before the registry agree with its shape functions") {
  auto schema = [](const char* name, const char* overload) -> const c10::FunctionSchema& {
    return c10::Dispatcher::singleton().findSchemaOrThrow(name, overload).schema();
  };
  auto ints = [](std::vector<int64_t> v) { return c10::IValue(v); };
  auto same = [&](const c10::FunctionSchema& s, const std::vector<c10::IValue>& args) {
    auto ours = kc::shape_only_outputs(s, args, false);
    auto theirs = kc::shapes_from_shape_function(s, args);
    REQUIRE(ours);
    REQUIRE(theirs);
    REQUIRE(ours->size() == theirs->size());
    for (size_t i = 0; i < ours->size(); ++i) CHECK((*ours)[i].sizes() == at::IntArrayRef((*theirs)[i]));
  };
  const auto& conv = schema("aten::convolution", "");
  // Strided, padded, dilated, grouped 2-d; 1-d and 3-d; transposed with output padding.
  same(conv, {meta({2, 8, 17, 23}), meta({16, 4, 3, 5}), c10::IValue(), ints({2, 1}), ints({1, 2}), ints({1, 2}), false,
              ints({0, 0}), 2});
  same(conv, {meta({2, 8, 100}), meta({4, 8, 7}), c10::IValue(), ints({3}), ints({0}), ints({1}), false, ints({0}), 1});
  same(conv, {meta({1, 4, 5, 9, 9}), meta({8, 4, 3, 3, 3}), c10::IValue(), ints({1, 2, 2}), ints({1, 1, 1}),
              ints({1, 1, 1}), false, ints({0, 0, 0}), 1});
  same(conv, {meta({2, 8, 7, 7}), meta({8, 3, 4, 4}), c10::IValue(), ints({2, 2}), ints({1, 1}), ints({1, 1}), true,
              ints({1, 0}), 1});
  // What the formulas cannot take (a zero stride; a kernel larger than the padded input) goes on
  // to the shape function, whose answer stands: none for the zero stride.
  const std::vector<c10::IValue> zero_stride{meta({2, 8, 7, 7}),
                                             meta({8, 8, 3, 3}),
                                             c10::IValue(),
                                             ints({0, 1}),
                                             ints({0, 0}),
                                             ints({1, 1}),
                                             false,
                                             ints({0, 0}),
                                             1};
  CHECK_FALSE(kc::shapes_from_shape_function(conv, zero_stride));
  CHECK_FALSE(kc::shape_only_outputs(conv, zero_stride, false));
  const std::vector<c10::IValue> too_small{meta({2, 8, 2, 2}),
                                           meta({8, 8, 3, 3}),
                                           c10::IValue(),
                                           ints({1, 1}),
                                           ints({0, 0}),
                                           ints({1, 1}),
                                           false,
                                           ints({0, 0}),
                                           1};
  auto theirs = kc::shapes_from_shape_function(conv, too_small);
  auto ours = kc::shape_only_outputs(conv, too_small, false);
  REQUIRE(bool(theirs) == bool(ours));
  if (ours) CHECK((*ours)[0].sizes() == at::IntArrayRef((*theirs)[0]));
  const auto& bn = schema("aten::native_batch_norm", "");
  for (bool training : {false, true})
    same(bn, {meta({4, 16, 8, 8}), meta({16}), meta({16}), meta({16}), meta({16}), training, 0.1, 1e-5});
  same(schema("aten::index_select", ""), {meta({30, 64}), 0, meta({7})});
  same(schema("aten::index_select", ""), {meta({30, 64}), -1, meta({7})});
  same(schema("aten::where", "self"), {meta({4, 1, 8}), meta({1, 3, 1}), meta({8})});
  same(schema("aten::relu", ""), {meta({2, 3, 4})});
}

TEST_CASE("shapes: an elementwise result is laid out as TensorIterator lays it out") {
  auto meta = [](std::vector<int64_t> sizes, std::vector<int64_t> strides) {
    return at::empty_strided(sizes, strides, at::TensorOptions().device(at::kMeta));
  };
  // A permuted input ([2, 4, 128, 128] whose dim 1 is fastest, as T5's position bias) keeps
  // its order; a broadcast operand does not decide it.
  const at::Tensor permuted = meta({2, 4, 128, 128}, {65536, 1, 512, 4});
  const at::Tensor row = meta({1, 1, 1, 128}, {128, 128, 128, 1});
  CHECK(kc::tensor_iterator_strides({2, 4, 128, 128}, {permuted, row}) == std::vector<int64_t>{65536, 1, 512, 4});
  // Contiguous inputs give a contiguous result; so do broadcast ones.
  const at::Tensor dense = meta({3, 5}, {5, 1});
  CHECK(kc::tensor_iterator_strides({3, 5}, {dense, dense}) == std::vector<int64_t>{5, 1});
  CHECK(kc::tensor_iterator_strides({3, 5}, {meta({5}, {1})}) == std::vector<int64_t>{5, 1});
  // A transposed first input decides over a contiguous second one.
  const at::Tensor transposed = meta({3, 5}, {1, 3});
  CHECK(kc::tensor_iterator_strides({3, 5}, {transposed, dense}) == std::vector<int64_t>{1, 3});
}
