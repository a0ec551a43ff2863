#include "analyzer/torchscript_loader.h"

#include <c10/util/Logging.h>
#include <caffe2/serialize/inline_container.h>
#include <torch/csrc/jit/api/function_impl.h>
#include <torch/csrc/jit/passes/inliner.h>
#include <torch/script.h>

#include <algorithm>
#include <cstring>
#include <exception>
#include <future>
#include <unordered_map>
#include <unordered_set>

#include "analyzer/error.h"
#include "analyzer/live_op_registry.h"
#include "analyzer/shape_functions.h"
#include "analyzer/source_loc.h"
#include "analyzer/torch_types.h"
#include "analyzer/torchscript_archive.h"
#include "analyzer/torchscript_import.h"
#include "analyzer/torchscript_source.h"
#include "analyzer/torchvision_ops.h"

namespace kc {
namespace {

namespace jit = torch::jit;

// The first non-empty line of a libtorch message (TorchScript's start with a newline).
std::string first_line(const std::string& s) {
  size_t b = s.find_first_not_of("\n ");
  if (b == std::string::npos) return "";
  return s.substr(b, s.find('\n', b) - b);
}

// libtorch's unpickler gives a tensor the sizes, strides and offset its pickle names without
// checking them against its storage (check_pickle_lengths checks the storage against its
// record): in a damaged archive a constant can reach past its storage, and an op that reads its
// values would read outside it. Returns false for such a tensor, or a list or tuple holding one.
bool within_storage(const c10::IValue& v) {
  if (v.isTensor()) {
    const at::Tensor& t = v.toTensor();
    if (!t.defined() || t.is_meta() || !t.has_storage() || t.numel() == 0) return true;
    const c10::Storage& storage = t.storage();
    size_t needed = 0;
    try {
      needed = at::detail::computeStorageNbytes(t.sizes(), t.strides(), t.dtype().itemsize(),
                                                static_cast<size_t>(t.storage_offset()));
    } catch (const c10::Error&) {
      return false;  // a size that overflows
    }
    return needed <= storage.nbytes() && storage.data() != nullptr;
  }
  if (v.isList()) {
    for (const c10::IValue& e : v.toListRef())
      if (!within_storage(e)) return false;
  } else if (v.isTuple()) {
    for (const c10::IValue& e : v.toTupleRef().elements())
      if (!within_storage(e)) return false;
  }
  return true;
}

// A trace records a Python number used as a size as Int(NumToTensor(n)) (or ScalarImplicit):
// a round trip the pre-optimisation's peephole pass folds away inside each callee.
void fold_scalar_conversions(jit::Block* block) {
  for (auto it = block->nodes().begin(), end = block->nodes().end(); it != end;) {
    jit::Node* n = *it++;
    for (jit::Block* sub : n->blocks()) fold_scalar_conversions(sub);
    const bool conversion = n->kind() == c10::aten::Int || n->kind() == c10::aten::ScalarImplicit;
    if (!conversion || n->inputs().size() != 1 || n->input()->node()->kind() != c10::prim::NumToTensor) continue;
    jit::Value* number = n->input()->node()->input();
    if (!number->type()->isSubtypeOf(*n->output()->type())) continue;
    n->output()->replaceAllUsesWith(number);
    n->destroy();
  }
}

// Calls nested deeper than this are refused (TorchScript has no recursion; real modules nest a
// few dozen deep).
constexpr int kMaxCallDepth = 256;

// Inlines every call, bottom-up as torch::jit::Inline does, but without the executor's
// pre-optimisation passes that Inline runs on every callee (a third of the load time of a large
// traced model). Of those passes only one changes an op the run sees, the peephole fold of
// fold_scalar_conversions, done here on each callee as there; the graph being inlined into is
// not pre-optimised by Inline either, so it is not folded.
class CallInliner {
 public:
  void inline_calls(jit::Block* block, int depth) {
    check(depth <= kMaxCallDepth, "TorchScript calls nest more than " + std::to_string(kMaxCallDepth) + " deep");
    for (auto it = block->nodes().begin(), end = block->nodes().end(); it != end;) {
      jit::Node* cur = *it++;
      const bool call = cur->kind() == c10::prim::CallFunction || cur->kind() == c10::prim::CallMethod;
      if (jit::GraphFunction* fn = call ? jit::tryToGraphFunction(cur) : nullptr) {
        if (cur->kind() == c10::prim::CallFunction) cur->removeInput(0);  // the function constant
        jit::inlineCallTo(cur, fn, body(fn, depth).get());
        continue;
      }
      for (jit::Block* sub : cur->blocks()) inline_calls(sub, depth);
    }
  }

 private:
  // The callee's own graph, its calls inlined in place once: the module was loaded for this
  // analysis alone, and a copy would clone every node once more per level of nesting.
  std::shared_ptr<jit::Graph> body(jit::GraphFunction* fn, int depth) {
    std::shared_ptr<jit::Graph> g = fn->graph();
    if (done_.insert(fn).second) {
      inline_calls(g->block(), depth + 1);
      fold_scalar_conversions(g->block());
    }
    return g;
  }

  std::unordered_set<jit::GraphFunction*> done_;
};

class MetaRunner {
 public:
  // saved_on: the device recorded in the archive. A model saved on a GPU computes there; one
  // saved on the host is predicted for the target's GPU ("cuda"), as a .pt2 exported on the
  // host is.
  // debug_tables: read_debug_tables' answer for the archive.
  // constants_on: where the tensor constants were saved, empty when unknown (split).
  // constant_storages: constant_storages' answer, each constant storage's bytes and location.
  MetaRunner(jit::Module module, const std::string& path, const LoadOptions& opt, const std::string& saved_on,
             const std::string& constants_on, std::vector<std::pair<std::string, std::string>> constant_storages,
             std::unordered_map<std::string, c10::IValue> debug_tables)
      : module_(std::move(module)),
        opt_(opt),
        source_lines_(path),
        locator_(std::move(debug_tables)),
        constant_storages_(std::move(constant_storages)),
        saved_on_gpu_(saved_on.rfind("cuda", 0) == 0),
        constants_on_gpu_(!saved_on_gpu_ || constants_on != "cpu"),
        device_(saved_on_gpu_ ? saved_on : "cuda") {
    g_.info.path = path;
    g_.info.format = "torchscript";
  }

  Graph run() {
    module_.eval();
    auto graph = module_.get_method("forward").graph()->copy();
    CallInliner().inline_calls(graph->block(), 0);
    bind_inputs(*graph);
    ShapeFunctionKernels shape_functions;
    run_block(graph->block());
    for (jit::Value* out : graph->outputs()) collect_outputs(env_.at(out));
    propagate_requires_grad_to_views(g_);
    if (host_moves_kept_on_gpu_ > 0)
      g_.info.notes.push_back(
          "saved on the host: every tensor is taken as on the GPU, so the trace's " +
          std::to_string(host_moves_kept_on_gpu_) +
          " move(s) to the host (.to(\"cpu\")) stay on the GPU here; saved on the GPU, a trace keeps where each "
          "tensor lives and they count as copies");
    if (auto bad = g_.check()) throw Error("graph: " + *bad);
    return std::move(g_);
  }

 private:
  void bind_inputs(jit::Graph& graph) {
    auto inputs = graph.inputs();
    env_[inputs[0]] = module_._ivalue();
    const size_t n = inputs.size() - 1;
    std::string names;
    for (size_t i = 1; i < inputs.size(); ++i) names += (i > 1 ? ", " : "") + inputs[i]->debugNameBase();
    check(!opt_.inputs.empty(),
          "TorchScript models carry no input shapes: give one --input per forward() argument (" + names + ")");
    check(opt_.inputs.size() == n, "the model's forward() takes " + std::to_string(n) + " input(s) (" + names +
                                       ") but " + std::to_string(opt_.inputs.size()) + " --input given");
    for (const auto& s : opt_.inputs) {
      bool known = s.name.empty();
      for (size_t i = 1; i < inputs.size(); ++i) known = known || s.name == inputs[i]->debugNameBase();
      check(known, "--input " + s.name + "=...: forward() has no input of that name (" + names + ")");
    }
    for (size_t i = 1; i < inputs.size(); ++i) {
      jit::Value* in = inputs[i];
      const InputSpec* spec = nullptr;
      for (const auto& s : opt_.inputs)
        if (!s.name.empty() && s.name == in->debugNameBase()) spec = &s;
      // Unnamed specs fill the inputs that no name claimed, in order.
      for (size_t k = 0, free = 0; !spec && k < opt_.inputs.size(); ++k) {
        if (!opt_.inputs[k].name.empty()) continue;
        if (free++ == unnamed_used_) {
          spec = &opt_.inputs[k];
          ++unnamed_used_;
        }
      }
      check(spec != nullptr, "no --input for '" + in->debugNameBase() + "' (inputs: " + names + ")");
      check(in->type()->kind() == c10::TypeKind::TensorType,
            "input '" + in->debugNameBase() + "' is a " + in->type()->str() + ", only tensor inputs are supported");
      at::Tensor t = at::empty(spec->sizes, at::TensorOptions().dtype(to_scalar_type(spec->dtype)).device(at::kMeta));
      int id = value_for(t, in->debugNameBase(), ValueRole::kInput);
      g_.inputs.push_back(id);
      env_[in] = t;
    }
  }

  // The IR value of a tensor, registering it on first sight. Identity is the TensorImpl, so an
  // in-place op's output is the value it wrote.
  int value_for(const at::Tensor& t, const std::string& name, ValueRole role) {
    auto it = ids_.find(t.unsafeGetTensorImpl());
    if (it != ids_.end()) return it->second;
    Value v;
    v.name = name.empty() ? "t" + std::to_string(g_.values.size()) : name;
    v.sizes = t.sizes().vec();
    v.strides = t.strides().vec();
    v.dtype = dtype_of(t.scalar_type());
    check(v.dtype != DType::kUnknown,
          "tensor " + v.name + " has an unsupported dtype " + std::string(c10::toString(t.scalar_type())));
    // Meta tensors stand for the target GPU; CPU tensors are host-side values of the model.
    const bool on_gpu =
        (t.is_meta() && !on_host_.count(t.unsafeGetTensorImpl())) || on_gpu_.count(t.unsafeGetTensorImpl());
    v.device = on_gpu ? device_ : "cpu";
    v.role = role;
    int id = g_.add_value(std::move(v));
    ids_[t.unsafeGetTensorImpl()] = id;
    keep_.push_back(t);
    return id;
  }

  void collect_outputs(const c10::IValue& v) {
    if (v.isTensor()) {
      g_.outputs.push_back(value_for(v.toTensor(), "", ValueRole::kIntermediate));
    } else if (v.isTuple()) {
      for (const auto& e : v.toTupleRef().elements()) collect_outputs(e);
    } else if (v.isList()) {
      for (const auto& e : v.toListRef()) collect_outputs(e);
    } else if (v.isGenericDict()) {
      for (const auto& kv : v.toGenericDict()) collect_outputs(kv.value());
    }
  }

  std::string where(const jit::Node* node) const {
    SourceLoc loc = locator_.of(node);
    std::string w = "node " + std::string(node->kind().toQualString());
    if (!loc.file.empty()) w += " at " + loc.file.str() + ":" + std::to_string(loc.line);
    return w;
  }

  void run_block(jit::Block* block) {
    for (jit::Node* node : block->nodes()) {
      // A loop is unrolled trip by trip, so a `while True`, a range(10**12) or a loop over
      // every row of a large input is stopped by what it has run, not by its trip count.
      if (++executed_ > kMaxExecutedNodes || static_cast<int64_t>(g_.ops.size()) > kMaxOps)
        throw Error(where(node) + ": the model runs more than " +
                    std::to_string(executed_ > kMaxExecutedNodes ? kMaxExecutedNodes : kMaxOps) +
                    (executed_ > kMaxExecutedNodes ? " TorchScript instructions" : " ops") +
                    " for these inputs (a loop's trips unrolled), more than kernelcount reads");
      run_node(node);
    }
  }

  // Runs a block with the given inputs bound and returns its outputs.
  std::vector<c10::IValue> run_sub(jit::Block* block, const std::vector<c10::IValue>& inputs) {
    for (size_t i = 0; i < inputs.size(); ++i) env_[block->inputs()[i]] = inputs[i];
    run_block(block);
    std::vector<c10::IValue> outs;
    for (jit::Value* o : block->outputs()) outs.push_back(env_.at(o));
    return outs;
  }

  void run_node(jit::Node* node) {
    switch (node->kind()) {
      case c10::prim::Constant: {
        auto v = jit::toIValue(node->output());
        env_[node->output()] = v ? *v : c10::IValue();
        // A tensor constant is where it was saved: torch.jit.load restores each tensor to its
        // saved device, so a GPU trace's literals (torch.tensor(4) in x.size(1) // 4) stay on
        // the host, where arithmetic with sizes runs and launches nothing. A model saved on the
        // host is analyzed as moved to the GPU whole (map_location), its constants with it. It
        // keeps its CPU value either way: shape arithmetic needs it.
        if (v && v->isTensor() && constant_on_gpu(v->toTensor())) on_gpu_.insert(v->toTensor().unsafeGetTensorImpl());
        return;
      }
      case c10::prim::GetAttr: {
        c10::IValue obj = env_.at(node->input());
        if (!(obj.isObject())) throw Error(where(node) + ": attribute of a non-object");
        const std::string name = node->s(c10::attr::name);
        c10::IValue attr = obj.toObject()->getAttr(name);
        if (attr.isTensor()) attr = weight(attr.toTensor(), node);
        env_[node->output()] = attr;
        return;
      }
      case c10::prim::If: {
        c10::IValue cond = env_.at(node->input());
        if (!(cond.isBool())) throw Error(where(node) + ": branch condition is not known before the run");
        auto outs = run_sub(node->blocks()[cond.toBool() ? 0 : 1], {});
        for (size_t i = 0; i < outs.size(); ++i) env_[node->outputs()[i]] = outs[i];
        return;
      }
      case c10::prim::Loop: {
        // Run trip by trip, as eager runs them, until a trip repeats the one before it: a `for`
        // loop whose body mutates no list, dict or attribute, whose trip ran the same ops on the
        // same shapes as the trip before and hands the next trip values of the shapes it got,
        // runs every later trip alike. Its ops then stand for all the trips left (Op::repeat).
        c10::IValue trip = env_.at(node->inputs()[0]);
        c10::IValue cond = env_.at(node->inputs()[1]);
        if (!(trip.isInt() && cond.isBool()))
          throw Error(where(node) + ": loop trip count is not known before the run");
        std::vector<c10::IValue> carried;
        for (size_t i = 2; i < node->inputs().size(); ++i) carried.push_back(env_.at(node->inputs()[i]));
        jit::Block* body = node->blocks()[0];
        const bool may_repeat = counted_loop(body) && !mutates_state(body);
        const int64_t trips = trip.toInt();
        size_t previous_begin = 0;
        for (int64_t i = 0; i < trips && cond.toBool(); ++i) {
          const size_t begin = g_.ops.size();
          std::vector<c10::IValue> in{c10::IValue(i)};
          in.insert(in.end(), carried.begin(), carried.end());
          auto outs = run_sub(body, in);
          cond = outs[0];
          if (!(cond.isBool())) throw Error(where(node) + ": loop condition is not known before the run");
          const std::vector<c10::IValue> before = std::move(carried);
          carried.assign(outs.begin() + 1, outs.end());
          const int64_t rest = trips - 1 - i;
          if (may_repeat && i > 0 && rest > 0 && same_kinds(before, carried) &&
              same_trip(previous_begin, begin, g_.ops.size(), i)) {
            for (size_t k = begin; k < g_.ops.size(); ++k) {
              Op& op = g_.ops[k];
              const int64_t runs = op.repeat > kMaxRepeat / (rest + 1) ? kMaxRepeat + 1 : op.repeat * (rest + 1);
              if (runs > kMaxRepeat)
                throw Error(where(node) + ": a loop runs its body " + std::to_string(trips) + " times (" +
                            op.full_name() + " more than " + std::to_string(kMaxRepeat) +
                            " times in all), more than kernelcount counts");
              op.repeat = runs;
            }
            break;
          }
          previous_begin = begin;
        }
        for (size_t i = 0; i < carried.size(); ++i) env_[node->outputs()[i]] = carried[i];
        return;
      }
      // Containers are interpreter instructions, not operators.
      case c10::prim::ListConstruct:
      case c10::prim::ListUnpack:
      case c10::prim::TupleConstruct:
      case c10::prim::TupleUnpack:
      case c10::prim::DictConstruct: {
        std::vector<c10::IValue> in;
        for (jit::Value* v : node->inputs()) in.push_back(env_.at(v));
        std::vector<c10::IValue> stack;
        switch (node->kind()) {
          case c10::prim::ListConstruct: {
            c10::impl::GenericList list(node->output()->type()->expectRef<c10::ListType>().getElementType());
            for (auto& v : in) list.push_back(std::move(v));
            stack.emplace_back(std::move(list));
            break;
          }
          case c10::prim::ListUnpack:
            for (const auto& v : in.at(0).toListRef()) stack.push_back(v);
            break;
          case c10::prim::TupleConstruct:
            stack.emplace_back(c10::ivalue::Tuple::create(std::move(in)));
            break;
          case c10::prim::TupleUnpack:
            for (const auto& v : in.at(0).toTupleRef().elements()) stack.push_back(v);
            break;
          default: {
            const auto& type = node->output()->type()->expectRef<c10::DictType>();
            c10::impl::GenericDict dict(type.getKeyType(), type.getValueType());
            for (size_t i = 0; i + 1 < in.size(); i += 2) dict.insert(in[i], in[i + 1]);
            stack.emplace_back(std::move(dict));
          }
        }
        if (!(stack.size() == node->outputs().size())) throw Error(where(node) + ": unexpected number of results");
        for (size_t i = 0; i < stack.size(); ++i) env_[node->outputs()[i]] = stack[i];
        return;
      }
      case c10::prim::Uninitialized:
        env_[node->output()] = c10::IValue();
        return;
      case c10::prim::unchecked_cast:
        env_[node->output()] = env_.at(node->input());
        return;
      case c10::prim::RaiseException:
        throw Error(where(node) + ": the model raises an exception for these inputs");
      case c10::prim::CallMethod:
      case c10::prim::CallFunction:
        throw Error(where(node) + ": call left after inlining");
      default:
        run_op(node);
    }
  }

  // Where a tensor constant runs: a model saved on the host runs on the GPU whole; in one saved
  // on the GPU each constant stays where it was saved (a trace's torch.as_tensor(list) on the
  // host, moved by a later .to(device), a memcpy), found by its storage's bytes; where they
  // do not tell (equal bytes saved in two places), where the constants were saved together.
  bool constant_on_gpu(const at::Tensor& t) {
    if (!saved_on_gpu_) return true;
    auto known = constant_on_gpu_.find(t.unsafeGetTensorImpl());
    if (known != constant_on_gpu_.end()) return known->second;
    std::optional<std::string> where;
    bool ambiguous = false;
    if (t.has_storage() && t.storage().data() != nullptr) {
      const size_t n = t.storage().nbytes();
      const char* bytes = static_cast<const char*>(t.storage().data());
      for (const auto& [stored, location] : constant_storages_) {
        if (stored.size() != n || std::memcmp(stored.data(), bytes, n) != 0) continue;
        ambiguous |= where && *where != location;
        where = location;
      }
    }
    const bool gpu = where && !ambiguous ? *where != "cpu" : constants_on_gpu_;
    constant_on_gpu_.emplace(t.unsafeGetTensorImpl(), gpu);
    return gpu;
  }

  // A `for` loop: its body hands back a constant `true` as the condition to go on.
  static bool counted_loop(jit::Block* body) {
    const jit::Node* cond = body->outputs()[0]->node();
    return cond->kind() == c10::prim::Constant;
  }
  // Whether the block (or one nested in it) changes state a later trip reads other than through
  // tensors: an attribute set, or a list or dict written in place (append, _set_item, ...).
  static bool mutates_state(jit::Block* block) {
    for (jit::Node* n : block->nodes()) {
      if (n->kind() == c10::prim::SetAttr) return true;
      if (const c10::FunctionSchema* schema = n->maybeSchema())
        for (const c10::Argument& a : schema->arguments())
          if (a.alias_info() && a.alias_info()->isWrite() && a.type()->kind() != c10::TypeKind::TensorType) return true;
      for (jit::Block* sub : n->blocks())
        if (mutates_state(sub)) return true;
    }
    return false;
  }
  // The loop-carried values going into a trip and coming out of it are alike: tensors of the
  // same sizes, strides, dtype and device (and place), numbers, flags and strings equal.
  bool same_kinds(const std::vector<c10::IValue>& a, const std::vector<c10::IValue>& b) const {
    if (a.size() != b.size()) return false;
    for (size_t i = 0; i < a.size(); ++i) {
      const c10::IValue& x = a[i];
      const c10::IValue& y = b[i];
      if (x.isTensor() && y.isTensor()) {
        const at::Tensor& s = x.toTensor();
        const at::Tensor& t = y.toTensor();
        if (s.sizes() != t.sizes() || s.strides() != t.strides() || s.scalar_type() != t.scalar_type() ||
            s.is_meta() != t.is_meta() ||
            on_host_.count(s.unsafeGetTensorImpl()) != on_host_.count(t.unsafeGetTensorImpl()) ||
            on_gpu_.count(s.unsafeGetTensorImpl()) != on_gpu_.count(t.unsafeGetTensorImpl()))
          return false;
      } else if (x.isInt() || x.isDouble() || x.isBool() || x.isString() || x.isNone() || x.isDevice()) {
        if (!(x == y)) return false;
      } else {
        return false;  // containers and objects: not compared, not repeated
      }
    }
    return true;
  }
  // Ops [a, b) (the trip before) and [b, c) (trip `trip`) are the same calls on the same shapes:
  // names, source lines, repeats, tensor arguments alike, other arguments equal but for integers
  // that are each trip's own index (x[i]).
  bool same_trip(size_t a, size_t b, size_t c, int64_t trip) const {
    if (b - a != c - b) return false;
    auto same_value = [&](int u, int v) {
      if (u < 0 || v < 0) return u == v;
      const Value& x = g_.values[u];
      const Value& y = g_.values[v];
      return x.sizes == y.sizes && x.strides == y.strides && x.dtype == y.dtype && x.device == y.device;
    };
    for (size_t k = 0; k < c - b; ++k) {
      const Op& p = g_.ops[a + k];
      const Op& q = g_.ops[b + k];
      if (p.name != q.name || p.overload != q.overload || p.repeat != q.repeat || p.loc.file != q.loc.file ||
          p.loc.line != q.loc.line || p.args.size() != q.args.size() || p.outputs.size() != q.outputs.size())
        return false;
      for (size_t j = 0; j < p.outputs.size(); ++j)
        if (!same_value(p.outputs[j], q.outputs[j])) return false;
      for (size_t j = 0; j < p.args.size(); ++j) {
        const Arg& x = p.args[j];
        const Arg& y = q.args[j];
        if (x.kind != y.kind || x.floats != y.floats || x.text != y.text || x.tensors.size() != y.tensors.size() ||
            x.ints.size() != y.ints.size())
          return false;
        for (size_t m = 0; m < x.ints.size(); ++m)
          if (x.ints[m] != y.ints[m] && !(x.ints[m] == trip - 1 && y.ints[m] == trip)) return false;
        for (size_t m = 0; m < x.tensors.size(); ++m)
          if (!same_value(x.tensors[m], y.tensors[m])) return false;
      }
    }
    return true;
  }

  // Parameters and buffers become meta tensors of the same shape: their values never matter.
  std::unordered_map<const c10::StorageImpl*, size_t> storage_ids_;  // each weight storage's index
  c10::IValue weight(const at::Tensor& t, const jit::Node* node) {
    auto it = weights_.find(t.unsafeGetTensorImpl());
    if (it != weights_.end()) return it->second;
    at::Tensor m = t.is_meta() ? t : at::empty_strided(t.sizes(), t.strides(), t.options().device(at::kMeta));
    const int id =
        value_for(m, node->output()->debugNameBase(), t.requires_grad() ? ValueRole::kParameter : ValueRole::kBuffer);
    g_.values[id].requires_grad = t.requires_grad();
    if (t.has_storage()) {
      const auto storage = storage_ids_.emplace(t.storage().unsafeGetStorageImpl(), storage_ids_.size()).first;
      g_.values[id].storage = static_cast<int>(storage->second);
      g_.values[id].storage_offset = t.storage_offset();
    }
    weights_.emplace(t.unsafeGetTensorImpl(), m);
    return m;
  }

  bool touches_tensors(const std::vector<c10::IValue>& vals) const {
    for (const auto& v : vals) {
      if (v.isTensor()) return true;
      if (v.isTensorList() || v.isOptionalTensorList()) return true;
      if (v.isList())
        for (const auto& e : v.toListRef())
          if (e.isTensor()) return true;
      if (v.isTuple())
        for (const auto& e : v.toTupleRef().elements())
          if (e.isTensor()) return true;
    }
    return false;
  }

  void run_op(jit::Node* node) {
    std::vector<c10::IValue> inputs;
    for (jit::Value* in : node->inputs()) inputs.push_back(env_.at(in));
    // A list or dict builtin moves references only: run it as it is, without looking through
    // the container (which a loop appending to it would make quadratic).
    if (const c10::FunctionSchema* schema = node->maybeSchema(); schema && container_builtin(*schema)) {
      jit::Stack stack = inputs;
      try {
        node->getOperation()(stack);
      } catch (const std::exception& e) {
        throw Error(where(node) + ": " + first_line(e.what()));
      }
      if (!(stack.size() == node->outputs().size())) throw Error(where(node) + ": unexpected number of results");
      for (size_t i = 0; i < stack.size(); ++i) env_[node->outputs()[i]] = stack[i];
      return;
    }
    for (const c10::IValue& v : inputs)
      check(within_storage(v), where(node) + ": a tensor of the model reaches past its storage (a damaged archive)");
    jit::Stack stack = inputs;
    // Device arguments (factories, to()) run on the meta device; the op keeps the recorded one
    // in its arguments. The model's device is cuda:0 in a trace on the GPU and cpu in one saved
    // on the host, which is analyzed as if on the GPU. Two exceptions: a GPU model that names
    // the host (x.cpu(), a factory on the CPU) makes a shape-only value that lives there, and
    // shape arithmetic on host values moved to the GPU keeps its values (as constants do).
    bool to_host = false, to_gpu = false, names_gpu = false;
    const bool only_values = all_tensors_have_values(inputs);
    // A factory with no device (torch.zeros(n) in scripted code) makes its tensor on the
    // default device, the host: shape-only as well, never an allocation of activation size.
    // Values from literals (torch.tensor([0, 2])) stay real: they are small and may matter.
    if (const c10::FunctionSchema* schema = node->maybeSchema(); schema && !touches_tensors(inputs)) {
      auto device = schema->argumentIndexWithName("device");
      const std::string& name = schema->name();
      if (device && stack.at(*device).isNone() && name != "aten::tensor" && name != "aten::as_tensor" &&
          name != "aten::scalar_tensor")
        stack.at(*device) = c10::IValue(c10::Device(c10::kCPU));
    }
    for (auto& v : stack) {
      if (!v.isDevice()) continue;
      // A model saved on the host runs moved to the GPU whole, so its trace's moves to the host
      // (.to("cpu"), .cpu()) cannot be told from a move to where the tensor already was.
      if (v.toDevice().is_cpu() && !saved_on_gpu_ && node->kind() == c10::aten::to) ++host_moves_kept_on_gpu_;
      const bool host = v.toDevice().is_cpu() && saved_on_gpu_;
      to_host = to_host || host;
      names_gpu = names_gpu || !host;
      to_gpu = to_gpu || (!host && only_values);
      // Host values moved to the host (a scale computed from sizes, .to("cpu") in a trace's
      // interpolate) keep their values: sizes are computed from them later.
      v = c10::IValue(c10::Device(only_values ? c10::kCPU : c10::kMeta));
    }
    // A tensor constant that stands on the GPU (a model saved on the host runs moved there
    // whole) keeps its host value for shape arithmetic; beside shape-only tensors it takes part
    // as one of them, as it would beside the model's other GPU tensors (0-dim ones are scalars).
    if (has_shape_only(stack)) shape_only_gpu_constants(stack);
    try {
      const c10::FunctionSchema* schema = node->maybeSchema();
      if (!schema || !run_torchvision_meta(*schema, stack)) node->getOperation()(stack);
    } catch (const std::exception& e) {
      // Some ops have their meta function only in Python (aten::relu), or a composite kernel
      // that picks a backend meta tensors do not have (aten::_convolution): the op's own shape
      // function, else for a pointwise op the broadcast of its inputs, gives the result.
      // Any other error is the op rejecting its inputs, as it would on the GPU.
      std::string why = first_line(e.what());
      if (auto* ce = dynamic_cast<const c10::Error*>(&e)) why = first_line(ce->what_without_backtrace());
      const bool no_kernel = dynamic_cast<const c10::NotImplementedError*>(&e) != nullptr;
      std::optional<jit::Stack> fallback;
      if (no_kernel) fallback = shape_function_result(node, inputs);
      if (no_kernel && !fallback) fallback = pointwise_result(node, inputs);
      if (!fallback) throw Error(where(node) + ": " + shape_failure(why) + dtype_hint(why));
      stack = *fallback;
    }
    if (!(stack.size() == node->outputs().size())) throw Error(where(node) + ": unexpected number of results");
    if (node->kind() == c10::Symbol::fromQualString("aten::scaled_dot_product_attention")) gpu_attention_layout(stack);
    // A move to the host is a copy even where the meta run returned its input itself.
    if (to_host)
      for (auto& v : stack) {
        if (!v.isTensor()) continue;
        const at::Tensor& t = v.toTensor();
        if (t.is_meta())
          v = at::empty_strided(t.sizes(), t.strides(), t.options());
        else if (on_gpu_.count(t.unsafeGetTensorImpl()))
          v = t.clone();  // a GPU constant brought to the host is a new tensor there
      }
    // A host value moved to the GPU is a new tensor there, even where the run on the host
    // returned its input itself.
    if (to_gpu && !to_host)
      for (auto& v : stack) {
        if (!v.isTensor() || v.toTensor().is_meta()) continue;
        for (const auto& in : inputs)
          if (in.isTensor() && in.toTensor().unsafeGetTensorImpl() == v.toTensor().unsafeGetTensorImpl()) {
            v = v.toTensor().clone();
            break;
          }
      }
    // A shape-only host value moved to the GPU (anchors made on the host, then .to(device)) is a
    // new tensor there, even where the meta run returned its input itself.
    if (names_gpu && !to_host)
      for (auto& v : stack)
        if (v.isTensor() && v.toTensor().is_meta() && on_host_.count(v.toTensor().unsafeGetTensorImpl()))
          v = at::empty_strided(v.toTensor().sizes(), v.toTensor().strides(), v.toTensor().options());
    // On the GPU, an op with any GPU tensor input computes there (CPU 0-dim tensors are scalars).
    if (!to_host && (to_gpu || reads_gpu_constant(inputs))) mark_on_gpu(stack);
    if (to_host || (!to_gpu && !names_gpu && reads_only_host(inputs))) mark_on_host(stack);
    for (size_t i = 0; i < stack.size(); ++i) env_[node->outputs()[i]] = stack[i];

    // aten's ops and torchvision's detection ops (register_torchvision_ops) are recorded;
    // prim:: bookkeeping launches nothing.
    const std::string ns = node->kind().ns().toUnqualString();
    if ((ns != "aten" && ns != "torchvision") || !(touches_tensors(inputs) || touches_tensors(stack))) return;
    const c10::FunctionSchema* schema = node->maybeSchema();
    if (!schema || container_builtin(*schema)) return;
    record(node, *schema, inputs, stack);
  }

  // TorchScript's list and dict builtins (append, __getitem__, len, ...): interpreter
  // instructions on containers that happen to hold tensors, outside the dispatcher.
  static bool container_builtin(const c10::FunctionSchema& schema) {
    if (c10::Dispatcher::singleton().findSchema(c10::OperatorName(schema.name(), schema.overload_name()))) return false;
    auto container = [](const c10::TypePtr& t) {
      return t->kind() == c10::TypeKind::ListType || t->kind() == c10::TypeKind::DictType;
    };
    for (const c10::Argument& a : schema.arguments())
      if (container(a.type())) return true;
    for (const c10::Argument& r : schema.returns())
      if (container(r.type())) return true;
    return false;
  }

  static bool has_shape_only(const jit::Stack& stack) {
    for (const auto& v : stack) {
      if (v.isTensor() && v.toTensor().is_meta()) return true;
      if (v.isTensorList())
        for (const at::Tensor& t : v.toTensorList())
          if (t.is_meta()) return true;
    }
    return false;
  }
  void shape_only_gpu_constants(jit::Stack& stack) const {
    auto as_meta = [&](c10::IValue& v) {
      if (!v.isTensor()) return false;
      const at::Tensor& t = v.toTensor();
      if (t.is_meta() || t.dim() == 0 || !on_gpu_.count(t.unsafeGetTensorImpl())) return false;
      v = at::empty_strided(t.sizes(), t.strides(), t.options().device(at::kMeta));
      return true;
    };
    for (auto& v : stack) {
      if (as_meta(v) || !v.isTensorList()) continue;
      c10::List<at::Tensor> list = v.toTensorList();
      bool changed = false;
      std::vector<at::Tensor> ts;
      for (const at::Tensor& t : list) {
        c10::IValue e(t);
        changed |= as_meta(e);
        ts.push_back(e.toTensor());
      }
      if (changed) v = c10::IValue(c10::List<at::Tensor>(ts));
    }
  }

  // True when the op has tensor inputs and each one is a real host tensor (shape arithmetic,
  // constants), never a shape-only one.
  static bool all_tensors_have_values(const std::vector<c10::IValue>& vals) {
    bool any = false;
    for (const auto& v : vals) {
      if (!v.isTensor()) continue;
      if (v.toTensor().is_meta()) return false;
      any = true;
    }
    return any;
  }
  // True when the op has tensor inputs, at least one shape-only, and each one lives on the host:
  // a shape-only value made there, or a value the run holds that does not stand for the GPU (a
  // size made a tensor, a constant saved on the host).
  bool reads_only_host(const std::vector<c10::IValue>& vals) const {
    bool any = false, gpu = false;
    auto see = [&](const at::Tensor& t) {
      gpu =
          gpu || (t.is_meta() ? !on_host_.count(t.unsafeGetTensorImpl()) : on_gpu_.count(t.unsafeGetTensorImpl()) > 0);
      any = any || t.is_meta();
    };
    for (const auto& v : vals) {
      if (v.isTensor()) see(v.toTensor());
      if (v.isTensorList())
        for (const at::Tensor& t : v.toTensorList()) see(t);
    }
    return any && !gpu;
  }
  // Marks the shape-only tensors among the outputs (a list's too) as living on the host.
  void mark_on_host(const jit::Stack& outs) {
    auto mark = [&](const at::Tensor& t) {
      if (t.is_meta()) on_host_.insert(t.unsafeGetTensorImpl());
    };
    for (const auto& v : outs) {
      if (v.isTensor()) mark(v.toTensor());
      if (v.isTensorList())
        for (const at::Tensor& t : v.toTensorList()) mark(t);
    }
  }

  bool reads_gpu_constant(const std::vector<c10::IValue>& vals) const {
    for (const auto& v : vals) {
      if (v.isTensor() && on_gpu_.count(v.toTensor().unsafeGetTensorImpl())) return true;
      if (v.isList())
        for (const auto& e : v.toListRef())
          if (e.isTensor() && on_gpu_.count(e.toTensor().unsafeGetTensorImpl())) return true;
    }
    return false;
  }
  void mark_on_gpu(const jit::Stack& outs) {
    auto mark = [&](const at::Tensor& t) {
      if (!t.is_meta()) on_gpu_.insert(t.unsafeGetTensorImpl());
    };
    for (const auto& v : outs) {
      if (v.isTensor()) mark(v.toTensor());
      if (v.isTensorList())
        for (const at::Tensor& t : v.toTensorList()) mark(t);
    }
  }

  std::optional<jit::Stack> shape_function_result(jit::Node* node, const std::vector<c10::IValue>& inputs) {
    const c10::FunctionSchema* schema = node->maybeSchema();
    if (!schema) return std::nullopt;
    auto op = c10::Dispatcher::singleton().findSchema(c10::OperatorName(schema->name(), schema->overload_name()));
    auto outs = shape_only_outputs(*schema, inputs, op && op->hasTag(at::Tag::pointwise));
    if (!outs) return std::nullopt;
    return jit::Stack(outs->begin(), outs->end());
  }

  // Attention on the GPU (flash and memory-efficient kernels, which take every f16/bf16/f32
  // case with a head size they support) writes its output as (batch, seq, heads, dim) and
  // returns it viewed as (batch, heads, seq, dim); the meta run gives the math kernel's
  // contiguous layout. A .pt2 of the same model records the GPU's, and the usual
  // transpose(1, 2).reshape(b, s, d) that follows is a view there, not a copy.
  static void gpu_attention_layout(jit::Stack& outs) {
    if (outs.empty() || !outs[0].isTensor()) return;
    const at::Tensor& t = outs[0].toTensor();
    const auto type = t.scalar_type();
    if (!t.is_meta() || t.dim() != 4 || !(type == c10::kHalf || type == c10::kBFloat16 || type == c10::kFloat)) return;
    const int64_t b = t.size(0), h = t.size(1), s = t.size(2), d = t.size(3);
    if (d % 8 != 0 || d > 256) return;
    outs[0] = at::empty_strided({b, h, s, d}, {s * h * d, d, h * d, 1}, t.options());
  }

  // The result of a pointwise op from its inputs alone: the input itself for an in-place op,
  // else a tensor of the broadcast shape and promoted dtype. nullopt for other ops.
  std::optional<jit::Stack> pointwise_result(jit::Node* node, const std::vector<c10::IValue>& inputs) {
    const c10::FunctionSchema* schema = node->maybeSchema();
    if (!schema || schema->returns().size() != 1) return std::nullopt;
    if (!c10::Dispatcher::singleton().findSchema(c10::OperatorName(schema->name(), schema->overload_name())))
      return std::nullopt;
    const OpSchema& info = lookup_live_op(schema->name(), schema->overload_name());
    if (!info.traits.pointwise) return std::nullopt;
    if (info.traits.inplace && !inputs.empty() && inputs[0].isTensor()) return jit::Stack{inputs[0]};
    std::vector<int64_t> shape;
    std::optional<c10::ScalarType> dtype;
    for (const auto& v : inputs) {
      if (!v.isTensor()) continue;
      const at::Tensor& t = v.toTensor();
      shape = shape.empty() && !dtype ? t.sizes().vec() : at::infer_size(shape, t.sizes());
      dtype = dtype ? c10::promoteTypes(*dtype, t.scalar_type()) : t.scalar_type();
    }
    if (!dtype) return std::nullopt;
    std::vector<at::Tensor> tensors;
    for (const auto& v : inputs)
      if (v.isTensor()) tensors.push_back(v.toTensor());
    return jit::Stack{at::empty_strided(shape, tensor_iterator_strides(shape, tensors),
                                        at::TensorOptions().dtype(*dtype).device(at::kMeta))};
  }

  // Says which op blocked shape inference when libtorch's message shows it (the op itself or
  // one that a composite op calls), else passes the message on.
  // An op refusing a dtype (embedding's indices, a mask) most often means an --input given
  // without one, which defaults to float32: say how to give it.
  static std::string dtype_hint(const std::string& why) {
    for (const char* word : {"Float", "Long", "IntType", "HalfType", "BoolType", "dtype", "scalar type"})
      if (why.find(word) != std::string::npos)
        return " (an --input without a dtype is float32; token ids and indices need an integer one: "
               "--input 2x8:int64)";
    return "";
  }

  static std::string shape_failure(const std::string& why) {
    std::string blocked;
    if (auto at = why.find(": attempted to run this operator with Meta tensors"); at != std::string::npos)
      blocked = why.substr(0, at);
    else if (why.rfind("Could not run '", 0) == 0 && why.find("'Meta' backend") != std::string::npos)
      blocked = why.substr(15, why.find('\'', 15) - 15);
    if (blocked.empty()) return "cannot compute shapes on shape-only (meta) tensors: " + why;
    const size_t dot = blocked.find('.', blocked.find("::"));
    auto op = c10::Dispatcher::singleton().findSchema(
        {blocked.substr(0, dot), dot == std::string::npos ? "" : blocked.substr(dot + 1)});
    if (op && op->hasTag(at::Tag::data_dependent_output))
      return blocked + ": its output size depends on tensor values, which a shape-only run does not have";
    return "no meta kernel and no TorchScript shape function for " + blocked;
  }

  Arg to_arg(const std::string& name, const std::string& type, const c10::IValue& v) {
    Arg a;
    a.name = name;
    using K = Arg::Kind;
    if (v.isNone()) {
      a.kind = K::kNone;
    } else if (v.isTensor()) {
      a.kind = K::kTensor;
      a.tensors = {value_for(v.toTensor(), "", ValueRole::kConstant)};
    } else if (v.isBool()) {
      a.kind = K::kBool;
      a.ints = {v.toBool()};
    } else if (v.isInt()) {
      if (type.rfind("ScalarType", 0) == 0) {
        a.kind = K::kScalarType;
        a.ints = {static_cast<int64_t>(dtype_of(static_cast<c10::ScalarType>(v.toInt())))};
      } else if (type.rfind("MemoryFormat", 0) == 0) {
        a.kind = K::kMemoryFormat;
        a.text = std::to_string(export_memory_format(static_cast<c10::MemoryFormat>(v.toInt())));
      } else if (type.rfind("Layout", 0) == 0) {
        a.kind = K::kLayout;
        a.text = std::to_string(export_layout(static_cast<c10::Layout>(v.toInt())));
      } else {
        a.kind = K::kInt;
        a.ints = {v.toInt()};
      }
    } else if (v.isDouble()) {
      a.kind = K::kFloat;
      a.floats = {v.toDouble()};
    } else if (v.isIntList()) {
      a.kind = K::kIntList;
      a.ints = v.toIntVector();
    } else if (v.isDoubleList()) {
      a.kind = K::kFloatList;
      a.floats = v.toDoubleVector();
    } else if (v.isBoolList()) {
      a.kind = K::kBoolList;
      for (bool b : v.toBoolList()) a.ints.push_back(b);
    } else if (v.isList()) {
      a.kind = K::kTensorList;
      for (const auto& e : v.toListRef()) {
        if (e.isTensor())
          a.tensors.push_back(value_for(e.toTensor(), "", ValueRole::kConstant));
        else if (e.isNone())
          a.tensors.push_back(-1);
        else
          throw Error("argument " + name + ": list of " + e.tagKind() + " is not supported");
      }
    } else if (v.isString()) {
      a.kind = K::kString;
      a.text = v.toStringRef();
    } else if (v.isDevice()) {
      a.kind = K::kDevice;
      a.text = v.toDevice().str();
    } else {
      a.kind = K::kString;
      a.text = "<" + v.tagKind() + ">";
    }
    return a;
  }

  void record(jit::Node* node, const c10::FunctionSchema& schema, const std::vector<c10::IValue>& inputs,
              const jit::Stack& outputs) {
    // TorchScript's own operators (aten::Int.Tensor) are not in the dispatcher.
    const bool dispatched =
        c10::Dispatcher::singleton().findSchema(c10::OperatorName(schema.name(), schema.overload_name())).has_value();
    const OpSchema info = dispatched ? lookup_live_op(schema.name(), schema.overload_name()) : describe_schema(schema);
    Op op;
    op.name = info.name;
    op.overload = info.overload;
    op.traits = info.traits;
    for (size_t i = 0; i < inputs.size() && i < schema.arguments().size(); ++i)
      op.args.push_back(to_arg(schema.arguments()[i].name(), schema.arguments()[i].type()->str(), inputs[i]));
    const int index = static_cast<int>(g_.ops.size());
    const bool writes_input = op.traits.inplace || op.traits.out_variant;
    auto add_out = [&](const at::Tensor& t) {
      auto known = ids_.find(t.unsafeGetTensorImpl());
      if (known != ids_.end() && !writes_input) {
        // An op that returns its input itself (dropout in eval, contiguous() of a contiguous
        // tensor): its result is a new name for the same data, made by this op.
        Value alias = g_.values[known->second];
        alias.name = "t" + std::to_string(g_.values.size());
        alias.role = ValueRole::kIntermediate;
        alias.producer = index;
        known->second = g_.add_value(std::move(alias));
        op.outputs.push_back(known->second);
        return;
      }
      const bool fresh = known == ids_.end();
      int id = value_for(t, "", ValueRole::kIntermediate);
      if (fresh) g_.values[id].producer = index;
      op.outputs.push_back(id);
    };
    for (const auto& o : outputs) {
      if (o.isTensor()) {
        add_out(o.toTensor());
      } else if (o.isTensorList()) {
        for (const auto& t : o.toTensorVector()) add_out(t);
      } else if (o.isTuple()) {
        for (const auto& e : o.toTupleRef().elements())
          if (e.isTensor()) add_out(e.toTensor());
      } else {
        op.outputs.push_back(-1);
      }
    }
    op.loc = locator_.of(node);
    if (op.loc.code.empty() && op.loc.line > 0) op.loc.code = source_lines_.line(op.loc.file, op.loc.line);
    std::tie(op.module, op.module_type) = module_of(node, module_);
    g_.ops.push_back(std::move(op));
  }

  jit::Module module_;
  const LoadOptions& opt_;
  SourceLines source_lines_;       // the user's files, for traced ops
  mutable SourceLocator locator_;  // a cache: where() reads through it too
  const std::vector<std::pair<std::string, std::string>> constant_storages_;
  std::unordered_map<const c10::TensorImpl*, bool> constant_on_gpu_;
  const bool saved_on_gpu_;
  const bool constants_on_gpu_;         // the tensor constants run on the GPU
  const std::string device_;            // where values computed on the GPU live, as the IR names it
  size_t unnamed_used_ = 0;             // positional --input specs bound so far
  int64_t host_moves_kept_on_gpu_ = 0;  // .to("cpu") calls run by a model saved on the host
  // Bounds on a run: 200,000 ops is several times the largest model of the corpora, and
  // 2,000,000 instructions (shape arithmetic included) run in about a second.
  static constexpr int64_t kMaxOps = 200000;
  static constexpr int64_t kMaxExecutedNodes = 2000000;
  int64_t executed_ = 0;
  Graph g_;
  std::unordered_map<const jit::Value*, c10::IValue> env_;
  std::unordered_map<const c10::TensorImpl*, int> ids_;
  std::unordered_map<const c10::TensorImpl*, at::Tensor> weights_;
  std::vector<at::Tensor> keep_;  // keeps TensorImpls alive so their addresses stay unique
  // CPU-valued tensors that live on the GPU when the model runs there (constants and what is
  // computed from them).
  std::unordered_set<const c10::TensorImpl*> on_gpu_;
  // Shape-only tensors that a model saved on the GPU moves to the host (x.cpu()).
  std::unordered_set<const c10::TensorImpl*> on_host_;
};

}  // namespace

// TorchScript's parser recurses once per nested bracket: code nested thousands deep overflows
// its stack (a crash, not an error). Real models nest a few dozen deep; refuse anything deeper
// than kMaxCodeNesting before the parser sees it.
constexpr int kMaxCodeNesting = 256;

void check_code_nesting(caffe2::serialize::PyTorchStreamReader& archive) {
  for (const std::string& name : archive.getAllRecords()) {
    if (name.rfind("code/", 0) != 0 || name.size() < 3 || name.compare(name.size() - 3, 3, ".py") != 0) continue;
    auto [data, size] = archive.getRecord(name);
    const char* text = static_cast<const char*>(data.get());
    int depth = 0, deepest = 0;
    for (size_t i = 0; i < size; ++i) {
      const char c = text[i];
      if (c == '(' || c == '[' || c == '{')
        deepest = std::max(deepest, ++depth);
      else if ((c == ')' || c == ']' || c == '}') && depth > 0)
        --depth;
    }
    check(deepest <= kMaxCodeNesting, "TorchScript code " + name + " nests brackets " + std::to_string(deepest) +
                                          " deep (at most " + std::to_string(kMaxCodeNesting) + " are read)");
  }
}

Graph load_torchscript(caffe2::serialize::PyTorchStreamReader& archive, const std::string& path,
                       const LoadOptions& options) {
  check_code_nesting(archive);
  check_pickle_lengths(archive);
  register_torchvision_ops();  // a traced detector calls them
  // Recorded before loading: mapping every storage to the host erases it.
  const std::string saved_on = saved_device(archive);
  const std::string constants_on = constants_device(archive);
  // Each constant's own location matters only in a model saved on a GPU (constant_on_gpu).
  auto storages =
      saved_on.rfind("cuda", 0) == 0 ? constant_storages(archive) : std::vector<std::pair<std::string, std::string>>{};
  // The source-range tables are decoded by SourceLocator, not by libtorch: read meanwhile, on
  // another core. Their errors come first, as if read before the module.
  auto tables = std::async(std::launch::async, [&archive] { return read_debug_tables(archive); });
  jit::Module module;
  std::exception_ptr load_error;
  try {
    auto reader = weight_skipping_reader(path);
    try {
      module = import_torchscript(reader);
    } catch (const c10::Error& e) {
      // A LibTorch whose zip reader checks CRCs rejects the unread records: read them after all.
      if (std::string(e.what_without_backtrace()).find("CRC") == std::string::npos) throw;
      module = jit::load(path, c10::Device(c10::kCPU), /*load_debug_files=*/false);
    }
  } catch (const Error&) {
    load_error = std::current_exception();
  } catch (const c10::Error& e) {
    load_error =
        std::make_exception_ptr(Error("cannot load TorchScript model: " + first_line(e.what_without_backtrace())));
  } catch (const std::exception& e) {
    load_error = std::make_exception_ptr(Error("cannot load TorchScript model: " + first_line(e.what())));
  }
  auto debug_tables = tables.get();
  if (load_error) std::rethrow_exception(load_error);
  check(module.find_method("forward").has_value(), "TorchScript model has no forward()");
  if (options.keep_until_exit) {
    // Reachable from a static, so leak checkers do not count it.
    static auto* kept = new std::vector<jit::Module>;
    kept->push_back(module);
  }
  Graph g =
      MetaRunner(std::move(module), path, options, saved_on, constants_on, std::move(storages), std::move(debug_tables))
          .run();
  g.info.saved_device = saved_on;
  for (const Op& op : g.ops)
    if (op.name == "torchvision::nms") {
      g.info.notes.push_back(
          "torchvision::nms keeps every box in the shapes that follow: how many it keeps depends on "
          "the data (its own launches do not)");
      break;
    }
  const auto repeated = std::count_if(g.ops.begin(), g.ops.end(), [](const Op& op) { return op.repeat > 1; });
  if (repeated > 0)
    g.info.notes.push_back(std::to_string(repeated) +
                           " op(s) in loops stand for several trips (xN in the op table): once a trip runs the "
                           "same ops on the same shapes as the trip before, the rest are counted, not run");
  // nonzero, masked_select, x[mask], unique: sized by the values, which a shape-only run does not
  // have; the shapes take every element as selected.
  int selections = 0;
  for (const Op& op : g.ops) {
    auto known = c10::Dispatcher::singleton().findSchema({op.name, op.overload});
    bool mask_index = false;
    if (op.name == "aten::index")
      for (const Arg& a : op.args)
        for (int v : a.tensors)
          mask_index =
              mask_index || (v >= 0 && (g.values[v].dtype == DType::kBool || g.values[v].dtype == DType::kUInt8));
    selections += mask_index || (known && known->hasTag(at::Tag::data_dependent_output));
  }
  if (selections > 0)
    g.info.notes.push_back(std::to_string(selections) +
                           " op(s) (nonzero, x[mask], masked_select, ...) size their results by the data: every "
                           "element is taken as selected; where the data selects none, the ops on their results "
                           "launch nothing");
  // A trace run under no_grad records PyTorch's inference fast paths as single composite ops;
  // torch.export of the same module records the decomposed layer, so the two files are
  // different programs and their counts differ.
  for (const char* fast : {"aten::_native_multi_head_attention", "aten::_transformer_encoder_layer_fwd"}) {
    const bool found = std::any_of(g.ops.begin(), g.ops.end(), [&](const Op& op) { return op.name == fast; });
    if (found) {
      g.info.notes.push_back(std::string("the trace recorded an inference fast path (") + fast +
                             "); torch.export of the same module records the decomposed layer, whose .pt2 launches "
                             "other kernels");
    }
  }
  if (saved_on.rfind("cuda", 0) == 0)
    g.info.notes.push_back("saved on " + saved_on + ": every tensor mapped to the host to load");
  return g;
}

Graph load_torchscript_file(const std::string& path, const LoadOptions& options) {
  // libtorch captures a C++ backtrace for every c10::Error it constructs, and loading a
  // TorchScript model raises and catches many (meta kernels that are missing, then the
  // fallbacks): symbolizing them took a fifth of the load. Only an error's first line ever
  // reaches the user, so none is captured.
  static const bool no_backtraces = [] {
    c10::SetStackTraceFetcher(
        []() -> c10::Backtrace { return std::make_shared<c10::PrecomputedLazyValue<std::string>>(std::string()); });
    return true;
  }();
  (void)no_backtraces;
  try {
    caffe2::serialize::PyTorchStreamReader archive(path);
    return load_torchscript(archive, path, options);
  } catch (const c10::Error& e) {
    // The loader boundary: libtorch's own errors (a damaged record, a TorchScript failure).
    throw Error(path + ": " + first_line(e.what_without_backtrace()));
  }
}

}  // namespace kc
