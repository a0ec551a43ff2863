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
