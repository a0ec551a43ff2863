// Pass "inductor": what torch.compile (Inductor, default mode) launches for the graph: which ops
// stay extern kernels (cuBLAS, cuDNN, attention) or eager fallbacks, which become Triton code,
// which of those are inlined into their readers and which are computed into memory, and how the
// scheduler fuses the rest into kernels. A model of PyTorch 2.11's torch/_inductor (lowering.py,
// graph.py, ir.py, scheduler.py), not a compiler: it predicts counts and traffic, never code.
#pragma once

#include <string>
#include <vector>

#include "analyzer/graph.h"
#include "passes/report.h"

namespace kc {

// The plan's groups are compiled kernels: "pointwise" and "reduction" groups are one Triton
// kernel each (a split reduction two), "extern" groups an op Inductor calls as a library kernel
// (with the channels-last copies of its operands it adds), "fallback" groups an op it runs
// eagerly. Inlined ops (recomputed inside their readers) join their first reader's group.
// `plan.lowering` says, per op, how Inductor lowers it and why. Ops that launch nothing under
// Inductor or eagerly (views) are in no group. Reads: each array from outside a group once;
// writes: results read by another group or returned.
FusionPlan run_inductor(const Graph& g, const std::vector<Launch>& launches, const std::vector<Traffic>& traffic,
                        const Target& target);

// Why ops a and b do or do not share a compiled kernel in the plan, in one sentence.
std::string inductor_fusion_reason(const Graph& g, const FusionPlan& plan, int a, int b);

}  // namespace kc
