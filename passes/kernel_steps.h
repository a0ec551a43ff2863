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
OpSteps op_kernel_steps(const Graph& g, const Op& op, const HbmArrays& arrays, std::string_view rule,
                        const std::vector<std::string_view>& families);

// The dtype the kernel-name table is keyed by: the first tensor input's, else the output's.
const char* kernel_names_dtype(const Graph& g, const Op& op);

}  // namespace kc
