#include "analyzer/pt2_loader.h"

#include <algorithm>
#include <deque>
#include <exception>
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <unordered_map>

#include "analyzer/error.h"
#include "analyzer/json_doc.h"
#include "analyzer/json_limits.h"
#include "analyzer/name_index.h"
#include "analyzer/op_registry.h"
#include "analyzer/pt2_plain.h"
#include "analyzer/source_loc.h"
#include "analyzer/sym_expr.h"

namespace kc {
namespace {

// The top level and the graph's own fields (nodes, tensor_values) are parsed at once; each node
// and each tensor's record only as the reader comes to it.
constexpr size_t kLazyDepth = 4;

// Only the end of a node's stack_trace is read: the frames nearest the op are last, and the
// source-line search must cost the same for a 1 MB trace as for a 1 kB one.
constexpr size_t kMaxStackTraceRead = 16 << 10;

// An expression as quoted in an error: never the whole of a hostile one.
std::string clip(const std::string& s) {
  return s.size() <= 60 ? s : s.substr(0, 60) + "...";
}

// Typed access to the JSON with errors that say where the problem is. Every test is an `if`
// that builds its message only on failure: check() would build it for each of millions of
// values. Keys are views, so that a key spelled in the code is not measured at each call.
JsonRef field(JsonRef obj, std::string_view key, const std::string& where, const char* suffix = "") {
  if (!obj.is_object()) throw Error(where + suffix + ": expected an object");
  JsonRef found = obj.find(key);
  if (!found) throw Error(where + suffix + ": missing field '" + std::string(key) + "'");
  return found;
}
JsonRef optional_field(JsonRef obj, std::string_view key) {
  JsonRef found = obj.find(key);
  return found && !found.is_null() ? found : JsonRef();
}
std::string str(JsonRef j, const std::string& where, const char* suffix = "") {
  if (!j.is_string()) throw Error(where + suffix + ": expected a string, found " + std::string(j.type_name()));
  return std::string(j.str());
}
int64_t integer(JsonRef j, const std::string& where, const char* suffix = "") {
  if (!j.is_number_integer())
    throw Error(where + suffix + ": expected an integer, found " + std::string(j.type_name()));
  return j.integer();
}
// A float argument. The export schema writes the non-finite ones as the strings "Infinity",
// "-Infinity" and "NaN" (a -inf pad value, a NaN fill).
double floating(JsonRef j, const std::string& where) {
  if (j.is_number()) return j.number();
  if (j.is_string()) {
    const std::string_view s = j.str();
    if (s == "Infinity") return std::numeric_limits<double>::infinity();
    if (s == "-Infinity") return -std::numeric_limits<double>::infinity();
    if (s == "NaN") return std::numeric_limits<double>::quiet_NaN();
  }
  throw Error(where + ": expected a number");
}
JsonRef::Children array(JsonRef j, const std::string& where, const char* suffix = "") {
  if (!j.is_array()) throw Error(where + suffix + ": expected an array, found " + std::string(j.type_name()));
  return j.children();
}
// The single key of a tagged union such as {"as_tensor": {...}}: the first that is not null,
// in key order.
std::pair<std::string_view, JsonRef> tagged(JsonRef j, const std::string& where) {
  if (!(j.is_object() && !j.empty())) throw Error(where + ": expected a tagged value");
  if (j.size() == 1) {
    JsonRef only = *j.children().begin();
    return {only.key(), only};
  }
  auto items = j.items();
  for (const auto& [key, value] : items)
    if (!value.is_null()) return {key, value};
  return items[0];
}

// Copies of strings that must outlive the document value they came from: each node is parsed
// into a document that the next node's replaces, and the text's pages are given back as the
// reader passes them. Packed in blocks, a few bytes for a name.
class StringArena {
 public:
  std::string_view keep(std::string_view s) {
    if (s.size() > kBlock / 8) return big_.emplace_back(s);
    if (blocks_.empty() || used_ + s.size() > kBlock) {
      blocks_.emplace_back(new char[kBlock]);
      used_ = 0;
    }
    char* at = blocks_.back().get() + used_;
    std::copy(s.begin(), s.end(), at);
    used_ += s.size();
    return std::string_view(at, s.size());
  }

 private:
  static constexpr size_t kBlock = 64u << 10;
  std::vector<std::unique_ptr<char[]>> blocks_;
  size_t used_ = 0;
  std::deque<std::string> big_;  // a deque: its strings never move
};

// A value of the outline, parsed into `into` where the outline left it as text.
JsonRef open(JsonRef j, JsonDoc& into) {
  return j.is_lazy() ? into.expand(j) : j;
}

// Gives the text's pages back behind a reader that sweeps through it, in steps: no more of the
// text is held than a step and the value being read.
class TextRelease {
 public:
  explicit TextRelease(std::function<void(size_t, size_t)> release) : release_(std::move(release)) {}
  // The reader is done with the lazy value `v`.
  void passed(JsonRef v) {
    if (!release_ || !v.is_lazy()) return;
    if (v.text_begin() < begin_ || v.text_begin() > end_ + kStep) {  // another sweep
      release_(begin_, end_);
      begin_ = v.text_begin();
    }
    end_ = v.text_end();
    if (end_ - begin_ >= kStep) {
      release_(begin_, end_);
      begin_ = end_;
    }
  }
  // The reader is done with all of the text for now.
  void all() {
    if (release_) release_(0, std::numeric_limits<size_t>::max());
    begin_ = end_ = 0;
  }

 private:
  static constexpr size_t kStep = 4u << 20;
  std::function<void(size_t, size_t)> release_;
  size_t begin_ = 0, end_ = 0;
};

class Pt2Reader {
 public:
  Pt2Reader(JsonRef root, const std::string& path, const LoadOptions& opt, std::function<void(size_t, size_t)> release)
      : root_(root), opt_(opt), release_(std::move(release)) {
    g_.info.path = path;
    g_.info.format = "pt2";
  }

  Graph read() {
    JsonRef gm = field(root_, "graph_module", "model.json");
    JsonRef graph = field(gm, "graph", "graph_module");
    read_version();
    read_symbols(graph);
    read_values(graph);
    read_signature(gm);
    const JsonRef::Children nodes = array(field(graph, "nodes", "graph"), "graph.nodes");
    g_.ops.reserve(field(graph, "nodes", "graph").size());
    for (JsonRef node : nodes) {
      if (!(opt_.plain_records && read_plain_node(node))) read_node(open(node, node_doc_));
      release_.passed(node);
    }
    release_.all();
    propagate_requires_grad_to_views(g_);
    if (!unregistered_.empty()) {
      std::string names;
      for (const auto& [key, op] : unregistered_)
        names += (names.empty() ? "" : ", ") + op.name + (op.overload.empty() ? "" : "." + op.overload);
      g_.info.notes.push_back(
          "ops LibTorch " + libtorch_version() +
          " does not know, read from their recorded outputs (one no rule covers is unknown): " + names);
    }
    for (JsonRef out : array(field(graph, "outputs", "graph"), "graph.outputs")) {
      auto [tag, v] = tagged(open(out, aux_doc_), "graph.outputs");
      g_.outputs.push_back(tag == "as_tensor" ? value_ref(v, "graph.outputs") : -1);
    }
    if (auto bad = g_.check()) throw Error("model.json: " + *bad);
    return std::move(g_);
  }

 private:
  void read_version() {
    JsonRef sv = optional_field(root_, "schema_version");
    if (!sv) throw Error("model.json: missing field 'schema_version'; not a torch.export archive");
    int64_t major = integer(field(sv, "major", "schema_version"), "schema_version.major");
    int64_t minor = integer(field(sv, "minor", "schema_version"), "schema_version.minor");
    // Schema 8 covers the archives of PyTorch 2.5 through 2.11; other majors changed the layout.
    check(major == 8, "model.json: schema version " + std::to_string(major) + "." + std::to_string(minor) +
                          " is not supported (this build reads 8.x)");
    std::string tv;
    if (JsonRef t = optional_field(root_, "torch_version"); t && t.is_string()) tv = std::string(t.str());
    g_.info.producer_version =
        "schema " + std::to_string(major) + "." + std::to_string(minor) + (tv.empty() ? "" : ", torch " + tv);
  }

  // Every symbol's value: --dim where given, else the hint recorded with the bare symbol.
  void read_symbols(JsonRef graph) {
    std::map<std::string, std::pair<int64_t, int64_t>> ranges;
    if (JsonRef rc = optional_field(root_, "range_constraints"); rc && rc.is_object())
      for (const auto& [key, range] : rc.items()) {
        JsonRef lo = optional_field(range, "min_val");
        JsonRef hi = optional_field(range, "max_val");
        ranges[std::string(key)] = {lo && lo.is_number_integer() ? lo.integer() : 0,
                                    hi && hi.is_number_integer() ? hi.integer() : INT64_MAX};
      }
    // Hints: every "as_expr" that is a bare symbol records that symbol's example value.
    std::function<void(JsonRef)> scan = [&](JsonRef j) {
      if (j.is_lazy()) {
        // Only the outline's values are lazy, never what they hold: one document serves.
        scan(scan_doc_.expand(j));
        release_.passed(j);
      } else if (j.is_object()) {
        if (JsonRef e = optional_field(j, "as_expr")) {
          JsonRef es = optional_field(e, "expr_str");
          JsonRef hint = optional_field(e, "hint");
          if (es && es.is_string() && hint) {
            auto syms = sym_expr_symbols(std::string(es.str()));
            JsonRef h = optional_field(hint, "as_int");
            if (syms.size() == 1 && h && h.is_number_integer() &&
                eval_sym_expr(std::string(es.str()), {{syms[0], h.integer()}}) == h.integer())
              hints_.emplace(syms[0], h.integer());
          }
        }
        for (auto& [k, v] : j.items()) scan(v);
      } else if (j.is_array()) {
        for (JsonRef v : j.children()) scan(v);
      }
    };
    // Static shapes have no "as_expr" at all: one pass over the records saves the walk.
    if (JsonRef tv = optional_field(graph, "tensor_values"); tv && tv.contains_key("as_expr")) scan(tv);
    if (JsonRef sv = optional_field(graph, "sym_int_values"); sv && sv.contains_key("as_expr")) scan(sv);
    release_.all();
    symbols_ = hints_;
    // A data-dependent size (an unbacked symbol "u0": the row count of nonzero, masked_select,
    // unique, a boolean index) has no example value, only the range the export proved. Kernel
    // counts rarely depend on it; bytes do. Take the upper bound (all elements selected), so
    // the bytes of the ops that read it are an upper bound; with no finite bound, the lower one.
    for (const auto& [name, range] : ranges)
      if (!symbols_.count(name) && name.rfind('u', 0) == 0) {  // "u0": unbacked int; "zuf0": a float
        // A bound past 2^40 is the export's "unbounded" in another spelling (int_oo - 1, a
        // product of int64 limits): as a size it would only overflow the byte counts.
        const bool bounded = range.second < (int64_t{1} << 40);
        symbols_[name] = bounded ? range.second : std::max<int64_t>(range.first, 1);
        unbacked_[name] =
            bounded ? "data-dependent: the export's upper bound" : "data-dependent: the export's lower bound";
      }
    // The export does not record torch.export.Dim names (only "s77"), so a size can also be
    // named by the input it belongs to: "x.0" is dimension 0 of input x.
    std::map<std::string, std::string> aliases;
    if (JsonRef tv = optional_field(graph, "tensor_values"); tv && tv.is_object())
      if (JsonRef inputs = optional_field(graph, "inputs"); inputs && inputs.is_array()) {
        // By name, in the sorted records: a lookup in the object itself is linear in the number
        // of tensors.
        const auto& metas = tensor_items(tv);
        auto meta_of = [&](std::string_view name) {
          auto it = std::lower_bound(metas.begin(), metas.end(), name,
                                     [](const auto& item, std::string_view n) { return item.first < n; });
          return it != metas.end() && it->first == name ? it : metas.end();
        };
        for (JsonRef in : inputs.children()) {
          JsonRef t = optional_field(open(in, aux_doc_), "as_tensor");
          JsonRef n = t ? optional_field(t, "name") : JsonRef();
          auto meta = n && n.is_string() ? meta_of(n.str()) : metas.end();
          JsonRef sizes = meta != metas.end() && !meta->second.is_null()
                              ? optional_field(open(meta->second, value_doc_), "sizes")
                              : JsonRef();
          if (!sizes || !sizes.is_array()) continue;
          size_t next = 0;
          for (JsonRef dim : sizes.children()) {
            const size_t k = next++;
            JsonRef e = optional_field(dim, "as_expr");
            JsonRef es = e ? optional_field(e, "expr_str") : JsonRef();
            if (!es || !es.is_string()) continue;
            // Only a bare symbol names the size ("s77", not "2*s77").
            auto syms = sym_expr_symbols(std::string(es.str()));
            if (syms.size() == 1 && eval_sym_expr(std::string(es.str()), {{syms[0], 7}}) == 7)
              aliases.emplace(std::string(n.str()) + "." + std::to_string(k), syms[0]);
          }
        }
      }
    for (const auto& [given, value] : opt_.dims) {
      const std::string name = aliases.count(given) ? aliases.at(given) : given;
      bool known = hints_.count(name) || ranges.count(name);
      if (!known && opt_.only_applicable) continue;
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
        if (!(value >= r->second.first && value <= r->second.second))
          throw Error("--dim " + given + "=" + std::to_string(value) + ": outside the range [" +
                      std::to_string(r->second.first) + ", " + std::to_string(r->second.second) +
                      "] the model was exported for");
      symbols_[name] = value;
      given_.insert(name);
      g_.info.dims_applied.push_back(given);
    }
    bound_kept_counts(graph, ranges);
    // A detector's post-processing makes hundreds of data-dependent sizes (a selection and an
    // nms per class): past a few, they are noted once per way they were valued.
    constexpr size_t kListedUnbacked = 8;
    size_t unbacked = 0;
    for (const auto& [name, why] : unbacked_) unbacked += !given_.count(name);
    std::map<std::string, std::vector<std::string>> grouped;  // how valued -> symbols
    for (const auto& [name, value] : symbols_) {
      if (unbacked_.count(name) && !given_.count(name) && unbacked > kListedUnbacked) {
        grouped[unbacked_.at(name)].push_back(name);
        continue;
      }
      g_.info.notes.push_back("symbol " + name + " = " + std::to_string(value) +
                              (given_.count(name) ? " (--dim)"
                               : unbacked_.count(name)
                                   ? " (" + unbacked_.at(name) + "; set it with --dim " + name + "=N)"
                                   : " (export hint)"));
    }
    for (auto& [why, names] : grouped) {
      // u2 before u10: shorter names first.
      std::sort(names.begin(), names.end(), [](const std::string& a, const std::string& b) {
        return a.size() != b.size() ? a.size() < b.size() : a < b;
      });
      std::string list;
      for (size_t i = 0; i < names.size() && i < 4; ++i) list += (i ? ", " : "") + names[i];
      if (names.size() > 4) list += ", ...";
      g_.info.notes.push_back(std::to_string(names.size()) + (names.size() == 1 ? " symbol (" : " symbols (") + list +
                              ") valued as " + why + " (--dim NAME=N sets one)");
    }
  }

  // Data-dependent sizes the export leaves open or bounds loosely, valued by what produced them,
  // in node order (a count read from an earlier one is valued by then):
  // - torchvision's nms declares how many boxes it keeps as a fresh size with no upper bound (its
  //   fake kernel cannot know one), so the range above values it at its lower bound. It keeps at
  //   most the boxes it is given: that count, every box kept, as for the export's own selections
  //   (nonzero, a boolean index), whose bound is their input's size.
  // - batched_nms's per-class loop selects, for each of the K values torch.unique found in x
  //   (the export fixes K: the loop is unrolled), where(x == value): the K selections split x's
  //   elements between them, so "every element" K times over would count K times the boxes; each
  //   takes an even share, numel(x) / K (exact where every class has as many candidates, as in
  //   the detectors' heads).
  void bound_kept_counts(JsonRef graph, const std::map<std::string, std::pair<int64_t, int64_t>>& ranges) {
    bool any_open = false;
    for (const auto& [name, why] : unbacked_) any_open |= !given_.count(name);
    JsonRef tv = optional_field(graph, "tensor_values");
    JsonRef nodes = optional_field(graph, "nodes");
    if (!any_open || !tv || !tv.is_object() || !nodes || !nodes.is_array()) return;
    const auto& metas = tensor_items(tv);
    auto name_of = [](JsonRef arg) -> std::string {
      JsonRef t = arg ? optional_field(arg, "as_tensor") : JsonRef();
      JsonRef n = t ? optional_field(t, "name") : JsonRef();
      return n && n.is_string() ? std::string(n.str()) : std::string();
    };
    // The expressions of a tensor's sizes, or nothing.
    auto sizes_of = [&](const std::string& name) -> std::optional<std::vector<std::string>> {
      auto it = std::lower_bound(metas.begin(), metas.end(), name,
                                 [](const auto& item, const std::string& k) { return item.first < k; });
      if (name.empty() || it == metas.end() || it->first != name || it->second.is_null()) return std::nullopt;
      JsonRef sizes = optional_field(open(it->second, value_doc_), "sizes");
      if (!sizes || !sizes.is_array()) return std::nullopt;
      std::vector<std::string> out;
      for (JsonRef dim : sizes.children()) {
        if (JsonRef i = optional_field(dim, "as_int"); i && i.is_number_integer()) {
          out.push_back(std::to_string(i.integer()));
          continue;
        }
        JsonRef e = optional_field(dim, "as_expr");
        JsonRef es = e ? optional_field(e, "expr_str") : JsonRef();
        if (!es || !es.is_string()) return std::nullopt;
        out.push_back(std::string(es.str()));
      }
      return out;
    };
    auto numel_of = [&](const std::string& name) -> std::optional<int64_t> {
      auto sizes = sizes_of(name);
      if (!sizes) return std::nullopt;
      int64_t n = 1;
      for (const auto& e : *sizes) {
        auto v = eval_sym_expr(e, symbols_);
        if (!v || *v < 0 || __builtin_mul_overflow(n, *v, &n)) return std::nullopt;
      }
      return n;
    };
    // The open symbol a tensor's first size is, if it is a bare one.
    auto open_symbol = [&](const std::string& name) -> std::string {
      auto sizes = sizes_of(name);
      if (!sizes || sizes->empty()) return {};
      auto syms = sym_expr_symbols(sizes->front());
      if (syms.size() != 1 || eval_sym_expr(sizes->front(), {{syms[0], 7}}) != 7) return {};
      return unbacked_.count(syms[0]) && !given_.count(syms[0]) ? syms[0] : std::string();
    };
    auto set = [&](const std::string& u, int64_t n, const char* why) {
      auto r = ranges.find(u);
      int64_t v = std::max<int64_t>(n, r != ranges.end() ? r->second.first : 0);
      if (r != ranges.end()) v = std::min(v, r->second.second);
      symbols_[u] = v;
      unbacked_[u] = why;
    };
    std::map<std::string, std::string> unique_of;                        // unique's values -> the tensor they are of
    std::map<std::string, std::pair<std::string, std::string>> mask_of;  // x == value -> (x, values)
    std::map<std::string, std::string> element_values;                   // one value -> unique's values
    for (JsonRef lazy : nodes.children()) {
      JsonRef node = open(lazy, node_doc_);
      JsonRef target = optional_field(node, "target");
      JsonRef inputs = optional_field(node, "inputs");
      JsonRef outputs = optional_field(node, "outputs");
      if (!target || !target.is_string() || !inputs || !inputs.is_array() || !outputs || !outputs.is_array() ||
          inputs.size() == 0 || outputs.size() == 0) {
        release_.passed(lazy);
        continue;
      }
      const std::string_view op = target.str();
      std::vector<std::string> in, out;
      for (JsonRef i : inputs.children()) in.push_back(name_of(optional_field(i, "arg")));
      // A list output (where's, unbind's) by its first tensor.
      for (JsonRef o : outputs.children()) {
        JsonRef list = optional_field(o, "as_tensors");
        JsonRef n =
            list && list.is_array() && list.size() > 0 ? optional_field(*list.children().begin(), "name") : JsonRef();
        out.push_back(n && n.is_string() ? std::string(n.str()) : name_of(o));
      }
      if (op == "torch.ops.torchvision.nms.default" && outputs.size() == 1) {
        std::string u = open_symbol(out[0]);
        auto boxes = sizes_of(in[0]);
        if (!u.empty() && boxes && !boxes->empty())
          if (auto n = eval_sym_expr(boxes->front(), symbols_))
            set(u, *n, "data-dependent: nms keeps every box it is given");
      } else if (op == "torch.ops.aten._unique2.default" && !in[0].empty()) {
        unique_of[out[0]] = in[0];
      } else if (op == "torch.ops.aten.unbind.int" && unique_of.count(in[0]) && inputs.size() == 1) {
        if (JsonRef list = optional_field(*outputs.children().begin(), "as_tensors"); list && list.is_array())
          for (JsonRef t : list.children())
            if (JsonRef n = optional_field(t, "name"); n && n.is_string()) element_values[std::string(n.str())] = in[0];
      } else if (op == "torch.ops.aten.eq.Tensor" && in.size() == 2) {
        for (int k = 0; k < 2; ++k) {
          auto e = element_values.find(in[1 - k]);
          if (e != element_values.end() && unique_of.at(e->second) == in[k]) mask_of[out[0]] = {in[k], e->second};
        }
      } else if ((op == "torch.ops.aten.where.default" || op == "torch.ops.aten.nonzero.default") &&
                 mask_of.count(in[0])) {
        const auto& [x, values] = mask_of.at(in[0]);
        std::string u = open_symbol(out[0]);
        auto n = numel_of(x);
        auto k = sizes_of(values);
        auto kv = k && !k->empty() ? eval_sym_expr(k->front(), symbols_) : std::nullopt;
        if (!u.empty() && n && kv && *kv > 0)
          set(u, (*n + *kv - 1) / *kv, "data-dependent: one of the values unique found, an even share of the elements");
      }
      release_.passed(lazy);
    }
    release_.all();
  }

  int64_t sym_int(JsonRef j, const std::string& where) {
    auto [tag, v] = tagged(j, where);
    if (tag == "as_int") return integer(v, where);
    if (tag == "as_expr") {
      std::string expr = str(field(v, "expr_str", where), where, ".expr_str");
      std::string why;
      if (auto r = eval_sym_expr(expr, symbols_, &why)) return *r;
      if (!why.empty()) throw Error(where + ": symbolic size '" + clip(expr) + "': " + why);
      JsonRef hint = optional_field(v, "hint");
      bool overridden = false;
      for (const auto& s : sym_expr_symbols(expr)) overridden |= given_.count(s) > 0;
      if (hint && !overridden) return sym_int(hint, where + ".hint");
      throw Error(where + ": cannot evaluate symbolic size '" + clip(expr) + "'");
    }
    if (tag == "as_name") {
      std::string name = str(v, where);
      auto it = sym_values_.find(name);
      if (it == sym_values_.end()) throw Error(where + ": unknown symbolic int '" + name + "'");
      return it->second;
    }
    throw Error(where + ": unsupported symbolic int kind '" + std::string(tag) + "'");
  }

  void read_values(JsonRef graph) {
    read_sym_ints(graph);
    JsonRef tvs = field(graph, "tensor_values", "graph");
    if (!tvs.is_object()) throw Error("graph.tensor_values: expected an object");
    // Indexed in key order, as values always were, but read in the text's order, so that the
    // text is read once front to back. Values are read alone: the first error in key order is
    // the one an error in key order would have stopped at.
    const auto& items = tensor_items(tvs);
    std::vector<uint32_t> order(items.size());
    for (uint32_t i = 0; i < order.size(); ++i) order[i] = i;
    std::stable_sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) {
      return items[a].second.text_begin() < items[b].second.text_begin();
    });
    const size_t base = g_.values.size();
    g_.values.resize(base + items.size());
    value_index_.reserve(items.size());
    size_t failed = items.size();
    std::exception_ptr error;
    for (uint32_t i : order) {
      try {
        bool requires_grad = false;
        if (!(opt_.plain_records &&
              read_plain_value(items[i].first, items[i].second, g_.values[base + i], requires_grad)))
          g_.values[base + i] = value_of(items[i].first, open(items[i].second, value_doc_), requires_grad);
        if (requires_grad) recorded_grad_.insert(static_cast<int>(base + i));
      } catch (...) {
        if (i < failed) {
          failed = i;
          error = std::current_exception();
        }
      }
      release_.passed(items[i].second);
    }
    release_.all();
    if (error) std::rethrow_exception(error);
    for (uint32_t i = 0; i < items.size(); ++i) value_index_[names_.keep(items[i].first)] = static_cast<int>(base + i);
  }

  // The graph's tensor_values sorted by name, made once.
  const std::vector<std::pair<std::string_view, JsonRef>>& tensor_items(JsonRef tvs) {
    if (!tensor_items_) tensor_items_ = tvs.items();
    return *tensor_items_;
  }

  int read_value(std::string_view key, JsonRef meta) {
    bool requires_grad = false;
    const int index = g_.add_value(value_of(key, meta, requires_grad));
    // Kept for parameters and buffers only (read_signature): the run's own intermediates never
    // require grad under no_grad, whatever grad mode the export traced in.
    if (requires_grad) recorded_grad_.insert(index);
    return index;
  }

  // A tensor record's dtype, sizes and strides where they are plain (an integer dtype, sizes and
  // strides {"as_int": N}), read without building the messages of value_of's checks, which
  // read anything else.
  static bool plain_value(JsonRef meta, Value& v) {
    if (!meta.is_object()) return false;
    JsonRef dt = meta.find("dtype"), sizes = meta.find("sizes"), strides = meta.find("strides");
    if (!(dt && dt.is_number_integer() && sizes && sizes.is_array() && strides && strides.is_array())) return false;
    const auto dtype = dtype_from_export_enum(dt.integer());
    if (!dtype.has_value()) return false;
    v.dtype = *dtype;
    auto ints = [](JsonRef list, std::vector<int64_t>& out) {
      out.reserve(list.size());
      for (JsonRef s : list.children()) {
        if (!(s.is_object() && s.size() == 1)) return false;
        const JsonRef only = *s.children().begin();
        if (!(only.key() == "as_int" && only.is_number_integer())) return false;
        out.push_back(only.integer());
      }
      return true;
    };
    return ints(sizes, v.sizes) && ints(strides, v.strides);
  }

  // A tensor record of the common shape (pt2_plain.h) read straight from its text into `v`;
  // false, having changed nothing, where value_of must read it. A record with the text of the
  // one read before it is not read again: an export's tensors repeat a few shapes (a block's
  // activations, one after another), and the text decides all that is read here.
  bool read_plain_value(std::string_view key, JsonRef meta, Value& v, bool& requires_grad) {
    if (!meta.is_lazy()) return false;
    const std::string_view text = meta.text();
    RepeatedTensor& last = last_tensor_;
    if (!last.read || text != last.text) {
      last.read = false;
      if (!read_plain_tensor(text, kLazyDepth, plain_tensor_)) return false;
      const PlainTensor& t = plain_tensor_;
      const auto dtype = dtype_from_export_enum(t.dtype);
      if (!dtype.has_value()) return false;
      last.dtype = *dtype;
      last.sizes = t.sizes;
      last.strides = t.strides;
      last.device = SharedString();
      if (t.has_device) {
        std::string device;
        if (t.has_device_type) device = std::string(t.strings(t.device_type));
        if (t.has_device_index) device += ":" + std::to_string(t.device_index);
        last.device = shared_device(std::move(device));
      }
      last.requires_grad = t.requires_grad;
      last.storage_offset = t.storage_offset;
      last.text = text;
      last.read = true;
    }
    v.name = std::string(key);
    v.dtype = last.dtype;
    v.sizes = last.sizes;
    v.strides = last.strides;
    v.device = last.device;
    v.storage_offset = last.storage_offset;
    requires_grad = last.requires_grad;
    JsonDoc::mark_checked(meta);
    return true;
  }

  Value value_of(std::string_view key, JsonRef meta, bool& requires_grad) {
    {
      Value v;
      v.name = std::string(key);
      if (!plain_value(meta, v)) {
        v.sizes.clear();
        v.strides.clear();
        const std::string where = "tensor '" + v.name + "'";
        int64_t dt = integer(field(meta, "dtype", where), where, ".dtype");
        auto dtype = dtype_from_export_enum(dt);
        if (!dtype.has_value()) throw Error(where + ": unknown dtype code " + std::to_string(dt));
        v.dtype = *dtype;
        const std::string sizes_where = where + ".sizes", strides_where = where + ".strides";
        for (JsonRef s : array(field(meta, "sizes", where), sizes_where)) v.sizes.push_back(sym_int(s, sizes_where));
        for (JsonRef s : array(field(meta, "strides", where), strides_where))
          v.strides.push_back(sym_int(s, strides_where));
      }
      if (JsonRef d = optional_field(meta, "device")) {
        std::string device;
        if (JsonRef type = optional_field(d, "type"); type && type.is_string()) device = std::string(type.str());
        if (JsonRef idx = optional_field(d, "index"); idx && idx.is_number_integer())
          device += ":" + std::to_string(idx.integer());
        v.device = shared_device(std::move(device));
      }
      JsonRef rg = optional_field(meta, "requires_grad");
      requires_grad = rg && rg.is_boolean() && rg.boolean();
      // Where a view starts in its storage (a slice, one of unbind's parts); symbolic: 0.
      if (JsonRef off = optional_field(meta, "storage_offset"); off && off.is_object())
        if (JsonRef n = off.find("as_int"); n && n.is_number_integer()) v.storage_offset = n.integer();
      return v;
    }
  }

  // One text per device, which every tensor on it shares.
  SharedString shared_device(std::string device) {
    auto it = devices_.find(device);
    if (it == devices_.end()) it = devices_.emplace(device, SharedString(device)).first;
    return it->second;
  }

  void read_sym_ints(JsonRef graph) {
    if (JsonRef sv = optional_field(graph, "sym_int_values")) {
      if (!sv.is_object())
        throw Error("graph.sym_int_values: expected an object, found " + std::string(sv.type_name()));
      for (const auto& [key, value] : sv.items())
        sym_values_[std::string(key)] = sym_int(open(value, value_doc_), "sym_int_values." + std::string(key));
    }
  }

  void read_signature(JsonRef gm) {
    JsonRef sig = optional_field(gm, "signature");
    if (!sig) return;
    JsonRef specs = optional_field(sig, "input_specs");
    if (!specs || !specs.is_array()) return;
    for (JsonRef spec : specs.children()) {
      auto [kind, body] = tagged(open(spec, aux_doc_), "signature.input_specs");
      JsonRef arg = optional_field(body, "arg");
      if (!arg) continue;
      std::string name;
      if (JsonRef n = optional_field(arg, "name"); n && n.is_string())
        name = std::string(n.str());
      else if (JsonRef t = optional_field(arg, "as_tensor"))
        name = str(field(t, "name", "signature"), "signature");
      auto it = value_index_.find(name);
      if (it == value_index_.end()) continue;
      Value& v = g_.values[it->second];
      // ep.module() keeps parameters as nn.Parameters with the flag they were exported with
      // (frozen models export False); matmul folds differently when a weight requires grad.
      v.requires_grad = (kind == "parameter" || kind == "buffer") && recorded_grad_.count(it->second) > 0;
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

  int value_ref(JsonRef t, const std::string& where, const char* suffix = "") {
    JsonRef name = field(t, "name", where, suffix);
    if (!name.is_string())
      throw Error(where + suffix + ".name: expected a string, found " + std::string(name.type_name()));
    auto it = value_index_.find(name.str());
    if (it == value_index_.end())
      throw Error(where + suffix + ": tensor '" + std::string(name.str()) + "' has no entry in tensor_values");
    return it->second;
  }

  // An argument {"as_tensor": {"name": N}} naming a known tensor, read without building the
  // messages of read_arg's checks, which read anything else.
  bool plain_tensor_arg(const std::string& name, JsonRef arg, Arg& a) const {
    if (!(arg.is_object() && arg.size() == 1)) return false;
    const JsonRef only = *arg.children().begin();
    if (!(only.key() == "as_tensor" && only.is_object())) return false;
    const JsonRef n = only.find("name");
    if (!(n && n.is_string())) return false;
    auto it = value_index_.find(n.str());
    if (it == value_index_.end()) return false;
    a.name = name;
    a.kind = Arg::Kind::kTensor;
    a.tensors = {it->second};
    return true;
  }

  Arg read_arg(const std::string& name, JsonRef arg, const std::string& where) {
    Arg a;
    a.name = name;
    auto [tag, v] = tagged(arg, where);
    JsonRef j = v;
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
        a.tensors = {value_ref(iv, where)};
      }
    } else if (tag == "as_tensors" || tag == "as_optional_tensors") {
      a.kind = K::kTensorList;
      for (JsonRef t : array(j, where)) {
        if (tag == "as_optional_tensors") {
          auto [inner, iv] = tagged(t, where);
          a.tensors.push_back(inner == "as_none" ? -1 : value_ref(iv, where));
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
      for (JsonRef i : array(j, where)) a.ints.push_back(integer(i, where));
    } else if (tag == "as_sym_ints") {
      a.kind = K::kIntList;
      for (JsonRef i : array(j, where)) a.ints.push_back(sym_int(i, where));
    } else if (tag == "as_float") {
      a.kind = K::kFloat;
      a.floats = {floating(j, where)};
    } else if (tag == "as_complex") {
      a.kind = K::kComplex;
      a.floats = {floating(field(j, "real", where), where), floating(field(j, "imag", where), where)};
    } else if (tag == "as_floats") {
      a.kind = K::kFloatList;
      for (JsonRef f : array(j, where)) a.floats.push_back(floating(f, where));
    } else if (tag == "as_bool") {
      if (!j.is_boolean()) throw Error(where + ": expected a boolean");
      a.kind = K::kBool;
      a.ints = {j.boolean() ? 1 : 0};
    } else if (tag == "as_bools") {
      a.kind = K::kBoolList;
      for (JsonRef b : array(j, where)) {
        if (!b.is_boolean()) throw Error(where + ": expected a boolean");
        a.ints.push_back(b.boolean() ? 1 : 0);
      }
    } else if (tag == "as_string") {
      a.kind = K::kString;
      a.text = str(j, where);
    } else if (tag == "as_scalar_type") {
      a.kind = K::kScalarType;
      auto dt = dtype_from_export_enum(integer(j, where));
      if (!dt.has_value()) throw Error(where + ": unknown dtype code");
      a.ints = {static_cast<int64_t>(*dt)};
    } else if (tag == "as_memory_format" || tag == "as_layout") {
      a.kind = tag == "as_layout" ? K::kLayout : K::kMemoryFormat;
      a.text = std::to_string(integer(j, where));
    } else if (tag == "as_device") {
      a.kind = K::kDevice;
      std::string device = str(field(j, "type", where), where);
      if (JsonRef idx = optional_field(j, "index"); idx && idx.is_number_integer())
        device += ":" + std::to_string(idx.integer());
      a.text = device;
    } else {
      throw Error(where + ": unsupported argument kind '" + std::string(tag) + "'");
    }
    return a;
  }

  // A node's target, "torch.ops.<namespace>.<name>.<overload>", taken apart.
  struct Target {
    bool torch_op = false;   // under torch.ops; anything else is Python on the host
    bool host_only = false;  // symbolic-size arithmetic, run on the host when it yields no tensor
    std::string name, overload;
    std::string region;                // a higher-order op: "wrap_with_autocast"
    const OpSchema* schema = nullptr;  // looked up the first time an op needs it
  };
  static Target parse_target(std::string_view target, const std::string& where) {
    Target t;
    constexpr std::string_view kPrefix = "torch.ops.";
    if (target.substr(0, kPrefix.size()) != kPrefix) return t;
    t.torch_op = true;
    const std::string_view rest = target.substr(kPrefix.size());
    const size_t d1 = rest.find('.'), d2 = rest.rfind('.');
    // torch.ops.higher_order.<name>: no overload
    if (d1 != std::string::npos && rest.substr(0, d1) == "higher_order") {
      t.region = std::string(rest.substr(d1 + 1));
      return t;
    }
    if (d1 == std::string::npos || d2 == d1) throw Error(where + ": malformed target '" + std::string(target) + "'");
    const std::string_view ns = rest.substr(0, d1);
    t.name = std::string(ns) + "::" + std::string(rest.substr(d1 + 1, d2 - d1 - 1));
    t.overload = std::string(rest.substr(d2 + 1));
    t.host_only = t.name.rfind("aten::sym_", 0) == 0 || t.name == "aten::_assert_scalar";
    return t;
  }

  // An op LibTorch does not know (torchvision::nms, a torch.library custom op, a Triton kernel
  // wrapper): the archive records its outputs, so it needs no schema to take its place in the
  // graph. Its arguments are the node's, by name; it claims no aliasing and no tags. Only a rule
  // written for it by name can match it (checking the ranks it reads); otherwise it is reported
  // as unknown, never as free.
  const OpSchema& unregistered_op(const Target& t, JsonRef node, const std::string& where) {
    const std::string key = t.name + "." + t.overload;
    auto it = unregistered_.find(key);
    if (it != unregistered_.end()) return it->second;
    OpSchema schema;
    schema.name = t.name;
    schema.overload = t.overload == "default" ? "" : t.overload;
    for (JsonRef in : array(field(node, "inputs", where), where, ".inputs")) {
      JsonRef name = field(in, "name", where);
      if (!name.is_string())
        throw Error(where + ".inputs.name: expected a string, found " + std::string(name.type_name()));
      schema.args.push_back(SchemaArg{std::string(name.str()), "Any", false, true});
    }
    return unregistered_.emplace(key, std::move(schema)).first->second;
  }

  void read_node(JsonRef node) {
    std::string node_name = "?";
    if (JsonRef n = optional_field(node, "name"); n && n.is_string()) node_name = std::string(n.str());
    const std::string where = "node '" + node_name + "'";
    const JsonRef target_ref = field(node, "target", where);
    if (!target_ref.is_string())
      throw Error(where + ".target: expected a string, found " + std::string(target_ref.type_name()));
    const std::string_view target = target_ref.str();
    const JsonRef::Children outputs = array(field(node, "outputs", where), where, ".outputs");

    // Python-level arithmetic on symbolic sizes (_operator.mul, aten.sym_size) runs on the
    // host and its results are already in sym_int_values.
    bool tensor_out = false;
    for (JsonRef o : outputs) {
      auto [tag, v] = tagged(o, where);
      tensor_out |= tag == "as_tensor" || tag == "as_tensors" || tag == "as_optional_tensors";
    }
    // Each distinct target is parsed once: a graph repeats a few dozen ops.
    auto known = targets_.find(target);
    if (known == targets_.end()) known = targets_.emplace(names_.keep(target), parse_target(target, where)).first;
    Target& t = known->second;
    if (!t.region.empty()) return read_region(node, t.region, target, where);
    if (!t.torch_op) {
      if (tensor_out) throw Error(where + ": unsupported target '" + std::string(target) + "'");
      return;
    }
    if (!tensor_out && t.host_only) return;
    if (!t.schema) {
      try {
        t.schema = &lookup_op(t.name, t.overload);
      } catch (const Error& e) {
        // An aten op this LibTorch lacks comes from another PyTorch release: its rules would
        // read arguments by a schema we do not have, so it is refused by name.
        if (t.name.rfind("aten::", 0) == 0 || t.name.rfind("prims::", 0) == 0) throw Error(where + ": " + e.what());
        t.schema = &unregistered_op(t, node, where);
      }
    }
    const OpSchema* schema = t.schema;
    Op op;
    op.name = schema->name;
    op.overload = schema->overload;
    op.traits = schema->traits;
    const JsonRef::Children inputs = array(field(node, "inputs", where), where, ".inputs");
    // Arguments in schema order, so that positions match the schema (mutated_args too).
    // Keyed by views into the document: no copy of a name. A node has a handful of inputs,
    // looked for along a list; a hash map only past a few dozen (a hostile node may have a
    // million).
    by_name_.clear();
    for (JsonRef in : inputs) {
      JsonRef name = field(in, "name", where);
      if (!name.is_string())
        throw Error(where + ".inputs.name: expected a string, found " + std::string(name.type_name()));
      by_name_.push_back({name.str(), in, false});
    }
    constexpr size_t kListed = 32;
    std::unordered_map<std::string_view, size_t> last;  // the last input of each name, past kListed
    if (by_name_.size() > kListed)
      for (size_t k = 0; k < by_name_.size(); ++k) last[by_name_[k].name] = k;
    // The last input of a name (a repeated name counts once, with its last value).
    auto find_input = [&](std::string_view name) -> NamedInput* {
      if (by_name_.size() > kListed) {
        auto it = last.find(name);
        return it == last.end() || by_name_[it->second].taken ? nullptr : &by_name_[it->second];
      }
      for (size_t k = by_name_.size(); k-- > 0;)
        if (by_name_[k].name == name) return by_name_[k].taken ? nullptr : &by_name_[k];
      return nullptr;
    };
    // Room for every argument at once: growing the list moves each Arg (a name and three lists).
    op.args.reserve(std::min(by_name_.size(), schema->args.size()));
    schema_pos_.clear();
    for (size_t i = 0; i < schema->args.size(); ++i) {
      NamedInput* in = find_input(schema->args[i].name);
      if (!in) {
        if (!(schema->args[i].has_default || schema->args[i].type.back() == '?'))
          throw Error(where + ": argument '" + schema->args[i].name + "' of " + t.name + " is missing");
        continue;
      }
      const JsonRef arg = field(in->value, "arg", where);
      if (!plain_tensor_arg(schema->args[i].name, arg, op.args.emplace_back()))
        op.args.back() = read_arg(schema->args[i].name, arg, where + " argument '" + schema->args[i].name + "'");
      schema_pos_.push_back(static_cast<int>(i));
      for (NamedInput& same : by_name_) same.taken |= same.name == in->name;
    }
    for (const NamedInput& in : by_name_)
      if (!in.taken)
        throw Error(where + ": argument '" + unknown_input(schema) + "' is not in the schema of " + t.name);
    index_mutated_args(op);

    const int index = static_cast<int>(g_.ops.size());
    op.outputs.reserve(outputs.end() != outputs.begin() ? field(node, "outputs", where).size() : 0);
    for (JsonRef o : outputs) {
      auto [tag, v] = tagged(o, where);
      auto add_out = [&](JsonRef t) {
        int id = value_ref(t, where, ".outputs");
        Value& val = g_.values[id];
        if (!(val.producer < 0 && val.role == ValueRole::kIntermediate))
          throw Error(where + ": tensor '" + val.name + "' is written twice");
        val.producer = index;
        op.outputs.push_back(id);
      };
      if (tag == "as_tensor") {
        add_out(v);
      } else if (tag == "as_tensors") {
        for (JsonRef t : array(v, where)) add_out(t);
      } else if (tag == "as_optional_tensors") {
        for (JsonRef t : array(v, where)) {
          auto [inner, iv] = tagged(t, where);
          if (inner == "as_none")
            op.outputs.push_back(-1);
          else
            add_out(iv);
        }
      } else {
        op.outputs.push_back(-1);
      }
    }
    locate(op, node);
    g_.ops.push_back(std::move(op));
  }

  // mutated_args index the schema; re-indexed to op.args by schema_pos_.
  void index_mutated_args(Op& op) const {
    if (op.traits.mutated_args.empty()) return;
    std::vector<int> mutated;
    for (int m : op.traits.mutated_args)
      for (size_t k = 0; k < schema_pos_.size(); ++k)
        if (schema_pos_[k] == m) mutated.push_back(static_cast<int>(k));
    op.traits.mutated_args = mutated;
  }

  // A node of the common shape (pt2_plain.h) read straight from its text, as read_node would
  // read it; false, having changed nothing, where read_node must (any node it would refuse or
  // treat specially, and the first node of each target, which looks its schema up).
  bool read_plain_node(JsonRef node) {
    if (!node.is_lazy() || !kc::read_plain_node(node.text(), kLazyDepth, plain_node_)) return false;
    const PlainNode& n = plain_node_;
    const PlainStrings& s = n.strings;
    // The operands' slots are fetched while the target and the schema are matched.
    for (const PlainArg& in : n.inputs)
      if (in.kind == PlainArg::Kind::kTensor) value_index_.prefetch(s(in.tensor));
    for (const PlainStrings::Ref& name : n.outputs) value_index_.prefetch(s(name));
    const auto known = targets_.find(s(n.target));
    if (known == targets_.end()) return false;
    const Target& t = known->second;
    if (!t.region.empty() || !t.torch_op || !t.schema || (t.host_only && n.outputs.empty())) return false;
    const OpSchema* schema = t.schema;
    for (size_t a = 0; a < n.inputs.size(); ++a)
      for (size_t b = 0; b < a; ++b)
        if (s(n.inputs[a].name) == s(n.inputs[b].name)) return false;  // the general reader takes the last
    Op op;
    op.name = schema->name;
    op.overload = schema->overload;
    op.traits = schema->traits;
    op.args.reserve(std::min(n.inputs.size(), schema->args.size()));
    schema_pos_.clear();
    size_t taken = 0;
    for (size_t i = 0; i < schema->args.size(); ++i) {
      const SchemaArg& want = schema->args[i];
      const PlainArg* in = nullptr;
      for (const PlainArg& candidate : n.inputs)
        if (s(candidate.name) == want.name) in = &candidate;
      if (!in) {
        if (!(want.has_default || want.type.back() == '?')) return false;
        continue;
      }
      Arg& a = op.args.emplace_back();
      a.name = want.name;
      using K = PlainArg::Kind;
      switch (in->kind) {
        case K::kTensor: {
          const auto it = value_index_.find(s(in->tensor));
          if (it == value_index_.end()) return false;
          a.kind = Arg::Kind::kTensor;
          a.tensors = {it->second};
          break;
        }
        case K::kNone:
          a.kind = Arg::Kind::kNone;
          break;
        case K::kInt:
          a.kind = Arg::Kind::kInt;
          a.ints = {in->integer};
          break;
        case K::kIntList:
          a.kind = Arg::Kind::kIntList;
          a.ints.assign(n.ints.begin() + in->ints_begin, n.ints.begin() + in->ints_end);
          break;
        case K::kFloat:
          a.kind = Arg::Kind::kFloat;
          a.floats = {in->number};
          break;
        case K::kBool:
          a.kind = Arg::Kind::kBool;
          a.ints = {in->integer};
          break;
      }
      schema_pos_.push_back(static_cast<int>(i));
      ++taken;
    }
    if (taken != n.inputs.size()) return false;
    index_mutated_args(op);
    // Outputs: each a tensor no op has written yet, named once (a long list is left to read_node).
    constexpr size_t kCompared = 64;
    if (n.outputs.size() > kCompared) return false;
    op.outputs.reserve(n.outputs.size());
    for (const PlainStrings::Ref& name : n.outputs) {
      const auto it = value_index_.find(s(name));
      if (it == value_index_.end()) return false;
      const Value& val = g_.values[it->second];
      if (!(val.producer < 0 && val.role == ValueRole::kIntermediate)) return false;
      if (std::find(op.outputs.begin(), op.outputs.end(), it->second) != op.outputs.end()) return false;
      op.outputs.push_back(it->second);
    }
    const int index = static_cast<int>(g_.ops.size());
    for (int id : op.outputs) g_.values[id].producer = index;
    const std::string_view trace = s(n.stack_trace), module = s(n.module_stack);
    locate(op, n.has_stack_trace ? &trace : nullptr, n.has_module_stack ? &module : nullptr);
    g_.ops.push_back(std::move(op));
    JsonDoc::mark_checked(node);
    return true;
  }

  // The input an error names when a node has inputs its schema lacks: the one a hash map of
  // the names, less those the schema took, gives first, as errors always named it.
  std::string unknown_input(const OpSchema* schema) const {
    std::unordered_map<std::string_view, JsonRef> by_name;
    for (const NamedInput& in : by_name_) by_name[in.name] = in.value;
    for (const SchemaArg& arg : schema->args)
      if (auto it = by_name.find(arg.name); it != by_name.end()) by_name.erase(it);
    return by_name.empty() ? "" : std::string(by_name.begin()->first);
  }

  void clear_caches() {
    source_locs_.clear();
    modules_.clear();
    cached_ = StringArena();
  }

  // The user's source line and module of a node, from its metadata.
  void locate(Op& op, JsonRef node) {
    if (JsonRef meta = optional_field(node, "metadata")) {
      JsonRef st = optional_field(meta, "stack_trace"), ms = optional_field(meta, "nn_module_stack");
      const std::string_view trace = st && st.is_string() ? st.str() : std::string_view();
      const std::string_view module = ms && ms.is_string() ? ms.str() : std::string_view();
      locate(op, st && st.is_string() ? &trace : nullptr, ms && ms.is_string() ? &module : nullptr);
    }
  }
  // The same from the metadata's stack_trace and nn_module_stack, each where it is a string.
  void locate(Op& op, const std::string_view* stack_trace, const std::string_view* module_stack) {
    {
      if (stack_trace) {
        const std::string_view trace = *stack_trace;
        size_t from = trace.size() > kMaxStackTraceRead ? trace.size() - kMaxStackTraceRead : 0;
        if (size_t eol = from > 0 ? trace.find('\n', from) : std::string::npos; eol != std::string::npos)
          from = eol + 1;  // from a line's start
        // Ops of one line share their trace: each distinct one is parsed once, while the
        // cache is small (a long chain of ops has a line each).
        const std::string_view tail = trace.substr(from);
        auto loc = source_locs_.find(tail);
        if (loc == source_locs_.end()) {
          if (source_locs_.size() >= kMaxCached) clear_caches();
          loc = source_locs_.emplace(cached_.keep(tail), user_frame(std::string(tail))).first;
        }
        op.loc = loc->second;
      }
      if (module_stack) {
        auto module = modules_.find(*module_stack);
        if (module == modules_.end()) {
          if (modules_.size() >= kMaxCached) clear_caches();
          module = modules_.emplace(cached_.keep(*module_stack), innermost_module(std::string(*module_stack))).first;
        }
        std::tie(op.module, op.module_type) = module->second;
      }
    }
  }

  // A higher-order op: its subgraphs are read in place of the node, as eager runs them.
  // wrap_with_autocast (switched off) and wrap_with_set_grad_enabled only set a mode: their ops
  // run one by one as if they stood in the graph. Control flow (cond, map_impl, scan, while_loop) is
  // read by read_control_flow. invoke_subgraph (a region torch.compiler.nested_compile_region
  // marked, exported once and called at each use) runs its subgraph on its operands in eager
  // mode. Autocast switched on, whose dtypes depend on the device it runs on, is refused by name.
  void read_region(JsonRef node, std::string_view region, std::string_view target, const std::string& where) {
    const std::string refused = where + ": higher-order op '" + std::string(target) + "' is not supported";
    if (region_depth_ >= kMaxRegionDepth)
      throw Error(where + ": regions nested deeper than " + std::to_string(kMaxRegionDepth));
    if (region == "cond" || region == "map_impl" || region == "while_loop" || region == "scan")
      return read_control_flow(node, region, where);
    if (region != "wrap_with_autocast" && region != "wrap_with_set_grad_enabled" && region != "invoke_subgraph")
      throw Error(refused);
    JsonRef body;
    std::vector<JsonRef> modes;
    std::vector<int> operands;
    for (JsonRef in : array(field(node, "inputs", where), where, ".inputs")) {
      auto [tag, v] = tagged(field(in, "arg", where), where + ".inputs");
      if (tag == "as_graph") {
        if (body) throw Error(where + ": more than one subgraph");
        body = field(v, "graph", where);
      } else if (tag == "as_tensor") {
        operands.push_back(value_ref(v, where, ".inputs"));
      } else if (!body) {
        modes.push_back(v);
      } else if (region == "invoke_subgraph" && tag == "as_string" && operands.empty()) {
        // invoke_subgraph(subgraph, identifier, *operands): the identifier names the region only.
      } else {
        throw Error(where + ": an operand of kind '" + std::string(tag) + "' after the subgraph");
      }
    }
    if (!body) throw Error(where + ": no subgraph");
    if (region == "invoke_subgraph" && !modes.empty())
      throw Error(where + ": invoke_subgraph expected as (subgraph, identifier, operands)");
    // wrap_with_autocast(device_type, dtype, enabled, cache_enabled, body, *operands)
    if (region == "wrap_with_autocast" && !(modes.size() >= 3 && modes[2].is_boolean() && !modes[2].boolean()))
      throw Error(refused + " with autocast enabled (the dtypes inside depend on the device it runs on)");
    bind_outputs(node, inline_graph(body, operands, where), where);
  }

  // Reads a subgraph's nodes in place, its inputs bound to `operands`; returns the values of its
  // outputs. The subgraph names its own tensors: they are bound while it is read and the outer
  // names restored after. Each reading makes fresh values, so a loop body read once per trip
  // writes new tensors each time, as eager does.
  std::vector<int> inline_graph(JsonRef body, const std::vector<int>& operands, const std::string& where) {
    const JsonRef::Children nodes = array(field(body, "nodes", where), where, ".nodes");
    inlined_nodes_ += static_cast<int64_t>(field(body, "nodes", where).size());
    if (inlined_nodes_ > kMaxInlinedNodes)
      throw Error(where + ": its subgraphs unroll to more than " + std::to_string(kMaxInlinedNodes) +
                  " ops (a loop's trips times its body), more than kernelcount reads");
    std::vector<std::pair<std::string_view, int>> shadowed;
    auto bind = [&](std::string_view name, int id) {
      auto [it, added] = value_index_.try_emplace(names_.keep(name), id);
      if (!added) {
        shadowed.emplace_back(name, it->second);
        it->second = id;
      }
    };
    JsonRef sub_inputs = field(body, "inputs", where);
    if (!sub_inputs.is_array() || sub_inputs.size() != operands.size())
      throw Error(where + ": the subgraph does not take the " + std::to_string(operands.size()) +
                  " tensors the node passes");
    std::set<std::string_view> bound;
    size_t k = 0;
    for (JsonRef in : sub_inputs.children()) {
      auto [tag, v] = tagged(in, where + ".inputs");
      if (tag != "as_tensor") throw Error(where + ": a subgraph input of kind '" + std::string(tag) + "'");
      JsonRef name = field(v, "name", where);
      if (!name.is_string()) throw Error(where + ": a subgraph input without a name");
      bind(name.str(), operands[k++]);
      bound.insert(name.str());
    }
    read_sym_ints(body);
    JsonRef tvs = field(body, "tensor_values", where);
    if (!tvs.is_object()) throw Error(where + ".tensor_values: expected an object");
    // The values each reading makes count against the bound too: a body of few nodes and many
    // recorded tensors, read once per trip, must not grow the graph without limit.
    inlined_nodes_ += static_cast<int64_t>(tvs.size());
    if (inlined_nodes_ > kMaxInlinedNodes)
      throw Error(where + ": its subgraphs unroll to more than " + std::to_string(kMaxInlinedNodes) +
                  " ops and tensors (a loop's trips times its body), more than kernelcount reads");
    for (const auto& [key, meta] : tvs.items())
      if (!bound.count(key)) bind(key, read_value(key, meta));
    ++region_depth_;
    for (JsonRef n : nodes) read_node(n);
    --region_depth_;
    std::vector<int> results;
    for (JsonRef out : array(field(body, "outputs", where), where, ".outputs")) {
      auto [tag, v] = tagged(out, where + ".outputs");
      if (tag != "as_tensor") throw Error(where + ": a subgraph output of kind '" + std::string(tag) + "'");
      results.push_back(value_ref(v, where, ".outputs"));
    }
    for (auto it = shadowed.rbegin(); it != shadowed.rend(); ++it) value_index_[it->first] = it->second;
    return results;
  }

  // The names of a node's tensor outputs, in order.
  std::vector<std::string_view> output_names(JsonRef node, const std::string& where) {
    std::vector<std::string_view> names;
    for (JsonRef o : array(field(node, "outputs", where), where, ".outputs")) {
      auto [tag, v] = tagged(o, where + ".outputs");
      auto name_of = [&](JsonRef t) {
        JsonRef n = field(t, "name", where);
        if (!n.is_string()) throw Error(where + ": an output without a name");
        names.push_back(n.str());
      };
      if (tag == "as_tensor") {
        name_of(v);
      } else if (tag == "as_tensors") {
        for (JsonRef t : array(v, where)) name_of(t);
      } else {
        throw Error(where + ": an output of kind '" + std::string(tag) + "'");
      }
    }
    return names;
  }

  // The node's outputs are the subgraph's: later nodes that read them read its results.
  void bind_outputs(JsonRef node, const std::vector<int>& results, const std::string& where) {
    const std::vector<std::string_view> names = output_names(node, where);
    if (names.size() != results.size())
      throw Error(where + ": the node has " + std::to_string(names.size()) + " outputs, its subgraph " +
                  std::to_string(results.size()));
    for (size_t i = 0; i < names.size(); ++i) value_index_[names_.keep(names[i])] = results[i];
  }

  // An op eager runs around a higher-order op's subgraphs that the graph holds no node for
  // (is_nonzero reading cond's predicate, unbind and stack around map's body), placed at the
  // higher-order op's source line.
  void add_hop_op(const char* name, const char* overload, std::vector<Arg> args, const std::vector<int>& outputs,
                  JsonRef node) {
    const OpSchema& schema = lookup_op(name, overload);
    Op op;
    op.name = schema.name;
    op.overload = schema.overload;
    op.traits = schema.traits;
    op.args = std::move(args);
    const int index = static_cast<int>(g_.ops.size());
    for (int id : outputs) {
      if (id >= 0) g_.values[id].producer = index;
      op.outputs.push_back(id);
    }
    locate(op, node);
    g_.ops.push_back(std::move(op));
  }

  static Arg int_arg(const char* name, int64_t v) {
    Arg a;
    a.name = name;
    a.kind = Arg::Kind::kInt;
    a.ints = {v};
    return a;
  }
  // zeros(..., dtype=e.dtype, device=e.device), as generic_scan allocates its results.
  static Arg dtype_arg(DType dt) {
    Arg a;
    a.name = "dtype";
    a.kind = Arg::Kind::kScalarType;
    a.ints = {static_cast<int64_t>(dt)};
    return a;
  }
  static Arg device_arg(const std::string& device) {
    Arg a;
    a.name = "device";
    a.kind = Arg::Kind::kDevice;
    a.text = device.empty() ? "cuda" : device;
    return a;
  }
  static Arg int_list_arg(const char* name, std::vector<int64_t> v) {
    Arg a;
    a.name = name;
    a.kind = Arg::Kind::kIntList;
    a.ints = std::move(v);
    return a;
  }
  static Arg tensor_list_arg(const char* name, std::vector<int> values) {
    Arg a;
    a.name = name;
    a.kind = Arg::Kind::kTensorList;
    a.tensors = std::move(values);
    return a;
  }

  // The subgraphs (as_graph) and tensor operands (as_tensor, as_tensors) of a node, in order.
  struct HopArgs {
    std::vector<JsonRef> graphs;
    std::vector<std::vector<int>> tensors;  // per argument: its tensors (empty for other kinds)
    std::vector<std::string_view> tags;     // per argument: its kind
    std::vector<JsonRef> values;
  };
  HopArgs hop_args(JsonRef node, const std::string& where) {
    HopArgs h;
    for (JsonRef in : array(field(node, "inputs", where), where, ".inputs")) {
      auto [tag, v] = tagged(field(in, "arg", where), where + ".inputs");
      h.tags.push_back(tag);
      h.values.push_back(v);
      h.tensors.emplace_back();
      if (tag == "as_graph") {
        h.graphs.push_back(field(v, "graph", where));
      } else if (tag == "as_tensor") {
        h.tensors.back().push_back(value_ref(v, where, ".inputs"));
      } else if (tag == "as_tensors") {
        for (JsonRef t : array(v, where)) h.tensors.back().push_back(value_ref(t, where, ".inputs"));
      }
    }
    return h;
  }

  // cond, map_impl and while_loop, as torch/_higher_order_ops runs them in eager mode.
  void read_control_flow(JsonRef node, std::string_view region, const std::string& where) {
    const HopArgs h = hop_args(node, where);
    auto need = [&](bool ok, const char* layout) {
      if (!ok) throw Error(where + ": " + std::string(region) + " expected as " + layout);
    };
    if (region == "cond") {
      // cond(pred, true_fn, false_fn, operands): cond_op_dense runs `if pred:` on the host, so a
      // tensor predicate is read back (is_nonzero: a copy to the host and a sync), then one branch.
      need(h.graphs.size() == 2 && h.tags.size() == 4 && h.tags[1] == "as_graph" && h.tags[2] == "as_graph" &&
               h.tags[3] == "as_tensors",
           "(pred, true_fn, false_fn, operands)");
      std::optional<bool> taken;
      if (h.tags[0] == "as_tensor") {
        add_hop_op("aten::is_nonzero", "", {Arg::tensor("self", h.tensors[0][0])}, {-1}, node);
      } else if (h.tags[0] == "as_bool" && h.values[0].is_boolean()) {
        taken = h.values[0].boolean();
      }
      const size_t n_true = field(h.graphs[0], "nodes", where).size();
      const size_t n_false = field(h.graphs[1], "nodes", where).size();
      if (!taken) {
        // The branch depends on the data: the larger one is counted, and the report says so.
        taken = n_true >= n_false;
        auto nodes = [](size_t n) { return std::to_string(n) + (n == 1 ? " node" : " nodes"); };
        const char* counted = *taken ? "true" : "false";
        const char* other = *taken ? "false" : "true";
        g_.info.notes.push_back(where + ": cond's predicate is decided by the data at run time; counted the " +
                                counted + " branch (" + nodes(*taken ? n_true : n_false) + "), not the " + other +
                                " branch (" + nodes(*taken ? n_false : n_true) + ")");
      }
      return bind_outputs(node, inline_graph(h.graphs[*taken ? 0 : 1], h.tensors[3], where), where);
    }
    if (region == "map_impl") {
      // map_impl(body, xs, pos_args): map_dense iterates each x (Tensor.__iter__: unbind(0), a
      // view), runs the body once per slice and stacks each output's slices.
      need(h.graphs.size() == 1 && h.tags.size() == 3 && h.tags[0] == "as_graph" && h.tags[1] == "as_tensors" &&
               h.tags[2] == "as_tensors" && !h.tensors[1].empty(),
           "(body, xs, pos_args)");
      const std::vector<int>& xs = h.tensors[1];
      if (g_.values[xs[0]].sizes.empty()) throw Error(where + ": map over a 0-d tensor");
      const int64_t trips = g_.values[xs[0]].sizes[0];
      if (trips <= 0) throw Error(where + ": map over a leading dimension of " + std::to_string(trips));
      std::vector<std::vector<int>> slices(xs.size());
      for (size_t j = 0; j < xs.size(); ++j) {
        const Value x = g_.values[xs[j]];  // a copy: add_value below grows the table
        if (x.sizes.empty() || x.sizes[0] != trips) throw Error(where + ": map's inputs differ in leading dimension");
        std::vector<int> outs;
        for (int64_t i = 0; i < trips; ++i) {
          if (static_cast<int64_t>(slices[j].size()) + inlined_nodes_ > kMaxInlinedNodes)
            throw Error(where + ": map of " + std::to_string(trips) + " trips, more than kernelcount reads");
          Value v = x;
          v.name = x.name + "[" + std::to_string(i) + "]";
          v.sizes.erase(v.sizes.begin());
          if (!v.strides.empty()) v.strides.erase(v.strides.begin());
          v.role = ValueRole::kIntermediate;
          v.producer = -1;
          v.requires_grad = false;
          slices[j].push_back(g_.add_value(std::move(v)));
        }
        add_hop_op("aten::unbind", "int", {Arg::tensor("self", xs[j]), int_arg("dim", 0)}, slices[j], node);
      }
      std::vector<std::vector<int>> per_output;
      for (int64_t i = 0; i < trips; ++i) {
        std::vector<int> operands;
        for (const auto& s : slices) operands.push_back(s[i]);
        operands.insert(operands.end(), h.tensors[2].begin(), h.tensors[2].end());
        std::vector<int> results = inline_graph(h.graphs[0], operands, where);
        per_output.resize(results.size());
        for (size_t k = 0; k < results.size(); ++k) per_output[k].push_back(results[k]);
      }
      const std::vector<std::string_view> names = output_names(node, where);
      if (names.size() != per_output.size())
        throw Error(where + ": the node has " + std::to_string(names.size()) + " outputs, its body " +
                    std::to_string(per_output.size()));
      for (size_t k = 0; k < names.size(); ++k) {
        const int out = value_index_.at(names[k]);  // a lookup: the view need not last
        add_hop_op("aten::stack", "", {tensor_list_arg("tensors", per_output[k]), int_arg("dim", 0)}, {out}, node);
      }
      return;
    }
    if (region == "scan") return read_scan(node, h, where);
    // while_loop(cond_fn, body_fn, carried_inputs, additional_inputs): while_loop_dense reads the
    // condition's tensor on the host before every trip (a copy and a sync each), so the trip
    // count is the data's. Where the condition compares a carried counter with a constant the
    // export recorded, the trips could be worked out; in general they cannot, so one trip is
    // counted, and the report says so. The first condition is read twice (`if not should_loop:`
    // returns early, then `while should_loop:`; torch/_higher_order_ops/while_loop.py in 2.11):
    // eager's ops under kernelcount.count() show three is_nonzero for one trip.
    need(h.graphs.size() == 2 && h.tags.size() == 4 && h.tags[0] == "as_graph" && h.tags[1] == "as_graph" &&
             h.tags[2] == "as_tensors" && h.tags[3] == "as_tensors",
         "(cond_fn, body_fn, carried_inputs, additional_inputs)");
    std::vector<int> carried = h.tensors[2];
    auto operands_of = [&](const std::vector<int>& c) {
      std::vector<int> ops = c;
      ops.insert(ops.end(), h.tensors[3].begin(), h.tensors[3].end());
      return ops;
    };
    for (int trip = 0; trip < 2; ++trip) {
      std::vector<int> pred = inline_graph(h.graphs[0], operands_of(carried), where);
      if (pred.size() != 1)
        throw Error(where + ": while_loop's condition returns " + std::to_string(pred.size()) + " values");
      for (int read = 0; read < (trip == 0 ? 2 : 1); ++read)
        add_hop_op("aten::is_nonzero", "", {Arg::tensor("self", pred[0])}, {-1}, node);
      if (trip == 1) break;
      carried = inline_graph(h.graphs[1], operands_of(carried), where);
    }
    g_.info.notes.push_back(where + ": while_loop runs as many trips as its data decides; counted one trip");
    bind_outputs(node, carried, where);
  }

  // A value made for an op a higher-order op runs: `like`'s metadata with other sizes and dtype,
  // contiguous.
  int new_value(int like, std::string name, std::vector<int64_t> sizes, DType dtype) {
    Value v;
    v.name = std::move(name);
    v.device = g_.values[like].device;
    v.dtype = dtype;
    v.strides.assign(sizes.size(), 1);
    for (size_t i = sizes.size(); i-- > 1;) v.strides[i - 1] = v.strides[i] * std::max<int64_t>(sizes[i], 1);
    v.sizes = std::move(sizes);
    return g_.add_value(std::move(v));
  }

  // scan(combine_fn, init, xs, additional_inputs), as generic_scan runs it: the body once on a
  // copy of each x's first slice (select_copy) to learn its outputs, a zeros result and a ones_like
  // index per output, then per trip the body on each x's slice (select, a view) and per output
  // `ind * idx` and scatter_ of the slice into the result.
  void read_scan(JsonRef node, const HopArgs& h, const std::string& where) {
    if (!(h.graphs.size() == 1 && h.tags.size() == 4 && h.tags[0] == "as_graph" && h.tags[1] == "as_tensors" &&
          h.tags[2] == "as_tensors" && h.tags[3] == "as_tensors"))
      throw Error(where + ": scan expected as (combine_fn, init, xs, additional_inputs)");
    const std::vector<int>& init = h.tensors[1];
    const std::vector<int>& xs = h.tensors[2];
    const std::vector<int>& extra = h.tensors[3];
    const std::vector<std::string_view> names = output_names(node, where);
    if (xs.empty()) {  // nothing to scan: the carry is the init
      if (names.size() != init.size()) throw Error(where + ": scan's outputs differ from its init");
      for (size_t i = 0; i < names.size(); ++i) value_index_[names_.keep(names[i])] = init[i];
      return;
    }
    for (int x : xs)
      if (g_.values[x].sizes.empty()) throw Error(where + ": scan over a 0-d tensor");
    const int64_t trips = g_.values[xs[0]].sizes[0];
    auto slice = [&](int x, const char* op, int64_t i) {
      const Value base = g_.values[x];  // a copy: new_value grows the table
      std::vector<int64_t> sizes(base.sizes.begin() + 1, base.sizes.end());
      const int id = new_value(x, base.name + "[" + std::to_string(i) + "]", sizes, base.dtype);
      if (std::string_view(op) == "aten::select")  // a view keeps the base's strides; select_copy is contiguous
        g_.values[id].strides.assign(base.strides.begin() + (base.strides.empty() ? 0 : 1), base.strides.end());
      add_hop_op(op, "int", {Arg::tensor("self", x), int_arg("dim", 0), int_arg("index", i)}, {id}, node);
      return id;
    };
    auto run_body = [&](const std::vector<int>& carry, const char* op, int64_t i) {
      std::vector<int> operands = carry;
      for (int x : xs) operands.push_back(slice(x, op, i));
      operands.insert(operands.end(), extra.begin(), extra.end());
      std::vector<int> results = inline_graph(h.graphs[0], operands, where);
      if (results.size() < init.size()) throw Error(where + ": scan's body returns fewer values than it carries");
      return results;
    };
    std::vector<int> first = run_body(init, "aten::select_copy", 0);
    std::vector<int> outs, idxs;
    for (size_t k = init.size(); k < first.size(); ++k) {
      const Value e = g_.values[first[k]];
      std::vector<int64_t> sizes{trips};
      sizes.insert(sizes.end(), e.sizes.begin(), e.sizes.end());
      const int out = new_value(first[k], "scan_out" + std::to_string(k), sizes, e.dtype);
      add_hop_op("aten::zeros", "", {int_list_arg("size", sizes), dtype_arg(e.dtype), device_arg(e.device)}, {out},
                 node);
      outs.push_back(out);
      const int ones = new_value(first[k], "scan_idx" + std::to_string(k), e.sizes, DType::kInt64);
      add_hop_op("aten::ones_like", "", {Arg::tensor("self", first[k]), dtype_arg(DType::kInt64)}, {ones}, node);
      std::vector<int64_t> un{1};
      un.insert(un.end(), e.sizes.begin(), e.sizes.end());
      const int idx = new_value(ones, "scan_idx" + std::to_string(k) + "_1", un, DType::kInt64);
      add_hop_op("aten::unsqueeze", "", {Arg::tensor("self", ones), int_arg("dim", 0)}, {idx}, node);
      idxs.push_back(idx);
    }
    std::vector<int> carry = init;
    for (int64_t i = 0; i < trips; ++i) {
      std::vector<int> results = run_body(carry, "aten::select", i);
      carry.assign(results.begin(), results.begin() + static_cast<long>(init.size()));
      for (size_t k = 0; k < outs.size(); ++k) {
        const int x = results[init.size() + k];
        const Value idx = g_.values[idxs[k]];
        const int index = new_value(idxs[k], idx.name + "*" + std::to_string(i), idx.sizes, DType::kInt64);
        add_hop_op("aten::mul", "Scalar", {Arg::tensor("self", idxs[k]), int_arg("other", i)}, {index}, node);
        std::vector<int64_t> un{1};
        un.insert(un.end(), g_.values[x].sizes.begin(), g_.values[x].sizes.end());
        const int src = new_value(x, g_.values[x].name + "_1", un, g_.values[x].dtype);
        g_.values[src].strides = g_.values[x].strides;
        g_.values[src].strides.insert(g_.values[src].strides.begin(), 1);
        add_hop_op("aten::unsqueeze", "", {Arg::tensor("self", x), int_arg("dim", 0)}, {src}, node);
        const Value o = g_.values[outs[k]];
        const int written = new_value(outs[k], o.name + "'", o.sizes, o.dtype);
        add_hop_op(
            "aten::scatter_", "src",
            {Arg::tensor("self", outs[k]), int_arg("dim", 0), Arg::tensor("index", index), Arg::tensor("src", src)},
            {written}, node);
        outs[k] = written;
      }
    }
    std::vector<int> results = carry;
    results.insert(results.end(), outs.begin(), outs.end());
    bind_outputs(node, results, where);
  }

  static constexpr int kMaxRegionDepth = 16;
  // Ops and tensors read from subgraphs, every trip of a loop counted: bounds the graph a small
  // archive with a 10^9-trip map can make.
  static constexpr int64_t kMaxInlinedNodes = 400000;
  int64_t inlined_nodes_ = 0;
  int region_depth_ = 0;
  JsonRef root_;
  const LoadOptions& opt_;
  Graph g_;
  std::map<std::string, int64_t> hints_, symbols_;
  std::map<std::string, std::string> unbacked_;  // symbols valued from their range, and why
  std::set<std::string> given_;                  // symbols set by --dim
  std::unordered_map<std::string, int64_t> sym_values_;
  NameIndex value_index_;
  // The current node's inputs by name, kept between nodes for its storage.
  struct NamedInput {
    std::string_view name;
    JsonRef value;
    bool taken = false;  // matched to a schema argument
  };
  std::vector<NamedInput> by_name_;
  std::vector<int> schema_pos_;                   // the current node's arguments: each one's position in the schema
  std::map<std::string, SharedString> devices_;   // see shared_device
  std::set<int> recorded_grad_;                   // values whose tensor_meta says requires_grad
  std::map<std::string, OpSchema> unregistered_;  // ops LibTorch does not know, by target
  std::optional<std::vector<std::pair<std::string_view, JsonRef>>> tensor_items_;
  StringArena names_;                                     // keys of value_index_ and targets_
  std::unordered_map<std::string_view, Target> targets_;  // by target
  // Parsed stack_trace and nn_module_stack texts, by text, keyed in cached_.
  static constexpr size_t kMaxCached = 4096;
  std::unordered_map<std::string_view, SourceLoc> source_locs_;
  std::unordered_map<std::string_view, std::pair<SharedString, SharedString>> modules_;
  StringArena cached_;
  // The documents the outline's lazy values are parsed into, one per use that may overlap.
  JsonDoc node_doc_, value_doc_, aux_doc_, scan_doc_;
  // The structures records of the common shape are read into, kept for their storage.
  PlainNode plain_node_;
  PlainTensor plain_tensor_;
  // The last tensor record read_plain_value read, and what it read there.
  struct RepeatedTensor {
    bool read = false;
    std::string text;  // a copy: the text's pages are given back behind the reader
    DType dtype = DType::kUnknown;
    std::vector<int64_t> sizes, strides;
    SharedString device;
    bool requires_grad = false;
    int64_t storage_offset = 0;
  } last_tensor_;
  TextRelease release_;
};

}  // namespace

namespace {

const char kTooLarge[] = "models/model.json is larger than the limit of ";

// `release(begin, end)` gives back the text's pages in that range once the reader is past them.
// A record whose CRC is left to the reader (ZipArchive::Crc::kByReader) is checked in the
// outline's sweep, each stretch as the outline passes it, and whole before anything is read
// from it: a damaged record gets that error, not the one its damage makes of the JSON.
Graph read_model_json(std::string_view text, const std::string& path, const LoadOptions& options,
                      const std::function<void(size_t, size_t)>& release, RecordBytes* record = nullptr) {
  size_t released = 0;
  auto check_record = [&] {
    if (!record) return;
    try {
      record->check_crc();
    } catch (const Error& e) {
      throw Error(std::string("cannot read models/model.json: ") + e.what());
    }
  };
  // "as_expr" noted: a graph of static shapes has none, and read_symbols then skips the walk
  // without searching the records' text again.
  const JsonDoc doc = [&] {
    try {
      return JsonDoc::parse_outline(
          text, "models/model.json", kLazyDepth,
          [&](size_t offset) {
            if (record) record->crc_through(offset);
            if (release) release(released, offset);
            released = offset;
          },
          "as_expr");
    } catch (const Error&) {
      check_record();
      throw;
    }
  }();
  check_record();
  if (release) release(0, text.size());
  // The deep values the reader skips are checked once it is done, and before an error of its
  // own: a text that is not valid JSON gets that error, wherever in the text it lies.
  try {
    if (!(doc.root().is_object())) throw Error("models/model.json: expected an object at the top level");
    Graph g = Pt2Reader(doc.root(), path, options, release).read();
    doc.check_unexpanded();
    return g;
  } catch (const Error&) {
    doc.check_unexpanded();
    throw;
  }
}

}  // namespace

Graph load_pt2_json(const std::string& text, const std::string& path, const LoadOptions& options) {
  if (text.size() > kMaxModelJsonBytes) throw Error(kTooLarge + std::to_string(kMaxModelJsonBytes >> 20) + " MiB");
  return read_model_json(text, path, options, {});
}

Graph load_pt2(const ZipArchive& archive, const std::string& path, const LoadOptions& options) {
  // The size first: a small archive can inflate to gigabytes.
  if (archive.record_size("models/model.json") > kMaxModelJsonBytes)
    throw Error(kTooLarge + std::to_string(kMaxModelJsonBytes >> 20) + " MiB");
  RecordBytes text;
  try {
    text = archive.map_record("models/model.json", kMaxModelJsonBytes, ZipArchive::Crc::kByReader);
  } catch (const Error& e) {
    throw Error(std::string("cannot read models/model.json: ") + e.what());
  }
  // A stored record is a mapping of the file: what the reader has passed is given back, so that
  // the text is never held whole beside the graph.
  return read_model_json(
      text.view(), path, options,
      [&text](size_t begin, size_t end) { text.release(begin, std::min(end, text.view().size())); }, &text);
}

}  // namespace kc
