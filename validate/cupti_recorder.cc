#include "validate/cupti_recorder.h"

#include <c10/util/Type.h>
#include <cuda_runtime_api.h>
#include <cupti.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <mutex>
#include <string>
#include <unordered_map>

#include "analyzer/error.h"

namespace kc::validate {
namespace {

constexpr size_t kBufferBytes = 8 << 20;
constexpr size_t kBufferAlign = 8;

// The activity kinds recorded. RUNTIME and DRIVER are needed even though their records are
// thrown away: without them CUPTI emits no EXTERNAL_CORRELATION records.
constexpr CUpti_ActivityKind kKinds[] = {
    CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL,    CUPTI_ACTIVITY_KIND_MEMCPY,  CUPTI_ACTIVITY_KIND_MEMSET,
    CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION, CUPTI_ACTIVITY_KIND_RUNTIME, CUPTI_ACTIVITY_KIND_DRIVER,
};

void cupti_check(CUptiResult r, const char* what) {
  if (r == CUPTI_SUCCESS) return;
  const char* text = nullptr;
  cuptiGetResultString(r, &text);
  throw Error(std::string("CUPTI: ") + what + " failed: " + (text ? text : "unknown error"));
}

void cuda_check(cudaError_t r, const char* what) {
  if (r == cudaSuccess) return;
  throw Error(std::string("CUDA: ") + what + " failed: " + cudaGetErrorString(r));
}

// A memcpy or memset record as a GpuActivity; both record kinds carry these fields.
template <typename Record>
GpuActivity memory_op(GpuActivity a, GpuActivity::Kind kind, const Record& m) {
  a.kind = kind;
  a.bytes = m.bytes;
  a.start_ns = m.start;
  a.external_id = m.correlationId;
  return a;
}

const char* memcpy_kind_name(uint8_t kind) {
  switch (kind) {
    case CUPTI_ACTIVITY_MEMCPY_KIND_HTOD:
      return "HtoD";
    case CUPTI_ACTIVITY_MEMCPY_KIND_DTOH:
      return "DtoH";
    case CUPTI_ACTIVITY_MEMCPY_KIND_HTOA:
      return "HtoA";
    case CUPTI_ACTIVITY_MEMCPY_KIND_ATOH:
      return "AtoH";
    case CUPTI_ACTIVITY_MEMCPY_KIND_ATOA:
      return "AtoA";
    case CUPTI_ACTIVITY_MEMCPY_KIND_ATOD:
      return "AtoD";
    case CUPTI_ACTIVITY_MEMCPY_KIND_DTOA:
      return "DtoA";
    case CUPTI_ACTIVITY_MEMCPY_KIND_DTOD:
      return "DtoD";
    case CUPTI_ACTIVITY_MEMCPY_KIND_HTOH:
      return "HtoH";
    case CUPTI_ACTIVITY_MEMCPY_KIND_PTOP:
      return "PtoP";
    default:
      return "unknown";
  }
}

// CUPTI hands buffers back through plain C callbacks on its own thread, so what they collect
// lives here, guarded by a mutex. One recorder per process (CUPTI has one subscriber).
struct Collected {
  std::mutex mu;
  std::vector<GpuActivity> work;
  std::unordered_map<uint32_t, uint64_t> external;  // correlation id -> external id
  uint64_t dropped = 0;
};
Collected* g_collected = nullptr;
std::atomic<bool> g_exists{false};

void CUPTIAPI buffer_requested(uint8_t** buffer, size_t* size, size_t* max_records) {
  *buffer = static_cast<uint8_t*>(std::aligned_alloc(kBufferAlign, kBufferBytes));
  *size = *buffer ? kBufferBytes : 0;
  *max_records = 0;
}

void CUPTIAPI buffer_completed(CUcontext ctx, uint32_t stream, uint8_t* buffer, size_t, size_t valid) {
  Collected* c = g_collected;
  if (c && buffer) {
    std::lock_guard<std::mutex> lock(c->mu);
    CUpti_Activity* record = nullptr;
    while (cuptiActivityGetNextRecord(buffer, valid, &record) == CUPTI_SUCCESS) {
      GpuActivity a;
      switch (record->kind) {
        case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL:
        case CUPTI_ACTIVITY_KIND_KERNEL: {
          auto* k = reinterpret_cast<const CUpti_ActivityKernel10*>(record);
          a.kind = GpuActivity::Kind::kKernel;
          a.name = k->name ? k->name : "?";
          a.start_ns = k->start;
          a.external_id = k->correlationId;  // replaced by the external id in stop()
          c->work.push_back(std::move(a));
          break;
        }
        case CUPTI_ACTIVITY_KIND_MEMCPY: {
          auto* m = reinterpret_cast<const CUpti_ActivityMemcpy6*>(record);
          a.name = memcpy_kind_name(m->copyKind);
          c->work.push_back(memory_op(a, GpuActivity::Kind::kMemcpy, *m));
          break;
        }
        case CUPTI_ACTIVITY_KIND_MEMSET:
          c->work.push_back(
              memory_op(a, GpuActivity::Kind::kMemset, *reinterpret_cast<const CUpti_ActivityMemset4*>(record)));
          break;
        case CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION: {
          auto* e = reinterpret_cast<const CUpti_ActivityExternalCorrelation*>(record);
          if (e->externalKind == CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0) c->external[e->correlationId] = e->externalId;
          break;
        }
        default:
          break;  // runtime and driver API records: only enabled for the correlation above
      }
    }
    size_t dropped = 0;
    if (cuptiActivityGetNumDroppedRecords(ctx, stream, &dropped) == CUPTI_SUCCESS) c->dropped += dropped;
  }
  std::free(buffer);
}

}  // namespace

CuptiRecorder::CuptiRecorder() {
  check(!g_exists.exchange(true), "internal: a second CUPTI recorder in one process");
  g_collected = new Collected;
  try {
    cupti_check(cuptiActivityRegisterCallbacks(buffer_requested, buffer_completed),
                "registering activity buffers (is another profiler attached?)");
  } catch (...) {
    delete g_collected;
    g_collected = nullptr;
    g_exists = false;
    throw;
  }
}

CuptiRecorder::~CuptiRecorder() {
  for (CUpti_ActivityKind k : kKinds) cuptiActivityDisable(k);
  cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
  delete g_collected;
  g_collected = nullptr;
  g_exists = false;
}

void CuptiRecorder::start() {
  cuda_check(cudaDeviceSynchronize(), "synchronizing before recording");
  {
    std::lock_guard<std::mutex> lock(g_collected->mu);
    g_collected->work.clear();
    g_collected->external.clear();
  }
  for (CUpti_ActivityKind k : kKinds) cupti_check(cuptiActivityEnable(k), "enabling an activity kind");
}

std::vector<GpuActivity> CuptiRecorder::stop() {
  cuda_check(cudaDeviceSynchronize(), "synchronizing after the recorded run");
  cupti_check(cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED), "flushing activity buffers");
  for (CUpti_ActivityKind k : kKinds) cupti_check(cuptiActivityDisable(k), "disabling an activity kind");
  size_t dropped = 0;
  if (cuptiActivityGetNumDroppedRecords(nullptr, 0, &dropped) == CUPTI_SUCCESS) {
    std::lock_guard<std::mutex> lock(g_collected->mu);
    g_collected->dropped += dropped;
  }
  std::vector<GpuActivity> work;
  {
    std::lock_guard<std::mutex> lock(g_collected->mu);
    work.swap(g_collected->work);
    std::unordered_map<std::string, std::string> demangled;
    for (GpuActivity& a : work) {
      auto it = g_collected->external.find(static_cast<uint32_t>(a.external_id));
      a.external_id = it == g_collected->external.end() ? 0 : it->second;
      // CUPTI reports mangled kernel names; torch.profiler and people read demangled ones.
      if (a.kind == GpuActivity::Kind::kKernel) {
        auto [d, fresh] = demangled.try_emplace(a.name);
        if (fresh) d->second = c10::demangle(a.name.c_str());
        a.name = d->second;
      }
    }
    g_collected->external.clear();
  }
  std::stable_sort(work.begin(), work.end(),
                   [](const GpuActivity& x, const GpuActivity& y) { return x.start_ns < y.start_ns; });
  return work;
}

uint64_t CuptiRecorder::dropped_records() const {
  std::lock_guard<std::mutex> lock(g_collected->mu);
  return g_collected->dropped;
}

void CuptiRecorder::push(uint64_t id) {
  cupti_check(cuptiActivityPushExternalCorrelationId(CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0, id),
              "pushing an external correlation id");
}

void CuptiRecorder::pop() {
  uint64_t id = 0;
  cupti_check(cuptiActivityPopExternalCorrelationId(CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0, &id),
              "popping an external correlation id");
}

}  // namespace kc::validate
