// What one recorded run of a model launched on the GPU, attributed to the graph's ops. Plain
// data: the runners fill it, compare.h sets it against the predictions.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "passes/counts.h"

namespace kc::validate {

// One piece of GPU work as CUPTI reported it.
struct GpuActivity {
  enum class Kind : uint8_t { kKernel, kMemcpy, kMemset };
  Kind kind = Kind::kKernel;
  uint64_t external_id = 0;  // the id pushed when it was launched; 0 for none
  std::string name;          // kernel name; memcpy direction ("DtoH"); empty for memset
  uint64_t bytes = 0;        // memcpy and memset size
  uint64_t start_ns = 0;
};

// The GPU work of one op (or of no op).
struct MeasuredWork {
  Counts counts;                          // host syncs stay 0: CUPTI's activity records do not show them
  std::vector<std::string> kernel_names;  // full names, in launch order
  std::vector<std::string> memcpy_kinds;  // "HtoD", "DtoH", "DtoD", ... in launch order

  void add(const GpuActivity& a);
};

// A whole recorded run.
struct Measurement {
  std::string device;             // "NVIDIA H200"
  std::string libtorch;           // "2.11.0"
  std::string method;             // how the model ran: "dispatcher" (.pt2) or "torchscript"
  int warmup = 0;                 // un-recorded runs before the recorded one
  bool real_weights = false;      // false: parameters and buffers were random
  std::vector<MeasuredWork> ops;  // per graph op
  MeasuredWork unattributed;      // work launched while no graph op was running
  // TorchScript: ops that ran but have no counterpart in the graph, with their work counted
  // in `unattributed`.
  std::vector<std::string> unmatched_runtime_ops;
  uint64_t dropped_records = 0;
  std::vector<std::string> notes;
};

// Adds each activity to ops[op_of(external_id)], or to `unattributed` when the id is 0 or maps
// to no op. `op_of` holds, for id k >= 1, the op index at k - 1 (-1 for none).
void attribute(const std::vector<GpuActivity>& activities, const std::vector<int>& op_of, Measurement& m);

// Matches ops seen at run time to graph ops, in order. First by full name: each runtime op
// takes the next graph op of the same name within `window` ops, skipping graph ops that never
// showed up. Then TorchScript's own operators, which bypass the dispatcher and so never show
// up by name (aten::Int.Tensor runs aten::item): the runtime ops left between two matches go,
// in order, to the graph ops in that gap that are not `dispatched`, the last such op taking
// any surplus. Returns, per runtime op, the graph op index or -1.
std::vector<int> align_by_name(const std::vector<std::string>& runtime_ops, const std::vector<std::string>& graph_ops,
                               const std::vector<bool>& dispatched, int window = 64);

// "void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<float>, ...>(int, ...)"
// -> "vectorized_elementwise_kernel<4, CUDAFunctor_add<float>, ...>", cut to at most max_len characters.
std::string short_kernel_name(const std::string& name, size_t max_len);

}  // namespace kc::validate
