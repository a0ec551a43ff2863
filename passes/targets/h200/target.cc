// Target torch2.11-h200: eager PyTorch 2.11 on an NVIDIA H200 (sm_90). This folder is the
// target's data: its names and rates here; device.json, the H200's properties as cuDNN
// serializes them (validate/device_cudnn.sh check writes them; the published specification
// differs in two values that change cuDNN's choices: 60 MB of L2, not 50, and 139.8 GiB of usable
// memory); the trees fitted on its sweeps (gemm_tree.inc, conv_engine_trees.inc); cuDNN's answers
// asked with its properties (cudnn_answers.txt.gz); and the measured and kernel-name tables.
// The mechanisms that read them are PyTorch 2.11's, in passes/torch2_11/.
#include "passes/torch2_11/target_tables.inc"

namespace kc {

Target target_h200() {
  Target t;
  t.name = "torch2.11-h200";
  t.description = "eager PyTorch 2.11 on NVIDIA H200 (sm_90)";
  t.torch_version = "2.11";
  // Rates measured on the H200 by validate/measure_target.py (data/results/target.json).
  // The vector rate is the fp32 GEMM's: without TF32 it runs on the CUDA cores, at their FMA
  // rate. The launch time is per kernel in a stream of tiny eager launches.
  t.hbm_bytes_per_s = 4.24e12;
  t.matmul_bf16_flops_per_s = 805e12;
  t.matmul_fp32_flops_per_s = 51.0e12;
  t.vector_flops_per_s = 51.0e12;
  t.launch_s = 6.8e-6;
  t.evidence = "data/results/target.json";
  // The L2 (60 MiB, device.json's l2CacheSize): streams miss well before a fully associative LRU
  // cache of that size would let them (an array of 29 MB written by one op is 40% missed by the
  // next: data/results/dram/, vit_b_16_bf16): the hardware's partitions leave less usable, and
  // its hashed sets lose lines before the capacity is reached (resnet18_bf16 at batch 2 reads 8
  // of its 23 MB of weights back from DRAM each call, deit_tiny 2 of 24 MB, where an LRU cut-off
  // keeps them all). Two parameters fitted together on the 64 measured models (data/results/dram/,
  // dram_oos1/, dram_oos2/, dram_oos3/): the usable share and the ways of the hashed sets;
  // 0.65625 and 32 fit 49 of the 52 over 10 MB within 25% (0.65625 and 20 too; ties broken by
  // the median error). Left out by family, nearly every family picks the same pair: 46 of 52
  // within 25%, all 64 within 2x (research/accuracy/dram_lofo.py; data/results/dram/accuracy.txt).
  t.l2_usable_fraction = 0.65625;
  t.l2_ways = 32;
  t.l2_evidence = "data/results/dram/";
  return torch2_11::with_tables(std::move(t));
}

}  // namespace kc
