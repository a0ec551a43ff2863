// Ops that launch nothing because there is nothing to compute (empty results, views,
// allocations), the *_copy ops ATen generates from its views, and the aliases ATen forwards to
// one pointwise op.
#include <algorithm>
#include <set>

#include "passes/torch2_11/rules.h"

namespace kc::torch2_11 {
namespace {

// Ops whose output size the data can decide (index: by a boolean mask): they run their counting
// kernels and read the count back even when nothing is selected.
bool data_dependent(const Op& op) {
  static const std::set<std::string> kOps = {
      "aten::nonzero",   "aten::argwhere", "aten::masked_select", "aten::nonzero_static",     "aten::unique",
      "aten::_unique2",  "aten::_unique",  "aten::unique_dim",    "aten::unique_consecutive", "aten::nonzero_numpy",
      "aten::index_put", "aten::index",    "aten::combinations"};
  return kOps.count(op.name) > 0 || (op.name == "aten::where" && op.overload.empty());  // where(cond)
}
// An ATen op computed from Python numbers alone: no tensor operand, no device named for its
// result, which the file records on the host. A program exported on the host is moved to the GPU
// by rewriting the devices its ops name, so such a result stays on the host; one recorded on the
// GPU (a default device set) is made there.
bool numbers_only(const OpFacts& f) {
  if (f.op->name.rfind("aten::", 0) != 0 || !f.inputs.empty() || f.arg("device")) return false;
  bool any = false;
  for (int v : f.op->outputs) {
    if (v < 0) continue;
    if (f.graph->values[v].device.str().rfind("cpu", 0) != 0) return false;
    any = true;
  }
  return any;
}
bool linspace_of_tensors(const OpFacts& f) {
  const std::string& n = f.op->name;
  return (n == "aten::linspace" || n == "aten::logspace") && f.op->overload.find("Tensor") != std::string::npos;
}
// Every tensor the op returns has no element, and the op is of a kind whose ATen kernel returns
// before launching (TensorIterator with nothing to iterate, a factory of nothing, a GEMM with an
// empty result). Linear algebra (cuSOLVER/MAGMA paths still set up and check their infos) and
// ops whose size the data decides are left to their own rules.
bool empty_result(const OpFacts& f) {
  switch (f.cls) {
    case OpClass::kPointwise:
    case OpClass::kReduction:
    case OpClass::kCopy:
    case OpClass::kPool:
    case OpClass::kGemm:
    case OpClass::kFactory:
    case OpClass::kView:
    case OpClass::kIndex:
    case OpClass::kScan:
    case OpClass::kNorm:
      break;
    default:
      return false;
  }
  // Other namespaces' ops (torchvision's nms) have their own rules for empty results.
  if (f.op->name.rfind("aten::", 0) != 0 || data_dependent(*f.op) || linspace_of_tensors(f)) return false;
  // A negative matrix power inverts first: linalg_inv fills and checks its infos even when empty.
  if (f.op->name == "aten::linalg_matrix_power" && f.int_arg("n", 1) < 0) return false;
  // linalg_solve_triangular of a non-empty float32 A below 64 rows builds A's pointer array for
  // cuBLAS's batched trsm even when B is empty (linalg.triangular_solve counts it; other types
  // are unmeasured and keep this rule).
  if (f.op->name == "aten::linalg_solve_triangular" && f.input(0) && f.input(0)->numel() > 0 &&
      f.input(0)->dtype == DType::kFloat32 && f.input(0)->contiguous() && f.input(0)->sizes.size() >= 2 &&
      f.input(0)->sizes.back() < 64)
    return false;
  // searchsorted checks a non-empty sorter's range on the host before it looks at the values.
  if (const Value* sorter = f.tensor_arg("sorter"); sorter && sorter->numel() > 0) return false;
  bool any = false;
  for (int id : f.op->outputs) {
    if (id < 0) continue;
    const Value& v = f.graph->values[id];
    if (v.sizes.empty() || v.numel() != 0) return false;
    any = true;
  }
  return any;
}

// --- the *_copy ops: torchgen writes each as its view followed by clone(contiguous) ---

// The strides of output k's view of `in` for a *_copy op, or nothing when this cannot tell.
std::optional<std::vector<int64_t>> copied_view_strides(const OpFacts& f, const Value& in, const Value& out) {
  const std::string& n = f.op->name;
  const int64_t rank = static_cast<int64_t>(in.sizes.size());
  auto wrap = [&](int64_t d, int64_t r) { return d < 0 ? d + r : d; };
  std::vector<int64_t> s = in.strides;
  if (n == "aten::alias_copy") return s;
  if (n == "aten::view_copy" || n == "aten::squeeze_copy" || n == "aten::unsqueeze_copy" || n == "aten::_reshape_copy")
    return view_strides(in.sizes, in.strides, out.sizes);
  if (n == "aten::t_copy" || n == "aten::transpose_copy") {
    if (rank < 2) return s;
    const int64_t d0 = n == "aten::t_copy" ? 0 : wrap(f.int_arg("dim0", 0), rank);
    const int64_t d1 = n == "aten::t_copy" ? 1 : wrap(f.int_arg("dim1", 1), rank);
    if (d0 < 0 || d1 < 0 || d0 >= rank || d1 >= rank) return std::nullopt;
    std::swap(s[d0], s[d1]);
    return s;
  }
  if (n == "aten::permute_copy") {
    const Arg* dims = f.arg("dims");
    if (!dims || static_cast<int64_t>(dims->ints.size()) != rank) return std::nullopt;
    std::vector<int64_t> p;
    for (int64_t d : dims->ints) {
      d = wrap(d, rank);
      if (d < 0 || d >= rank) return std::nullopt;
      p.push_back(in.strides[d]);
    }
    return p;
  }
  if (n == "aten::expand_copy") {
    std::vector<int64_t> e(out.sizes.size(), 0);
    const size_t lead = out.sizes.size() - std::min(out.sizes.size(), in.sizes.size());
    for (size_t i = lead; i < out.sizes.size(); ++i)
      e[i] = in.sizes[i - lead] == out.sizes[i] ? in.strides[i - lead] : 0;
    return e;
  }
  if (n == "aten::narrow_copy" || n == "aten::slice_copy" || n == "aten::split_copy" ||
      n == "aten::split_with_sizes_copy") {
    if (n == "aten::slice_copy" && rank > 0) {
      const int64_t d = wrap(f.int_arg("dim", 0), rank);
      if (d >= 0 && d < rank) s[d] *= std::max<int64_t>(f.int_arg("step", 1), 1);
    }
    return s;
  }
  if (n == "aten::select_copy" || n == "aten::unbind_copy") {
    const int64_t d = wrap(f.int_arg("dim", 0), rank);
    if (d < 0 || d >= rank) return std::nullopt;
    s.erase(s.begin() + d);
    return s;
  }
  if (n == "aten::diagonal_copy") {
    const int64_t d1 = wrap(f.int_arg("dim1", 0), rank), d2 = wrap(f.int_arg("dim2", 1), rank);
    if (d1 < 0 || d2 < 0 || d1 >= rank || d2 >= rank || d1 == d2) return std::nullopt;
    const int64_t diag = in.strides[d1] + in.strides[d2];
    s.erase(s.begin() + std::max(d1, d2));
    s.erase(s.begin() + std::min(d1, d2));
    s.push_back(diag);
    return s;
  }
  if (n == "aten::unfold_copy") {
    if (rank == 0) return std::vector<int64_t>{1};
    const int64_t d = wrap(f.int_arg("dimension", 0), rank);
    if (d < 0 || d >= rank) return std::nullopt;
    s[d] *= std::max<int64_t>(f.int_arg("step", 1), 1);
    s.push_back(in.strides[d]);
    return s;
  }
  if (n == "aten::as_strided_copy") {
    const Arg* st = f.arg("stride");
    if (!st) return std::nullopt;
    return st->ints;
  }
  return std::nullopt;
}
// Each non-empty output is the clone of a view: one device-to-device memcpy when the view is
// contiguous (size-1 dims aside), else one copy kernel.
Counts view_copy_counts(const OpFacts& f) {
  const Value* in = f.input(0);
  Counts c{};
  if (!in || in->strides.size() != in->sizes.size()) return {1, 0, 0, 0};
  for (int id : f.op->outputs) {
    if (id < 0) continue;
    const Value& out = f.graph->values[id];
    if (out.numel() == 0) continue;
    Value view = out;
    auto strides = copied_view_strides(f, *in, out);
    if (!strides || strides->size() != out.sizes.size()) {
      c.kernels += 1;
      continue;
    }
    view.strides = *strides;
    if (view.contiguous())
      c.memcpy += 1;
    else
      c.kernels += 1;
  }
  return c;
}

}  // namespace

void add_view_copies_rules(std::vector<LaunchRule>& r) {
  r.push_back(
      rule("host.numbers")
          .every_op()
          .when("an ATen op with no tensor operand and no device argument whose results are recorded on the host: its "
                "operands are Python numbers, which ATen wraps as host tensors",
                numbers_only)
          .counts({0, 0, 0, 0})
          .evidence("opinfo_reference: div with rounding_mode floor of two numbers; opinfo_reference2: floor_divide "
                    "and true_divide of two numbers (no kernel)")
          .why("Its operands are plain numbers, which become tensors on the host, and no device is named for its "
               "result: it is computed there, and nothing runs on the GPU (moving a program to the GPU rewrites "
               "only the devices it names)."));
  r.push_back(rule("matrix_power.zero_of_nothing")
                  .ops({"aten::linalg_matrix_power"})
                  .when("n = 0 on an empty batch of matrices: the identity still built (eye: a zero fill and the "
                        "diagonal's fill), copied into no element",
                        [](const OpFacts& f) {
                          const Value* out = f.output(0);
                          const Value* a = f.input(0);
                          return f.int_arg("n", -1) == 0 && out && out->numel() == 0 && a && a->sizes.size() >= 2 &&
                                 a->sizes[a->sizes.size() - 1] > 0;
                        })
                  .counts({2, 0, 0, 0})
                  .evidence("sweep:opinfo_edges (linalg.matrix_power of a float32 [0, 2, 2] batch, n = 0, run twice: "
                            "two fill kernels each)")
                  .why("matrix_power(A, 0) copies eye(n) into the result, and eye is built before the copy: a zero "
                       "fill and a fill of its diagonal, even when there is no matrix to copy it into."));
  r.push_back(rule("ldexp.empty")
                  .ops({"aten::ldexp"})
                  .when("a result of no elements, floating exponents: the base 2 still filled into a 0-d tensor",
                        [](const OpFacts& f) {
                          const Value* out = f.output(0);
                          const Value* other = f.input(1);
                          return out && out->numel() == 0 && other &&
                                 (other->dtype == DType::kFloat32 || other->dtype == DType::kFloat64 ||
                                  is_half(other->dtype));
                        })
                  .counts({1, 0, 0, 0})
                  .evidence("opinfo_heldout3: ldexp of [0, 1, 3] and [0, 10, 3] (one FillFunctor kernel, f32 and "
                            "bf16)")
                  .why("ldexp is self * 2**other: the 2 becomes a one-element tensor on the GPU (a fill) before the "
                       "power and the product find nothing to compute."));
  r.push_back(
      rule("mvlgamma.empty")
          .ops({"aten::mvlgamma"})
          .when("a result of no elements: the arange of p offsets still runs",
                [](const OpFacts& f) {
                  const Value* out = f.output(0);
                  return out && out->numel() == 0 && f.int_arg("p", 0) >= 1;
                })
          .counts({1, 0, 0, 0})
          .evidence("opinfo_reference: mvlgamma p = 1, 3, 5 of [0, 3, 3] and the like, float32 and bfloat16 (10 "
                    "instances: one arange kernel each)")
          .why("mvlgamma builds its p offsets with arange before adding the input to them: that arange has p "
               "elements whatever the input holds, so one kernel runs even for an empty input."));
  r.push_back(rule("pow.scalar_base.empty")
                  .ops({"aten::pow"})
                  .when("Scalar ** Tensor with a result of no elements and a base other than 1: the base still becomes "
                        "a 0-d device tensor (a fill)",
                        [](const OpFacts& f) {
                          const Value* out = f.output(0);
                          const Arg* base = f.arg("self");
                          if (!out || out->numel() != 0 || !base || f.input(0) == nullptr) return false;
                          if (base->kind == Arg::Kind::kTensor) return false;
                          return !(base->kind == Arg::Kind::kFloat && !base->floats.empty() &&
                                   base->floats[0] == 1.0) &&
                                 !(base->kind == Arg::Kind::kInt && !base->ints.empty() && base->ints[0] == 1);
                        })
                  .counts({1, 0, 0, 0})
                  .evidence("opinfo_reference: __rpow__ (pow.Scalar) of a float32 [0, 1, 3] exponent (one FillFunctor "
                            "kernel)")
                  .why("pow with a number as its base wraps the number into a one-element tensor on the GPU (a fill) "
                       "before it finds no element to raise it to; a base of 1 is the result's fill instead, of "
                       "nothing here."));
  r.push_back(
      rule("empty")
          .every_op()
          .when("every tensor it returns has no element (pointwise, reductions, copies, pools, GEMMs, factories, "
                "views, gathers, scans and norms; not linear algebra, not ops whose size the data decides)",
                empty_result)
          .counts({0, 0, 0, 0})
          .evidence("opinfo: 203 ops of these classes whose results are empty (98 pointwise, 56 factories, 24 gathers, "
                    "10 copies, 6 GEMMs, 4 pools, 3 views, 2 reductions): none launched anything; "
                    "opinfo_heldout: batch_norm (with and without cuDNN), layer_norm, rms_norm of empty inputs, "
                    "float32 and bfloat16: nothing")
          .why("Its result holds no element, so ATen returns before launching a kernel: there is nothing to compute."));
  r.push_back(rule("view_copy")
                  .ops({"aten::alias_copy", "aten::view_copy", "aten::squeeze_copy", "aten::unsqueeze_copy",
                        "aten::_reshape_copy", "aten::t_copy", "aten::transpose_copy", "aten::permute_copy",
                        "aten::expand_copy", "aten::narrow_copy", "aten::slice_copy", "aten::split_copy",
                        "aten::split_with_sizes_copy", "aten::select_copy", "aten::unbind_copy", "aten::diagonal_copy",
                        "aten::unfold_copy", "aten::as_strided_copy"})
                  .when("each non-empty output: a memcpy when its view is contiguous, else a copy kernel")
                  .compute(view_copy_counts)
                  .evidence("opinfo: view_copy, alias_copy, t_copy, transpose_copy, permute_copy, expand_copy, "
                            "narrow_copy, unbind_copy, split_with_sizes_copy, as_strided_copy, unfold_copy, "
                            "diagonal_copy, squeeze_copy, unsqueeze_copy: 82 of 82 op instances")
                  .why("ATen makes each *_copy op from its view: the view (free), then a clone into a new contiguous "
                       "tensor, one memcpy where the view is already contiguous, else one copy kernel per output."));
  r.push_back(
      rule("alias.view")
          .ops({"aten::broadcast_tensors", "aten::atleast_1d", "aten::atleast_2d", "aten::atleast_3d",
                "aten::unsafe_chunk", "aten::unsafe_split", "aten::unsafe_split_with_sizes"})
          .when("always: every output is a view (expand, unsqueeze, narrow) of an input")
          .counts({0, 0, 0, 0})
          .evidence(
              "opinfo: broadcast_tensors (26), atleast_1d/2d/3d (18), unsafe_chunk (6), unsafe_split (4): 0 kernels")
          .why("Each output is an expanded, unsqueezed or narrowed view of an input: no data moves."));
  r.push_back(rule("conj_physical.real")
                  .ops({"aten::conj_physical"})
                  .when("a real (not complex) input: returned as it is",
                        [](const OpFacts& f) {
                          const Value* x = f.input(0);
                          return x && x->dtype != DType::kComplex32 && x->dtype != DType::kComplex64 &&
                                 x->dtype != DType::kComplex128;
                        })
                  .counts({0, 0, 0, 0})
                  .evidence("opinfo: conj_physical of float32 and bfloat16 [20,20] (0 kernels)")
                  .why("The conjugate of a real tensor is the tensor itself: conj_physical returns its input and "
                       "launches nothing."));
  r.push_back(
      rule("allocation")
          .ops({"aten::empty_permuted", "aten::new_empty_strided", "aten::resize_", "aten::resize_as_"})
          .when("always: memory is reserved, never written")
          .counts({0, 0, 0, 0})
          .evidence("opinfo: empty_permuted (6), new_empty_strided (6), resize_ (6), resize_as_ (6): 0 kernels")
          .why("It only reserves (or re-labels) memory from the caching allocator; nothing is written: no kernel."));
  r.push_back(rule("pointwise.alias")
                  .ops({"aten::divide", "aten::subtract", "aten::multiply", "aten::true_divide", "aten::rsub"})
                  .when("always: the alias runs its pointwise op (div, sub, mul) once")
                  .counts({1, 0, 0, 0})
                  .evidence("opinfo: divide (30), subtract (24), rsub (12): 1 kernel each")
                  .why("An alias such as divide or subtract is the same pointwise kernel as div or sub: one "
                       "elementwise kernel."));
}

}  // namespace kc::torch2_11
