#include "analyzer/tensor_geometry.h"

#include <algorithm>
#include <utility>

namespace kc {

std::vector<int64_t> contiguous_strides(const std::vector<int64_t>& sizes) {
  std::vector<int64_t> s(sizes.size());
  int64_t next = 1;
  for (size_t i = sizes.size(); i-- > 0;) {
    s[i] = next;
    next *= std::max<int64_t>(sizes[i], 1);
  }
  return s;
}

std::vector<int64_t> strides_in_order(const std::vector<int64_t>& sizes, const std::vector<int>& order) {
  std::vector<int64_t> s(sizes.size());
  int64_t next = 1;
  for (int d : order) {
    s[d] = next;
    next *= std::max<int64_t>(sizes[d], 1);
  }
  return s;
}

std::vector<int> channels_last_order(size_t rank) {
  std::vector<int> order = {1};
  for (int d = static_cast<int>(rank) - 1; d >= 2; --d) order.push_back(d);
  order.push_back(0);
  return order;
}

bool dense_in_order(const std::vector<int64_t>& sizes, const std::vector<int64_t>& strides,
                    const std::vector<int>& order) {
  if (strides.size() != sizes.size()) return false;
  int64_t expected = 1;
  for (int d : order) {
    if (sizes[d] != 1 && strides[d] != expected) return false;
    expected *= sizes[d];
  }
  return true;
}

bool dense_in_stride_order(const std::vector<int64_t>& sizes, const std::vector<int64_t>& strides) {
  if (strides.size() != sizes.size()) return false;
  return dense_in_order(sizes, strides, tensor_iterator_order(sizes, {strides}));
}

bool row_major_dense(const std::vector<int64_t>& sizes, const std::vector<int64_t>& strides) {
  std::vector<int> order(sizes.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = static_cast<int>(order.size() - 1 - i);
  return dense_in_order(sizes, strides, order);
}

std::vector<int64_t> broadcast_shape(const std::vector<int64_t>& a, const std::vector<int64_t>& b) {
  std::vector<int64_t> out(std::max(a.size(), b.size()), 1);
  for (size_t i = 0; i < out.size(); ++i) {
    const int64_t x = i < a.size() ? a[a.size() - 1 - i] : 1, y = i < b.size() ? b[b.size() - 1 - i] : 1;
    out[out.size() - 1 - i] = x == 1 ? y : x;
  }
  return out;
}

std::vector<int> tensor_iterator_order(const std::vector<int64_t>& sizes,
                                       const std::vector<std::vector<int64_t>>& operand_strides, bool reduction) {
  const int n = static_cast<int>(sizes.size());
  // 1: d0 goes after d1 (varies more slowly); -1: before; 0: undecided.
  auto should_swap = [&](int d0, int d1) {
    for (size_t arg = 0; arg < operand_strides.size(); ++arg) {
      const int64_t s0 = operand_strides[arg][d0], s1 = operand_strides[arg][d1];
      if (reduction && arg == 0 && (s0 == 0) != (s1 == 0)) return s1 == 0 ? 1 : -1;
      if (s0 == 0 || s1 == 0) continue;
      if (s0 < s1) return -1;
      if (s0 > s1) return 1;
      if (sizes[d0] > sizes[d1]) return 1;
    }
    return 0;
  };
  // An insertion sort from n-1 ... 0, as ATen's, that tolerates undecided pairs.
  std::vector<int> order(n);
  for (int i = 0; i < n; ++i) order[i] = n - 1 - i;
  for (int i = 1; i < n; ++i) {
    int d1 = i;
    for (int d0 = i - 1; d0 >= 0; --d0) {
      const int c = should_swap(order[d0], order[d1]);
      if (c > 0) {
        std::swap(order[d0], order[d1]);
        d1 = d0;
      } else if (c < 0) {
        break;
      }
    }
  }
  return order;
}

}  // namespace kc
