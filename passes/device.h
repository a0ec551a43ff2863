// A GPU as the mechanisms read it: its device properties in the JSON form cuDNN serializes them
// (CUDNN_ATTR_DEVICEPROP_JSON_REPRESENTATION; `validate/device_cudnn.sh check` writes a GPU's),
// kept as `device.json` in each target's folder. ATen's launch arithmetic reads the SM and thread
// counts (passes/torch2_11/reduce_config.h); cuDNN's heuristics are handed the JSON itself.
#pragma once

#include <cstdint>
#include <string>

namespace kc {

struct Device {
  std::string name;                // deviceName: "NVIDIA H200"
  int64_t sms = 0;                 // multiProcessorCount
  int64_t max_threads_per_sm = 0;  // maxThreadsPerSM
  int64_t max_threads_per_block = 0;
  int64_t warp_size = 0;
  int64_t l2_bytes = 0;      // l2CacheSize
  int64_t memory_bytes = 0;  // totalGlobalMem
  std::string arch;          // from deviceVer (900: compute capability 9.0): "sm_90"
  // The JSON, byte for byte as cuDNN wrote it (less a trailing newline): cuDNN is asked with it,
  // and its hash names the cuDNN answers kept for this device (passes/torch2_11/cudnn_answers.h).
  std::string cudnn_properties;
};

// The device described by cuDNN's JSON of its properties; throws Error naming the field that is
// missing or not a positive integer. Reads nothing else of the JSON.
Device device_from_cudnn_properties(std::string json);

}  // namespace kc
