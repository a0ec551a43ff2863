// The hardware and software a prediction is for, and everything that depends on it: measured
// rates, the device, the launch rule table, the fitted trees and the measured signature table,
// each with its evidence. A target is a folder of data, passes/targets/<folder>/ (target.cc with
// its names and rates, device.json and the tables), read by its PyTorch release's mechanisms
// (passes/torch2_11/), and one line of the registry (passes/targets/targets.def).
#pragma once

#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "passes/device.h"
#include "passes/kernel_names.h"
#include "passes/launch_rules.h"
#include "passes/measured.h"
#include "passes/torch2_11/tables.h"

namespace kc {

struct Target {
  std::string name;                    // "torch2.11-h200": the id used in flags, rules and reports
  std::string description;             // one line for reports: "eager PyTorch 2.11 on NVIDIA H200 (sm_90)"
  std::string torch_version;           // "2.11"
  std::string gpu;                     // "NVIDIA H200"
  std::string arch;                    // "sm_90"
  double hbm_bytes_per_s = 0;          // device-to-device copy, bytes read plus written
  double matmul_bf16_flops_per_s = 0;  // large bf16 GEMM through torch
  double matmul_fp32_flops_per_s = 0;  // large fp32 GEMM through torch (default precision)
  double vector_flops_per_s = 0;       // fp32 non-tensor-core rate, for pointwise math
  double launch_s = 0;                 // smallest time per kernel in a stream of tiny launches
  std::string evidence;                // where the rates were measured
  Device device;                       // the GPU as the mechanisms read it (the folder's device.json)
  torch2_11::Tables tables;            // trees fitted and cuDNN answers asked on that GPU

  // The L2 model of the expected DRAM traffic (passes/dram_traffic.h); the capacity is the
  // device's (device.l2_bytes; zero: not modelled).
  double l2_usable_fraction = 1.0;  // share of it the model's least-recently-used replacement may fill
  // Ways of a set-associative L2 whose lines map to sets by a hash: a line survives the data
  // touched after it while fewer than this many later lines land in its set. Zero: a hard
  // cut-off at the usable capacity (fully associative LRU).
  int l2_ways = 0;
  std::string l2_evidence;  // where the model was checked

  std::vector<LaunchRule> rules;          // in match order
  std::vector<MeasuredLaunch> measured;   // exact signatures measured where the rules miss
  std::string measured_source;            // where the measured table comes from
  std::vector<KernelNames> kernel_names;  // kernel name families measured per rule
  std::string kernel_names_source;        // where that table comes from

  // The measured entry for `key`, or nullptr. Entries measured only in models whose names
  // start with one of `exclude` are skipped (to test the rules on models held out).
  const MeasuredLaunch* find_measured(const std::string& key, const std::vector<std::string>& exclude) const;
  // The rule of that id, or nullptr.
  const LaunchRule* find_rule(std::string_view id) const;
  // Builds the lookup index; the registry calls it once per target.
  void index_measured();

 private:
  std::unordered_map<std::string, size_t> measured_index_;
};

// All targets this build knows, in registry order; the first is the default.
const std::vector<Target>& known_targets();
const Target& default_target();
// The target of that name; throws Error listing the known names when there is none.
const Target& find_target(const std::string& name);

}  // namespace kc
