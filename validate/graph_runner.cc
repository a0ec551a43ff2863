#include "validate/graph_runner.h"

#include <ATen/ATen.h>
#include <ATen/ScalarOps.h>
#include <ATen/core/stack.h>
#include <torch/csrc/autograd/grad_mode.h>

#include <map>
#include <unordered_map>
#include <unordered_set>

#include "analyzer/error.h"
#include "analyzer/placement.h"
#include "analyzer/torch_types.h"
#include "passes/launches.h"
#include "validate/cupti_recorder.h"
#include "validate/pt2_weights.h"

namespace kc::validate {
namespace {

std::string first_line(const std::string& s) {
  return s.substr(0, s.find('\n'));
}

// Elements of storage that sizes and strides address (0 for an empty tensor).
int64_t storage_elements(const Value& v) {
  int64_t n = 1;
  for (size_t d = 0; d < v.sizes.size(); ++d) {
    if (v.sizes[d] == 0) return 0;
    n += (v.sizes[d] - 1) * v.strides[d];
  }
  return n;
}

// Pops the external correlation id pushed for one op, also when the op throws.
struct TagScope {
  explicit TagScope(bool on, uint64_t id) : on(on) {
    if (on) CuptiRecorder::push(id);
  }
  ~TagScope() {
    if (on) {
      try {
        CuptiRecorder::pop();
      } catch (...) {
      }
    }
  }
  bool on;
};

}  // namespace

at::Tensor random_tensor(const Value& v, c10::Device device, bool positive) {
  const int64_t n = storage_elements(v);
  const c10::ScalarType type = to_scalar_type(v.dtype);
  auto opts = at::TensorOptions().device(device);
  at::Tensor flat;
  if (is_floating(v.dtype) || v.dtype == DType::kComplex64 || v.dtype == DType::kComplex128) {
    const bool native = v.dtype != DType::kFloat8E4M3FN && v.dtype != DType::kFloat8E5M2 &&
                        v.dtype != DType::kFloat8E4M3FNUZ && v.dtype != DType::kFloat8E5M2FNUZ;
    auto gen_opts = opts.dtype(native ? type : c10::kFloat);
    flat = positive ? at::rand({n}, gen_opts).add_(0.5) : at::randn({n}, gen_opts);
    if (!native) flat = flat.to(type);
  } else if (v.dtype == DType::kComplex32) {
    flat = at::randn({n}, opts.dtype(c10::kComplexFloat)).to(type);
  } else {
    flat = at::randint(0, 2, {n}, opts.dtype(c10::kLong)).to(type);
  }
  return flat.as_strided(v.sizes, v.strides, 0);
}

GraphRunner::GraphRunner(const Graph& g, bool real_weights, c10::Device device)
    : g_(g), device_(device), initial_(g.values.size()), last_use_(g.values.size(), -1) {
  for (size_t i = 0; i < g.ops.size(); ++i) {
    const Op& op = g.ops[i];
    try {
      handles_.push_back(c10::Dispatcher::singleton().findSchemaOrThrow(op.name.c_str(), op.overload.c_str()));
    } catch (const c10::Error& e) {
      throw Error(where(static_cast<int>(i)) + ": " + first_line(e.what_without_backtrace()));
    }
    for (int v : op.tensor_inputs()) last_use_[v] = static_cast<int>(i);
  }
  // Graph outputs live to the end of the run, as they would in the caller's hands.
  for (int v : g.outputs)
    if (v >= 0) last_use_[v] = static_cast<int>(g.ops.size());

  // Variances must be positive for batch norm to compute what it would on real data.
  std::unordered_set<int> positive;
  for (const Op& op : g.ops)
    for (const Arg& a : op.args)
      if (a.kind == Arg::Kind::kTensor && (a.name == "running_var" || a.name == "var")) positive.insert(a.tensors[0]);

  // Offsets of a bag must be sorted and within the indices (a device-side assert otherwise):
  // random 0/1 values are not, so they are spread evenly over the indices instead.
  std::map<int, int> offsets_of;  // offsets value -> the indices value it splits
  for (const Op& op : g.ops) {
    if (op.name.find("embedding_bag") == std::string::npos) continue;
    int offsets = -1, indices = -1;
    for (const Arg& a : op.args) {
      if (a.kind != Arg::Kind::kTensor) continue;
      if (a.name == "offsets") offsets = a.tensors[0];
      if (a.name == "indices") indices = a.tensors[0];
    }
    if (offsets >= 0 && indices >= 0) offsets_of[offsets] = indices;
  }

  std::map<std::string, at::Tensor> stored;
  if (real_weights) stored = load_pt2_weights(g.info.path);
  // Stored tensors that share a storage (an LSTM's flattened weights) keep sharing it on the
  // device: cuDNN copies weights that are not one contiguous chunk.
  std::map<const void*, at::Tensor> moved;
  auto move = [&](const at::Tensor& t, c10::Device to) {
    const c10::Storage& st = t.storage();
    auto it = moved.find(st.data());
    if (it == moved.end()) {
      const int64_t n = static_cast<int64_t>(st.nbytes()) / static_cast<int64_t>(t.element_size());
      at::Tensor whole = at::empty({0}, t.options()).set_(st, 0, {n}, {1});
      it = moved.emplace(st.data(), whole.to(to)).first;
    }
    return it->second.as_strided(t.sizes(), t.strides(), t.storage_offset());
  };
  for (size_t v = 0; v < g.values.size(); ++v) {
    const Value& val = g.values[v];
    if (val.producer >= 0) continue;
    auto it = stored.find(val.name);
    if (val.role != ValueRole::kInput && it != stored.end()) {
      check(it->second.sizes().vec() == val.sizes, "stored weight '" + val.name + "' does not have the graph's shape");
      initial_[v] = move(it->second, place(val.placement));
    } else {
      initial_[v] = random_tensor(val, place(val.placement), positive.count(static_cast<int>(v)) > 0);
    }
    if (auto it = offsets_of.find(static_cast<int>(v)); it != offsets_of.end() && val.sizes.size() == 1) {
      const int64_t bags = val.sizes[0], indices = g.values[it->second].numel();
      initial_[v] = at::arange(bags, at::TensorOptions().dtype(c10::kLong))
                        .mul_(indices)
                        .div_(std::max<int64_t>(bags, 1), "floor")
                        .to(place(val.placement), to_scalar_type(val.dtype));
    }
    // ep.module() runs parameters as nn.Parameters with the flag they were exported with, and
    // ATen's matmul folds differently for a weight that requires grad, in no_grad mode too.
    if (val.requires_grad && is_floating(val.dtype)) initial_[v] = initial_[v].detach().requires_grad_(true);
  }
}

c10::Device GraphRunner::place(Placement p) const {
  return p == Placement::kDevice ? device_ : c10::Device(c10::kCPU);
}

std::string GraphRunner::where(int i) const {
  const Op& op = g_.ops[i];
  std::string w = "op " + std::to_string(i) + " " + op.full_name();
  if (!op.loc.file.empty()) w += " (" + op.loc.file.str() + ":" + std::to_string(op.loc.line) + ")";
  return w;
}

c10::IValue GraphRunner::argument(const Op& op, const Arg& a, const c10::Argument& schema,
                                  const std::vector<at::Tensor>& env) const {
  c10::TypePtr type = schema.type();
  if (auto opt = type->cast<c10::OptionalType>()) type = opt->getElementType();
  auto tensor = [&](int v) -> at::Tensor {
    check(v >= 0 && v < static_cast<int>(env.size()) && env[v].defined(),
          "argument '" + a.name + "' reads " + (v >= 0 ? "value " + g_.values[v].name : "nothing") +
              ", which no earlier op produced");
    return env[v];
  };
  using K = Arg::Kind;
  // A number where the schema wants a tensor (aten::add.Tensor(x, 1.0)): eager PyTorch passes
  // a wrapped-number CPU tensor, which CUDA kernels read as a scalar argument.
  if (type->kind() == c10::TypeKind::TensorType) {
    if (a.kind == K::kFloat) return at::native::wrapped_scalar_tensor(c10::Scalar(a.floats.at(0)));
    if (a.kind == K::kInt) return at::native::wrapped_scalar_tensor(c10::Scalar(a.ints.at(0)));
    if (a.kind == K::kBool) return at::native::wrapped_scalar_tensor(c10::Scalar(a.ints.at(0) != 0));
  }
  const bool to_float = type->kind() == c10::TypeKind::FloatType;
  const bool to_int = type->kind() == c10::TypeKind::IntType || type->kind() == c10::TypeKind::SymIntType;
  switch (a.kind) {
    case K::kNone:
      return c10::IValue();
    case K::kTensor:
      return tensor(a.tensors.at(0));
    case K::kTensorList: {
      auto list = type->cast<c10::ListType>();
      if (list && list->getElementType()->cast<c10::OptionalType>()) {
        c10::List<std::optional<at::Tensor>> out;
        for (int v : a.tensors) out.push_back(v < 0 ? std::optional<at::Tensor>() : tensor(v));
        return out;
      }
      c10::List<at::Tensor> out;
      for (int v : a.tensors) out.push_back(tensor(v));
      return out;
    }
    case K::kBool:
      return c10::IValue(a.ints.at(0) != 0);
    case K::kInt:
      if (to_float) return c10::IValue(static_cast<double>(a.ints.at(0)));
      return c10::IValue(a.ints.at(0));
    case K::kIntList: {
      auto list = type->cast<c10::ListType>();
      if (list && list->getElementType()->kind() == c10::TypeKind::FloatType)
        return c10::IValue(std::vector<double>(a.ints.begin(), a.ints.end()));
      return c10::IValue(a.ints);
    }
    case K::kFloat:
      if (to_int && a.floats.at(0) == static_cast<double>(static_cast<int64_t>(a.floats[0])))
        return c10::IValue(static_cast<int64_t>(a.floats[0]));
      return c10::IValue(a.floats.at(0));
    case K::kFloatList:
      return c10::IValue(a.floats);
    case K::kComplex:
      return c10::IValue(c10::complex<double>(a.floats.at(0), a.floats.at(1)));
    case K::kBoolList: {
      c10::List<bool> out;
      for (int64_t b : a.ints) out.push_back(b != 0);
      return out;
    }
    case K::kString:
      return c10::IValue(a.text.str());
    case K::kScalarType:
      return c10::IValue(to_scalar_type(static_cast<DType>(a.ints.at(0))));
    case K::kLayout:
      return c10::IValue(layout_from_export_enum(a.text));
    case K::kMemoryFormat:
      return c10::IValue(memory_format_from_export_enum(a.text));
    case K::kDevice:
      return c10::IValue(place(placement_of(a.text, g_.info.device)));
  }
  throw Error("argument '" + a.name + "' of " + op.full_name() + " has an unsupported kind");
}

void GraphRunner::run(bool tag) {
  at::NoGradGuard no_grad;
  std::vector<at::Tensor> env = initial_;
  for (size_t i = 0; i < g_.ops.size(); ++i) {
    const Op& op = g_.ops[i];
    const c10::FunctionSchema& schema = handles_[i].schema();
    torch::jit::Stack stack;
    try {
      std::unordered_map<std::string, const Arg*> by_name;
      for (const Arg& a : op.args) by_name[a.name] = &a;
      for (const c10::Argument& s : schema.arguments()) {
        auto it = by_name.find(s.name());
        if (it != by_name.end()) {
          stack.push_back(argument(op, *it->second, s, env));
        } else if (s.default_value()) {
          stack.push_back(*s.default_value());
        } else {
          check(s.type()->kind() == c10::TypeKind::OptionalType, "argument '" + s.name() + "' is missing");
          stack.emplace_back();
        }
      }
    } catch (const Error& e) {
      throw Error(where(static_cast<int>(i)) + ": " + e.what());
    }
    try {
      TagScope scope(tag, i + 1);
      handles_[i].callBoxed(stack);
    } catch (const c10::Error& e) {
      throw Error(where(static_cast<int>(i)) + ": failed on the GPU: " + first_line(e.what_without_backtrace()));
    }
    // Results in schema order; a tensor-list result fills as many graph outputs as it has tensors.
    size_t k = 0;
    auto assign = [&](const c10::IValue& r) {
      if (k >= op.outputs.size()) return;
      int v = op.outputs[k++];
      if (v >= 0 && r.isTensor()) env[v] = r.toTensor();
    };
    for (const c10::IValue& r : stack) {
      if (r.isTensorList() || (r.isList() && !r.isIntList() && !r.isDoubleList() && !r.isBoolList())) {
        for (const c10::IValue& e : r.toListRef()) assign(e);
      } else {
        assign(r);
      }
    }
    // Free what no later op reads, so memory stays what eager would hold.
    for (int v : op.tensor_inputs())
      if (last_use_[v] == static_cast<int>(i) && g_.values[v].producer >= 0) env[v] = at::Tensor();
    for (int v : op.outputs)
      if (v >= 0 && last_use_[v] < 0) env[v] = at::Tensor();
  }
}

}  // namespace kc::validate
