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

// Facts about one op that rule conditions test, computed once per op.
struct OpFacts {
  const Graph* graph = nullptr;
  const Op* op = nullptr;
  int index = 0;                  // the op's index in the graph
  OpClass cls = OpClass::kOther;  // from the op class table
  std::vector<int> inputs;        // the op's tensor inputs, in argument order
  DType dtype = DType::kUnknown;  // dtype of the first tensor input (or output for factories)
  bool on_host = false;           // every tensor involved lives on the host: nothing reaches the GPU
  int64_t out_numel = 0;          // elements of the first output
  int64_t in_numel = 0;           // elements of the first tensor input

  const Value* input(int i) const;  // i-th tensor input, nullptr when absent
  const Value* output(int i) const;
  const Arg* arg(const std::string& name) const;
  bool has_tensor_arg(const std::string& name) const;
  int64_t int_arg(const std::string& name, int64_t fallback) const;
  bool bool_arg(const std::string& name, bool fallback) const;
};

struct LaunchRule {
  std::string id;                // stable id, shown per op: "gemm.linear.bf16"
  std::vector<std::string> ops;  // full op names it applies to ("aten::linear"); empty: see `cls`
  std::optional<OpClass> cls;    // with no op names: the class it applies to; neither: every op
  std::string when;              // the condition in words, for --list-rules
  bool (*matches)(const OpFacts&) = nullptr;  // nullptr: always
  Counts counts;
  // Counts that depend on the shapes (e.g. a reshape that copies); overrides `counts`.
  Counts (*compute)(const OpFacts&) = nullptr;
  std::string evidence;  // the measurement: "truth:linear_bias_3d_bfloat16", "corpus:resnet50"

  bool fits(const OpFacts& f) const;
  Counts predict(const OpFacts& f) const;
};

// Fills OpFacts for op i of g (whose values carry their placement).
OpFacts op_facts(const Graph& g, int i);

// Checks the operand ranks and dtypes the op's ATen schema requires and the rules index
// (GEMM operands of rank 2 or 3, conv input rank = weight rank, SDPA rank >= 2, norm and cat
// ranks and dims); throws OpError naming the operand. Checks nothing else about the op.
void check_operands(const OpFacts& f);

// True when a view with these strides can take the new sizes without copying (ATen's
// computeStride), i.e. reshape/view/flatten move no data.
bool view_is_possible(const std::vector<int64_t>& sizes, const std::vector<int64_t>& strides,
                      const std::vector<int64_t>& new_sizes);

// --- Mechanisms the rule tables are written with (conditions and shape-dependent counts) ---

bool on_host(const OpFacts& f);
bool tagged_pointwise(const OpFacts& f);
bool to_host(const OpFacts& f);
bool fp32(const OpFacts& f);
bool eval_mode(const OpFacts& f);
bool bn_eval_fp32(const OpFacts& f);
bool bn_eval_half(const OpFacts& f);
bool linear_half_widening(const OpFacts& f);
bool sdpa_plain_half(const OpFacts& f);
bool sdpa_plain_fp32(const OpFacts& f);
bool sdpa_masked_half(const OpFacts& f);
bool sdpa_masked_fp32(const OpFacts& f);
bool global_reduction(const OpFacts& f);
bool conv2d_forward(const OpFacts& f);  // 4-d input and weight, not transposed
Counts clone_counts(const OpFacts& f);
Counts gemm_counts(const OpFacts& f);
Counts gemm_half_counts(const OpFacts& f);
Counts norm_counts(const OpFacts& f);
Counts pad_counts(const OpFacts& f);
Counts cat_counts(const OpFacts& f);
Counts conv_counts(const OpFacts& f);
Counts index_counts(const OpFacts& f);
Counts reshape_counts(const OpFacts& f);
Counts contiguous_counts(const OpFacts& f);
Counts to_counts(const OpFacts& f);

}  // namespace kc
