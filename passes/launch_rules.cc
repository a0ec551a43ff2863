#include "passes/launch_rules.h"

#include <algorithm>
#include <optional>

#include "analyzer/error.h"
#include "analyzer/tensor_geometry.h"
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

const Value* OpFacts::tensor_arg(const std::string& name) const {
  const Arg* a = arg(name);
  if (!a || a->kind != Arg::Kind::kTensor || a->tensors.empty() || a->tensors[0] < 0) return nullptr;
  return &graph->values[a->tensors[0]];
}

int64_t OpFacts::int_arg(const std::string& name, int64_t fallback) const {
  const Arg* a = arg(name);
  return a && (a->kind == Arg::Kind::kInt || a->kind == Arg::Kind::kBool) && !a->ints.empty() ? a->ints[0] : fallback;
}

bool OpFacts::bool_arg(const std::string& name, bool fallback) const {
  return int_arg(name, fallback) != 0;
}

std::string OpFacts::text_arg(const std::string& name, const std::string& fallback) const {
  const Arg* a = arg(name);
  return a && a->kind == Arg::Kind::kString ? a->text.str() : fallback;
}

Counts one_kernel_unless_empty(const OpFacts& f) {
  const Value* out = f.output(0);
  if (out && out->numel() == 0) return {};
  return {1, 0, 0, 0};
}

// ATen's computeStride (aten/src/ATen/TensorUtils.cpp): walk the old dims in chunks that are
// contiguous with each other; each chunk must be exactly covered by new dims.
std::optional<std::vector<int64_t>> view_strides(const std::vector<int64_t>& sizes, const std::vector<int64_t>& strides,
                                                 const std::vector<int64_t>& new_sizes) {
  if (sizes.empty()) return std::vector<int64_t>(new_sizes.size(), 1);
  int64_t numel = 1;
  for (int64_t s : sizes) numel *= s;
  if (numel == 0) return std::nullopt;
  std::vector<int64_t> out(new_sizes.size());
  int64_t view_d = static_cast<int64_t>(new_sizes.size()) - 1;
  int64_t chunk_base_stride = strides.back();
  int64_t tensor_numel = 1, view_numel = 1;
  for (int64_t d = static_cast<int64_t>(sizes.size()) - 1; d >= 0; --d) {
    tensor_numel *= sizes[d];
    if (d == 0 || (sizes[d - 1] != 1 && strides[d - 1] != tensor_numel * chunk_base_stride)) {
      while (view_d >= 0 && (view_numel < tensor_numel || new_sizes[view_d] == 1)) {
        out[view_d] = view_numel * chunk_base_stride;
        view_numel *= new_sizes[view_d];
        --view_d;
      }
      if (view_numel != tensor_numel) return std::nullopt;
      if (d > 0) {
        chunk_base_stride = strides[d - 1];
        tensor_numel = 1;
        view_numel = 1;
      }
    }
  }
  if (view_d != -1) return std::nullopt;
  return out;
}

bool view_is_possible(const std::vector<int64_t>& sizes, const std::vector<int64_t>& strides,
                      const std::vector<int64_t>& new_sizes) {
  int64_t numel = 1;
  for (int64_t s : sizes) numel *= s;
  return numel == 0 || sizes.empty() || view_strides(sizes, strides, new_sizes).has_value();
}

bool is_half(DType t) {
  return t == DType::kBFloat16 || t == DType::kFloat16;
}

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
  return channels_last_dense(v.sizes, v.strides);
}

bool on_host(const OpFacts& f) {
  return f.on_host;
}
bool fp32(const OpFacts& f) {
  return f.dtype == DType::kFloat32;
}
bool eval_mode(const OpFacts& f) {
  return !f.bool_arg("training", false) && !f.bool_arg("train", false);
}

OpFacts op_facts(const Graph& g, int i, const Target& target) {
  OpFacts f;
  f.target = &target;
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

namespace {

std::string shape_of(const Value& v) {
  std::string s = "[";
  for (size_t i = 0; i < v.sizes.size(); ++i) s += (i ? ", " : "") + std::to_string(v.sizes[i]);
  return s + "]";
}

// The operand checks of one op: each names the operand and what ATen would have said.
struct OperandCheck {
  const OpFacts& f;

  // The i-th tensor input, which the schema makes mandatory.
  const Value& in(int i, const char* what) const {
    const Value* v = f.input(i);
    if (!v) throw OpError(f.index, std::string("missing its ") + what + " tensor");
    return *v;
  }
  void rank(const Value& v, const char* what, size_t lo, size_t hi) const {
    const size_t r = v.sizes.size();
    if (r >= lo && r <= hi) return;
    std::string want = lo == hi  ? std::to_string(lo)
                       : hi > 64 ? "at least " + std::to_string(lo)
                                 : std::to_string(lo) + " to " + std::to_string(hi);
    throw OpError(f.index, std::string(what) + " " + v.name + " has rank " + std::to_string(r) + " " + shape_of(v) +
                               ", expected rank " + want);
  }
  void same_dtype(const Value& a, const Value& b, const char* what) const {
    if (a.dtype != b.dtype)
      throw OpError(f.index, std::string(what) + " have different dtypes (" + dtype_name(a.dtype) + " and " +
                                 dtype_name(b.dtype) + ")");
  }
  void dims_match(int64_t a, int64_t b, const std::string& what) const {
    if (a != b)
      throw OpError(f.index, what + " do not match (" + std::to_string(a) + " and " + std::to_string(b) + ")");
  }
  // A dim argument in [-rank, rank) (a scalar counts as rank 1, as ATen's wrap does).
  void dim_in_range(const Value& v, const char* arg_name) const {
    const Arg* a = f.arg(arg_name);
    if (!a || a->kind != Arg::Kind::kInt || a->ints.empty()) return;
    const int64_t r = std::max<int64_t>(1, static_cast<int64_t>(v.sizes.size()));
    if (a->ints[0] < -r || a->ints[0] >= r)
      throw OpError(f.index, std::string(arg_name) + "=" + std::to_string(a->ints[0]) + " is out of range for " +
                                 v.name + " of rank " + std::to_string(v.sizes.size()));
  }

  void gemm() const {
    const std::string& n = f.op->name;
    if (n == "aten::mm" || n == "aten::bmm") {
      const size_t r = n == "aten::mm" ? 2 : 3;
      const Value& a = in(0, "left");
      const Value& b = in(1, "right");
      rank(a, "left operand", r, r);
      rank(b, "right operand", r, r);
      same_dtype(a, b, "its operands");
      dims_match(a.sizes.back(), b.sizes[r - 2], "the contracted dims of " + shape_of(a) + " and " + shape_of(b));
    } else if (n == "aten::addmm" || n == "aten::baddbmm") {
      const size_t r = n == "aten::addmm" ? 2 : 3;
      const Value& self = in(0, "added");
      const Value& a = in(1, "left");
      const Value& b = in(2, "right");
      rank(self, "added tensor", 0, r);
      rank(a, "left operand", r, r);
      rank(b, "right operand", r, r);
      same_dtype(a, b, "its operands");
      dims_match(a.sizes.back(), b.sizes[r - 2], "the contracted dims of " + shape_of(a) + " and " + shape_of(b));
    } else if (n == "aten::linear") {
      const Value& x = in(0, "input");
      const Value& w = in(1, "weight");
      rank(x, "input", 1, SIZE_MAX);
      rank(w, "weight", 1, 2);
      same_dtype(x, w, "input and weight");
      dims_match(x.sizes.back(), w.sizes.back(), "input features of " + shape_of(x) + " and weight " + shape_of(w));
    } else if (n == "aten::matmul") {
      const Value& a = in(0, "left");
      const Value& b = in(1, "right");
      rank(a, "left operand", 1, SIZE_MAX);
      rank(b, "right operand", 1, SIZE_MAX);
      same_dtype(a, b, "its operands");
      dims_match(a.sizes.back(), b.sizes[b.sizes.size() >= 2 ? b.sizes.size() - 2 : 0],
                 "the contracted dims of " + shape_of(a) + " and " + shape_of(b));
    }
  }
  // Matrix factorizations and solves: ATen requires every matrix operand to have at least 2 dims
  // ("A must have at least 2 dimensions"); the tensor forms (tensorinv, tensorsolve) reshape any rank.
  void linalg() const {
    const std::string& n = f.op->name;
    if (n == "aten::linalg_tensorinv" || n == "aten::linalg_tensorsolve") return;
    rank(in(0, "matrix"), "matrix", 2, SIZE_MAX);
    // The legacy solves take B first and the matrix second.
    if (n == "aten::triangular_solve" || n == "aten::cholesky_solve" || n == "aten::lu_solve")
      rank(in(1, "matrix"), "matrix", 2, SIZE_MAX);
  }
  void conv() const {
    const Value& x = in(0, "input");
    const Value& w = in(1, "weight");
    rank(w, "weight", 3, 5);
    const size_t wr = w.sizes.size();
    // Unbatched input (no N) has one dim fewer than the weight; ATen accepts both.
    if (x.sizes.size() != wr && x.sizes.size() + 1 != wr)
      throw OpError(f.index, "input " + x.name + " has rank " + std::to_string(x.sizes.size()) + " " + shape_of(x) +
                                 " but weight " + w.name + " has rank " + std::to_string(wr));
    if (f.int_arg("groups", 1) < 1) throw OpError(f.index, "groups must be positive");
    same_dtype(x, w, "input and weight");
  }
  void attention() const {
    const Value& q = in(0, "query");
    const Value& k = in(1, "key");
    const Value& v = in(2, "value");
    rank(q, "query", 2, SIZE_MAX);
    rank(k, "key", 2, SIZE_MAX);
    rank(v, "value", 2, SIZE_MAX);
    same_dtype(q, k, "query and key");
    same_dtype(q, v, "query and value");
    dims_match(q.sizes.back(), k.sizes.back(), "the head dims of query " + shape_of(q) + " and key " + shape_of(k));
    dims_match(k.sizes[k.sizes.size() - 2], v.sizes[v.sizes.size() - 2], "the sequence lengths of key and value");
  }
  void norm() const {
    const std::string& n = f.op->name;
    const Value& x = in(0, "input");
    if (n == "aten::layer_norm" || n == "aten::native_layer_norm" || n == "aten::rms_norm") {
      const Arg* ns = f.arg("normalized_shape");
      const size_t k = ns ? ns->ints.size() : 0;
      rank(x, "input", std::max<size_t>(k, 1), SIZE_MAX);
      for (size_t i = 0; i < k; ++i)
        dims_match(x.sizes[x.sizes.size() - k + i], ns->ints[i], "normalized_shape and the last dims of the input");
    } else if (x.numel() != 0) {
      // Batch and group norm: [N, C, ...]. An empty input of any rank returns before ATen reads
      // its channels (measured: batch_norm of a [0] input runs, launching nothing).
      rank(x, "input", 2, SIZE_MAX);
    }
  }
  void cat() const {
    const Arg* ts = f.arg("tensors");
    if (!ts) return;
    const Value* first = nullptr;
    for (int v : ts->tensors) {
      if (v < 0) continue;
      const Value& t = f.graph->values[v];
      // ATen skips legacy empty 1-d tensors in cat.
      if (f.op->name != "aten::stack" && t.sizes.size() == 1 && t.sizes[0] == 0) continue;
      if (!first) {
        first = &t;
        rank(t, "tensor", 1, SIZE_MAX);
        if (f.op->name != "aten::stack") dim_in_range(t, "dim");
        continue;
      }
      if (t.sizes.size() != first->sizes.size())
        throw OpError(f.index, "tensors " + first->name + " " + shape_of(*first) + " and " + t.name + " " +
                                   shape_of(t) + " have different ranks");
    }
  }
  void run() const {
    switch (f.cls) {
      case OpClass::kGemm:
        gemm();
        break;
      case OpClass::kConv:
        conv();
        break;
      case OpClass::kLinalg:
        linalg();
        break;
      case OpClass::kAttention:
        attention();
        break;
      case OpClass::kNorm:
        norm();
        break;
      case OpClass::kIndex:
        if (f.op->name == "aten::cat" || f.op->name == "aten::concat" || f.op->name == "aten::concatenate" ||
            f.op->name == "aten::stack")
          cat();
        break;
      case OpClass::kReduction:
        if (f.op->name.find("softmax") != std::string::npos) dim_in_range(in(0, "input"), "dim");
        break;
      // Pools take an optional batch dim before [C, spatial...]: 1-d [C, L], 3-d up to [N, C, D, H, W].
      case OpClass::kPool: {
        const std::string& n = f.op->name;
        const size_t spatial = n.find("1d") != std::string::npos ? 1 : n.find("3d") != std::string::npos ? 3 : 2;
        rank(in(0, "input"), "input", spatial + 1, spatial + 2);
        break;
      }
      default:
        break;
    }
  }
};

}  // namespace

void check_operands(const OpFacts& f) {
  if (f.on_host) return;  // host work launches nothing, whatever its shapes
  OperandCheck{f}.run();
}

bool LaunchRule::applies_to(const OpFacts& f) const {
  return ops.empty() ? !cls || *cls == f.cls : std::find(ops.begin(), ops.end(), f.op->name) != ops.end();
}

bool LaunchRule::fits(const OpFacts& f) const {
  return applies_to(f) && (!matches || matches(f));
}

Counts LaunchRule::predict(const OpFacts& f) const {
  return compute ? compute(f) : counts;
}

// True when the tensor is dense in channels-last order (size-1 dims ignored): what
// `.contiguous(ChannelsLast)` leaves without a copy.
bool channels_last_dense(const std::vector<int64_t>& sizes, const std::vector<int64_t>& strides) {
  const size_t n = sizes.size();
  return (n == 4 || n == 5) && dense_in_order(sizes, strides, channels_last_order(n));
}

}  // namespace kc
