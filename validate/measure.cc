#include "validate/measure.h"

#include <cuda_runtime_api.h>
#include <torch/cuda.h>

#include <numeric>

#include "analyzer/error.h"
#include "analyzer/live_op_registry.h"
#include "validate/cupti_recorder.h"
#include "validate/graph_runner.h"
#include "validate/script_runner.h"

namespace kc::validate {
namespace {

std::string gpu_name() {
  cudaDeviceProp prop{};
  if (cudaGetDeviceProperties(&prop, 0) != cudaSuccess) return "unknown GPU";
  return prop.name;
}

}  // namespace

Measurement measure(const Graph& g, const MeasureOptions& options) {
  check(options.warmup >= 0, "--warmup must be 0 or more");
  check(torch::cuda::is_available(), "no CUDA GPU is visible: kernelcount-validate measures on a GPU");
  Measurement m;
  m.device = gpu_name();
  m.libtorch = linked_libtorch_version();
  m.warmup = options.warmup;
  m.ops.resize(g.ops.size());
  // Registered first, so that a CUPTI that is unavailable fails before any work is done.
  CuptiRecorder recorder;
  std::vector<GpuActivity> work;
  std::vector<int> op_of_id;
  if (g.info.format == "pt2") {
    m.method = "dispatcher";
    m.real_weights = options.real_weights;
    GraphRunner runner(g, options.real_weights);
    for (int i = 0; i < options.warmup; ++i) runner.run(false);
    recorder.start();
    runner.run(true);
    work = recorder.stop();
    op_of_id.resize(g.ops.size());
    std::iota(op_of_id.begin(), op_of_id.end(), 0);
  } else {
    m.method = "torchscript";
    m.real_weights = true;
    if (!options.real_weights) m.notes.push_back("TorchScript models run with the weights they carry");
    ScriptRunner runner(g);
    for (int i = 0; i < options.warmup; ++i) runner.run(false);
    recorder.start();
    runner.run(true);
    work = recorder.stop();
    op_of_id = runner.op_of_id();
    m.unmatched_runtime_ops = runner.unmatched();
  }
  attribute(work, op_of_id, m);
  m.dropped_records = recorder.dropped_records();
  return m;
}

}  // namespace kc::validate
