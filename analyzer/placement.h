// Decides, once per graph, which values live on the target GPU and which on the host.
#pragma once

#include "analyzer/graph.h"

namespace kc {

// The device the model runs on as the file records it: that of the user inputs, else of the
// weights, else of the first value. A model exported on the CPU still stands for the GPU.
std::string recorded_model_device(const Graph& g);

// Where something recorded on `device` lives when a model recorded on `model_device` runs on
// the target: on the device when it was recorded on the model's device or on any non-CPU
// device (CUDA, meta, unknown); on the host when it was recorded on the CPU while the model
// runs elsewhere (a host scalar, a `.cpu()` result).
Placement placement_of(const std::string& device, const std::string& model_device);

// Sets g.info.device and every value's placement.
void assign_placement(Graph& g);

}  // namespace kc
