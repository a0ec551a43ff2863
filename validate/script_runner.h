// Runs a TorchScript model on the GPU through torch::jit, with the graph executor's
// optimizations and fusers off so that it launches what eager PyTorch would, and matches the
// aten ops seen at run time to the graph's ops.
#pragma once

#include <torch/script.h>

#include <string>
#include <vector>

#include "analyzer/graph.h"

namespace kc::validate {

class ScriptRunner {
 public:
  // Loads the module onto `device` (with its own weights) and creates random inputs of the
  // shapes the graph was built for.
  explicit ScriptRunner(const Graph& g, c10::Device device = c10::Device(c10::kCUDA, 0));
  ~ScriptRunner();
  ScriptRunner(const ScriptRunner&) = delete;
  ScriptRunner& operator=(const ScriptRunner&) = delete;

  // Runs forward() once. When `tag` is set, the GPU work of the k-th outermost aten op that
  // runs carries CUPTI external correlation id k (from 1).
  void run(bool tag);

  // After a tagged run: for id k, the graph op at k - 1 (-1 where the runtime op has no
  // counterpart in the graph), and the names of those runtime ops.
  const std::vector<int>& op_of_id() const { return op_of_id_; }
  std::vector<std::string> unmatched() const;

 private:
  const Graph& g_;
  torch::jit::Module module_;
  std::vector<c10::IValue> inputs_;
  std::vector<std::string> runtime_ops_;  // outermost aten ops of the last tagged run
  std::vector<int> op_of_id_;
  uint64_t callback_ = 0;
};

}  // namespace kc::validate
