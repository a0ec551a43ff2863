#include "analyzer/graph.h"

#include <limits>

#include "analyzer/tensor_geometry.h"

namespace kc {

int64_t Value::numel() const {
  int64_t n = 1;
  for (int64_t s : sizes) n *= s;
  return n;
}

int64_t Value::bytes() const {
  return numel() * dtype_size(dtype);
}

bool Value::contiguous() const {
  return row_major_dense(sizes, strides);
}

Arg Arg::tensor(std::string name, int value) {
  Arg a;
  a.name = std::move(name);
  a.kind = Kind::kTensor;
  a.tensors = {value};
  return a;
}

std::string Op::full_name() const {
  return overload.empty() ? name.str() : name + "." + overload;
}

std::vector<int> Op::tensor_inputs() const {
  // Sized first: every pass asks for every op's inputs, and growing would allocate again.
  size_t n = 0;
  for (const auto& a : args)
    if (a.kind == Arg::Kind::kTensor || a.kind == Arg::Kind::kTensorList) n += a.tensors.size();
  std::vector<int> out;
  out.reserve(n);
  for (const auto& a : args)
    if (a.kind == Arg::Kind::kTensor || a.kind == Arg::Kind::kTensorList)
      for (int v : a.tensors)
        if (v >= 0) out.push_back(v);
  return out;
}

int Graph::add_value(Value v) {
  values.push_back(std::move(v));
  return static_cast<int>(values.size()) - 1;
}

std::optional<std::string> Graph::check() const {
  const int n = static_cast<int>(values.size());
  for (int i = 0; i < n; ++i) {
    const Value& v = values[i];
    if (v.dtype == DType::kUnknown) return "value " + v.name + " has no dtype";
    if (v.strides.size() != v.sizes.size()) return "value " + v.name + " has strides of another rank";
    int64_t numel = 1;
    for (int64_t s : v.sizes) {
      if (s < 0) return "value " + v.name + " has a negative size";
      if (s != 0 && numel > std::numeric_limits<int64_t>::max() / s)
        return "value " + v.name + " has more elements than fit in 64 bits";
      numel *= s;
    }
    if (dtype_size(v.dtype) > 0 && numel > std::numeric_limits<int64_t>::max() / dtype_size(v.dtype))
      return "value " + v.name + " has more bytes than fit in 64 bits";
  }
  const int n_ops = static_cast<int>(ops.size());
  for (int i = 0; i < n; ++i)
    if (values[i].producer >= n_ops || values[i].producer < -1)
      return "value " + values[i].name + " names an op that does not exist as producer";
  for (int v : inputs)
    if (v < 0 || v >= n) return "a graph input is a value that does not exist";
  for (int v : outputs)
    if (v < -1 || v >= n) return "a graph output is a value that does not exist";
  for (int i = 0; i < n_ops; ++i) {
    const Op& op = ops[i];
    // Built only for a message: this runs for every op of every graph.
    auto at = [&] { return "op " + std::to_string(i) + " (" + op.full_name() + ")"; };
    if (op.repeat < 1 || op.repeat > kMaxRepeat) return at() + " runs " + std::to_string(op.repeat) + " times";
    // Every value is defined before it is read: the graph is a straight line, so this also
    // rules out cycles. In-place and out= ops may name their own result among their inputs.
    std::optional<std::string> broken;
    op.for_each_tensor_input([&](int v) {
      if (broken) return;
      if (v >= n) {
        broken = at() + " reads a value that does not exist";
        return;
      }
      const Value& val = values[v];
      if (val.role != ValueRole::kIntermediate) return;
      if (val.producer < 0)
        broken = at() + " reads " + val.name + ", which no op writes and which is not an input, weight or constant";
      else if (val.producer > i)
        broken = at() + " reads " + val.name + " before op " + std::to_string(val.producer) + " writes it";
      else if (val.producer == i && !op.traits.inplace && !op.traits.out_variant)
        broken = at() + " reads its own output " + val.name;
    });
    if (broken) return broken;
    for (const Arg& a : op.args)
      for (int v : a.tensors)
        if (v < -1) return at() + " reads a value that does not exist";
    for (int v : op.outputs) {
      if (v >= n || v < -1) return at() + " writes a value that does not exist";
      if (v >= 0 && values[v].producer != static_cast<int>(i) && !ops[i].traits.inplace && !ops[i].traits.out_variant)
        return "value " + values[v].name + " does not name op " + std::to_string(i) + " as producer";
    }
  }
  return std::nullopt;
}

void propagate_requires_grad_to_views(Graph& g) {
  for (const Op& op : g.ops) {
    if (!op.traits.view) continue;
    bool grad = false;
    op.for_each_tensor_input([&](int in) { grad = grad || g.values[in].requires_grad; });
    for (int out : op.outputs)
      if (out >= 0) g.values[out].requires_grad = grad;
  }
}

}  // namespace kc
