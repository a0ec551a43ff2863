// Target torch2.11-h200: eager PyTorch 2.11 on an NVIDIA H200 (sm_90). Its rates, its launch
// rules and its measured table, each with the measurement it rests on.
#include "passes/targets/h200/rules.h"
#include "passes/targets/targets.h"

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
  h200::add_view_copies_rules(r);  // first: an empty result launches nothing, whatever the op
  h200::add_copies_rules(r);
  h200::add_gemm_rules(r);
  h200::add_conv_rules(r);
  h200::add_norm_rules(r);
  h200::add_attention_rules(r);
  h200::add_rnn_rules(r);
  h200::add_indexing_rules(r);
  h200::add_elementwise_rules(r);
  h200::add_selection_rules(r);
  h200::add_loss_rules(r);
  h200::add_linalg_rules(r);  // before composites: solve_triangular below 64 rows
  h200::add_fft_rules(r);
  h200::add_composite_rules(r);
  h200::add_rearrange_rules(r);
  h200::add_numeric_composite_rules(r);
  h200::add_torchvision_rules(r);
  h200::add_generic_rules(r);
  return r;
}

const KernelNames kKernelNames[] = {
#include "passes/targets/torch2_11_h200_kernel_names.inc"
};

const MeasuredLaunch kMeasured[] = {
#include "passes/targets/torch2_11_h200_measured.inc"
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
  // L2: 60 MiB as the device reports it (torch.cuda.get_device_properties(0).L2_cache_size).
  // Streams miss well before a fully associative LRU cache of that size would let them (an array
  // of 29 MB written by one op is 40% missed by the next: validate/results/dram/, vit_b_16_bf16):
  // the hardware's partitions, set conflicts and replacement leave less usable. The share is the
  // one fitted parameter of the DRAM model, on the 24 measured models; left out by family, every
  // family picks the same value (validate/dram_lofo.py, validate/results/dram/accuracy.txt).
  t.l2_bytes = 60LL << 20;
  t.l2_usable_fraction = 0.625;
  t.l2_evidence = "validate/results/dram/";
  t.rules = rules();
  t.measured.assign(std::begin(kMeasured), std::end(kMeasured));
  t.measured_source = "passes/targets/torch2_11_h200_measured.inc";
  t.kernel_names.assign(std::begin(kKernelNames), std::end(kKernelNames));
  t.kernel_names_source = "passes/targets/torch2_11_h200_kernel_names.inc";
  return t;
}

}  // namespace kc
