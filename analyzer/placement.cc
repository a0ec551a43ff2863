#include "analyzer/placement.h"

#include "analyzer/tensor_geometry.h"

namespace kc {

std::string recorded_model_device(const Graph& g) {
  for (int v : g.inputs)
    if (v >= 0) return g.values[v].device;
  for (const Value& v : g.values)
    if (v.role == ValueRole::kParameter || v.role == ValueRole::kBuffer) return v.device;
  // A model with neither (factories only) runs where its first tensor is made.
  return g.values.empty() ? "cuda" : g.values.front().device;
}

Placement placement_of(const std::string& device, const std::string& model_device) {
  const bool cpu = device.rfind("cpu", 0) == 0;
  return device == model_device || !cpu ? Placement::kDevice : Placement::kHost;
}

void assign_placement(Graph& g) {
  g.info.device = recorded_model_device(g);
  for (Value& v : g.values) v.placement = placement_of(v.device, g.info.device);
  // A model recorded on the CPU runs on the GPU once its inputs are moved there, and
  // `.to(device)` (or `.cuda()`) keeps the strides only of a non-overlapping and dense tensor:
  // any other input arrives dense with its dimensions in the order its strides give them
  // (_to_copy's preserve_format: infer_dense_strides, TensorIterator's order), so a transposed
  // input with gaps stays transposed.
  if (g.info.device.rfind("cpu", 0) != 0) return;
  for (int i : g.inputs) {
    if (i < 0 || i >= static_cast<int>(g.values.size())) continue;
    Value& v = g.values[i];
    if (v.role != ValueRole::kInput || v.numel() == 0 || dense_in_stride_order(v.sizes, v.strides)) continue;
    v.strides = strides_in_order(v.sizes, tensor_iterator_order(v.sizes, {v.strides}));
    v.storage_offset = 0;
    g.info.notes.push_back("input '" + v.name +
                           "' was recorded with gaps between its elements; moved to the GPU it is dense in the order "
                           "of its strides, as counted");
  }
}

}  // namespace kc
