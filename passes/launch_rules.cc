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

namespace {

bool is_half(DType t) { return t == DType::kBFloat16 || t == DType::kFloat16; }

// --- conditions -----------------------------------------------------------------------------

bool all_equal(const Arg* a, int64_t v) {
  if (!a) return true;
  for (int64_t x : a->ints)
    if (x != v) return false;
  return true;
}

}  // namespace

// clone: a dense tensor keeping its layout is one cudaMemcpyAsync; anything else a kernel.
Counts clone_counts(const OpFacts& f) {
  const Value* in = f.input(0);
  if (in && in->contiguous()) return {0, 1, 0, 0};
  return {1, 0, 0, 0};
}

bool on_host(const OpFacts& f) { return f.on_host; }
bool tagged_pointwise(const OpFacts& f) { return f.op->traits.pointwise; }
bool fp32(const OpFacts& f) { return f.dtype == DType::kFloat32; }

namespace {
// Copy kernels a GEMM launches first: an operand whose batch dims cannot be folded into a
// view of [batch, rows, cols] with one unit stride is made contiguous (matmul's reshape).
int gemm_copies(const OpFacts& f) {
  int copies = 0;
  const bool linear = f.op->name == "aten::linear";
  for (int i = 0; i < 2; ++i) {
    const Value* v = f.input(i);
    if (!v || v->sizes.size() < 2 || (linear && i == 1)) continue;
    const auto& sz = v->sizes;
    const size_t n = sz.size();
    int64_t batch = 1;
    for (size_t d = 0; d + 2 < n; ++d) batch *= sz[d];
    std::vector<int64_t> folded = linear ? std::vector<int64_t>{batch * sz[n - 2], sz[n - 1]}
                                         : std::vector<int64_t>{batch, sz[n - 2], sz[n - 1]};
    // cuBLAS reads a matrix with either of its last two strides 1 (row- or column-major).
    const bool foldable = n == folded.size() || view_is_possible(sz, v->strides, folded);
    if (!foldable || (v->strides[n - 1] != 1 && v->strides[n - 2] != 1)) ++copies;
  }
  return copies;
}

// Rows of the GEMM's left operand: everything but the last dim of the input.
int64_t gemm_rows(const OpFacts& f) {
  const Value* a = f.input(0);
  if (!a || a->sizes.empty()) return 0;
  return a->numel() / std::max<int64_t>(1, a->sizes.back());
}
}  // namespace
// bf16 nvjet GEMMs that widen (more output features than input ones) zero a workspace first.
bool linear_half_widening(const OpFacts& f) {
  const Value* w = f.input(1);
  if (!is_half(f.dtype) || gemm_rows(f) <= 1 || !w || w->sizes.size() != 2) return false;
  return f.op->name == "aten::linear" ? w->sizes[0] > w->sizes[1] : w->sizes[1] > w->sizes[0];
}
Counts gemm_counts(const OpFacts& f) { return {1 + gemm_copies(f), 0, 0, 0}; }
Counts gemm_half_counts(const OpFacts& f) { return {1 + gemm_copies(f), 0, 1, 0}; }
// Norms read a contiguous input; anything else is copied first.
Counts norm_counts(const OpFacts& f) {
  const Value* in = f.input(0);
  return {in && !in->contiguous() ? 2 : 1, 0, 0, 0};
}
// pad with all-zero amounts is a copy of its input; any padding fills then copies.
Counts pad_counts(const OpFacts& f) {
  if (all_equal(f.arg("pad"), 0)) return clone_counts(f);
  return {2, 0, 0, 0};
}
// cat of one tensor is a copy of it.
Counts cat_counts(const OpFacts& f) {
  const Arg* ts = f.arg("tensors");
  if (ts && ts->tensors.size() == 1) return clone_counts(f);
  return {1, 0, 0, 0};
}

namespace {
bool training(const OpFacts& f) { return f.bool_arg("training", false) || f.bool_arg("train", false); }
}  // namespace
bool eval_mode(const OpFacts& f) { return !training(f); }
bool bn_eval_fp32(const OpFacts& f) { return eval_mode(f) && f.dtype == DType::kFloat32; }
bool bn_eval_half(const OpFacts& f) { return eval_mode(f) && is_half(f.dtype); }

bool conv2d_forward(const OpFacts& f) {
  const Value* x = f.input(0);
  const Value* w = f.input(1);
  const bool transposed = f.op->name.find("transpose") != std::string::npos || f.bool_arg("transposed", false);
  return x && w && x->sizes.size() == 4 && w->sizes.size() == 4 && !transposed;
}

// A 2-d convolution as cuDNN and ATen run it: depthwise ones in ATen's own kernel, 1x1 ones
// with stride 1 as a GEMM on the NCHW tensor, the rest as cuDNN's implicit GEMM between
// NCHW->NHWC transforms of input and weight and an NHWC->NCHW transform of the output. A
// bias is a separate add; a non-contiguous input is copied first.
Counts conv_counts(const OpFacts& f) {
  const Value* x = f.input(0);
  const Value* w = f.input(1);
  const int bias = f.has_tensor_arg("bias") ? 1 : 0;
  // cuDNN reads NCHW and NHWC (channels-last) inputs as they are; other layouts are copied.
  const bool nhwc = x->strides.size() == 4 && x->strides[1] == 1 && x->strides[3] == x->sizes[1] &&
                    x->strides[2] == x->sizes[1] * x->sizes[3];
  const int copy = x->contiguous() || nhwc ? 0 : 1;
  const int64_t groups = f.int_arg("groups", 1);
  const bool depthwise = groups > 1 && groups == x->sizes[1] && w->sizes[1] == 1;
  const bool k1 = w->sizes[2] == 1 && w->sizes[3] == 1;
  const bool s1 = all_equal(f.arg("stride"), 1);
  if (depthwise) return {1 + bias + copy, 0, 0, 0};
  // bf16 1x1 convolutions over 7x7 maps or smaller go through cuDNN's transforms too.
  if (k1 && s1 && groups == 1 && is_half(f.dtype) && x->sizes[2] * x->sizes[3] > 1 && x->sizes[2] * x->sizes[3] <= 49)
    return {3 + bias + copy, 0, 0, 0};
  if (k1 && s1 && groups == 1) return {1 + bias + copy, 0, 0, 0};
  if (k1) return {3 + bias + copy, 0, 0, 0};
  // Stems on 3-channel images run cuDNN's direct implicit GEMM, without transforms.
  if (x->sizes[1] <= 4 && w->sizes[2] <= 3) return {1 + bias + copy, 0, 0, 0};
  return {4 + bias + copy, 0, 0, 0};
}

namespace {
bool sdpa_plain(const OpFacts& f) { return !f.has_tensor_arg("attn_mask"); }
}  // namespace
bool sdpa_masked_half(const OpFacts& f) { return !sdpa_plain(f) && is_half(f.dtype); }
bool sdpa_masked_fp32(const OpFacts& f) { return !sdpa_plain(f) && fp32(f); }
// index with several index tensors broadcasts and copies each before the gather.
Counts index_counts(const OpFacts& f) {
  const Arg* idx = f.arg("indices");
  int n = 0;
  if (idx)
    for (int v : idx->tensors) n += v >= 0;
  return {n > 1 ? 1 + n : 1, 0, 0, 0};
}
bool sdpa_plain_half(const OpFacts& f) { return sdpa_plain(f) && is_half(f.dtype); }
bool sdpa_plain_fp32(const OpFacts& f) { return sdpa_plain(f) && fp32(f); }

// A reduction down to very few outputs from many inputs splits the work across blocks that
// meet in global memory, whose semaphores are zeroed with a memset first.
bool global_reduction(const OpFacts& f) { return f.out_numel == 1 && f.in_numel > 4096; }

// --- shape-dependent counts -----------------------------------------------------------------

// reshape/flatten/contiguous: free when the result can be a view, else one copy kernel.
Counts reshape_counts(const OpFacts& f) {
  const Value* in = f.input(0);
  const Value* out = f.output(0);
  if (!in || !out) return {};
  bool copies = !view_is_possible(in->sizes, in->strides, out->sizes);
  return {copies ? 1 : 0, 0, 0, 0};
}
Counts contiguous_counts(const OpFacts& f) {
  const Value* in = f.input(0);
  return {in && !in->contiguous() ? 1 : 0, 0, 0, 0};
}
// to/_to_copy: a new dtype is a conversion kernel; the same dtype is a copy, or nothing for
// aten::to, which returns its input unchanged.
Counts to_counts(const OpFacts& f) {
  const Value* in = f.input(0);
  const Value* out = f.output(0);
  if (!in || !out) return {};
  if (in->dtype != out->dtype) return {1, 0, 0, 0};
  if (f.op->name == "aten::to") return {};
  return clone_counts(f);
}

// A result on the host read from the device: cudaMemcpy device-to-host, and the host waits.
bool to_host(const OpFacts& f) {
  const Value* out = f.output(0);
  return out && out->placement == Placement::kHost && !f.on_host;
}

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
    std::string want = lo == hi ? std::to_string(lo) : hi > 64 ? "at least " + std::to_string(lo)
                                                               : std::to_string(lo) + " to " + std::to_string(hi);
    throw OpError(f.index, std::string(what) + " " + v.name + " has rank " + std::to_string(r) + " " +
                               shape_of(v) + ", expected rank " + want);
  }
  void same_dtype(const Value& a, const Value& b, const char* what) const {
    if (a.dtype != b.dtype)
      throw OpError(f.index, std::string(what) + " have different dtypes (" + dtype_name(a.dtype) + " and " +
                                 dtype_name(b.dtype) + ")");
  }
  void dims_match(int64_t a, int64_t b, const std::string& what) const {
    if (a != b) throw OpError(f.index, what + " do not match (" + std::to_string(a) + " and " + std::to_string(b) + ")");
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
    if (n == "aten::layer_norm" || n == "aten::native_layer_norm") {
      const Arg* ns = f.arg("normalized_shape");
      const size_t k = ns ? ns->ints.size() : 0;
      rank(x, "input", std::max<size_t>(k, 1), SIZE_MAX);
      for (size_t i = 0; i < k; ++i)
        dims_match(x.sizes[x.sizes.size() - k + i], ns->ints[i], "normalized_shape and the last dims of the input");
    } else {
      rank(x, "input", 2, SIZE_MAX);  // batch and group norm: [N, C, ...]
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
      case OpClass::kGemm: gemm(); break;
      case OpClass::kConv: conv(); break;
      case OpClass::kAttention: attention(); break;
      case OpClass::kNorm: norm(); break;
      case OpClass::kIndex:
        if (f.op->name == "aten::cat" || f.op->name == "aten::concat" || f.op->name == "aten::concatenate" ||
            f.op->name == "aten::stack")
          cat();
        break;
      case OpClass::kReduction:
        if (f.op->name.find("softmax") != std::string::npos) dim_in_range(in(0, "input"), "dim");
        break;
      case OpClass::kPool: rank(in(0, "input"), "input", 3, 4); break;
      default: break;
    }
  }
};

}  // namespace

void check_operands(const OpFacts& f) {
  if (f.on_host) return;  // host work launches nothing, whatever its shapes
  OperandCheck{f}.run();
}

bool LaunchRule::fits(const OpFacts& f) const {
  bool listed = ops.empty() ? !cls || *cls == f.cls : std::find(ops.begin(), ops.end(), f.op->name) != ops.end();
  return listed && (!matches || matches(f));
}

Counts LaunchRule::predict(const OpFacts& f) const { return compute ? compute(f) : counts; }

}  // namespace kc
