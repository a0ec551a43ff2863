#include "passes/launch_rules.h"

#include <algorithm>

#include "analyzer/error.h"
#include "passes/op_classes.h"

namespace kc {

const Value* OpFacts::input(int i) const {
  return i < static_cast<int>(inputs.size()) ? &graph->values[inputs[i]] : nullptr;
}

const Value* OpFacts::output(int i) const {
  int seen = 0;
  for (int v : op->outputs)
    if (v >= 0 && seen++ == i) return &graph->values[v];
  return nullptr;
}

const Arg* OpFacts::arg(const std::string& name) const {
  for (const auto& a : op->args)
    if (a.name == name) return &a;
  return nullptr;
}

bool OpFacts::has_tensor_arg(const std::string& name) const {
  const Arg* a = arg(name);
  return a && a->kind == Arg::Kind::kTensor;
}

int64_t OpFacts::int_arg(const std::string& name, int64_t fallback) const {
  const Arg* a = arg(name);
  return a && (a->kind == Arg::Kind::kInt || a->kind == Arg::Kind::kBool) && !a->ints.empty() ? a->ints[0] : fallback;
}

bool OpFacts::bool_arg(const std::string& name, bool fallback) const { return int_arg(name, fallback) != 0; }

bool view_is_possible(const std::vector<int64_t>& sizes, const std::vector<int64_t>& strides,
                      const std::vector<int64_t>& new_sizes) {
  // ATen's computeStride (aten/src/ATen/TensorUtils.cpp): walk the old dims in chunks that are
  // contiguous with each other; each chunk must be exactly covered by new dims.
  int64_t numel = 1;
  for (int64_t s : sizes) numel *= s;
  if (numel == 0 || sizes.empty()) return true;
  int64_t view_d = static_cast<int64_t>(new_sizes.size()) - 1;
  int64_t chunk_base_stride = strides.back();
  int64_t tensor_numel = 1, view_numel = 1;
  for (int64_t d = static_cast<int64_t>(sizes.size()) - 1; d >= 0; --d) {
    tensor_numel *= sizes[d];
    if (d == 0 || (sizes[d - 1] != 1 && strides[d - 1] != tensor_numel * chunk_base_stride)) {
      while (view_d >= 0 && (view_numel < tensor_numel || new_sizes[view_d] == 1)) {
        view_numel *= new_sizes[view_d];
        --view_d;
      }
      if (view_numel != tensor_numel) return false;
      if (d > 0) {
        chunk_base_stride = strides[d - 1];
        tensor_numel = 1;
        view_numel = 1;
      }
    }
  }
  return view_d == -1;
}

bool is_half(DType t) { return t == DType::kBFloat16 || t == DType::kFloat16; }

bool all_equal(const Arg* a, int64_t v) {
  if (!a) return true;
  for (int64_t x : a->ints)
    if (x != v) return false;
  return true;
}

// clone: a dense tensor keeping its layout is one cudaMemcpyAsync; anything else a kernel.
Counts clone_counts(const OpFacts& f) {
  const Value* in = f.input(0);
  if (in && in->contiguous()) return {0, 1, 0, 0};
  return {1, 0, 0, 0};
}

bool dense_in_memory_format(const Value& v) {
  if (v.contiguous()) return true;
  if ((v.sizes.size() != 4 && v.sizes.size() != 5) || v.strides.size() != v.sizes.size()) return false;
  const std::vector<int> order = v.sizes.size() == 4 ? std::vector<int>{1, 3, 2, 0} : std::vector<int>{1, 4, 3, 2, 0};
  int64_t expected = 1;
  for (int d : order) {
    if (v.sizes[d] == 1) continue;
    if (v.strides[d] != expected) return false;
    expected *= v.sizes[d];
  }
  return true;
}

bool on_host(const OpFacts& f) { return f.on_host; }
bool fp32(const OpFacts& f) { return f.dtype == DType::kFloat32; }
bool eval_mode(const OpFacts& f) { return !f.bool_arg("training", false) && !f.bool_arg("train", false); }

OpFacts op_facts(const Graph& g, int i) {
  OpFacts f;
  f.graph = &g;
  f.index = i;
  f.op = &g.ops[i];
  f.cls = op_class(*f.op);
  f.inputs = f.op->tensor_inputs();
  if (const Value* in = f.input(0)) {
    f.dtype = in->dtype;
    f.in_numel = in->numel();
  }
  if (const Value* out = f.output(0)) {
    if (f.dtype == DType::kUnknown) f.dtype = out->dtype;
    f.out_numel = out->numel();
  }
  // Host-only work: the op touches tensors and every one of them lives on the host.
  bool any_tensor = false, any_on_device = false;
  auto visit = [&](int v) {
    any_tensor = true;
    any_on_device |= g.values[v].placement == Placement::kDevice;
  };
  for (int v : f.inputs) visit(v);
  for (int v : f.op->outputs)
    if (v >= 0) visit(v);
  f.on_host = any_tensor && !any_on_device;
  return f;
}

bool LaunchRule::fits(const OpFacts& f) const {
  bool listed = ops.empty() ? !cls || *cls == f.cls : std::find(ops.begin(), ops.end(), f.op->name) != ops.end();
  return listed && (!matches || matches(f));
}

Counts LaunchRule::predict(const OpFacts& f) const { return compute ? compute(f) : counts; }

}  // namespace kc
