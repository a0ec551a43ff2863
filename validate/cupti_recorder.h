// Records the kernels, memcpys and memsets the GPU runs, through CUPTI's activity API. Each
// record carries the external correlation id that the launching thread had pushed, which is
// how work is attributed to the op that issued it.
#pragma once

#include <cstdint>
#include <vector>

#include "validate/measurement.h"

namespace kc::validate {

class CuptiRecorder {
 public:
  // Registers CUPTI's buffer callbacks. CUPTI allows one activity subscriber per process, so
  // only one recorder may exist at a time; throws Error otherwise or when CUPTI refuses.
  CuptiRecorder();
  ~CuptiRecorder();
  CuptiRecorder(const CuptiRecorder&) = delete;
  CuptiRecorder& operator=(const CuptiRecorder&) = delete;

  // Starts recording. Work launched before this call is never reported.
  void start();
  // Waits for the GPU, flushes CUPTI's buffers, stops recording and returns the kernels,
  // memcpys and memsets since start() in start-time order, joined to their external ids.
  std::vector<GpuActivity> stop();
  // Records CUPTI dropped since construction for lack of buffer space (0 when complete).
  uint64_t dropped_records() const;

  // Tags every launch issued by the calling thread with `id` (>= 1) until pop().
  static void push(uint64_t id);
  static void pop();
};

}  // namespace kc::validate
