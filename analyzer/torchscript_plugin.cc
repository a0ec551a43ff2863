#include "analyzer/torchscript_plugin.h"

#include <dlfcn.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>

#include "analyzer/error.h"

#ifndef KC_VERSION
#define KC_VERSION "dev"
#endif

namespace kc {
namespace {

constexpr const char* kLibrary = "libkernelcount-torchscript.so";

// The folder of the running executable: the library is installed beside it.
std::string executable_dir() {
  std::string buf(4096, '\0');
  const ssize_t n = ::readlink("/proc/self/exe", buf.data(), buf.size() - 1);
  if (n <= 0) return ".";
  buf.resize(static_cast<size_t>(n));
  const size_t slash = buf.rfind('/');
  return slash == std::string::npos ? "." : buf.substr(0, slash);
}

bool same_abi(const TorchScriptPluginAbi& a, const TorchScriptPluginAbi& b) {
  return std::strcmp(a.version, b.version) == 0 && a.graph_size == b.graph_size && a.op_size == b.op_size &&
         a.value_size == b.value_size && a.options_size == b.options_size;
}

TorchScriptPluginLoad open_plugin(const std::string& path) {
  void* handle = ::dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle) {
    const char* why = ::dlerror();
    if (::access(path.c_str(), F_OK) != 0)
      throw Error("TorchScript models need kernelcount's TorchScript loader (" + std::string(kLibrary) +
                  ", built where LibTorch is found), and this installation has none; a .pt2 export needs no LibTorch");
    throw Error("cannot load kernelcount's TorchScript loader " + path + ": " + (why ? why : "unknown reason"));
  }
  auto abi = reinterpret_cast<TorchScriptPluginAbiFn>(::dlsym(handle, kTorchScriptPluginAbiSymbol));
  auto load = reinterpret_cast<TorchScriptPluginLoad>(::dlsym(handle, kTorchScriptPluginSymbol));
  if (!abi || !load || !same_abi(abi(), torchscript_plugin_abi()))
    throw Error("kernelcount's TorchScript loader " + path + " comes from another build of kernelcount (rebuild both)");
  return load;
}

}  // namespace

TorchScriptPluginAbi torchscript_plugin_abi() {
  return {KC_VERSION, sizeof(Graph), sizeof(Op), sizeof(Value), sizeof(LoadOptions)};
}

Graph load_torchscript_plugin(const std::string& path, const LoadOptions& options) {
  // KERNELCOUNT_TORCHSCRIPT_LIBRARY names another copy (an installed tree, a test).
  const char* env = std::getenv("KERNELCOUNT_TORCHSCRIPT_LIBRARY");
  return load_torchscript_library(env && *env ? env : executable_dir() + "/" + kLibrary, path, options);
}

Graph load_torchscript_library(const std::string& library_path, const std::string& path, const LoadOptions& options) {
  // Loaded once and never unloaded: LibTorch's operators stay registered for the process.
  static std::mutex mu;
  static std::map<std::string, TorchScriptPluginLoad> opened;
  TorchScriptPluginLoad load = nullptr;
  {
    std::lock_guard<std::mutex> lock(mu);
    auto it = opened.find(library_path);
    load = it != opened.end() ? it->second : opened.emplace(library_path, open_plugin(library_path)).first->second;
  }
  Graph g;
  std::string error;
  if (!load(path.c_str(), &options, &g, &error)) throw Error(error);
  return g;
}

}  // namespace kc
