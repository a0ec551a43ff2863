// Plain results of every pass, per op and in total. Passes fill them; renderers print them.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "analyzer/shared_string.h"
#include "passes/counts.h"
#include "passes/layout.h"
#include "passes/target.h"

namespace kc {

// What eager PyTorch launches for one op on the target (short name: "launches").
struct Launch {
  bool known = false;  // false: no rule covers the op; `counts` is then meaningless
  Counts counts;
  SharedString rule;          // id of the rule that decided, or why none did
  SharedString key;           // the op's signature (launch_key), as the measured table is keyed; ops of
                              // one signature share it
  SharedString fitting_rule;  // the first rule that fits, also where the measured table decided
  SharedString cudnn;         // where the deciding rule's cuDNN answer came from; empty: it asked none
  // The engine cuDNN's heuristics pick for a convolution whose rule asked them (-1: none asked or
  // none answered): which kernels of a loop over groups copy back (kernel_steps.h).
  int64_t cudnn_engine = -1;
};

// Array-sized HBM transfers of one op (short name: "hbm").
struct Traffic {
  int reads = 0;   // tensors read from HBM
  int writes = 0;  // tensors written to HBM
  int64_t read_bytes = 0;
  int64_t write_bytes = 0;
  int64_t flops = 0;  // floating-point operations, for the time floor
  int transfers() const { return reads + writes; }
  Traffic& operator+=(const Traffic& o) {
    reads += o.reads;
    writes += o.writes;
    read_bytes = add_checked(read_bytes, o.read_bytes, "HBM bytes");
    write_bytes = add_checked(write_bytes, o.write_bytes, "HBM bytes");
    flops = add_checked(flops, o.flops, "FLOPs");
    return *this;
  }
  int64_t bytes() const { return add_checked(read_bytes, write_bytes, "HBM bytes"); }
};

// Bytes one op is expected to move between the L2 cache and DRAM (HBM) as the model runs call
// after call (short name: "dram"). Unlike Traffic, an array still in L2 costs nothing.
struct DramTraffic {
  int64_t read_bytes = 0;   // fetched from DRAM
  int64_t write_bytes = 0;  // dirty lines written back to DRAM (evicted during this op)
  // What the op's kernels read, their scratch copies included (kernel_steps.h): the most its
  // DRAM reads can be.
  int64_t kernel_read_bytes = 0;
  // Of write_bytes, those its transforms' scattered stores write past the L2 (kernel_steps.h's
  // written_through), not evictions.
  int64_t scattered_write_bytes = 0;
  int64_t bytes() const { return add_checked(read_bytes, write_bytes, "DRAM bytes"); }
};

// A fusion group: consecutive ops that a fusing compiler runs as one kernel
// (short name: "fusion").
struct FusionGroup {
  std::vector<int> ops;                        // op indices, in order
  std::string kind;                            // "pointwise", "reduction" (with fused prologue/epilogue), or "single"
  int eager_kernels = 0;                       // sum of the members' eager kernels
  int fused_kernels = 0;                       // kernels of the fused group
  Traffic eager;                               // the members' traffic summed
  Traffic fused;                               // traffic of the group as one kernel
  std::vector<int> fused_reads, fused_writes;  // the arrays behind `fused` (groups of two or more ops)
  double floor_s = 0;                          // time floor of the group as one op (filled by the time pass)
  int root_op = -1;  // the inductor plan: the op of the group's first scheduler node (a library call, a
                     // reduction, a loop computed into memory); -1 in the greedy plans and for dead code
};

// A fusion plan: which group every op lands in (-1 for ops that launch nothing).
struct FusionPlan {
  std::string variant;  // "pointwise", "pointwise+reduction" or "inductor"
  std::vector<FusionGroup> groups;
  std::vector<int> group_of;          // per op
  std::vector<std::string> lowering;  // per op, the inductor plan only: how Inductor lowers it and why
  // The inductor plan only: kernels a compile may launch more or fewer than the plan counts,
  // where pad_mm's benchmark on the GPU answers the other way for some GEMMs (each GEMM's answer
  // flipped alone, summed: the span from every near-threshold GEMM kept to every one padded).
  int64_t timed_more = 0, timed_fewer = 0;
};

// A compiled kernel group that launches more kernels than its ops do eagerly (the inductor
// plan: a split reduction, operand copies Inductor adds for a library call, a cat's copies).
struct KernelIncrease {
  int group = -1;  // in the inductor plan
  int op = -1;     // the group's anchor op (fusion_groups.h): where the kernels are counted
  int eager_kernels = 0;
  int compiled_kernels = 0;
  std::string why;  // how Inductor lowers the anchor op, in words
};

// Lower bound on one op's time (short name: "time").
struct TimeFloor {
  double memory_s = 0;   // bytes / bandwidth
  double compute_s = 0;  // flops / rate
  double launch_s = 0;   // kernels * launch overhead
  double floor_s() const;
  bool memory_bound() const { return memory_s >= compute_s; }  // bytes outweigh FLOPs
  // Which term sets the floor: "memory", "compute" or "launch" (tiny ops: launch overhead).
  const char* bound() const;
};

// Why one op costs what it costs, for students (short name: "explain").
struct OpExplanation {
  enum class Kind { kFree, kLaunch, kUnknown };
  Kind kind = Kind::kFree;  // kFree: known to launch nothing (view, metadata, host work)
  std::string rule;         // the rule that fits (also where the measured table decided), or why none does
  // The texts below are views into the target's tables, which live as long as the program.
  std::string_view when;      // the rule's condition in words
  std::string_view why;       // the rule's plain-language reason
  std::string_view evidence;  // the measurements behind the rule
  // The part of the count the op's values decide and what was counted for it (the rule's
  // data_dependent); empty: its shapes decide the whole count.
  std::string_view data_dependent;
  bool measured = false;         // the count comes from the target's measured table of exact shapes
  std::string_view measured_in;  // models the exact signature was measured in
  // Kernel name families the GPU ran for measured ops like this one (same rule, dtype and
  // launch count), in launch order: kernels, memcpys, memsets; empty when none was measured.
  std::vector<std::string_view> kernel_names;
  int names_seen = 0;  // measured op instances that ran exactly these
  int names_of = 0;    // measured op instances alike
};

// Every op's explanation, each distinct one held once: a graph's ops share a few rules, dtypes
// and launch counts, and 100,000 ops need not hold 100,000 copies of the same texts. The arrays
// an op moves are the hbm pass's (hbm_arrays), not repeated here.
struct Explanations {
  std::vector<OpExplanation> distinct;
  std::vector<uint32_t> of_op;  // per op: its explanation's index in `distinct`

  const OpExplanation& operator[](size_t op) const { return distinct[of_op[op]]; }
  size_t size() const { return of_op.size(); }
};

struct Totals {
  int ops = 0;
  Counts eager;                     // what eager PyTorch launches, over ops with a known rule
  int fused_kernels = 0;            // pointwise fusion
  int fused_kernels_reduction = 0;  // pointwise + reduction prologue/epilogue fusion
  int eager_hbm_transfers = 0;
  int fused_hbm_transfers = 0;
  int64_t eager_hbm_bytes = 0;
  int64_t fused_hbm_bytes = 0;
  int64_t fused_hbm_bytes_reduction = 0;
  int64_t flops = 0;
  int unknown_ops = 0;
  int64_t eager_dram_read_bytes = 0;  // expected DRAM traffic (pass "dram"), eager
  int64_t eager_dram_write_bytes = 0;
  double eager_time_floor_s = 0;
  double fused_time_floor_s = 0;
  // --fusion inductor only (the fused columns are then Inductor's): the greedy pointwise plan's,
  // shown beside them; not in counts(), so the default report's keys stay as they are.
  int pointwise_kernels = 0;
  int64_t inductor_kernels_low = 0, inductor_kernels_high = 0;  // over pad_mm's timed answers
  int pointwise_hbm_transfers = 0;
  int64_t pointwise_hbm_bytes = 0;
  double pointwise_time_floor_s = 0;

  // Every integer total with its JSON key, in schema order: the one list renderers and the
  // baseline comparison read.
  std::vector<std::pair<const char*, int64_t>> counts() const {
    return {{"ops", ops},
            {"eager_kernels", eager.kernels},
            {"fused_kernels", fused_kernels},
            {"fused_kernels_reduction", fused_kernels_reduction},
            {"memcpy", eager.memcpy},
            {"memset", eager.memset},
            {"host_syncs", eager.host_syncs},
            {"eager_hbm_transfers", eager_hbm_transfers},
            {"fused_hbm_transfers", fused_hbm_transfers},
            {"eager_hbm_bytes", eager_hbm_bytes},
            {"fused_hbm_bytes", fused_hbm_bytes},
            {"fused_hbm_bytes_reduction", fused_hbm_bytes_reduction},
            {"flops", flops},
            {"unknown_ops", unknown_ops},
            {"eager_dram_read_bytes", eager_dram_read_bytes},
            {"eager_dram_write_bytes", eager_dram_write_bytes}};
  }
};

// Per-op results summed by the user's source line or by module (short names "line", "module").
struct RollupRow {
  std::string key;   // "model.py:42" or "layer1.0.conv1"; "(top level)" for the model's own
                     // forward(), "(none)" when the file records nothing
  std::string code;  // the source line's text (by line) or the module's class (by module)
  int ops = 0;
  Counts counts;
  int unknown_ops = 0;
  int transfers = 0;
  int64_t bytes = 0;
  int64_t flops = 0;   // the ops' floating-point operations
  double floor_s = 0;  // the sum of the ops' time floors
  int first_op = 0;    // rows are ordered by their first op
  // The plans' kernels and bytes, each group's counted at its anchor op (fusion_groups.h), so
  // rows sum to the plan's totals: `fused_*` the report's fused plan (`Report::fusion`),
  // `pointwise_*` the greedy plan beside Inductor's (--fusion inductor only, else 0).
  int fused_kernels = 0;
  int64_t fused_bytes = 0;
  int pointwise_kernels = 0;
  int64_t pointwise_bytes = 0;
};

// One module of the module tree, with inclusive totals (its own ops and its submodules').
struct ModuleNode {
  RollupRow total;  // key: module path ("" for the model itself); code: its class where known
  int depth = 0;    // 0 for the model, 1 for its direct submodules, ...
  int parent = -1;  // index of the parent node; -1 for the model
};

// Everything the pipeline computed for one graph.
struct Report {
  const Target* target = nullptr;
  Layout layout;                  // per value: the strides eager PyTorch gives it at run time
  std::vector<Launch> launches;   // per op
  std::vector<Traffic> traffic;   // per op
  std::vector<DramTraffic> dram;  // per op
  std::vector<TimeFloor> time;    // per op
  FusionPlan fusion;              // the fused columns' plan: pointwise chains, or Inductor's (--fusion inductor)
  FusionPlan fusion_reduction;    // pointwise chains fused into reductions too
  // --fusion inductor only: the greedy pointwise plan, beside Inductor's in `fusion`, and the
  // groups where Inductor launches more than eager (short name "compiled"); empty otherwise.
  FusionPlan pointwise;
  std::vector<KernelIncrease> more_than_eager;
  Explanations explain;            // per op
  std::vector<RollupRow> by_line;  // rollups, in order of first op
  std::vector<RollupRow> by_module;
  std::vector<RollupRow> by_op_type;    // per op type ("batch_norm", "add.Tensor")
  std::vector<ModuleNode> module_tree;  // depth-first, node 0 the model; inclusive totals
  Totals totals;
};

}  // namespace kc
