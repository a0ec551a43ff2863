#include "passes/layout.h"

#include <algorithm>
#include <deque>
#include <numeric>
#include <optional>
#include <string>
#include <string_view>

#include "analyzer/tensor_geometry.h"
#include "passes/launch_rules.h"
#include "passes/sdpa_path.h"

namespace kc {
namespace {

using Strides = std::vector<int64_t>;

// at::empty(sizes, memory_format): channels_last for 4-D/5-D when asked, else row-major.
Strides format_strides(const std::vector<int64_t>& sizes, bool channels_last) {
  if (channels_last && (sizes.size() == 4 || sizes.size() == 5))
    return strides_in_order(sizes, channels_last_order(sizes.size()));
  return contiguous_strides(sizes);
}

bool same_as_contiguous(const std::vector<int64_t>& sizes, const Strides& s) {
  Value v;
  v.sizes = sizes;
  v.strides = s;
  return v.contiguous();
}

// ATen's is_non_overlapping_and_dense: the strides are a permutation of dense strides.
bool non_overlapping_and_dense(const std::vector<int64_t>& sizes, const Strides& s) {
  std::vector<int> perm(sizes.size());
  std::iota(perm.begin(), perm.end(), 0);
  std::stable_sort(perm.begin(), perm.end(), [&](int a, int b) {
    if (sizes[a] < 2) return false;
    if (sizes[b] < 2) return true;
    return s[a] < s[b];
  });
  return dense_in_order(sizes, s, perm);
}

// TensorIterator's output layout (aten/src/ATen/TensorIterator.cpp, reorder_dimensions): dims
// are sorted fastest-first by the first input whose strides tell them apart (broadcast dims
// skipped, equal strides broken by size), and the output is allocated dense in that order.
Strides tensor_iterator_strides(const std::vector<int64_t>& out_sizes, const std::vector<const Value*>& ins,
                                const std::vector<const Strides*>& in_strides) {
  const int n = static_cast<int>(out_sizes.size());
  std::vector<Strides> ops;  // per input, strides broadcast to the output's dims
  for (size_t k = 0; k < ins.size(); ++k) {
    const Value& v = *ins[k];
    const Strides& s = *in_strides[k];
    const int r = static_cast<int>(v.sizes.size());
    if (r > n || static_cast<int>(s.size()) != r) continue;
    Strides b(n, 0);
    for (int i = 0; i < r; ++i) {
      const int d = n - r + i;
      b[d] = (v.sizes[i] == 1 && out_sizes[d] != 1) ? 0 : s[i];
    }
    ops.push_back(b);
  }
  return strides_in_order(out_sizes, tensor_iterator_order(out_sizes, ops));
}

bool is_one_of(const std::string& name, std::initializer_list<const char*> names) {
  for (const char* n : names)
    if (name == n) return true;
  return false;
}

int64_t wrap_dim(int64_t d, size_t rank) {
  return d < 0 ? d + static_cast<int64_t>(rank) : d;
}

const Arg* find_arg(const Op& op, std::initializer_list<const char*> names) {
  for (const Arg& a : op.args)
    for (const char* n : names)
      if (a.name == n) return &a;
  return nullptr;
}

std::optional<int64_t> int_arg(const Op& op, std::initializer_list<const char*> names) {
  const Arg* a = find_arg(op, names);
  if (!a || a->ints.empty() || (a->kind != Arg::Kind::kInt && a->kind != Arg::Kind::kBool)) return std::nullopt;
  return a->ints[0];
}

// Views: every op's name is compared with each, and a length that differs decides at once.
constexpr std::string_view kConvs[] = {"aten::conv1d",           "aten::conv2d",           "aten::conv3d",
                                       "aten::convolution",      "aten::_convolution",     "aten::cudnn_convolution",
                                       "aten::conv_transpose1d", "aten::conv_transpose2d", "aten::conv_transpose3d"};

// Ops whose CUDA output is allocated contiguous whatever the input's layout (they call
// .contiguous() / expect_contiguous() on it, or allocate with LEGACY_CONTIGUOUS_MEMORY_FORMAT).
bool contiguous_output(const std::string& name) {
  return is_one_of(name, {"aten::linear", "aten::matmul", "aten::mm", "aten::bmm", "aten::addmm", "aten::baddbmm",
                          "aten::einsum", "aten::layer_norm", "aten::native_layer_norm", "aten::rms_norm",
                          "aten::group_norm", "aten::native_group_norm", "aten::softmax", "aten::_softmax",
                          "aten::log_softmax", "aten::_log_softmax", "aten::embedding"});
}

// Ops that allocate their output with input.suggest_memory_format() (cuDNN/native batch norm,
// pools, upsampling).
bool preserves_suggested_format(const std::string& name) {
  return is_one_of(name, {"aten::batch_norm", "aten::_native_batch_norm_legit_no_training", "aten::cudnn_batch_norm",
                          "aten::native_batch_norm", "aten::max_pool2d", "aten::avg_pool2d",
                          "aten::adaptive_avg_pool2d", "aten::adaptive_max_pool2d", "aten::max_pool3d",
                          "aten::avg_pool3d", "aten::upsample_nearest2d", "aten::upsample_bilinear2d"});
}

// Ops that return their input itself (or an alias with the same strides).
bool identity_alias(const std::string& name) {
  return is_one_of(name, {"aten::alias", "aten::detach", "aten::detach_", "aten::dropout", "aten::dropout_",
                          "aten::feature_dropout", "aten::alpha_dropout", "aten::lift_fresh", "aten::narrow",
                          "aten::slice", "aten::split", "aten::split_with_sizes", "aten::chunk", "aten::tensor_split",
                          "aten::unsafe_split", "aten::unsafe_chunk"});
}

class LayoutPass {
 public:
  explicit LayoutPass(const Graph& g) : g_(g), slot_(g.values.size(), -1) {}

  Layout run() {
    for (const Op& op : g_.ops) visit(op);
    Layout out;
    out.failing_views = std::move(failing_);
    out.diverges.assign(g_.values.size(), false);
    for (size_t v = 0; v < g_.values.size(); ++v)
      if (diverged(static_cast<int>(v))) {
        out.diverges[v] = true;
        ++out.diverging;
        out.runtime.emplace(static_cast<int>(v), std::move(set_[slot_[v]]));
      }
    return out;
  }

 private:
  const Strides& rt(int v) const { return slot_[v] < 0 ? g_.values[v].strides : set_[slot_[v]]; }
  bool diverged(int v) const { return slot_[v] >= 0 && set_[slot_[v]] != g_.values[v].strides; }
  bool has_layout(int v) const { return g_.values[v].strides.size() == g_.values[v].sizes.size(); }
  bool suggests_cl(int v) const { return channels_last_strides(g_.values[v].sizes, rt(v)); }

  void set(int v, Strides s) {
    if (v < 0 || s.size() != g_.values[v].sizes.size() || !has_layout(v)) return;
    if (slot_[v] < 0) {
      slot_[v] = static_cast<int>(set_.size());
      set_.push_back(std::move(s));
    } else {
      set_[slot_[v]] = std::move(s);
    }
  }

  // cuDNN convolution (aten/src/ATen/native/ConvUtils.h, cudnn_conv_suggest_memory_format):
  // channels_last output when input or weight is channels_last-strided. 1-d convolutions make
  // their input contiguous first (measured: a transposed [B, L, C] input is copied, then runs
  // the NCHW path), so their output is contiguous. Contiguous input and weight (incl. ATen's
  // native depthwise kernels): contiguous output.
  void conv(const Op& op, int out) {
    const std::vector<int> ins = op.tensor_inputs();
    if (ins.size() < 2 || !has_layout(ins[0]) || !has_layout(ins[1])) return;
    const Value& x = g_.values[ins[0]];
    const Value& w = g_.values[ins[1]];
    const Value& y = g_.values[out];
    if (x.dtype == DType::kFloat64 || x.sizes.size() != w.sizes.size() || y.sizes.size() != x.sizes.size()) return;
    if (x.sizes.size() == 3) return set(out, format_strides(y.sizes, false));
    if (x.sizes.size() != 4 && x.sizes.size() != 5) return;
    const bool cl = suggests_cl(ins[0]) || suggests_cl(ins[1]);
    set(out, format_strides(y.sizes, cl));
  }

  // Attention's output: a fused kernel writes [B, S, H, D] and returns it as [B, H, S, D]; the
  // math path's last bmm writes it contiguous. Which one runs follows the run-time layout of
  // q, k, v and the mask (sdpa_runs_fused), so an export made where another one ran (a CPU)
  // records other strides than the GPU's.
  void sdpa(const Op& op, int out) {
    const std::vector<int> ins = op.tensor_inputs();
    if (ins.size() < 3 || !has_layout(out)) return;
    for (int i = 0; i < 3; ++i)
      if (!has_layout(ins[i])) return;
    auto runtime = [&](int v) {
      Value r = g_.values[v];
      r.strides = rt(v);
      return r;
    };
    const Value q = runtime(ins[0]), k = runtime(ins[1]), v = runtime(ins[2]);
    std::optional<Value> mask;
    const Arg* m = find_arg(op, {"attn_mask"});
    if (m && m->kind == Arg::Kind::kTensor && !m->tensors.empty() && m->tensors[0] >= 0 && has_layout(m->tensors[0]))
      mask = runtime(m->tensors[0]);
    const Value& y = g_.values[out];
    if (y.sizes.size() != 4) return;
    const bool fused = sdpa_runs_fused(q, k, v, mask ? &*mask : nullptr);
    Strides s = fused ? sdpa_fused_output_strides(y.sizes, q) : contiguous_strides(y.sizes);
    // Strides of size-1 dims say nothing: keep the recorded ones when only those differ.
    bool same = y.strides.size() == s.size();
    for (size_t i = 0; same && i < s.size(); ++i) same = y.sizes[i] == 1 || y.strides[i] == s[i];
    if (!same) set(out, s);
  }

  void visit(const Op& op) {
    int first_out = -1;
    for (int v : op.outputs)
      if (v >= 0) {
        first_out = v;
        break;
      }
    if (first_out < 0) return;
    const std::string& name = op.name;
    for (std::string_view c : kConvs)
      if (name == c) return conv(op, first_out);
    if (name == std::string_view("aten::scaled_dot_product_attention")) return sdpa(op, first_out);

    bool any_diverged = false;
    op.for_each_tensor_input([&](int v) { any_diverged |= diverged(v); });
    // Nothing upstream diverges: the export's strides are the run-time ones.
    if (!any_diverged) return;
    std::vector<int> outs;
    for (int v : op.outputs)
      if (v >= 0) outs.push_back(v);
    const std::vector<int> ins = op.tensor_inputs();
    for (int v : ins)
      if (!has_layout(v)) return;
    for (int v : outs)
      if (!has_layout(v)) return;

    const int x = ins[0];
    const Value& xv = g_.values[x];
    const Strides& xs = rt(x);
    const Value& yv = g_.values[outs[0]];
    const size_t r = xv.sizes.size();

    if (op.traits.inplace) {  // writes self in place: the output is self
      for (int o : outs) set(o, xs);
      return;
    }
    if (identity_alias(name)) {
      // Same strides; slices with a step multiply the sliced dim's stride.
      for (int o : outs)
        if (g_.values[o].sizes.size() == r) set(o, xs);
      return;
    }
    if (name == "aten::slice") {
      Strides s = xs;
      const int64_t d = wrap_dim(int_arg(op, {"dim"}).value_or(0), r);
      if (d >= 0 && d < static_cast<int64_t>(r)) s[d] *= int_arg(op, {"step"}).value_or(1);
      return set(outs[0], s);
    }
    if (is_one_of(name, {"aten::permute", "aten::transpose", "aten::swapaxes", "aten::swapdims", "aten::t",
                         "aten::numpy_T", "aten::movedim"})) {
      std::vector<int64_t> perm(r);
      std::iota(perm.begin(), perm.end(), 0);
      if (name == "aten::permute") {
        const Arg* a = find_arg(op, {"dims"});
        if (!a || a->ints.size() != r) return;
        perm = a->ints;
      } else if (name == "aten::t" || name == "aten::numpy_T") {
        std::reverse(perm.begin(), perm.end());
      } else if (name == "aten::movedim") {
        return;  // left as recorded
      } else {
        auto d0 = int_arg(op, {"dim0", "axis0"}), d1 = int_arg(op, {"dim1", "axis1"});
        if (!d0 || !d1) return;
        const int64_t a = wrap_dim(*d0, r), b = wrap_dim(*d1, r);
        if (a < 0 || b < 0 || a >= static_cast<int64_t>(r) || b >= static_cast<int64_t>(r)) return;
        std::swap(perm[a], perm[b]);
      }
      Strides s(r);
      for (size_t i = 0; i < r; ++i) {
        const int64_t p = wrap_dim(perm[i], r);
        if (p < 0 || p >= static_cast<int64_t>(r)) return;
        s[i] = xs[p];
      }
      return set(outs[0], s);
    }
    if (is_one_of(name, {"aten::view", "aten::reshape", "aten::_unsafe_view", "aten::flatten", "aten::unflatten",
                         "aten::view_as", "aten::reshape_as"})) {
      if (auto s = view_strides(xv.sizes, xs, yv.sizes)) return set(outs[0], *s);
      // view, _unsafe_view (view_impl) and view_as raise where no view fits; the others copy.
      if (is_one_of(name, {"aten::view", "aten::_unsafe_view", "aten::view_as"})) {
        if (!view_is_possible(xv.sizes, xs, yv.sizes))
          failing_.push_back({static_cast<int>(&op - g_.ops.data()), xv.sizes, xs});
        return;
      }
      set(outs[0], contiguous_strides(yv.sizes));
      return;
    }
    if (name == "aten::unsqueeze") {
      auto d = int_arg(op, {"dim"});
      if (!d) return;
      const int64_t dim = d < 0 ? *d + static_cast<int64_t>(r) + 1 : *d;
      if (dim < 0 || dim > static_cast<int64_t>(r)) return;
      Strides s = xs;
      s.insert(s.begin() + dim, dim >= static_cast<int64_t>(r) ? 1 : xv.sizes[dim] * xs[dim]);
      return set(outs[0], s);
    }
    if (name == "aten::squeeze") {  // drop the size-1 dims the output lost
      Strides s;
      size_t j = 0;
      for (size_t i = 0; i < r; ++i) {
        if (j < yv.sizes.size() && yv.sizes[j] == xv.sizes[i] && (xv.sizes[i] != 1 || r - i <= yv.sizes.size() - j)) {
          s.push_back(xs[i]);
          ++j;
        }
      }
      if (s.size() == yv.sizes.size()) set(outs[0], s);
      return;
    }
    if (name == "aten::select" || name == "aten::unbind") {
      const int64_t d = wrap_dim(int_arg(op, {"dim"}).value_or(0), r);
      if (d < 0 || d >= static_cast<int64_t>(r)) return;
      Strides s = xs;
      s.erase(s.begin() + d);
      for (int o : outs) set(o, s);
      return;
    }
    if (is_one_of(name, {"aten::expand", "aten::expand_as", "aten::broadcast_to"})) {
      const size_t n = yv.sizes.size();
      if (r > n) return;
      Strides s(n, 0);
      for (size_t i = 0; i < r; ++i)
        if (xv.sizes[i] == yv.sizes[n - r + i]) s[n - r + i] = xs[i];
      return set(outs[0], s);
    }
    if (is_one_of(name, {"aten::clone", "aten::to", "aten::type_as", "aten::_to_copy", "aten::contiguous"})) {
      // memory_format=preserve: dense inputs keep their strides; others go to the suggested format.
      const Arg* mf = find_arg(op, {"memory_format"});
      if (name == "aten::contiguous") {
        const bool cl = mf && mf->kind == Arg::Kind::kMemoryFormat && mf->text != "1" && mf->text != "0";
        return set(outs[0], same_as_contiguous(xv.sizes, xs) && !cl ? xs : format_strides(yv.sizes, cl));
      }
      if (non_overlapping_and_dense(xv.sizes, xs)) return set(outs[0], xs);
      return set(outs[0], format_strides(yv.sizes, suggests_cl(x)));
    }
    if (contiguous_output(name) || op.traits.reduction) {
      for (int o : outs) set(o, contiguous_strides(g_.values[o].sizes));
      return;
    }
    if (preserves_suggested_format(name)) return set(outs[0], format_strides(yv.sizes, suggests_cl(x)));
    if (name == "aten::cat") {
      // cat's output takes the inputs' common suggested format, else contiguous.
      bool cl = true;
      for (int v : ins) cl &= suggests_cl(v);
      return set(outs[0], format_strides(yv.sizes, cl));
    }
    if (op.traits.pointwise) {
      std::vector<const Value*> vals;
      std::vector<const Strides*> strides;
      for (int v : ins) {
        vals.push_back(&g_.values[v]);
        strides.push_back(&rt(v));
      }
      for (int o : outs) set(o, tensor_iterator_strides(g_.values[o].sizes, vals, strides));
      return;
    }
    // Anything else keeps the recorded strides: no rule of ATen's is known for it here.
  }

  const Graph& g_;
  std::vector<int> slot_;    // per value: its run-time strides in set_, or -1: as recorded
  std::deque<Strides> set_;  // strides the pass gave values; a deque: rt() references stay valid
  std::vector<FailingView> failing_;
};

}  // namespace

bool channels_last_strides(const std::vector<int64_t>& sizes, const std::vector<int64_t>& strides) {
  if ((sizes.size() != 4 && sizes.size() != 5) || strides.size() != sizes.size()) return false;
  const std::vector<int> order = channels_last_order(sizes.size());
  if (strides[1] == 0) return false;
  int64_t min = 0;
  for (int d : order) {
    if (sizes[d] == 0 || strides[d] < min) return false;
    if (d == 0 && min == strides[1]) return false;  // ambiguous N111: NCHW
    min = strides[d];
    if (sizes[d] > 1) min *= sizes[d];
  }
  return true;
}

Layout run_layout(const Graph& g) {
  return LayoutPass(g).run();
}

Graph with_runtime_strides(const Graph& g, const Layout& layout) {
  Graph r = g;
  for (const auto& [v, strides] : layout.runtime)
    if (v >= 0 && static_cast<size_t>(v) < r.values.size()) r.values[v].strides = strides;
  return r;
}

}  // namespace kc
