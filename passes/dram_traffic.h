// Pass "dram": the bytes each op is expected to move between the L2 cache and DRAM (HBM) when
// the model runs call after call, from the array-sized transfers and the target's L2.
#pragma once

#include <vector>

#include "analyzer/graph.h"
#include "passes/report.h"

namespace kc {

// Replays the ops' kernels (kernel_steps.h: one kernel over the array-sized reads and writes,
// hbm_arrays, or the measured sequence around a GEMM's or convolution's core kernel, with the
// scratch copies its layout transforms and contiguous copies write) through a model of the
// target's L2: a write-back cache of `Target::device.l2_bytes` x `l2_usable_fraction` with
// least-recently-used eviction (with `l2_ways`, hashed sets of that many ways: a line survives
// the data touched after it with the chance that fewer than that many later lines share its
// set, so some are lost before the capacity is reached), over the memory blocks the caching allocator hands out (a
// view, an in-place result and an input returned untouched, as dropout in evaluation returns it, address their base's
// block; a freed intermediate's block is reused by a later output of a size that fits, so its lines are overwritten in
// L2 rather than written back; an op's scratch arrays are allocated for its call and freed after it). A read costs DRAM
// bytes for the part of the array not resident; a write costs none until its dirty lines are evicted, charged to the op
// whose accesses evicted them. The model runs twice and reports the second run, as a model called repeatedly runs with
// the last call's tail in L2. Not modelled: re-reads of tiles inside one kernel and the order a kernel reads in (a
// GEMM's tiles reach a large operand's resident tail before a sweep would), memcpy and memset, and the L2's hashing and
// partitions (the usable share stands for them), but for an array read from both sides of the chip (Access::both: a
// clean copy in each partition, kernel_steps.h). A transform with scattered stores (a float32 grouped convolution's,
// kernel_steps.h) writes its bytes through, charged to its op as written back; the lines it allocated and lost that
// way then stand in the L2 as clean lines of that size, in place of other arrays' lines. A target whose device has no
// L2 size (device.l2_bytes 0) gets the array-sized figures.
std::vector<DramTraffic> run_dram_traffic(const Graph& g, const std::vector<Launch>& launches,
                                          const std::vector<Traffic>& traffic, const Target& target);

}  // namespace kc
