// Launch rules: data saying what eager PyTorch launches for an op on a target, each with the
// measurement it rests on, and the shape mechanisms the rules are written with. Each target
// (passes/targets/) owns its rule table; the launches pass, --list-rules and docs/rules.md
// all read that one table.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "analyzer/graph.h"
#include "passes/counts.h"
#include "passes/op_classes.h"

namespace kc {

struct Target;

// Facts about one op that rule conditions test, computed once per op.
struct OpFacts {
  const Graph* graph = nullptr;
  const Op* op = nullptr;
  const Target* target = nullptr;  // what the op is predicted for: its device and tables
  int index = 0;                   // the op's index in the graph
  OpClass cls = OpClass::kOther;   // from the op class table
  std::vector<int> inputs;         // the op's tensor inputs, in argument order
  DType dtype = DType::kUnknown;   // dtype of the first tensor input (or output for factories)
  bool on_host = false;            // every tensor involved lives on the host: nothing reaches the GPU
  int64_t out_numel = 0;           // elements of the first output
  int64_t in_numel = 0;            // elements of the first tensor input
  // Where a rule that asks cuDNN's heuristics notes where the answer came from ("table",
  // "cache", "cudnn", "none"); nullptr: the caller does not ask.
  std::string* cudnn_answer = nullptr;
  // And the engine it answered (-1: none); nullptr: the caller does not ask.
  int64_t* cudnn_engine = nullptr;

  const Value* input(int i) const;  // i-th tensor input, nullptr when absent
  const Value* output(int i) const;
  const Arg* arg(const std::string& name) const;
  bool has_tensor_arg(const std::string& name) const;
  const Value* tensor_arg(const std::string& name) const;  // the named tensor argument, nullptr when absent
  int64_t int_arg(const std::string& name, int64_t fallback) const;
  bool bool_arg(const std::string& name, bool fallback) const;
  std::string text_arg(const std::string& name, const std::string& fallback) const;  // a string argument
};

// One rule of a target's table; written with rule(id) (passes/rule_builder.h), which checks it.
struct LaunchRule {
  std::string id;                             // stable id, shown per op: "gemm.linear.bf16"
  std::vector<std::string> ops;               // full op names it applies to ("aten::linear"); empty: see `cls`
  std::optional<OpClass> cls;                 // with no op names: the class it applies to; neither: every op
  std::string when;                           // the condition in words, for --list-rules
  bool (*matches)(const OpFacts&) = nullptr;  // nullptr: always
  Counts counts;
  // Counts that depend on the shapes (e.g. a reshape that copies); overrides `counts`.
  Counts (*compute)(const OpFacts&) = nullptr;
  std::string evidence;  // the measurement: "truth:linear_bias_3d_bfloat16", "corpus:resnet50"
  std::string why;       // plain words for `kernelcount explain`: why the op costs what it costs
  // What part of the count the values decide, not the shapes (iterations to convergence, a
  // fallback, how many elements a mask selects), and what the rule counts for them; empty: the
  // shapes decide everything. Reports show it beside the op as a value-dependent count.
  std::string data_dependent;
  // The condition or counts read other ops of the graph (the view chain behind an input), not
  // only the op's own arguments and values: ops it applies to are decided one by one, never
  // taken from an earlier op of the same signature.
  bool reads_graph = false;

  // Whether the rule is written for this op (its names or class), before its condition.
  bool applies_to(const OpFacts& f) const;
  bool fits(const OpFacts& f) const;
  Counts predict(const OpFacts& f) const;
};

// Fills OpFacts for op i of g (whose values carry their placement), predicted for `target`.
OpFacts op_facts(const Graph& g, int i, const Target& target);

// Checks the operand ranks and dtypes the op's ATen schema requires and the rules index
// (GEMM operands of rank 2 or 3, conv input rank = weight rank, SDPA rank >= 2, norm and cat
// ranks and dims, linalg matrices of rank >= 2); throws OpError naming the operand. Checks nothing
// else about the op.
void check_operands(const OpFacts& f);

// The strides of a view of new_sizes over (sizes, strides) as ATen's computeStride makes them,
// or nothing when no view fits and a reshape must copy (an empty tensor: nothing either).
std::optional<std::vector<int64_t>> view_strides(const std::vector<int64_t>& sizes, const std::vector<int64_t>& strides,
                                                 const std::vector<int64_t>& new_sizes);

// True when a view with these strides can take the new sizes without copying (ATen's
// computeStride), i.e. reshape/view/flatten move no data.
bool view_is_possible(const std::vector<int64_t>& sizes, const std::vector<int64_t>& strides,
                      const std::vector<int64_t>& new_sizes);

// --- Mechanisms shared by every target's rule families (passes/targets/<target>/) ---

bool is_half(DType t);  // bf16 or fp16
// One kernel, or nothing when the first output has no elements (TensorIterator returns early).
Counts one_kernel_unless_empty(const OpFacts& f);
// Dense in channels-last order (C fastest, then W, H, (D), N; size-1 dims ignored): what
// `.contiguous(ChannelsLast)` leaves without a copy. 4-d and 5-d tensors only.
bool channels_last_dense(const std::vector<int64_t>& sizes, const std::vector<int64_t>& strides);
bool all_equal(const Arg* a, int64_t v);  // every int of the argument (absent: true)
bool on_host(const OpFacts& f);           // nothing involved lives on the device
bool fp32(const OpFacts& f);
bool eval_mode(const OpFacts& f);       // training=False (or no such argument)
Counts clone_counts(const OpFacts& f);  // memcpy for a dense input, else a copy kernel
// Dense in the memory format ATen suggests for it (row-major, or channels_last for 4-D/5-D):
// what `t.contiguous(t.suggest_memory_format())` and memory-format-keeping copies leave as is.
bool dense_in_memory_format(const Value& v);

}  // namespace kc
