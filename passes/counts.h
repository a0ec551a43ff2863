// What one op, one rule, one group or a whole model launches on the GPU: the one type every
// pass, rollup, report and validate counts with.
#pragma once

#include <cstdint>
#include <string>

#include "analyzer/error.h"

namespace kc {

// a + b and a * b for byte and FLOP counts: an Error ("<what> overflow 64 bits") instead of a
// wrapped total. Shapes are checked to fit 64 bits each; their sums and products may not.
inline int64_t add_checked(int64_t a, int64_t b, const char* what) {
  int64_t out;
  if (__builtin_add_overflow(a, b, &out)) throw Error(std::string(what) + " overflow 64 bits");
  return out;
}
inline int64_t mul_checked(int64_t a, int64_t b, const char* what) {
  int64_t out;
  if (__builtin_mul_overflow(a, b, &out)) throw Error(std::string(what) + " overflow 64 bits");
  return out;
}

struct Counts {
  int kernels = 0;
  int memcpy = 0;      // cudaMemcpy* operations (device-to-device, device-to-host)
  int memset = 0;      // cudaMemset* operations
  int host_syncs = 0;  // points where the host waits for the GPU

  Counts& operator+=(const Counts& o) {
    kernels += o.kernels;
    memcpy += o.memcpy;
    memset += o.memset;
    host_syncs += o.host_syncs;
    return *this;
  }
  // Nothing reaches the GPU.
  bool none() const { return kernels == 0 && memcpy == 0 && memset == 0 && host_syncs == 0; }
  // Kernels, memcpy and memset equal: what validate compares (syncs are not measured).
  bool same_work(const Counts& o) const { return kernels == o.kernels && memcpy == o.memcpy && memset == o.memset; }
};

}  // namespace kc
