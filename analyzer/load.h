// Entry point of the analyzer: reads a model file of either format into the graph IR.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "analyzer/graph.h"

namespace kc {

// One user-given input for a TorchScript model: "8x3x224x224:float32", optionally named
// "x=8x3x224x224:float32".
struct InputSpec {
  std::string name;  // empty for positional
  std::vector<int64_t> sizes;
  DType dtype = DType::kFloat32;
};

// Parses the --input syntax; throws Error naming what is wrong.
InputSpec parse_input_spec(const std::string& text);
// Parses --dim NAME=VALUE (VALUE a non-negative integer); throws Error naming what is wrong.
std::pair<std::string, int64_t> parse_dim_spec(const std::string& text);

struct LoadOptions;
// Loads a TorchScript archive: LibTorch's work, kept out of the rest of kernelcount. nullptr in
// LoadOptions means the kernelcount-torchscript library, loaded on the first .pt given
// (analyzer/torchscript_plugin.h); kernelcount-validate and the tests link the loader in
// (analyzer/torchscript_loader.h: load_torchscript_file).
using TorchScriptLoader = Graph (*)(const std::string& path, const LoadOptions& options);

struct LoadOptions {
  std::map<std::string, int64_t> dims;  // --dim NAME=VALUE for symbolic sizes of a .pt2
  std::vector<InputSpec> inputs;        // --input for TorchScript
  // For a process that ends soon after: the loaded TorchScript module is never freed (freeing
  // a traced network's hundreds of classes and graphs takes tens of milliseconds at exit).
  bool keep_until_exit = false;
  TorchScriptLoader torchscript = nullptr;
  // For a model compared with another (--baseline): the options it cannot use are left out, not
  // refused (--input for a .pt2, --dim for a TorchScript model, a --dim naming none of its
  // symbols), so that a .pt is compared with its .pt2, a dynamic export with a static one.
  bool only_applicable = false;
  // A .pt2's node and tensor records of the common shape are read straight from their text
  // (analyzer/pt2_plain.h); false reads every record the general way, into the same graph, for
  // the tests and the fuzz target that compare the two.
  bool plain_records = true;
};

// Refuses, before anything opens it, a path that is not a regular file no larger than
// max_bytes: a FIFO or a device could block a read forever or never end. Throws Error.
void check_regular_file(const std::string& path, uint64_t max_bytes);

// Largest model archive read (only models/model.json is read from it, under its own limit).
constexpr uint64_t kMaxModelFileBytes = uint64_t{64} << 30;

// Reads a .pt2 (torch.export) or TorchScript archive, whichever the file is, saved on any
// device. Never reads the weights' bytes. Throws Error for anything it cannot turn into a
// complete graph.
Graph load_model(const std::string& path, const LoadOptions& options);

}  // namespace kc
