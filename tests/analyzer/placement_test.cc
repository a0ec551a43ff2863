// Placement (analyzer/placement.cc): where values live, and the inputs of a model recorded on
// the CPU as `.to(device)` moves them to the GPU.
#include "analyzer/placement.h"

#include <catch2/catch.hpp>

using Catch::Matchers::Contains;

namespace {

kc::Graph one_input(const std::string& device, std::vector<int64_t> strides) {
  kc::Graph g;
  kc::Value v;
  v.name = "x";
  v.sizes = {5, 5};
  v.strides = std::move(strides);
  v.dtype = kc::DType::kFloat32;
  v.device = device;
  v.role = kc::ValueRole::kInput;
  g.values.push_back(v);
  g.inputs.push_back(0);
  return g;
}

}  // namespace

TEST_CASE(
    "placement: a CPU-recorded input with gaps arrives dense in its strides' order; dense and GPU-recorded ones keep "
    "strides") {
  // opinfo:argwhere sample 2: [5, 5] with strides (10, 2), moved by .cuda(): nonzero ran no copy.
  kc::Graph gaps = one_input("cpu", {10, 2});
  kc::assign_placement(gaps);
  CHECK(gaps.values[0].strides == std::vector<int64_t>{5, 1});
  REQUIRE(gaps.info.notes.size() == 1);
  CHECK_THAT(gaps.info.notes[0], Contains("input 'x'"));
  // Transposed with gaps, (2, 10): dense again in the same order, (1, 5), as _to_copy's
  // preserve_format lays it out (opinfo_reference: contiguous() of such inputs ran a copy kernel).
  kc::Graph transposed_gaps = one_input("cpu", {2, 10});
  kc::assign_placement(transposed_gaps);
  CHECK(transposed_gaps.values[0].strides == std::vector<int64_t>{1, 5});
  // Overlapping, (1, 1): equal strides keep the smaller dim innermost (infer_dense_strides).
  kc::Graph overlap = one_input("cpu", {1, 1});
  overlap.values[0].sizes = {5, 6};
  kc::assign_placement(overlap);
  CHECK(overlap.values[0].strides == std::vector<int64_t>{1, 5});
  // A transposed input is dense in another order: .to() keeps its strides.
  kc::Graph transposed = one_input("cpu", {1, 5});
  kc::assign_placement(transposed);
  CHECK(transposed.values[0].strides == std::vector<int64_t>{1, 5});
  CHECK(transposed.info.notes.empty());
  // Recorded on the GPU: the strides are the run's own.
  kc::Graph gpu = one_input("cuda:0", {10, 2});
  kc::assign_placement(gpu);
  CHECK(gpu.values[0].strides == std::vector<int64_t>{10, 2});
}
