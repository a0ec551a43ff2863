// What one op, one rule, one group or a whole model launches on the GPU: the one type every
// pass, rollup, report and validate counts with.
#pragma once

namespace kc {

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
