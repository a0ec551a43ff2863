#include "analyzer/pt2_loader.h"

#include <caffe2/serialize/inline_container.h>

#include <algorithm>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <unordered_map>

#include "analyzer/error.h"
#include "analyzer/json_limits.h"
#include "analyzer/op_registry.h"
#include "analyzer/source_loc.h"
#include "analyzer/sym_expr.h"

namespace kc {
namespace {

using json = nlohmann::json;

// Only the end of a node's stack_trace is read: the frames nearest the op are last, and the
// source-line search must cost the same for a 1 MB trace as for a 1 kB one.
constexpr size_t kMaxStackTraceRead = 16 << 10;

// An expression as quoted in an error: never the whole of a hostile one.
std::string clip(const std::string& s) {
  return s.size() <= 60 ? s : s.substr(0, 60) + "...";
}

// Typed access to the JSON with errors that say where the problem is.
const json& field(const json& obj, const char* key, const std::string& where) {
  check(obj.is_object(), where + ": expected an object");
  auto it = obj.find(key);
  check(it != obj.end(), where + ": missing field '" + key + "'");
  return *it;
}
const json* optional_field(const json& obj, const char* key) {
  if (!obj.is_object()) return nullptr;
  auto it = obj.find(key);
  return it == obj.end() || it->is_null() ? nullptr : &*it;
}
std::string str(const json& j, const std::string& where) {
  check(j.is_string(), where + ": expected a string, found " + std::string(j.type_name()));
  return j.get<std::string>();
}
int64_t integer(const json& j, const std::string& where) {
  check(j.is_number_integer(), where + ": expected an integer, found " + std::string(j.type_name()));
  return j.get<int64_t>();
}
const json& array(const json& j, const std::string& where) {
  check(j.is_array(), where + ": expected an array, found " + std::string(j.type_name()));
  return j;
}
// The single key of a tagged union such as {"as_tensor": {...}}.
std::pair<std::string, const json*> tagged(const json& j, const std::string& where) {
  check(j.is_object() && !j.empty(), where + ": expected a tagged value");
  for (auto it = j.begin(); it != j.end(); ++it)
    if (!it.value().is_null()) return {it.key(), &it.value()};
  return {j.begin().key(), &j.begin().value()};
}

class Pt2Reader {
 public:
  Pt2Reader(const json& root, const std::string& path, const LoadOptions& opt) : root_(root), opt_(opt) {
    g_.info.path = path;
    g_.info.format = "pt2";
  }

  Graph read() {
    const json& gm = field(root_, "graph_module", "model.json");
    const json& graph = field(gm, "graph", "graph_module");
    read_version();
    read_symbols(graph);
    read_values(graph);
    read_signature(gm);
    const json& nodes = array(field(graph, "nodes", "graph"), "graph.nodes");
    for (const json& node : nodes) read_node(node);
    for (const json& out : array(field(graph, "outputs", "graph"), "graph.outputs")) {
      auto [tag, v] = tagged(out, "graph.outputs");
      g_.outputs.push_back(tag == "as_tensor" ? value_ref(*v, "graph.outputs") : -1);
    }
    if (auto bad = g_.check()) throw Error("model.json: " + *bad);
    return std::move(g_);
  }

 private:
  void read_version() {
    const json* sv = optional_field(root_, "schema_version");
    check(sv != nullptr, "model.json: missing field 'schema_version'; not a torch.export archive");
    int64_t major = integer(field(*sv, "major", "schema_version"), "schema_version.major");
    int64_t minor = integer(field(*sv, "minor", "schema_version"), "schema_version.minor");
    // Schema 8 covers the archives of PyTorch 2.5 through 2.11; other majors changed the layout.
    check(major == 8, "model.json: schema version " + std::to_string(major) + "." + std::to_string(minor) +
                          " is not supported (this build reads 8.x)");
    std::string tv;
    if (const json* t = optional_field(root_, "torch_version"); t && t->is_string()) tv = t->get<std::string>();
    g_.info.producer_version =
        "schema " + std::to_string(major) + "." + std::to_string(minor) + (tv.empty() ? "" : ", torch " + tv);
  }

  // Every symbol's value: --dim where given, else the hint recorded with the bare symbol.
  void read_symbols(const json& graph) {
    std::map<std::string, std::pair<int64_t, int64_t>> ranges;
    if (const json* rc = optional_field(root_, "range_constraints"); rc && rc->is_object())
      for (auto it = rc->begin(); it != rc->end(); ++it) {
        const json* lo = optional_field(*it, "min_val");
        const json* hi = optional_field(*it, "max_val");
        ranges[it.key()] = {lo && lo->is_number_integer() ? lo->get<int64_t>() : 0,
                            hi && hi->is_number_integer() ? hi->get<int64_t>() : INT64_MAX};
      }
    // Hints: every "as_expr" that is a bare symbol records that symbol's example value.
    std::function<void(const json&)> scan = [&](const json& j) {
      if (j.is_object()) {
        if (const json* e = optional_field(j, "as_expr")) {
          const json* es = optional_field(*e, "expr_str");
          const json* hint = optional_field(*e, "hint");
          if (es && es->is_string() && hint) {
            auto syms = sym_expr_symbols(es->get<std::string>());
            const json* h = optional_field(*hint, "as_int");
            if (syms.size() == 1 && h && h->is_number_integer() &&
                eval_sym_expr(es->get<std::string>(), {{syms[0], h->get<int64_t>()}}) == h->get<int64_t>())
              hints_.emplace(syms[0], h->get<int64_t>());
          }
        }
        for (auto& [k, v] : j.items()) scan(v);
      } else if (j.is_array()) {
        for (const json& v : j) scan(v);
      }
    };
    if (const json* tv = optional_field(graph, "tensor_values")) scan(*tv);
    if (const json* sv = optional_field(graph, "sym_int_values")) scan(*sv);
    symbols_ = hints_;
    // A data-dependent size (an unbacked symbol "u0": the row count of nonzero, masked_select,
    // unique, a boolean index) has no example value, only the range the export proved. Kernel
    // counts rarely depend on it; bytes do. Take the upper bound (all elements selected), so
    // the bytes of the ops that read it are an upper bound; with no finite bound, the lower one.
    for (const auto& [name, range] : ranges)
      if (!symbols_.count(name) && name.rfind('u', 0) == 0) {  // "u0": unbacked int; "zuf0": a float
        const bool bounded = range.second != INT64_MAX;
        symbols_[name] = bounded ? range.second : std::max<int64_t>(range.first, 1);
        unbacked_[name] =
            bounded ? "data-dependent: the export's upper bound" : "data-dependent: the export's lower bound";
      }
    // The export does not record torch.export.Dim names (only "s77"), so a size can also be
    // named by the input it belongs to: "x.0" is dimension 0 of input x.
    std::map<std::string, std::string> aliases;
    if (const json* tv = optional_field(graph, "tensor_values"); tv && tv->is_object())
      if (const json* inputs = optional_field(graph, "inputs"); inputs && inputs->is_array())
        for (const json& in : *inputs) {
          const json* t = optional_field(in, "as_tensor");
          const json* n = t ? optional_field(*t, "name") : nullptr;
          const json* meta = n && n->is_string() ? optional_field(*tv, n->get<std::string>().c_str()) : nullptr;
          const json* sizes = meta ? optional_field(*meta, "sizes") : nullptr;
          if (!sizes || !sizes->is_array()) continue;
          for (size_t k = 0; k < sizes->size(); ++k) {
            const json* e = optional_field((*sizes)[k], "as_expr");
            const json* es = e ? optional_field(*e, "expr_str") : nullptr;
            if (!es || !es->is_string()) continue;
            // Only a bare symbol names the size ("s77", not "2*s77").
            auto syms = sym_expr_symbols(es->get<std::string>());
            if (syms.size() == 1 && eval_sym_expr(es->get<std::string>(), {{syms[0], 7}}) == 7)
              aliases.emplace(n->get<std::string>() + "." + std::to_string(k), syms[0]);
          }
        }
    for (const auto& [given, value] : opt_.dims) {
      const std::string name = aliases.count(given) ? aliases.at(given) : given;
      bool known = hints_.count(name) || ranges.count(name);
      if (!known) {
        std::string names;
        for (const auto& [s, r] : ranges) {
          names += (names.empty() ? "" : ", ") + s;
          for (const auto& [alias, sym] : aliases)
            if (sym == s) names += " (" + alias + ")";
        }
        throw Error("--dim " + given + ": the model has no symbol of that name" +
                    (names.empty() ? " (it has no symbolic sizes)"
                                   : " (its symbols: " + names +
                                         "; the .pt2 does not record torch.export.Dim names, so name a size "
                                         "by its symbol or as INPUT.DIM)"));
      }
      if (auto r = ranges.find(name); r != ranges.end())
        check(value >= r->second.first && value <= r->second.second,
              "--dim " + given + "=" + std::to_string(value) + ": outside the range [" +
                  std::to_string(r->second.first) + ", " + std::to_string(r->second.second) +
                  "] the model was exported for");
      symbols_[name] = value;
      given_.insert(name);
    }
    for (const auto& [name, value] : symbols_)
      g_.info.notes.push_back("symbol " + name + " = " + std::to_string(value) +
                              (given_.count(name) ? " (--dim)"
                               : unbacked_.count(name)
                                   ? " (" + unbacked_.at(name) + "; set it with --dim " + name + "=N)"
                                   : " (export hint)"));
  }

  int64_t sym_int(const json& j, const std::string& where) {
    auto [tag, v] = tagged(j, where);
    if (tag == "as_int") return integer(*v, where);
    if (tag == "as_expr") {
      std::string expr = str(field(*v, "expr_str", where), where + ".expr_str");
      std::string why;
      if (auto r = eval_sym_expr(expr, symbols_, &why)) return *r;
      if (!why.empty()) throw Error(where + ": symbolic size '" + clip(expr) + "': " + why);
      const json* hint = optional_field(*v, "hint");
      bool overridden = false;
      for (const auto& s : sym_expr_symbols(expr)) overridden |= given_.count(s) > 0;
      if (hint && !overridden) return sym_int(*hint, where + ".hint");
      throw Error(where + ": cannot evaluate symbolic size '" + clip(expr) + "'");
    }
    if (tag == "as_name") {
      std::string name = str(*v, where);
      auto it = sym_values_.find(name);
      check(it != sym_values_.end(), where + ": unknown symbolic int '" + name + "'");
      return it->second;
    }
    throw Error(where + ": unsupported symbolic int kind '" + tag + "'");
  }

  void read_values(const json& graph) {
    if (const json* sv = optional_field(graph, "sym_int_values"))
      for (auto it = sv->begin(); it != sv->end(); ++it)
        sym_values_[it.key()] = sym_int(it.value(), "sym_int_values." + it.key());
    const json& tvs = field(graph, "tensor_values", "graph");
    check(tvs.is_object(), "graph.tensor_values: expected an object");
    for (auto it = tvs.begin(); it != tvs.end(); ++it) {
      const std::string where = "tensor '" + it.key() + "'";
      const json& meta = it.value();
      Value v;
      v.name = it.key();
      int64_t dt = integer(field(meta, "dtype", where), where + ".dtype");
      auto dtype = dtype_from_export_enum(dt);
      check(dtype.has_value(), where + ": unknown dtype code " + std::to_string(dt));
      v.dtype = *dtype;
      for (const json& s : array(field(meta, "sizes", where), where + ".sizes"))
        v.sizes.push_back(sym_int(s, where + ".sizes"));
      for (const json& s : array(field(meta, "strides", where), where + ".strides"))
        v.strides.push_back(sym_int(s, where + ".strides"));
      if (const json* d = optional_field(meta, "device")) {
        if (const json* type = optional_field(*d, "type"); type && type->is_string())
          v.device = type->get<std::string>();
        if (const json* idx = optional_field(*d, "index"); idx && idx->is_number_integer())
          v.device += ":" + std::to_string(idx->get<int64_t>());
      }
      std::string name = v.name;
      value_index_[name] = g_.add_value(std::move(v));
    }
  }

  void read_signature(const json& gm) {
    const json* sig = optional_field(gm, "signature");
    if (!sig) return;
    const json* specs = optional_field(*sig, "input_specs");
    if (!specs || !specs->is_array()) return;
    for (const json& spec : *specs) {
      auto [kind, body] = tagged(spec, "signature.input_specs");
      const json* arg = optional_field(*body, "arg");
      if (!arg) continue;
      std::string name;
      if (const json* n = optional_field(*arg, "name"); n && n->is_string())
        name = n->get<std::string>();
      else if (const json* t = optional_field(*arg, "as_tensor"))
        name = str(field(*t, "name", "signature"), "signature");
      auto it = value_index_.find(name);
      if (it == value_index_.end()) continue;
      Value& v = g_.values[it->second];
      if (kind == "user_input") {
        v.role = ValueRole::kInput;
        g_.inputs.push_back(it->second);
      } else if (kind == "parameter") {
        v.role = ValueRole::kParameter;
      } else if (kind == "buffer") {
        v.role = ValueRole::kBuffer;
      } else {
        v.role = ValueRole::kConstant;
      }
    }
  }

  int value_ref(const json& t, const std::string& where) {
    std::string name = str(field(t, "name", where), where + ".name");
    auto it = value_index_.find(name);
    check(it != value_index_.end(), where + ": tensor '" + name + "' has no entry in tensor_values");
    return it->second;
  }

  Arg read_arg(const std::string& name, const json& arg, const std::string& where) {
    Arg a;
    a.name = name;
    auto [tag, v] = tagged(arg, where);
    const json& j = *v;
    using K = Arg::Kind;
    if (tag == "as_none") {
      a.kind = K::kNone;
    } else if (tag == "as_tensor") {
      a.kind = K::kTensor;
      a.tensors = {value_ref(j, where)};
    } else if (tag == "as_optional_tensor") {
      auto [inner, iv] = tagged(j, where);
      if (inner == "as_none") {
        a.kind = K::kNone;
      } else {
        a.kind = K::kTensor;
        a.tensors = {value_ref(*iv, where)};
      }
    } else if (tag == "as_tensors" || tag == "as_optional_tensors") {
      a.kind = K::kTensorList;
      for (const json& t : array(j, where)) {
        if (tag == "as_optional_tensors") {
          auto [inner, iv] = tagged(t, where);
          a.tensors.push_back(inner == "as_none" ? -1 : value_ref(*iv, where));
        } else {
          a.tensors.push_back(value_ref(t, where));
        }
      }
    } else if (tag == "as_int") {
      a.kind = K::kInt;
      a.ints = {integer(j, where)};
    } else if (tag == "as_sym_int") {
      a.kind = K::kInt;
      a.ints = {sym_int(j, where)};
    } else if (tag == "as_ints") {
      a.kind = K::kIntList;
      for (const json& i : array(j, where)) a.ints.push_back(integer(i, where));
    } else if (tag == "as_sym_ints") {
      a.kind = K::kIntList;
      for (const json& i : array(j, where)) a.ints.push_back(sym_int(i, where));
    } else if (tag == "as_float") {
      a.kind = K::kFloat;
      check(j.is_number(), where + ": expected a number");
      a.floats = {j.get<double>()};
    } else if (tag == "as_floats") {
      a.kind = K::kFloatList;
      for (const json& f : array(j, where)) {
        check(f.is_number(), where + ": expected a number");
        a.floats.push_back(f.get<double>());
      }
    } else if (tag == "as_bool") {
      check(j.is_boolean(), where + ": expected a boolean");
      a.kind = K::kBool;
      a.ints = {j.get<bool>() ? 1 : 0};
    } else if (tag == "as_bools") {
      a.kind = K::kBoolList;
      for (const json& b : array(j, where)) {
        check(b.is_boolean(), where + ": expected a boolean");
        a.ints.push_back(b.get<bool>() ? 1 : 0);
      }
    } else if (tag == "as_string") {
      a.kind = K::kString;
      a.text = str(j, where);
    } else if (tag == "as_scalar_type") {
      a.kind = K::kScalarType;
      auto dt = dtype_from_export_enum(integer(j, where));
      check(dt.has_value(), where + ": unknown dtype code");
      a.ints = {static_cast<int64_t>(*dt)};
    } else if (tag == "as_memory_format" || tag == "as_layout") {
      a.kind = tag == "as_layout" ? K::kLayout : K::kMemoryFormat;
      a.text = std::to_string(integer(j, where));
    } else if (tag == "as_device") {
      a.kind = K::kDevice;
      a.text = str(field(j, "type", where), where);
      if (const json* idx = optional_field(j, "index"); idx && idx->is_number_integer())
        a.text += ":" + std::to_string(idx->get<int64_t>());
    } else {
      throw Error(where + ": unsupported argument kind '" + tag + "'");
    }
    return a;
  }

  void read_node(const json& node) {
    std::string node_name = "?";
    if (const json* n = optional_field(node, "name"); n && n->is_string()) node_name = n->get<std::string>();
    const std::string where = "node '" + node_name + "'";
    const std::string target = str(field(node, "target", where), where + ".target");
    const json& outputs = array(field(node, "outputs", where), where + ".outputs");

    // Python-level arithmetic on symbolic sizes (_operator.mul, aten.sym_size) runs on the
    // host and its results are already in sym_int_values.
    bool tensor_out = false;
    for (const json& o : outputs) {
      auto [tag, v] = tagged(o, where);
      tensor_out |= tag == "as_tensor" || tag == "as_tensors" || tag == "as_optional_tensors";
    }
    static const std::string kPrefix = "torch.ops.";
    if (target.compare(0, kPrefix.size(), kPrefix) != 0) {
      check(!tensor_out, where + ": unsupported target '" + target + "'");
      return;
    }
    // torch.ops.<namespace>.<name>.<overload>
    std::string rest = target.substr(kPrefix.size());
    size_t d1 = rest.find('.'), d2 = rest.rfind('.');
    check(d1 != std::string::npos && d2 != d1, where + ": malformed target '" + target + "'");
    std::string ns = rest.substr(0, d1);
    check(ns != "higher_order", where + ": higher-order op '" + target + "' is not supported");
    std::string name = ns + "::" + rest.substr(d1 + 1, d2 - d1 - 1);
    std::string overload = rest.substr(d2 + 1);
    if (!tensor_out && (name.rfind("aten::sym_", 0) == 0 || name == "aten::_assert_scalar")) return;

    const OpSchema* schema = nullptr;
    try {
      schema = &lookup_op(name, overload);
    } catch (const Error& e) {
      throw Error(where + ": " + e.what());
    }
    Op op;
    op.name = schema->name;
    op.overload = schema->overload;
    op.traits = schema->traits;
    const json& inputs = array(field(node, "inputs", where), where + ".inputs");
    // Arguments in schema order, so that positions match the schema (mutated_args too).
    std::unordered_map<std::string, const json*> by_name;
    for (const json& in : inputs) by_name[str(field(in, "name", where), where + ".inputs.name")] = &in;
    std::vector<int> schema_pos;
    for (size_t i = 0; i < schema->args.size(); ++i) {
      auto it = by_name.find(schema->args[i].name);
      if (it == by_name.end()) {
        check(schema->args[i].has_default || schema->args[i].type.back() == '?',
              where + ": argument '" + schema->args[i].name + "' of " + name + " is missing");
        continue;
      }
      op.args.push_back(read_arg(schema->args[i].name, field(*it->second, "arg", where),
                                 where + " argument '" + schema->args[i].name + "'"));
      schema_pos.push_back(static_cast<int>(i));
      by_name.erase(it);
    }
    check(by_name.empty(), where + ": argument '" + (by_name.empty() ? "" : by_name.begin()->first) +
                               "' is not in the schema of " + name);
    // mutated_args index the schema; re-index them to op.args.
    std::vector<int> mutated;
    for (int m : op.traits.mutated_args)
      for (size_t k = 0; k < schema_pos.size(); ++k)
        if (schema_pos[k] == m) mutated.push_back(static_cast<int>(k));
    op.traits.mutated_args = mutated;

    const int index = static_cast<int>(g_.ops.size());
    for (const json& o : outputs) {
      auto [tag, v] = tagged(o, where);
      auto add_out = [&](const json& t) {
        int id = value_ref(t, where + ".outputs");
        Value& val = g_.values[id];
        check(val.producer < 0 && val.role == ValueRole::kIntermediate,
              where + ": tensor '" + val.name + "' is written twice");
        val.producer = index;
        op.outputs.push_back(id);
      };
      if (tag == "as_tensor") {
        add_out(*v);
      } else if (tag == "as_tensors") {
        for (const json& t : array(*v, where)) add_out(t);
      } else if (tag == "as_optional_tensors") {
        for (const json& t : array(*v, where)) {
          auto [inner, iv] = tagged(t, where);
          if (inner == "as_none")
            op.outputs.push_back(-1);
          else
            add_out(*iv);
        }
      } else {
        op.outputs.push_back(-1);
      }
    }
    if (const json* meta = optional_field(node, "metadata")) {
      if (const json* st = optional_field(*meta, "stack_trace"); st && st->is_string()) {
        const std::string& trace = st->get_ref<const std::string&>();
        size_t from = trace.size() > kMaxStackTraceRead ? trace.size() - kMaxStackTraceRead : 0;
        if (size_t eol = from > 0 ? trace.find('\n', from) : std::string::npos; eol != std::string::npos)
          from = eol + 1;  // from a line's start
        op.loc = user_frame(from == 0 ? trace : trace.substr(from));
      }
      if (const json* ms = optional_field(*meta, "nn_module_stack"); ms && ms->is_string())
        std::tie(op.module, op.module_type) = innermost_module(ms->get<std::string>());
    }
    g_.ops.push_back(std::move(op));
  }

  const json& root_;
  const LoadOptions& opt_;
  Graph g_;
  std::map<std::string, int64_t> hints_, symbols_;
  std::map<std::string, std::string> unbacked_;  // symbols valued from their range, and why
  std::set<std::string> given_;                  // symbols set by --dim
  std::unordered_map<std::string, int64_t> sym_values_;
  std::unordered_map<std::string, int> value_index_;
};

}  // namespace

Graph load_pt2_json(const std::string& text, const std::string& path, const LoadOptions& options) {
  check(text.size() <= kMaxModelJsonBytes,
        "models/model.json is larger than the limit of " + std::to_string(kMaxModelJsonBytes >> 20) + " MiB");
  json root = parse_json_limited(text, "models/model.json");
  check(root.is_object(), "models/model.json: expected an object at the top level");
  return Pt2Reader(root, path, options).read();
}

Graph load_pt2(caffe2::serialize::PyTorchStreamReader& archive, const std::string& path, const LoadOptions& options) {
  std::string text;
  try {
    // The size first: a small archive can inflate to gigabytes.
    const size_t size = archive.getRecordSize("models/model.json");
    check(size <= kMaxModelJsonBytes,
          "models/model.json is larger than the limit of " + std::to_string(kMaxModelJsonBytes >> 20) + " MiB");
    text.resize(size);
    archive.getRecord("models/model.json", text.data(), size);
  } catch (const c10::Error& e) {
    std::string msg = e.what_without_backtrace();
    throw Error("cannot read models/model.json: " + msg.substr(0, msg.find('\n')));
  }
  return load_pt2_json(text, path, options);
}

}  // namespace kc
