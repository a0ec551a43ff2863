#include "analyzer/torchscript_source.h"

#include <algorithm>
#include <cctype>
#include <fstream>
#include <iterator>

#include "analyzer/source_loc.h"

namespace kc {
namespace {

namespace jit = torch::jit;

// The whole source line a range starts on, trimmed, as a .pt2's stack trace shows it (the
// range itself may cover only part of an expression).
std::string whole_line(const jit::SourceRange& r) {
  const auto& src = r.source();
  if (!src || r.start() >= src->size()) return "";
  size_t b = r.start(), e = r.start();
  while (b > 0 && src->char_at(b - 1) != '\n') --b;
  while (e < src->size() && src->char_at(e) != '\n') ++e;
  while (b < e && (src->char_at(b) == ' ' || src->char_at(b) == '\t')) ++b;
  while (e > b && std::isspace(static_cast<unsigned char>(src->char_at(e - 1)))) --e;
  std::string line;
  for (size_t i = b; i < e; ++i) line += src->char_at(i);
  return line;
}

}  // namespace

// The location one range names; an empty file where it names none of the user's.
SourceLoc SourceLocator::range_loc(const jit::SourceRange& r) {
  jit::SourceRange orig = generated_by(r).value_or(r);
  // A damaged .debug_pkl can leave a range with no source text, or one past its end: it
  // names no line.
  if (!orig.source() || orig.start() > orig.end() || orig.end() > orig.source()->size()) return {};
  std::string text = orig.text().str();
  // A traced op's range is the Python stack when it was recorded; a scripted op's is code.
  SourceLoc loc = traced_user_frame(text);
  if (loc.file.empty()) {
    auto flc = orig.file_line_col();
    if (!flc) return {};
    loc = SourceLoc{std::get<0>(*flc), static_cast<int>(std::get<1>(*flc)), whole_line(orig)};
  }
  // Generated code (TorchScript's own, or a trace's conversions) names no file of the user's.
  if (loc.file.str().rfind("code/__torch__/", 0) == 0) return {};
  return loc;
}

namespace {

// A TorchScript class name as Python names it: "__torch__.torch.nn.modules.linear.
// ___torch_mangle_0.Linear" is torch.nn.modules.linear.Linear, as a .pt2 reports it.
std::string python_class_name(const c10::ClassTypePtr& type) {
  if (!type || !type->name()) return "";
  std::string out;
  for (const std::string& atom : type->name()->atoms()) {
    if (atom == "__torch__" || atom.rfind("___torch_mangle_", 0) == 0) continue;
    out += (out.empty() ? "" : ".") + atom;
  }
  return out;
}

// The submodule `name` of `parent`, looked for inside uncalled containers too (ModuleList,
// ModuleDict, Sequential indexing): their children's calls record only the child's own name
// ("0"), not the container's ("layers"). Returns the path from parent, or "" if none.
std::string child_path(const jit::Module& parent, const std::string& name, jit::Module* child) {
  auto is_module = [](const c10::IValue& v) { return v.isObject() && v.toObjectRef().type()->is_module(); };
  if (parent.hasattr(name) && is_module(parent.attr(name))) {
    *child = jit::Module(parent.attr(name).toObject());
    return name;
  }
  for (const auto& c : parent.named_children()) {
    if (c.value.hasattr(name) && is_module(c.value.attr(name))) {
      *child = jit::Module(c.value.attr(name).toObject());
      return c.name + "." + name;
    }
  }
  return "";
}

}  // namespace

std::pair<std::string, std::string> module_of(const jit::Node* node, const jit::Module& root) {
  std::string path, type = python_class_name(root.type());
  jit::Module current = root;
  bool resolved = true;
  if (auto cs = node->callstack()) {
    for (const auto& frame : (*cs)->vec()) {
      const auto& info = std::get<2>(frame);
      if (!info) continue;
      const std::string& name = info->instance_name();
      // A module calling its own method, or a call on a module the inliner could not name.
      if (name.empty() || name == "SELF" || name == "INSTANCE_NAME_UNKNOWN") continue;
      jit::Module child;
      std::string step = resolved ? child_path(current, name, &child) : "";
      resolved = !step.empty();
      if (resolved) current = child;
      path += (path.empty() ? "" : ".") + (resolved ? step : name);
      type = python_class_name(info->class_type());
    }
  }
  return {path, type};
}

std::shared_ptr<jit::Source> SourceLocator::source(std::string text, std::optional<std::string> file, int64_t line) {
  std::string key = (file ? *file : std::string()) + '\0' + std::to_string(line) + '\0' + text;
  auto it = sources_.find(key);
  if (it == sources_.end())
    it = sources_.emplace(std::move(key), std::make_shared<jit::Source>(text, std::move(file), line)).first;
  return it->second;
}

// A table as read_debug_tables vetted it: (offset, (source, start, end), ...) records, alone or
// after a string table ("FORMAT_WITH_STRING_TABLE", (text, ...), records) where a source is (its
// text's pieces as string indices, its file name's index, first line), else (text, file name or
// None, first line).
const std::vector<std::pair<int64_t, jit::SourceRange>>& SourceLocator::table(const std::string& code_file) {
  auto done = tables_.find(code_file);
  if (done != tables_.end()) return done->second;
  std::vector<std::pair<int64_t, jit::SourceRange>> records;
  auto pickle = pickles_.find(code_file);
  if (pickle != pickles_.end()) {
    const auto& top = pickle->second.toTupleRef().elements();
    const c10::IValue* lines = &pickle->second;
    std::vector<std::string_view> strings;
    if (!top.empty() && top[0].isString() && top[0].toStringRef() == "FORMAT_WITH_STRING_TABLE") {
      for (const auto& t : top[1].toTupleRef().elements()) strings.push_back(t.toStringRef());
      lines = &top[2];
    }
    const bool table = lines != &pickle->second;
    for (const auto& line : lines->toTupleRef().elements()) {
      const auto& l = line.toTupleRef().elements();
      const auto& range = l[1].toTupleRef().elements();
      const auto& src = range[0].toTupleRef().elements();
      std::string text;
      std::optional<std::string> file;
      if (table) {
        for (int64_t i : src[0].toIntList()) text += strings[i];
        file = std::string(strings[src[1].toInt()]);
      } else {
        text = src[0].toStringRef();
        if (src[1].isString()) file = src[1].toStringRef();
      }
      const int64_t start = range[1].toInt(), end = range[2].toInt();
      auto s = source(std::move(text), std::move(file), src[2].toInt());
      // A range outside its text (a damaged table) still shadows the records before it, as a
      // range with no source: it names no line.
      const bool inside = start >= 0 && start <= end && static_cast<uint64_t>(end) <= s->size();
      records.emplace_back(l[0].toInt(), inside ? jit::SourceRange(s, start, end) : jit::SourceRange());
    }
    pickles_.erase(pickle);
  }
  std::stable_sort(records.begin(), records.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  return tables_.emplace(code_file, std::move(records)).first->second;
}

std::optional<jit::SourceRange> SourceLocator::generated_by(const jit::SourceRange& r) {
  if (!r.source() || !r.source()->filename()) return std::nullopt;
  const auto& records = table(*r.source()->filename());
  auto after = std::upper_bound(records.begin(), records.end(), static_cast<int64_t>(r.start()),
                                [](int64_t at, const auto& rec) { return at < rec.first; });
  if (after == records.begin()) return std::nullopt;
  return std::prev(after)->second;
}

const SourceLoc& SourceLocator::range(const jit::SourceRange& r) {
  const Key key{r.source().get(), r.start(), r.end()};
  auto it = ranges_.find(key);
  if (it == ranges_.end()) it = ranges_.emplace(key, range_loc(r)).first;
  return it->second;
}

SourceLoc SourceLocator::of(const jit::Node* node, int depth) {
  SourceLoc first;
  const SourceLoc* own = &range(node->sourceRange());
  std::vector<const SourceLoc*> locs{own};
  if (auto cs = node->callstack()) {
    auto frames = (*cs)->vec();
    for (auto it = frames.rbegin(); it != frames.rend(); ++it) locs.push_back(&range(std::get<1>(*it)));
  }
  for (const SourceLoc* loc : locs) {
    if (loc->file.empty()) continue;
    if (first.file.empty()) first = *loc;
    if (!is_torch_file(loc->file)) return *loc;
  }
  // Conversions a trace adds itself (aten::Int of a size) have only TorchScript's generated
  // code as their range: they belong to the line that computed their input.
  if (first.file.empty() && depth < 4 && !node->inputs().empty()) return of(node->inputs()[0]->node(), depth + 1);
  return first;
}

std::string SourceLines::line(const std::string& file, int line) {
  auto it = files_.find(file);
  if (it == files_.end()) {
    std::vector<std::string> candidates{file};
    if (!file.empty() && file[0] != '/') {
      std::string dir = model_path_;
      for (size_t slash; (slash = dir.find_last_of('/')) != std::string::npos;) {
        dir.resize(slash);
        candidates.push_back((dir.empty() ? "" : dir + "/") + file);
      }
    }
    std::vector<std::string> lines;
    for (const auto& c : candidates) {
      std::ifstream f(c);
      for (std::string l; std::getline(f, l);) lines.push_back(l);
      if (!lines.empty()) break;
    }
    it = files_.emplace(file, std::move(lines)).first;
  }
  if (line < 1 || static_cast<size_t>(line) > it->second.size()) return "";
  const std::string& l = it->second[line - 1];
  size_t b = l.find_first_not_of(" \t");
  if (b == std::string::npos) return "";
  return l.substr(b, l.find_last_not_of(" \t\r") - b + 1);
}

}  // namespace kc
