#include "passes/device.h"

#include <nlohmann/json.hpp>
#include <string>

#include "analyzer/error.h"

namespace kc {

Device device_from_cudnn_properties(std::string json) {
  while (!json.empty() && (json.back() == '\n' || json.back() == '\0')) json.pop_back();
  const nlohmann::json j = nlohmann::json::parse(json, nullptr, /*allow_exceptions=*/false);
  if (!j.is_object()) throw Error("device properties: not a JSON object");
  auto positive = [&j](const char* key) {
    auto it = j.find(key);
    if (it == j.end() || !it->is_number_integer() || it->get<int64_t>() <= 0)
      throw Error(std::string("device properties: '") + key + "' is missing or not a positive integer");
    return it->get<int64_t>();
  };
  Device d;
  auto name = j.find("deviceName");
  if (name == j.end() || !name->is_string()) throw Error("device properties: 'deviceName' is missing");
  d.name = name->get<std::string>();
  d.sms = positive("multiProcessorCount");
  d.max_threads_per_sm = positive("maxThreadsPerSM");
  d.max_threads_per_block = positive("maxThreadsPerBlock");
  d.warp_size = positive("warpSize");
  d.l2_bytes = positive("l2CacheSize");
  d.memory_bytes = positive("totalGlobalMem");
  d.arch = "sm_" + std::to_string(positive("deviceVer") / 10);
  d.cudnn_properties = std::move(json);
  return d;
}

}  // namespace kc
