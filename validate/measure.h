// Measures a model on the GPU: un-recorded warm-up runs, then one run under CUPTI whose work
// is attributed to the graph's ops.
#pragma once

#include "analyzer/graph.h"
#include "validate/measurement.h"

namespace kc::validate {

struct MeasureOptions {
  int warmup = 2;             // un-recorded runs first (cuBLAS handles, cuDNN plans, allocator)
  bool real_weights = false;  // .pt2: the archive's weights instead of random ones
};

// Runs g's model (g.info.path, .pt2 through the dispatcher, TorchScript through torch::jit) on
// the first CUDA device. Throws Error when there is no GPU or the model fails to run. Records
// CUPTI dropped are counted in Measurement::dropped_records, not thrown.
Measurement measure(const Graph& g, const MeasureOptions& options);

}  // namespace kc::validate
