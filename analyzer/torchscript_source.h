// Where a TorchScript op comes from: the user's file, line and code from TorchScript's source
// ranges (a scripted op's code, or the Python stack a trace recorded), and the module path and
// class from the inlined call stack, in the form a .pt2 report gives them.
#pragma once

#include <torch/csrc/jit/api/module.h>
#include <torch/csrc/jit/ir/ir.h>

#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "analyzer/graph.h"

namespace kc {

// The innermost frame outside torch: the node's own range, then its inlined call sites from
// inner to outer. An op a trace added itself (aten::Int of a size), whose range is only
// TorchScript's generated code, takes the location of the op that computed its input. Code is
// the whole source line where the range carries source; a trace's carries none.
SourceLoc source_of(const torch::jit::Node* node);

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
