// Dense strides, broadcast shapes and TensorIterator's dimension order on plain sizes and strides.
#include "analyzer/tensor_geometry.h"

#include <catch2/catch.hpp>

using Ints = std::vector<int64_t>;

TEST_CASE("geometry: dense strides, in row-major or any order") {
  CHECK(kc::contiguous_strides({2, 3, 4}) == Ints{12, 4, 1});
  CHECK(kc::contiguous_strides({2, 0, 4}) == Ints{4, 4, 1});  // a size-0 dim steps as size 1
  CHECK(kc::contiguous_strides({}).empty());
  CHECK(kc::strides_in_order({2, 3, 4, 5}, {1, 3, 2, 0}) == Ints{60, 1, 15, 3});  // channels last
}

TEST_CASE("geometry: broadcast shapes align at the last dimension") {
  CHECK(kc::broadcast_shape({4, 1, 8}, {3, 1}) == Ints{4, 3, 8});
  CHECK(kc::broadcast_shape({}, {5}) == Ints{5});
  CHECK(kc::broadcast_shape({2, 3}, {2, 3}) == Ints{2, 3});
}

TEST_CASE("geometry: TensorIterator's order, fastest dimension first") {
  // Contiguous operands keep row-major order; so does no operand at all.
  CHECK(kc::tensor_iterator_order({3, 5}, {{5, 1}, {5, 1}}) == std::vector<int>{1, 0});
  CHECK(kc::tensor_iterator_order({3, 5}, {}) == std::vector<int>{1, 0});
  // A permuted first operand decides; a broadcast (stride-0) one does not.
  CHECK(kc::tensor_iterator_order({2, 4, 128, 128}, {{65536, 1, 512, 4}, {0, 0, 0, 1}}) ==
        std::vector<int>{1, 3, 2, 0});
  CHECK(kc::tensor_iterator_order({3, 5}, {{1, 3}, {5, 1}}) == std::vector<int>{0, 1});
  // A reduction puts the output's reduced dimensions first: a sum over dim 0 of [3, 5].
  CHECK(kc::tensor_iterator_order({3, 5}, {{0, 1}, {5, 1}}, true) == std::vector<int>{0, 1});
  CHECK(kc::tensor_iterator_order({3, 5}, {{0, 1}, {5, 1}}) == std::vector<int>{1, 0});
  // Nothing changes where no operand tells two dimensions apart.
  CHECK(kc::tensor_iterator_order({1, 1}, {{0, 0}}) == std::vector<int>{1, 0});
}

TEST_CASE("channels-last order: C, the spatial dims from the last, then N") {
  CHECK(kc::channels_last_order(4) == std::vector<int>{1, 3, 2, 0});
  CHECK(kc::channels_last_order(5) == std::vector<int>{1, 4, 3, 2, 0});
  CHECK(kc::channels_last_order(3) == std::vector<int>{1, 2, 0});
}

TEST_CASE("dense in order: strides are the running product, size-1 dims ignored") {
  const std::vector<int64_t> nchw = {2, 3, 4, 5};
  CHECK(kc::row_major_dense(nchw, {60, 20, 5, 1}));
  CHECK(!kc::row_major_dense(nchw, {60, 1, 15, 3}));  // channels last
  CHECK(kc::dense_in_order(nchw, {60, 1, 15, 3}, kc::channels_last_order(4)));
  CHECK(kc::row_major_dense({2, 1, 5}, {5, 99, 1}));  // a size-1 dim's stride says nothing
  CHECK(!kc::row_major_dense({2, 5}, {10, 1}));       // a gap between rows
  CHECK(!kc::row_major_dense({2, 5}, {5}));           // ranks differ
}
