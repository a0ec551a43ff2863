// The kernels one op runs, as the arrays each reads and writes: what the DRAM model replays
// through the L2 (passes/dram_traffic.h).
#pragma once

#include <string_view>
#include <vector>

#include "analyzer/graph.h"
#include "passes/hbm_traffic.h"
#include "passes/report.h"

namespace kc {

// An array a kernel touches: a value of the graph (>= 0) or one of the op's scratch arrays
// (-1 - k: scratch_bytes[k]), and how many of its bytes (all of them unless a gather reads
// only the rows it indexes).
struct Access {
  int array = 0;
  int64_t bytes = 0;
  // A gather's table, of which it reads only `bytes`: the same rows call after call (the
  // same indices), not a share of the whole table.
  bool rows = false;
  // Read by CTAs on both sides of the chip: each of the L2's two partitions holds a clean copy
  // of the lines it reads (the second costs room in the L2, no DRAM read), until it is written.
  bool both = false;
};

// One kernel: the arrays it reads and writes.
struct KernelStep {
  std::vector<Access> reads, writes;
};

struct OpSteps {
  std::vector<KernelStep> steps;
  std::vector<int64_t> scratch_bytes;  // allocated for the op's call, freed after it
  // Bytes the op's kernels write to DRAM past the L2's replacement: a float32 transpose that
  // stores element by element into lines that leave the L2 before they are whole
  // (grouped_transposes below). Those lines took the L2's room while they were there: the DRAM
  // pass replays them as clean lines of this size.
  int64_t written_through = 0;
};

// A float32 layout transform of cuDNN's whose stores are scattered 4-byte elements writes
// back a 128-byte line per element once its array is larger than this: 32 times the array.
// Measured (Nsight Compute, caches flushed before each kernel) on regnet_x_400mf and
// regnet_x_1_6gf: genericTranspose over slices of 1.6 and 2.4 MB wrote 32-36 times the slice,
// over 0.4-0.6 MB 2-8 times (22-25 times with the caches as they are), over 0.15 MB and less
// nothing.
constexpr int64_t kScatteredStoreBytes = 256 << 10;
constexpr int64_t kLinePerElement = 32;
// The cuDNN engine (float32, NCHW, grouped) whose loop over the groups copies each group's NHWC
// result back with genericTranspose, not nhwcToNchwKernel. Measured on resnest14d's grouped
// convolutions: engine 38 (layer 4, 0.8 MB output slices) genericTranspose wrote 39-45 times the
// slice; engine 46 (layer 3, 1.6 MB slices) nhwcToNchwKernel about a sixth of it.
constexpr int64_t kScatteredBackEngine = 38;
// The engine that runs a grouped convolution as one launch per group (passes/torch2_11/grouped_conv.cc).
constexpr int64_t kLaunchPerGroupEngine = 28;

// What the launch rules say an op launches: kernels (memcpys and memsets left out; -1: as many
// as the families name), memsets, and the cuDNN engine that runs a convolution (-1: none known).
struct KernelLaunches {
  int kernels = -1;
  int memsets = 0;
  int64_t cudnn_engine = -1;
};

// An op is one kernel over its array-sized reads and writes (`arrays`), unless the kernel name
// families measured for its launch rule (`rule`, `families`: Target::kernel_names) show more
// kernels around one convolution or GEMM kernel. Then a copy before it (cuDNN's nchwToNhwcKernel
// for a convolution's input, then its weight; ATen's elementwise contiguous copy for a GEMM's
// operand that is not row-major dense) writes a scratch array of the operand's size, which the
// core kernel reads instead; the core kernel writes the output, or a scratch array that
// nhwcToNchwKernel copies back into it afterwards; an elementwise kernel after it adds the bias
// in place. The copies are what the array-sized count leaves out (hbm_traffic.h) and what the L2
// must hold besides the op's arrays. A grouped convolution stays one kernel (as many launches
// may be cuDNN's loop over the groups). An embedding reads of its table only the rows it
// gathers: at most its output's bytes.
//
// A grouped float32 NCHW convolution is laid out where its launches show how cuDNN runs it:
// 3 per group (optionally a bias kernel after) is cuDNN's loop over the groups, per group a
// genericTranspose of the input's channel slice into a scratch array, the GEMM, and a
// genericTranspose of its result into the output's slice; 4 per group is its loop with an NHWC
// engine, per group the input's and weight's slices copied by nchwToNhwcKernel, the GEMM, and
// its result copied back into the output's slice (by genericTranspose for
// kScatteredBackEngine); 4 in all with two zeroed buffers (optionally a bias kernel after) is
// the grouped implicit GEMM's padded path, the input and output transformed as for an
// ungrouped convolution and the weight by tensorTransformGeneric into a zeroed, padded buffer
// (regnet_x_1_6gf's 24 channels per group, resnest14d's 2 groups of 64; resnext50's 4 kernels
// without the memsets transform the weight by nchwToNhwcKernel). genericTranspose and
// tensorTransformGeneric store scattered elements: over kScatteredStoreBytes they write 32
// times their array through. A layer norm whose first kernel is an elementwise copy reads a
// contiguous copy of its non-contiguous input, as a GEMM's operand copy does.
//
// The memory-efficient attention kernel (fmha_cutlassF, PyTorch's float32 SDPA) runs a CTA per
// block of queries of a head, each streaming its head's every key and value: the CTAs of a head
// run on SMs on both sides of the chip, and the key and value are read `both`.
// `launched`: what the launch rules say the op launches.
OpSteps op_kernel_steps(const Graph& g, const Op& op, const HbmArrays& arrays, std::string_view rule,
                        const std::vector<std::string_view>& families, KernelLaunches launched = {});
// The same into `out`, whose lists keep their storage where the op is one kernel: a pass that
// lays out every op's kernels allocates nothing for most of them.
void op_kernel_steps(const Graph& g, const Op& op, const HbmArrays& arrays, std::string_view rule,
                     const std::vector<std::string_view>& families, KernelLaunches launched, OpSteps& out);

// The dtype the kernel-name table is keyed by: the first tensor input's, else the output's.
const char* kernel_names_dtype(const Graph& g, const Op& op);

}  // namespace kc
