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
