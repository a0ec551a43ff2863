// The entry points of libkernelcount-torchscript.so (analyzer/torchscript_plugin.h): C names, and
// no exception crosses them.
#include <new>
#include <string>

#include "analyzer/error.h"
#include "analyzer/torchscript_loader.h"
#include "analyzer/torchscript_plugin.h"

extern "C" {

__attribute__((visibility("default"))) kc::TorchScriptPluginAbi kernelcount_torchscript_abi() {
  return kc::torchscript_plugin_abi();
}

__attribute__((visibility("default"))) bool kernelcount_torchscript_load(const char* path,
                                                                         const kc::LoadOptions* options, kc::Graph* out,
                                                                         std::string* error) {
  try {
    *out = kc::load_torchscript_file(path, *options);
    return true;
  } catch (const kc::Error& e) {
    *error = e.what();
  } catch (const std::bad_alloc&) {
    *error = std::string(path) + ": out of memory loading the TorchScript model";
  } catch (const std::exception& e) {
    const std::string what = e.what();
    *error = std::string(path) + ": " + what.substr(0, what.find('\n'));
  } catch (...) {
    *error = std::string(path) + ": the TorchScript loader failed with an unknown exception";
  }
  return false;
}
}
