// Builds small IR graphs by hand for pass tests, without libtorch.
#pragma once

#include <string>
#include <vector>

#include "analyzer/graph.h"
#include "passes/launches.h"
#include "passes/target.h"

namespace kc::test {

class GraphBuilder {
 public:
  // A user input (or a weight, with role) of the given sizes, contiguous.
  int input(std::vector<int64_t> sizes, DType dt = DType::kFloat32, ValueRole role = ValueRole::kInput) {
    int v = value(std::move(sizes), dt);
    g.values[v].role = role;
    if (role == ValueRole::kInput) g.inputs.push_back(v);
    return v;
  }
  // An op reading `ins`, writing one new tensor of `out_sizes` (or the first input's sizes).
  int op(const std::string& name, std::vector<int> ins, OpTraits traits = {}, std::vector<int64_t> out_sizes = {},
         DType out_dtype = DType::kUnknown) {
    Op o;
    o.name = name;
    o.traits = traits;
    const char* names[] = {"self", "other", "third", "fourth"};
    for (size_t i = 0; i < ins.size(); ++i) o.args.push_back(Arg::tensor(i < 4 ? names[i] : "arg", ins[i]));
    // With no inputs, the first value of the graph stands in (its args are set afterwards); in
    // a graph with none (a factory), the output's sizes and dtype are the ones given.
    const Value* first = !ins.empty() ? &g.values[ins[0]] : g.values.empty() ? nullptr : &g.values[0];
    int out = value(out_sizes.empty() && first ? first->sizes : out_sizes,
                    out_dtype == DType::kUnknown && first ? first->dtype : out_dtype);
    g.values[out].producer = static_cast<int>(g.ops.size());
    o.outputs = {out};
    o.loc = {"model.py", static_cast<int>(g.ops.size()) + 10, ""};
    g.ops.push_back(o);
    return out;
  }
  int pointwise(const std::string& name, std::vector<int> ins) {
    OpTraits t;
    t.pointwise = true;
    return op(name, std::move(ins), t);
  }
  int view(const std::string& name, int in, std::vector<int64_t> sizes) {
    OpTraits t;
    t.view = true;
    return op(name, {in}, t, std::move(sizes));
  }
  int reduction(const std::string& name, int in, std::vector<int64_t> sizes) {
    OpTraits t;
    t.reduction = true;
    return op(name, {in}, t, std::move(sizes));
  }
  void output(int v) { g.outputs.push_back(v); }
  // Adds an int-list argument to the last op.
  void arg_ints(const std::string& name, std::vector<int64_t> v) {
    add_arg(name, Arg::Kind::kIntList).ints = std::move(v);
  }
  // Renames the last op's i-th tensor argument (schemas name them: "input", "weight", "bias").
  void name_arg(size_t i, const std::string& name) { g.ops.back().args[i].name = name; }
  // A value with the given sizes and strides (a view's layout).
  int strided(std::vector<int64_t> sizes, std::vector<int64_t> strides, DType dt = DType::kFloat32) {
    int v = input(std::move(sizes), dt);
    g.values[v].strides = std::move(strides);
    return v;
  }
  // Adds a non-tensor argument to the last op.
  void arg_bool(const std::string& name, bool v) { add_arg(name, Arg::Kind::kBool).ints = {v}; }
  void arg_int(const std::string& name, int64_t v) { add_arg(name, Arg::Kind::kInt).ints = {v}; }
  void arg_float(const std::string& name, double v) { add_arg(name, Arg::Kind::kFloat).floats = {v}; }
  void arg_text(const std::string& name, const std::string& v) { add_arg(name, Arg::Kind::kString).text = v; }
  void arg_device(const std::string& v) { add_arg("device", Arg::Kind::kDevice).text = v; }
  // A memory_format argument, in the export schema's numbering (2: channels last).
  void arg_memory_format(int v) { add_arg("memory_format", Arg::Kind::kMemoryFormat).text = std::to_string(v); }
  // A tensor-list argument on the last op (cat's, block_diag's "tensors").
  void arg_tensors(const std::string& name, std::vector<int> vs) {
    add_arg(name, Arg::Kind::kTensorList).tensors = std::move(vs);
  }

  Graph g;

 private:
  Arg& add_arg(const std::string& name, Arg::Kind kind) {
    Arg a;
    a.name = name;
    a.kind = kind;
    g.ops.back().args.push_back(a);
    return g.ops.back().args.back();
  }
  int value(std::vector<int64_t> sizes, DType dt) {
    Value v;
    v.name = "v" + std::to_string(g.values.size());
    v.sizes = std::move(sizes);
    v.strides.resize(v.sizes.size());
    int64_t s = 1;
    for (size_t i = v.sizes.size(); i-- > 0;) {
      v.strides[i] = s;
      s *= v.sizes[i];
    }
    v.dtype = dt;
    v.device = "cuda:0";
    return g.add_value(std::move(v));
  }
};

// The launches of the graph's last op by the default target's rules alone (no measured table).
inline Launch rules_only(const GraphBuilder& b) {
  LaunchOptions o;
  o.use_measured = false;
  return run_launches(b.g, default_target(), o).back();
}

}  // namespace kc::test
