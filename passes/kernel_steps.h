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
};

// One kernel: the arrays it reads and writes.
struct KernelStep {
  std::vector<Access> reads, writes;
};

struct OpSteps {
  std::vector<KernelStep> steps;
  std::vector<int64_t> scratch_bytes;  // allocated for the op's call, freed after it
};

// An op is one kernel over its array-sized reads and writes (`arrays`), unless the kernel name
// families measured for it (`families`, Target::kernel_names) show cuDNN's layout transforms
// around one ungrouped convolution kernel: then nchwToNhwcKernel copies the input (and the weight, the
// second) into a scratch array of its size, the convolution reads the copies and writes its
// output, into a scratch array when nhwcToNchwKernel copies it back into the output afterwards,
// and an elementwise kernel after it adds the bias in place. The copies are what the
// array-sized count leaves out (hbm_traffic.h) and what the L2 must hold besides the op's arrays.
// An embedding reads of its table only the rows it gathers: at most its output's bytes.
OpSteps op_kernel_steps(const Graph& g, const Op& op, const HbmArrays& arrays,
                        const std::vector<std::string_view>& families);

// The dtype the kernel-name table is keyed by: the first tensor input's, else the output's.
const char* kernel_names_dtype(const Graph& g, const Op& op);

}  // namespace kc
