// Where a TorchScript op comes from: the user's file, line and code from TorchScript's source
// ranges (a scripted op's code, or the Python stack a trace recorded), and the module path and
// class from the inlined call stack, in the form a .pt2 report gives them.
#pragma once

#include <torch/csrc/jit/api/module.h>
#include <torch/csrc/jit/ir/ir.h>

#include <memory>
#include <optional>
#include <string>
#include <tuple>
#include <unordered_map>
#include <utility>
#include <vector>

#include "analyzer/graph.h"

namespace kc {

// The innermost frame outside torch: the node's own range, then its inlined call sites from
// inner to outer. An op a trace added itself (aten::Int of a size), whose range is only
// TorchScript's generated code, takes the location of the op that computed its input. Code is
// the whole source line where the range carries source; a trace's carries none. Each range is
// read once (a traced range holds the whole Python stack, and a model's call sites repeat), so
// a locator lives no longer than the graph whose ranges it has seen.
//
// The ranges of the user's code come from the archive's .debug_pkl tables (read_debug_tables),
// decoded here rather than by torch::jit::load: libtorch builds a Source per table and per
// text, scanning each for its lines, and the same file's text repeats in the table of every
// class that ran it (700 tables in a large traced CNN). Here each distinct text is one Source.
class SourceLocator {
 public:
  // tables: each code file's unpickled .debug_pkl by the code file's name ("code/__torch__/a.py").
  explicit SourceLocator(std::unordered_map<std::string, c10::IValue> tables) : pickles_(std::move(tables)) {}
  SourceLoc of(const torch::jit::Node* node) { return of(node, 0); }

 private:
  // The range of the user's code that generated a range of the archive's code: the table's last
  // record at or before its start, as libtorch's findSourceRangeThatGenerated finds it.
  std::optional<torch::jit::SourceRange> generated_by(const torch::jit::SourceRange& r);
  const std::vector<std::pair<int64_t, torch::jit::SourceRange>>& table(const std::string& code_file);
  std::shared_ptr<torch::jit::Source> source(std::string text, std::optional<std::string> file, int64_t line);
  SourceLoc range_loc(const torch::jit::SourceRange& r);

  std::unordered_map<std::string, c10::IValue> pickles_;  // until a code file's table is decoded
  std::unordered_map<std::string, std::vector<std::pair<int64_t, torch::jit::SourceRange>>> tables_;
  std::unordered_map<std::string, std::shared_ptr<torch::jit::Source>> sources_;  // by file, line and text

  using Key = std::tuple<const void*, size_t, size_t>;  // source, start, end
  struct KeyHash {
    size_t operator()(const Key& k) const {
      return std::hash<const void*>()(std::get<0>(k)) ^ (std::get<1>(k) * 0x9E3779B97F4A7C15ULL) ^ std::get<2>(k);
    }
  };
  SourceLoc of(const torch::jit::Node* node, int depth);
  const SourceLoc& range(const torch::jit::SourceRange& r);
  std::unordered_map<Key, SourceLoc, KeyHash> ranges_;
};

// Module path ("layers.0.fc", through uncalled ModuleLists) and Python class
// ("torch.nn.modules.linear.Linear") of the innermost module that ran the node; at the top
// level, "" and the root module's class.
std::pair<std::string, std::string> module_of(const torch::jit::Node* node, const torch::jit::Module& root);

// Lines of the user's source files, for traced ops (whose ranges carry no source text). A
// relative path is tried from the working directory, then from the model's folder and its
// parents (models saved beside the code they were traced from). Each file is read once.
class SourceLines {
 public:
  explicit SourceLines(std::string model_path) : model_path_(std::move(model_path)) {}
  // The line, trimmed; "" when the file cannot be read or is shorter.
  std::string line(const std::string& file, int line);

 private:
  std::string model_path_;
  std::unordered_map<std::string, std::vector<std::string>> files_;
};

}  // namespace kc
