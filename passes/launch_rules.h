// The launch rules: data saying what eager PyTorch launches for an op on a target, each
// with the measurement it rests on. The launches pass, --list-rules and docs/rules.md all
// read this one table.
#pragma once

#include <string>
#include <vector>

#include "analyzer/graph.h"

namespace kc {

// Facts about one op that rule conditions test, computed once per op.
struct OpFacts {
  const Graph* graph = nullptr;
  const Op* op = nullptr;
  std::string model_device;       // device of the user inputs: stands for the target GPU
  std::vector<int> inputs;        // the op's tensor inputs, in argument order
  DType dtype = DType::kUnknown;  // dtype of the first tensor input (or output for factories)
  bool on_host = false;           // every tensor involved lives on the CPU: nothing reaches the GPU
  int64_t out_numel = 0;          // elements of the first output
  int64_t in_numel = 0;           // elements of the first tensor input

  const Value* input(int i) const;  // i-th tensor input, nullptr when absent
  const Value* output(int i) const;
  const Arg* arg(const std::string& name) const;
  bool has_tensor_arg(const std::string& name) const;
  int64_t int_arg(const std::string& name, int64_t fallback) const;
  bool bool_arg(const std::string& name, bool fallback) const;
};

// What a rule predicts.
struct LaunchCounts {
  int kernels = 0;
  int memcpy = 0;
  int memset = 0;
  int host_syncs = 0;
};

struct LaunchRule {
  std::string id;              // stable id, shown per op: "gemm.linear.bf16"
  std::vector<std::string> ops;  // full op names it applies to ("aten::linear"); empty: see `generic`
  std::string generic;         // for rules keyed on traits: "view", "pointwise", "reduction", ...
  std::string when;            // the condition in words, for --list-rules
  bool (*matches)(const OpFacts&) = nullptr;  // nullptr: always
  LaunchCounts counts;
  // Counts that depend on the shapes (e.g. a reshape that copies); overrides `counts`.
  LaunchCounts (*compute)(const OpFacts&) = nullptr;
  std::string evidence;        // the measurement: "truth:linear_bias_3d_bfloat16", "corpus:resnet50"
};

// Rules for the target, in match order: the first rule whose op list (or generic class) and
// condition fit the op decides.
const std::vector<LaunchRule>& launch_rules(const std::string& target);

// Fills OpFacts for op i of g. `model_device` is the device user inputs live on; tensors
// there stand for the target GPU whatever device the model was exported on.
OpFacts op_facts(const Graph& g, int i, const std::string& model_device);

// True when a view with these strides can take the new sizes without copying (ATen's
// computeStride), i.e. reshape/view/flatten move no data.
bool view_is_possible(const std::vector<int64_t>& sizes, const std::vector<int64_t>& strides,
                      const std::vector<int64_t>& new_sizes);

}  // namespace kc
