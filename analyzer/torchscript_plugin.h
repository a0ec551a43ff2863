// The TorchScript loader as a library of its own (libkernelcount-torchscript.so, beside the
// kernelcount executable): LibTorch takes a third of a second and a hundred megabytes to start,
// so it is loaded only when a TorchScript model is given. The library is built from the same
// tree as the executable and refuses to serve another build.
#pragma once

#include <cstddef>
#include <string>

#include "analyzer/load.h"

namespace kc {

// Loads the library on first use and loads the TorchScript model at path through it. Throws
// Error when the library is missing (a build without LibTorch), from another build, or the
// model cannot be loaded.
Graph load_torchscript_plugin(const std::string& path, const LoadOptions& options);

// The same through the library at library_path (the Python package ships its own copy, which
// sits beside no executable). Each library is opened once, on first use, and kept.
Graph load_torchscript_library(const std::string& library_path, const std::string& path, const LoadOptions& options);

// What the library exports, under C names: the build it comes from, and the loader, which
// fills *out or writes one line into *error and returns false.
struct TorchScriptPluginAbi {
  const char* version;  // kernelcount's version and the sizes of the structures passed
  size_t graph_size, op_size, value_size, options_size;
};
inline constexpr const char* kTorchScriptPluginSymbol = "kernelcount_torchscript_load";
inline constexpr const char* kTorchScriptPluginAbiSymbol = "kernelcount_torchscript_abi";
using TorchScriptPluginLoad = bool (*)(const char* path, const LoadOptions* options, Graph* out, std::string* error);
using TorchScriptPluginAbiFn = TorchScriptPluginAbi (*)();

// The ABI this build expects of the library.
TorchScriptPluginAbi torchscript_plugin_abi();

}  // namespace kc
