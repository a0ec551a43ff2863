// cuDNN's own engine heuristics, asked without a GPU: which engine (and knobs) cuDNN 9.19, the
// version PyTorch 2.11's CUDA wheels run, picks on the target's GPU for a forward convolution,
// the way ATen's Conv_v8.cpp asks for it (CUDNN_HEUR_MODE_INSTANT, engines that down-convert
// inputs left out, the first configuration whose plan builds). Since cuDNN 9.8 the heuristics
// take a device-property descriptor in place of a device: the target's device.json (Device).
// cuDNN is loaded at run time (dlopen), and only for a convolution whose answer was not kept
// (cudnn_answers.h); where no cuDNN 9.19 with its cuBLASLt 13 can be loaded, the rules take the
// answers kept, else fall back to trees without one.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "analyzer/dtype.h"

namespace kc::torch2_11 {

// A forward convolution as ATen hands it to cuDNN: 4-d or 5-d sizes (a 1-d convolution viewed
// as 2-d), both tensors dense in one layout (ATen makes them so first), one value per spatial
// dimension for padding, stride and dilation.
struct CudnnConvQuery {
  DType dtype = DType::kFloat32;  // float32, bfloat16 or float16
  std::vector<int64_t> x, w;      // input and weight sizes
  bool channels_last = false;
  std::vector<int64_t> padding, stride, dilation;
  // The data gradient of this convolution (what a transposed convolution runs): x is the
  // gradient computed, the transposed convolution's output.
  bool backward_data = false;
};

// The knob types whose values describe a chosen engine configuration (cudnnBackendKnobType_t
// values: tile sizes, split-K, workspace use, cluster shape, ...), in feature order.
inline constexpr std::array<int, 12> kCudnnKnobs = {2, 3, 5, 6, 13, 14, 18, 22, 23, 25, 27, 28};

// The configuration cuDNN would run: its engine's global index, the knob values (-9 where the
// engine has no such knob), the plan's workspace bytes, and the next configuration's engine in
// the heuristic's ranking (-1 if none). engine is -1 when no heuristic configuration builds
// (ATen then takes cuDNN's fallback list).
struct CudnnEngineChoice {
  int64_t engine = -1;
  std::array<int64_t, kCudnnKnobs.size()> knobs{};
  int64_t workspace = 0;
  int64_t next_engine = -1;
};

// The loaded library. Loading happens once per process, on first use: the heuristics are a
// property of the process's cuDNN, like the dispatcher is of libtorch.
class CudnnHeuristics {
 public:
  // The process's instance for a device's properties (Device::cudnn_properties), or nullptr
  // where cuDNN could not be loaded, is switched off (KERNELCOUNT_CUDNN=off; status() then says
  // why) or refuses the properties. KERNELCOUNT_CUDNN_GPU=N asks as GPU N of the machine itself
  // instead, whatever the properties (a GPU machine only).
  static const CudnnHeuristics* get(const std::string& device_properties);
  // One line: the cuDNN in use and where it was loaded from, or why none is.
  static const std::string& status();
  // The version (cudnnGetVersion: 91900 for 9.19.0) of the cuDNN that get() would load, read
  // without loading its engines or cuBLASLt (a millisecond, not a fifth of a second); 0 where
  // none can be opened, it is switched off or not built in. Says nothing of whether it loads.
  static size_t probe_version();
  // Whether get() takes a cuDNN of this version: its heuristics are the version's own.
  static bool supported_version(size_t version) { return version >= 91900 && version < 92000; }
  // The loaded cuDNN's version.
  size_t version() const;
  // The JSON of a GPU's device properties as cuDNN serializes them (a GPU machine only: what
  // a target's device.json should hold); throws Error without a GPU.
  std::string live_device_properties(int device) const;
  // The engine configuration for q, or nullopt where cuDNN refuses to describe the problem (a
  // dtype or size it does not take). Answers are kept: models repeat their shapes.
  std::optional<CudnnEngineChoice> choose(const CudnnConvQuery& q) const;

  struct Api;
  explicit CudnnHeuristics(const Api* api) : api_(api) {}

 private:
  std::optional<CudnnEngineChoice> ask(const CudnnConvQuery& q) const;
  const Api* api_;
  mutable std::mutex mutex_;
  mutable std::map<std::string, std::optional<CudnnEngineChoice>> answers_;
};

}  // namespace kc::torch2_11
