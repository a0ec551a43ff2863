#include "analyzer/placement.h"

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
}

}  // namespace kc
