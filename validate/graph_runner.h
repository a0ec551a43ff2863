// Runs a .pt2 graph eagerly on the GPU: each aten op in order through libtorch's dispatcher,
// on CUDA tensors, as eager PyTorch would run the exported program.
#pragma once

#include <ATen/Tensor.h>
#include <ATen/core/dispatch/Dispatcher.h>

#include <vector>

#include "analyzer/graph.h"

namespace kc::validate {

// A random tensor of the value's sizes, strides and dtype on `device`: normal for floating
// types, 0 or 1 for integers (valid as indices) and bools; uniform in [0.5, 1.5) when
// `positive` (variances). Launches GPU work: call it outside the recorded run.
at::Tensor random_tensor(const Value& v, c10::Device device, bool positive = false);

class GraphRunner {
 public:
  // Creates every graph input, parameter, buffer and constant: random, or from the archive's
  // stored weights when `real_weights` (inputs stay random). What the model kept on its own
  // device (Value::placement, analyzer/placement.h) runs on `device`, whatever device it
  // was exported on; what it put elsewhere stays on the host, so a .cpu() in a model that runs
  // on the GPU still copies. Throws Error when an op is unknown to this libtorch.
  GraphRunner(const Graph& g, bool real_weights, c10::Device device = c10::Device(c10::kCUDA, 0));

  // Runs every op once. When `tag` is set, the GPU work of op i carries CUPTI external
  // correlation id i + 1. Throws Error naming the op when one fails.
  void run(bool tag);

 private:
  c10::IValue argument(const Op& op, const Arg& arg, const c10::Argument& schema,
                       const std::vector<at::Tensor>& env) const;
  std::string where(int i) const;
  c10::Device place(Placement p) const;

  const Graph& g_;
  c10::Device device_;
  std::vector<c10::OperatorHandle> handles_;  // per op
  std::vector<at::Tensor> initial_;           // per value: inputs and weights, else undefined
  std::vector<int> last_use_;                 // per value: the last op reading it, -1 for none
};

}  // namespace kc::validate
