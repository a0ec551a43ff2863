// The hardware and software a prediction is for. Rules are written per target; rates come
// from measurements on that hardware (validate/measure_target.py).
#pragma once

#include <string>
#include <vector>

namespace kc {

struct Target {
  std::string name;           // "torch2.11-h200": the id used in flags, rules and reports
  std::string torch_version;  // "2.11"
  std::string gpu;            // "NVIDIA H200"
  std::string arch;           // "sm_90"
  double hbm_bytes_per_s = 0;         // device-to-device copy, bytes read plus written
  double matmul_bf16_flops_per_s = 0; // large bf16 GEMM through torch
  double matmul_fp32_flops_per_s = 0; // large fp32 GEMM through torch (default precision)
  double vector_flops_per_s = 0;      // fp32 non-tensor-core rate, for pointwise math
  double launch_s = 0;                // smallest time per kernel in a stream of tiny launches
  std::string evidence;               // where the numbers were measured
};

// All targets this build knows; the first is the default.
const std::vector<Target>& known_targets();
// The target of that name; throws Error listing the known names when there is none.
const Target& find_target(const std::string& name);

}  // namespace kc
