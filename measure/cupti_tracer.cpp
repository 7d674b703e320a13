#include "measure/cupti_tracer.h"

#include <cxxabi.h>

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <mutex>

#include <cupti.h>

#include "model/error.h"

#define LCAB_CUPTI(call)                                                               \
  do {                                                                                 \
    const CUptiResult lcab_cupti_result_ = (call);                                     \
    if (lcab_cupti_result_ != CUPTI_SUCCESS) {                                         \
      const char* lcab_cupti_text_ = nullptr;                                          \
      cuptiGetResultString(lcab_cupti_result_, &lcab_cupti_text_);                     \
      LCAB_THROW(#call << " failed: " << (lcab_cupti_text_ ? lcab_cupti_text_ : "?")); \
    }                                                                                  \
  } while (0)

namespace lcab::measure {

namespace {

constexpr size_t kBufferBytes = 8 << 20;
constexpr size_t kBufferAlign = 8;
constexpr CUpti_ActivityKind kKinds[] = {CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, CUPTI_ACTIVITY_KIND_MEMCPY,
                                         CUPTI_ACTIVITY_KIND_MEMSET};

// CUPTI delivers completed buffers through C callbacks, possibly from its own thread: they append here.
std::mutex g_mutex;
std::vector<TraceActivity> g_activities;
std::atomic<size_t> g_dropped{0};
std::atomic<bool> g_tracer_active{false};

std::string demangle(const char* name) {
  if (!name) return "?";
  int status = 0;
  std::unique_ptr<char, void (*)(void*)> text(abi::__cxa_demangle(name, nullptr, nullptr, &status), std::free);
  return status == 0 && text ? std::string(text.get()) : std::string(name);
}

const char* copy_kind_name(uint8_t kind) {
  switch (kind) {
    case CUPTI_ACTIVITY_MEMCPY_KIND_HTOD: return "HtoD";
    case CUPTI_ACTIVITY_MEMCPY_KIND_DTOH: return "DtoH";
    case CUPTI_ACTIVITY_MEMCPY_KIND_DTOD: return "DtoD";
    case CUPTI_ACTIVITY_MEMCPY_KIND_HTOH: return "HtoH";
    case CUPTI_ACTIVITY_MEMCPY_KIND_PTOP: return "PtoP";
    default: return "other";
  }
}

void CUPTIAPI buffer_requested(uint8_t** buffer, size_t* size, size_t* max_records) {
  *buffer = static_cast<uint8_t*>(std::aligned_alloc(kBufferAlign, kBufferBytes));
  *size = *buffer ? kBufferBytes : 0;
  *max_records = 0;
}

void CUPTIAPI buffer_completed(CUcontext context, uint32_t stream_id, uint8_t* buffer, size_t, size_t valid_bytes) {
  std::vector<TraceActivity> parsed;
  CUpti_Activity* record = nullptr;
  while (cuptiActivityGetNextRecord(buffer, valid_bytes, &record) == CUPTI_SUCCESS) {
    TraceActivity a;
    switch (record->kind) {
      case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL:
      case CUPTI_ACTIVITY_KIND_KERNEL: {
        const auto* k = reinterpret_cast<const CUpti_ActivityKernel10*>(record);
        a = {ActivityKind::kKernel, demangle(k->name), k->start, k->end, k->deviceId, k->contextId, k->streamId,
             k->correlationId, 0};
        break;
      }
      case CUPTI_ACTIVITY_KIND_MEMCPY: {
        const auto* m = reinterpret_cast<const CUpti_ActivityMemcpy6*>(record);
        a = {ActivityKind::kMemcpy, std::string("memcpy ") + copy_kind_name(m->copyKind), m->start, m->end,
             m->deviceId, m->contextId, m->streamId, m->correlationId, m->bytes};
        break;
      }
      case CUPTI_ACTIVITY_KIND_MEMSET: {
        const auto* m = reinterpret_cast<const CUpti_ActivityMemset4*>(record);
        a = {ActivityKind::kMemset, "memset", m->start, m->end, m->deviceId, m->contextId, m->streamId,
             m->correlationId, m->bytes};
        break;
      }
      default:
        continue;
    }
    parsed.push_back(std::move(a));
  }
  size_t dropped = 0;
  if (cuptiActivityGetNumDroppedRecords(context, stream_id, &dropped) == CUPTI_SUCCESS) g_dropped += dropped;
  std::free(buffer);
  std::lock_guard<std::mutex> lock(g_mutex);
  g_activities.insert(g_activities.end(), std::make_move_iterator(parsed.begin()),
                      std::make_move_iterator(parsed.end()));
}

void register_callbacks_once() {
  static std::once_flag once;
  std::call_once(once, [] { LCAB_CUPTI(cuptiActivityRegisterCallbacks(buffer_requested, buffer_completed)); });
}

}  // namespace

CuptiActivityTracer::~CuptiActivityTracer() {
  if (!running_) return;
  for (CUpti_ActivityKind kind : kKinds) cuptiActivityDisable(kind);
  cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
  g_tracer_active = false;
}

void CuptiActivityTracer::start() {
  LCAB_CHECK(!running_, "CUPTI tracer started twice");
  bool expected = false;
  LCAB_CHECK(g_tracer_active.compare_exchange_strong(expected, true),
             "another CUPTI tracer is active in this process (CUPTI activity tracing is process-wide)");
  try {
    register_callbacks_once();
    // Leftovers from earlier work belong to nobody: flush and discard them.
    LCAB_CUPTI(cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED));
    {
      std::lock_guard<std::mutex> lock(g_mutex);
      g_activities.clear();
    }
    g_dropped = 0;
    for (CUpti_ActivityKind kind : kKinds) LCAB_CUPTI(cuptiActivityEnable(kind));
  } catch (...) {
    g_tracer_active = false;
    throw;
  }
  running_ = true;
}

std::vector<TraceActivity> CuptiActivityTracer::stop() {
  LCAB_CHECK(running_, "CUPTI tracer stopped without start()");
  running_ = false;
  g_tracer_active = false;
  for (CUpti_ActivityKind kind : kKinds) LCAB_CUPTI(cuptiActivityDisable(kind));
  LCAB_CUPTI(cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED));
  std::vector<TraceActivity> activities;
  {
    std::lock_guard<std::mutex> lock(g_mutex);
    activities.swap(g_activities);
  }
  LCAB_CHECK(g_dropped == 0, "CUPTI dropped " << g_dropped.load()
                                              << " activity records (buffers overflowed); trace fewer repetitions");
  return activities;
}

}  // namespace lcab::measure
