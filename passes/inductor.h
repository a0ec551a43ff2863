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

// The compiled kernel groups of an inductor plan that launch more than their ops do eagerly,
// in group order, each with how Inductor lowers its anchor op (the member it is counted at).
std::vector<KernelIncrease> kernel_increases(const FusionPlan& plan, const std::vector<Launch>& launches);

// Whether ops a and b share a compiled kernel under Inductor, and which rule decided: the
// lowering (a view, dead code, an extern or fallback kernel, which Inductor never fuses) or the
// scheduler's check that kept their kernels apart, replayed on the final plan in the order
// Scheduler.can_fuse and fuse_nodes apply them.
struct FusionVerdict {
  bool fused = false;
  std::string rule;      // short id: "fused", "view", "dead-code", "extern", "fallback", "concat", "no-shared-buffer",
                         // "view-order", "max-fusion-size", "split-reduction", "stats-index", "too-far-apart",
                         // "loop-trips", "iteration-space", "reduction-size", "reduction-shape", "cycle", "not-chosen"
  std::string sentence;  // the rule in words, naming the ops and the figures that decided
};
FusionVerdict inductor_fusion_verdict(const Graph& g, const std::vector<Launch>& launches,
                                      const std::vector<Traffic>& traffic, const Target& target, int a, int b);

}  // namespace kc
