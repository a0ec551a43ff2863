// Target torch2.11-h200: eager PyTorch 2.11 on an NVIDIA H200 (sm_90). Its rates, its launch
// rules and its measured table, each with the measurement it rests on.
#include "passes/targets/targets.h"
#include "passes/torch2_11/rules.h"

namespace kc {
namespace {

// Rules in match order: the first rule whose op list (or class) and condition fit the op
// decides. Families are disjoint in the ops they name, so only two places in the order
// matter: host-side work first, the rules by class last.
std::vector<LaunchRule> rules() {
  std::vector<LaunchRule> r;
  r.push_back({"host",
               {},
               {},
               "every tensor involved is on the CPU",
               on_host,
               {},
               nullptr,
               "by construction: no CUDA tensor is read or written",
               "Every tensor it touches lives on the CPU, so nothing is launched on the GPU."});
  torch2_11::add_view_copies_rules(r);  // first: an empty result launches nothing, whatever the op
  torch2_11::add_copies_rules(r);
  torch2_11::add_gemm_rules(r);
  torch2_11::add_conv_rules(r);
  torch2_11::add_norm_rules(r);
  torch2_11::add_attention_rules(r);
  torch2_11::add_rnn_rules(r);
  torch2_11::add_indexing_rules(r);
  torch2_11::add_elementwise_rules(r);
  torch2_11::add_selection_rules(r);
  torch2_11::add_loss_rules(r);
  torch2_11::add_composite_rules(r);
  torch2_11::add_rearrange_rules(r);
  torch2_11::add_numeric_composite_rules(r);
  torch2_11::add_torchvision_rules(r);
  torch2_11::add_generic_rules(r);
  return r;
}

const KernelNames kKernelNames[] = {
#include "passes/targets/h200/kernel_names.inc"
};

const MeasuredLaunch kMeasured[] = {
#include "passes/targets/h200/measured.inc"
};

}  // namespace

Target torch2_11_h200() {
  Target t;
  t.name = "torch2.11-h200";
  t.description = "eager PyTorch 2.11 on NVIDIA H200 (sm_90)";
  t.torch_version = "2.11";
  t.gpu = "NVIDIA H200";
  t.arch = "sm_90";
  // Rates measured on the H200 by validate/measure_target.py (validate/results/target.json).
  // The vector rate is the fp32 GEMM's: without TF32 it runs on the CUDA cores, at their FMA
  // rate. The launch time is per kernel in a stream of tiny eager launches.
  t.hbm_bytes_per_s = 4.24e12;
  t.matmul_bf16_flops_per_s = 805e12;
  t.matmul_fp32_flops_per_s = 51.0e12;
  t.vector_flops_per_s = 51.0e12;
  t.launch_s = 6.8e-6;
  t.evidence = "validate/results/target.json";
  t.rules = rules();
  t.measured.assign(std::begin(kMeasured), std::end(kMeasured));
  t.measured_source = "passes/targets/h200/measured.inc";
  t.kernel_names.assign(std::begin(kKernelNames), std::end(kKernelNames));
  t.kernel_names_source = "passes/targets/h200/kernel_names.inc";
  return t;
}

}  // namespace kc
