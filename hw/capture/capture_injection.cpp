// The CUPTI injection library of `flashsim capture` (libflashsim_capture.so).
// CUDA loads it into an unchanged program when CUDA_INJECTION64_PATH names
// it, and calls InitializeInjection() during cuInit. It records, per process:
//  * activity records (GPU side): copies (CUPTI_ACTIVITY_KIND_MEMCPY: bytes,
//    direction, pinned/pageable/device ends, stream, start/end), memsets,
//    kernels (CONCURRENT_KERNEL: name, grid, block, stream, start/end) and
//    allocations/releases (MEMORY2: device, pinned host, managed);
//  * API callbacks (host side) for the addresses activity records lack: the
//    arguments of runtime and driver copy and memset calls, keyed by their
//    correlation ids, host registrations, and which driver calls ran inside
//    which runtime call (the activity record may name either); for copies
//    that may write host memory, how much of the destination was resident
//    at the call (mincore: fresh pages fault during a pageable D2H copy);
// and at exit (atexit, after cuptiActivityFlushAll) writes them to
// $FLASHSIM_CAPTURE_DIR/capture-<pid>.raw (format: traces/importers/cupti_raw.h),
// through a temp file renamed into place: complete or absent.
//
// Deliberately small: it links CUPTI and nothing of the simulator.
#include <cuda.h>
#include <cuda_runtime_api.h>
#include <cupti.h>
#include <dlfcn.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <iterator>
#include <set>
#include <vector>
#include <string>

#include "traces/importers/cupti_raw.h"

namespace fc = flashsim::capture;

static_assert(static_cast<int>(fc::CopyKind::htod) == CUPTI_ACTIVITY_MEMCPY_KIND_HTOD);
static_assert(static_cast<int>(fc::CopyKind::dtod) == CUPTI_ACTIVITY_MEMCPY_KIND_DTOD);
static_assert(static_cast<int>(fc::CopyKind::ptop) == CUPTI_ACTIVITY_MEMCPY_KIND_PTOP);
static_assert(static_cast<int>(fc::MemoryKind::pageable) == CUPTI_ACTIVITY_MEMORY_KIND_PAGEABLE);
static_assert(static_cast<int>(fc::MemoryKind::pinned) == CUPTI_ACTIVITY_MEMORY_KIND_PINNED);
static_assert(static_cast<int>(fc::MemoryKind::device) == CUPTI_ACTIVITY_MEMORY_KIND_DEVICE);
static_assert(static_cast<int>(fc::MemoryKind::managed_static) == CUPTI_ACTIVITY_MEMORY_KIND_MANAGED_STATIC);
static_assert(static_cast<int>(fc::MemoryOperation::allocation) == CUPTI_ACTIVITY_MEMORY_OPERATION_TYPE_ALLOCATION);
static_assert(static_cast<int>(fc::MemoryOperation::release) == CUPTI_ACTIVITY_MEMORY_OPERATION_TYPE_RELEASE);

namespace {

// API records make most of a program's records (~40 B each): 32 MiB buffers
// hold about 800k, so a long program completes few buffers.
constexpr std::size_t kBufferBytes = 32u << 20;

struct Capture {
  std::mutex mutex;
  fc::RawCapture raw;
  CUpti_SubscriberHandle subscriber = nullptr;
  bool written = false;
};
Capture* g_capture = nullptr;  // leaked on purpose: alive during exit handlers

thread_local std::uint32_t t_runtime_correlation = 0;  // tracked runtime call in progress on this thread

void report(const char* what, CUptiResult r) {
  const char* text = nullptr;
  cuptiGetResultString(r, &text);
  std::fprintf(stderr, "flashsim capture: %s failed: %s\n", what, text != nullptr ? text : "?");
}

std::uint64_t ptr(const void* p) { return reinterpret_cast<std::uint64_t>(p); }

// --- argument extraction (copy and memset calls) ---

#define FC_COPY(params_t, dst_f, src_f, bytes_expr)             \
  {                                                             \
    const auto* q = static_cast<const params_t*>(params);       \
    a.what = fc::ApiWhat::copy;                                 \
    a.dst = (std::uint64_t)(q->dst_f);                          \
    a.src = (std::uint64_t)(q->src_f);                          \
    a.bytes = (bytes_expr);                                     \
    return true;                                                \
  }
#define FC_SET(params_t, dst_f, bytes_expr)                     \
  {                                                             \
    const auto* q = static_cast<const params_t*>(params);       \
    a.what = fc::ApiWhat::memset;                               \
    a.dst = (std::uint64_t)(q->dst_f);                          \
    a.bytes = (bytes_expr);                                     \
    return true;                                                \
  }

bool runtime_args(CUpti_CallbackId cbid, const void* params, fc::RawApiCall& a) {
  switch (cbid) {
    case CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy_v3020: FC_COPY(cudaMemcpy_v3020_params, dst, src, q->count)
    case CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy_ptds_v7000: FC_COPY(cudaMemcpy_ptds_v7000_params, dst, src, q->count)
    case CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyAsync_v3020: FC_COPY(cudaMemcpyAsync_v3020_params, dst, src, q->count)
    case CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyAsync_ptsz_v7000:
      FC_COPY(cudaMemcpyAsync_ptsz_v7000_params, dst, src, q->count)
    case CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyPeer_v4000: FC_COPY(cudaMemcpyPeer_v4000_params, dst, src, q->count)
    case CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyPeerAsync_v4000:
      FC_COPY(cudaMemcpyPeerAsync_v4000_params, dst, src, q->count)
    case CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy2D_v3020:
      FC_COPY(cudaMemcpy2D_v3020_params, dst, src, q->width * q->height)
    case CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy2DAsync_v3020:
      FC_COPY(cudaMemcpy2DAsync_v3020_params, dst, src, q->width * q->height)
    case CUPTI_RUNTIME_TRACE_CBID_cudaMemset_v3020: FC_SET(cudaMemset_v3020_params, devPtr, q->count)
    case CUPTI_RUNTIME_TRACE_CBID_cudaMemset_ptds_v7000: FC_SET(cudaMemset_ptds_v7000_params, devPtr, q->count)
    case CUPTI_RUNTIME_TRACE_CBID_cudaMemsetAsync_v3020: FC_SET(cudaMemsetAsync_v3020_params, devPtr, q->count)
    case CUPTI_RUNTIME_TRACE_CBID_cudaMemsetAsync_ptsz_v7000:
      FC_SET(cudaMemsetAsync_ptsz_v7000_params, devPtr, q->count)
    default: return false;
  }
}

bool driver_args(CUpti_CallbackId cbid, const void* params, fc::RawApiCall& a) {
  switch (cbid) {
    case CUPTI_DRIVER_TRACE_CBID_cuMemcpy: FC_COPY(cuMemcpy_params, dst, src, q->ByteCount)
    case CUPTI_DRIVER_TRACE_CBID_cuMemcpy_ptds: FC_COPY(cuMemcpy_ptds_params, dst, src, q->ByteCount)
    case CUPTI_DRIVER_TRACE_CBID_cuMemcpyAsync: FC_COPY(cuMemcpyAsync_params, dst, src, q->ByteCount)
    case CUPTI_DRIVER_TRACE_CBID_cuMemcpyAsync_ptsz: FC_COPY(cuMemcpyAsync_ptsz_params, dst, src, q->ByteCount)
    case CUPTI_DRIVER_TRACE_CBID_cuMemcpyHtoD_v2: FC_COPY(cuMemcpyHtoD_v2_params, dstDevice, srcHost, q->ByteCount)
    case CUPTI_DRIVER_TRACE_CBID_cuMemcpyHtoD_v2_ptds:
      FC_COPY(cuMemcpyHtoD_v2_ptds_params, dstDevice, srcHost, q->ByteCount)
    case CUPTI_DRIVER_TRACE_CBID_cuMemcpyHtoDAsync_v2:
      FC_COPY(cuMemcpyHtoDAsync_v2_params, dstDevice, srcHost, q->ByteCount)
    case CUPTI_DRIVER_TRACE_CBID_cuMemcpyHtoDAsync_v2_ptsz:
      FC_COPY(cuMemcpyHtoDAsync_v2_ptsz_params, dstDevice, srcHost, q->ByteCount)
    case CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoH_v2: FC_COPY(cuMemcpyDtoH_v2_params, dstHost, srcDevice, q->ByteCount)
    case CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoH_v2_ptds:
      FC_COPY(cuMemcpyDtoH_v2_ptds_params, dstHost, srcDevice, q->ByteCount)
    case CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoHAsync_v2:
      FC_COPY(cuMemcpyDtoHAsync_v2_params, dstHost, srcDevice, q->ByteCount)
    case CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoHAsync_v2_ptsz:
      FC_COPY(cuMemcpyDtoHAsync_v2_ptsz_params, dstHost, srcDevice, q->ByteCount)
    case CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoD_v2: FC_COPY(cuMemcpyDtoD_v2_params, dstDevice, srcDevice, q->ByteCount)
    case CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoD_v2_ptds:
      FC_COPY(cuMemcpyDtoD_v2_ptds_params, dstDevice, srcDevice, q->ByteCount)
    case CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoDAsync_v2:
      FC_COPY(cuMemcpyDtoDAsync_v2_params, dstDevice, srcDevice, q->ByteCount)
    case CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoDAsync_v2_ptsz:
      FC_COPY(cuMemcpyDtoDAsync_v2_ptsz_params, dstDevice, srcDevice, q->ByteCount)
    case CUPTI_DRIVER_TRACE_CBID_cuMemcpyPeer: FC_COPY(cuMemcpyPeer_params, dstDevice, srcDevice, q->ByteCount)
    case CUPTI_DRIVER_TRACE_CBID_cuMemcpyPeer_ptds:
      FC_COPY(cuMemcpyPeer_ptds_params, dstDevice, srcDevice, q->ByteCount)
    case CUPTI_DRIVER_TRACE_CBID_cuMemcpyPeerAsync:
      FC_COPY(cuMemcpyPeerAsync_params, dstDevice, srcDevice, q->ByteCount)
    case CUPTI_DRIVER_TRACE_CBID_cuMemcpyPeerAsync_ptsz:
      FC_COPY(cuMemcpyPeerAsync_ptsz_params, dstDevice, srcDevice, q->ByteCount)
    case CUPTI_DRIVER_TRACE_CBID_cuMemsetD8_v2: FC_SET(cuMemsetD8_v2_params, dstDevice, q->N)
    case CUPTI_DRIVER_TRACE_CBID_cuMemsetD8_v2_ptds: FC_SET(cuMemsetD8_v2_ptds_params, dstDevice, q->N)
    case CUPTI_DRIVER_TRACE_CBID_cuMemsetD16_v2: FC_SET(cuMemsetD16_v2_params, dstDevice, 2 * q->N)
    case CUPTI_DRIVER_TRACE_CBID_cuMemsetD16_v2_ptds: FC_SET(cuMemsetD16_v2_ptds_params, dstDevice, 2 * q->N)
    case CUPTI_DRIVER_TRACE_CBID_cuMemsetD32_v2: FC_SET(cuMemsetD32_v2_params, dstDevice, 4 * q->N)
    case CUPTI_DRIVER_TRACE_CBID_cuMemsetD32_v2_ptds: FC_SET(cuMemsetD32_v2_ptds_params, dstDevice, 4 * q->N)
    case CUPTI_DRIVER_TRACE_CBID_cuMemsetD8Async: FC_SET(cuMemsetD8Async_params, dstDevice, q->N)
    case CUPTI_DRIVER_TRACE_CBID_cuMemsetD8Async_ptsz: FC_SET(cuMemsetD8Async_ptsz_params, dstDevice, q->N)
    case CUPTI_DRIVER_TRACE_CBID_cuMemsetD16Async: FC_SET(cuMemsetD16Async_params, dstDevice, 2 * q->N)
    case CUPTI_DRIVER_TRACE_CBID_cuMemsetD16Async_ptsz: FC_SET(cuMemsetD16Async_ptsz_params, dstDevice, 2 * q->N)
    case CUPTI_DRIVER_TRACE_CBID_cuMemsetD32Async: FC_SET(cuMemsetD32Async_params, dstDevice, 4 * q->N)
    case CUPTI_DRIVER_TRACE_CBID_cuMemsetD32Async_ptsz: FC_SET(cuMemsetD32Async_ptsz_params, dstDevice, 4 * q->N)
    default: return false;
  }
}

// --- host page residency of a device -> host copy's destination ---

// Whether a copy call may write host memory: the converter keeps the figure
// only for copies CUPTI records as D2H into pageable memory, so a device
// destination (UVA reservations are mapped, mincore answers 0) does no harm.
bool may_write_host(CUpti_CallbackDomain domain, CUpti_CallbackId cbid, const void* params) {
  if (domain == CUPTI_CB_DOMAIN_RUNTIME_API) {
    cudaMemcpyKind kind = cudaMemcpyDefault;
    switch (cbid) {
      case CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy_v3020: kind = static_cast<const cudaMemcpy_v3020_params*>(params)->kind; break;
      case CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy_ptds_v7000:
        kind = static_cast<const cudaMemcpy_ptds_v7000_params*>(params)->kind;
        break;
      case CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyAsync_v3020:
        kind = static_cast<const cudaMemcpyAsync_v3020_params*>(params)->kind;
        break;
      case CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyAsync_ptsz_v7000:
        kind = static_cast<const cudaMemcpyAsync_ptsz_v7000_params*>(params)->kind;
        break;
      default: return false;  // peer and 2-D copies
    }
    return kind == cudaMemcpyDeviceToHost || kind == cudaMemcpyDefault;
  }
  switch (cbid) {
    case CUPTI_DRIVER_TRACE_CBID_cuMemcpy:
    case CUPTI_DRIVER_TRACE_CBID_cuMemcpy_ptds:
    case CUPTI_DRIVER_TRACE_CBID_cuMemcpyAsync:
    case CUPTI_DRIVER_TRACE_CBID_cuMemcpyAsync_ptsz:
    case CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoH_v2:
    case CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoH_v2_ptds:
    case CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoHAsync_v2:
    case CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoHAsync_v2_ptsz: return true;
    default: return false;
  }
}

// Bytes of [address, address + bytes) in pages resident now (mincore(2)):
// anonymous pages never touched are not resident, so a pageable D2H copy
// into them takes first-touch faults. False when the range is not mapped.
bool resident_bytes(std::uint64_t address, std::uint64_t bytes, std::uint64_t& resident) {
  static const std::uint64_t page = static_cast<std::uint64_t>(sysconf(_SC_PAGESIZE));
  thread_local std::vector<unsigned char> pages;
  constexpr std::uint64_t kChunkPages = 1u << 16;  // 256 MiB of 4 KiB pages per call
  resident = 0;
  if (bytes == 0 || address == 0) return false;
  const std::uint64_t end = address + bytes;
  for (std::uint64_t at = address / page * page; at < end; at += kChunkPages * page) {
    const std::uint64_t span = std::min(kChunkPages * page, (end - at + page - 1) / page * page);
    pages.resize(span / page);
    if (mincore(reinterpret_cast<void*>(at), span, pages.data()) != 0) return false;
    for (std::uint64_t k = 0; k < pages.size(); ++k) {
      if ((pages[k] & 1u) == 0) continue;
      const std::uint64_t lo = std::max(address, at + k * page), hi = std::min(end, at + (k + 1) * page);
      resident += hi > lo ? hi - lo : 0;
    }
  }
  return true;
}

void check_residency(CUpti_CallbackDomain domain, CUpti_CallbackId cbid, const void* params, fc::RawApiCall& a) {
  if (a.what != fc::ApiWhat::copy || !may_write_host(domain, cbid, params)) return;
  a.host_checked = resident_bytes(a.dst, a.bytes, a.host_resident_bytes);
  if (!a.host_checked) a.host_resident_bytes = 0;
}

const CUpti_CallbackId kRuntimeCallbacks[] = {
    CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy_v3020,        CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy_ptds_v7000,
    CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyAsync_v3020,   CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyAsync_ptsz_v7000,
    CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyPeer_v4000,    CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyPeerAsync_v4000,
    CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy2D_v3020,      CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy2DAsync_v3020,
    CUPTI_RUNTIME_TRACE_CBID_cudaMemset_v3020,        CUPTI_RUNTIME_TRACE_CBID_cudaMemset_ptds_v7000,
    CUPTI_RUNTIME_TRACE_CBID_cudaMemsetAsync_v3020,   CUPTI_RUNTIME_TRACE_CBID_cudaMemsetAsync_ptsz_v7000,
    CUPTI_RUNTIME_TRACE_CBID_cudaHostRegister_v4000,  CUPTI_RUNTIME_TRACE_CBID_cudaHostUnregister_v4000,
};

// Driver calls whose arguments are recorded (plus host registrations). Only
// these get callbacks: which driver call ran inside which runtime call is
// read off the API activity records afterwards (derive_links_from_apis), so
// the rest of the driver domain costs no callback.
const CUpti_CallbackId kDriverCallbacks[] = {
    CUPTI_DRIVER_TRACE_CBID_cuMemcpy,
    CUPTI_DRIVER_TRACE_CBID_cuMemcpy_ptds,
    CUPTI_DRIVER_TRACE_CBID_cuMemcpyAsync,
    CUPTI_DRIVER_TRACE_CBID_cuMemcpyAsync_ptsz,
    CUPTI_DRIVER_TRACE_CBID_cuMemcpyHtoD_v2,
    CUPTI_DRIVER_TRACE_CBID_cuMemcpyHtoD_v2_ptds,
    CUPTI_DRIVER_TRACE_CBID_cuMemcpyHtoDAsync_v2,
    CUPTI_DRIVER_TRACE_CBID_cuMemcpyHtoDAsync_v2_ptsz,
    CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoH_v2,
    CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoH_v2_ptds,
    CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoHAsync_v2,
    CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoHAsync_v2_ptsz,
    CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoD_v2,
    CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoD_v2_ptds,
    CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoDAsync_v2,
    CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoDAsync_v2_ptsz,
    CUPTI_DRIVER_TRACE_CBID_cuMemcpyPeer,
    CUPTI_DRIVER_TRACE_CBID_cuMemcpyPeer_ptds,
    CUPTI_DRIVER_TRACE_CBID_cuMemcpyPeerAsync,
    CUPTI_DRIVER_TRACE_CBID_cuMemcpyPeerAsync_ptsz,
    CUPTI_DRIVER_TRACE_CBID_cuMemsetD8_v2,
    CUPTI_DRIVER_TRACE_CBID_cuMemsetD8_v2_ptds,
    CUPTI_DRIVER_TRACE_CBID_cuMemsetD16_v2,
    CUPTI_DRIVER_TRACE_CBID_cuMemsetD16_v2_ptds,
    CUPTI_DRIVER_TRACE_CBID_cuMemsetD32_v2,
    CUPTI_DRIVER_TRACE_CBID_cuMemsetD32_v2_ptds,
    CUPTI_DRIVER_TRACE_CBID_cuMemsetD8Async,
    CUPTI_DRIVER_TRACE_CBID_cuMemsetD8Async_ptsz,
    CUPTI_DRIVER_TRACE_CBID_cuMemsetD16Async,
    CUPTI_DRIVER_TRACE_CBID_cuMemsetD16Async_ptsz,
    CUPTI_DRIVER_TRACE_CBID_cuMemsetD32Async,
    CUPTI_DRIVER_TRACE_CBID_cuMemsetD32Async_ptsz,
    CUPTI_DRIVER_TRACE_CBID_cuMemHostRegister,
    CUPTI_DRIVER_TRACE_CBID_cuMemHostRegister_v2,
    CUPTI_DRIVER_TRACE_CBID_cuMemHostUnregister,
};

void add_host_register(bool registered, std::uint64_t address, std::uint64_t bytes) {
  std::uint64_t now = 0;
  cuptiGetTimestamp(&now);
  std::lock_guard<std::mutex> lock(g_capture->mutex);
  g_capture->raw.host_registers.push_back(fc::RawHostRegister{registered, address, bytes, now});
}

void CUPTIAPI on_callback(void*, CUpti_CallbackDomain domain, CUpti_CallbackId cbid, const void* data) {
  const auto* cb = static_cast<const CUpti_CallbackData*>(data);
  if (domain == CUPTI_CB_DOMAIN_RUNTIME_API) {
    if (cb->callbackSite == CUPTI_API_EXIT) {
      if (cbid == CUPTI_RUNTIME_TRACE_CBID_cudaHostRegister_v4000 &&
          *static_cast<const cudaError_t*>(cb->functionReturnValue) == cudaSuccess) {
        const auto* q = static_cast<const cudaHostRegister_v4000_params*>(cb->functionParams);
        add_host_register(true, ptr(q->ptr), q->size);
      }
      if (t_runtime_correlation == cb->correlationId) t_runtime_correlation = 0;
      return;
    }
    if (cbid == CUPTI_RUNTIME_TRACE_CBID_cudaHostUnregister_v4000) {
      add_host_register(false, ptr(static_cast<const cudaHostUnregister_v4000_params*>(cb->functionParams)->ptr), 0);
      return;
    }
    fc::RawApiCall a;
    if (!runtime_args(cbid, cb->functionParams, a)) return;
    a.correlation_id = cb->correlationId;
    a.domain = fc::ApiDomain::runtime;
    a.cbid = cbid;
    cuptiGetTimestamp(&a.host_ns);
    check_residency(domain, cbid, cb->functionParams, a);
    t_runtime_correlation = cb->correlationId;
    std::lock_guard<std::mutex> lock(g_capture->mutex);
    g_capture->raw.api_calls.push_back(a);
    return;
  }
  if (domain != CUPTI_CB_DOMAIN_DRIVER_API) return;
  if (cb->callbackSite == CUPTI_API_EXIT) {
    if ((cbid == CUPTI_DRIVER_TRACE_CBID_cuMemHostRegister_v2 || cbid == CUPTI_DRIVER_TRACE_CBID_cuMemHostRegister) &&
        *static_cast<const CUresult*>(cb->functionReturnValue) == CUDA_SUCCESS && t_runtime_correlation == 0) {
      const auto* q = static_cast<const cuMemHostRegister_v2_params*>(cb->functionParams);
      add_host_register(true, ptr(q->p), q->bytesize);
    }
    return;
  }
  if (cbid == CUPTI_DRIVER_TRACE_CBID_cuMemHostUnregister && t_runtime_correlation == 0) {
    add_host_register(false, ptr(static_cast<const cuMemHostUnregister_params*>(cb->functionParams)->p), 0);
    return;
  }
  fc::RawApiCall a;
  const bool tracked = driver_args(cbid, cb->functionParams, a);
  if (!tracked && t_runtime_correlation == 0) return;
  // Inside a runtime call the runtime callback read the residency already.
  if (tracked && t_runtime_correlation == 0) check_residency(domain, cbid, cb->functionParams, a);
  std::lock_guard<std::mutex> lock(g_capture->mutex);
  if (tracked) {
    a.correlation_id = cb->correlationId;
    a.domain = fc::ApiDomain::driver;
    a.cbid = cbid;
    cuptiGetTimestamp(&a.host_ns);
    g_capture->raw.api_calls.push_back(a);
  }
  if (t_runtime_correlation != 0) g_capture->raw.links.push_back(fc::RawLink{cb->correlationId, t_runtime_correlation});
}

// --- activity buffers ---

void CUPTIAPI buffer_requested(uint8_t** buffer, size_t* size, size_t* max_records) {
  *buffer = static_cast<uint8_t*>(std::aligned_alloc(8, kBufferBytes));
  *size = *buffer != nullptr ? kBufferBytes : 0;
  *max_records = 0;
}

// Appends `part` to `into` (vectors moved or appended).
template <class T>
void append(std::vector<T>& into, std::vector<T>& part) {
  if (into.empty()) {
    into = std::move(part);
  } else {
    into.insert(into.end(), std::make_move_iterator(part.begin()), std::make_move_iterator(part.end()));
  }
}

// Parses a completed buffer into a local batch without the lock, then
// appends it under the lock: the program's own threads take the same lock in
// their copy callbacks, and a 32 MiB buffer takes tens of ms to parse (held
// under the lock, that stalled the program: the capture's main cost).
void CUPTIAPI buffer_completed(CUcontext, uint32_t, uint8_t* buffer, size_t, size_t valid_size) {
  fc::RawCapture batch;
  fc::RawCapture& raw = batch;
  CUpti_Activity* record = nullptr;
  while (cuptiActivityGetNextRecord(buffer, valid_size, &record) == CUPTI_SUCCESS) {
    switch (record->kind) {
      case CUPTI_ACTIVITY_KIND_MEMCPY: {
        const auto* m = reinterpret_cast<const CUpti_ActivityMemcpy6*>(record);
        if (m->end == 0 || m->end < m->start) {  // incomplete (a forced flush while it ran)
          ++raw.dropped_records;
          break;
        }
        fc::RawCopy c;
        c.correlation_id = m->correlationId;
        c.runtime_correlation_id = m->runtimeCorrelationId;
        c.copy_kind = static_cast<fc::CopyKind>(m->copyKind);
        c.src_kind = static_cast<fc::MemoryKind>(m->srcKind);
        c.dst_kind = static_cast<fc::MemoryKind>(m->dstKind);
        c.bytes = m->bytes;
        c.start_ns = m->start;
        c.end_ns = m->end;
        c.device_id = m->deviceId;
        c.context_id = m->contextId;
        c.stream_id = m->streamId;
        raw.copies.push_back(c);
        break;
      }
      case CUPTI_ACTIVITY_KIND_MEMSET: {
        const auto* m = reinterpret_cast<const CUpti_ActivityMemset4*>(record);
        if (m->end == 0 || m->end < m->start) {
          ++raw.dropped_records;
          break;
        }
        fc::RawMemset s;
        s.correlation_id = m->correlationId;
        s.memory_kind = static_cast<fc::MemoryKind>(m->memoryKind);
        s.bytes = m->bytes;
        s.start_ns = m->start;
        s.end_ns = m->end;
        s.device_id = m->deviceId;
        s.context_id = m->contextId;
        s.stream_id = m->streamId;
        raw.memsets.push_back(s);
        break;
      }
      case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL:
      case CUPTI_ACTIVITY_KIND_KERNEL: {
        const auto* k = reinterpret_cast<const CUpti_ActivityKernel10*>(record);
        if (k->end == 0 || k->end < k->start) {
          ++raw.dropped_records;
          break;
        }
        fc::RawKernel r;
        r.correlation_id = k->correlationId;
        r.start_ns = k->start;
        r.end_ns = k->end;
        r.device_id = k->deviceId;
        r.context_id = k->contextId;
        r.stream_id = k->streamId;
        r.grid[0] = k->gridX;
        r.grid[1] = k->gridY;
        r.grid[2] = k->gridZ;
        r.block[0] = k->blockX;
        r.block[1] = k->blockY;
        r.block[2] = k->blockZ;
        r.name = k->name != nullptr ? k->name : "?";
        for (char& ch : r.name) {
          if (ch == '\n' || ch == '\r') ch = ' ';
        }
        raw.kernels.push_back(std::move(r));
        break;
      }
      case CUPTI_ACTIVITY_KIND_RUNTIME:
      case CUPTI_ACTIVITY_KIND_DRIVER: {
        const auto* a = reinterpret_cast<const CUpti_ActivityAPI*>(record);
        fc::RawApi r;
        r.correlation_id = a->correlationId;
        r.domain = record->kind == CUPTI_ACTIVITY_KIND_RUNTIME ? fc::ApiDomain::runtime : fc::ApiDomain::driver;
        r.cbid = a->cbid;
        r.start_ns = a->start;
        r.end_ns = a->end < a->start ? a->start : a->end;
        r.thread = a->threadId;
        raw.apis.push_back(r);
        break;
      }
      case CUPTI_ACTIVITY_KIND_SYNCHRONIZATION: {
        const auto* y = reinterpret_cast<const CUpti_ActivitySynchronization2*>(record);
        fc::RawSync r;
        r.type = static_cast<fc::SyncType>(y->type <= 4 ? y->type : 0);
        r.start_ns = y->start;
        r.end_ns = y->end < y->start ? y->start : y->end;
        r.correlation_id = y->correlationId;
        r.context_id = y->contextId;
        r.stream_id = y->streamId;
        r.event_id = y->cudaEventId;
        raw.syncs.push_back(r);
        break;
      }
      case CUPTI_ACTIVITY_KIND_CUDA_EVENT: {
        const auto* v = reinterpret_cast<const CUpti_ActivityCudaEvent2*>(record);
        raw.event_records.push_back(fc::RawEventRecord{v->correlationId, v->contextId, v->streamId, v->eventId});
        break;
      }
      case CUPTI_ACTIVITY_KIND_MARKER: {
        const auto* m = reinterpret_cast<const CUpti_ActivityMarker2*>(record);
        fc::RawMarker r;
        r.flags = static_cast<std::uint32_t>(m->flags);
        r.timestamp_ns = m->timestamp;
        r.thread = m->objectKind == CUPTI_ACTIVITY_OBJECT_THREAD ? m->objectId.pt.threadId : 0;
        r.name = m->name != nullptr && *m->name != '\0' ? m->name : "?";
        for (char& ch : r.name) {
          if (ch == '\n' || ch == '\r') ch = ' ';
        }
        raw.markers.push_back(std::move(r));
        break;
      }
      case CUPTI_ACTIVITY_KIND_MEMORY2: {
        const auto* m = reinterpret_cast<const CUpti_ActivityMemory4*>(record);
        fc::RawMemory r;
        r.correlation_id = m->correlationId;
        r.operation = static_cast<fc::MemoryOperation>(m->memoryOperationType);
        r.memory_kind = static_cast<fc::MemoryKind>(m->memoryKind);
        r.address = m->address;
        r.bytes = m->bytes;
        r.timestamp_ns = m->timestamp;
        r.device_id = m->deviceId;
        r.context_id = m->contextId;
        r.stream_id = m->streamId;
        raw.memory.push_back(r);
        break;
      }
      default: break;
    }
  }
  size_t dropped = 0;
  if (cuptiActivityGetNumDroppedRecords(nullptr, 0, &dropped) == CUPTI_SUCCESS) raw.dropped_records += dropped;
  std::free(buffer);
  std::lock_guard<std::mutex> lock(g_capture->mutex);
  fc::RawCapture& all = g_capture->raw;
  append(all.copies, batch.copies);
  append(all.memsets, batch.memsets);
  append(all.kernels, batch.kernels);
  append(all.memory, batch.memory);
  append(all.apis, batch.apis);
  append(all.syncs, batch.syncs);
  append(all.event_records, batch.event_records);
  append(all.markers, batch.markers);
  all.dropped_records += batch.dropped_records;
}

// --- exit: flush and write ---

// Names of the callback ids seen, so that the converter (CUDA-free) can tell
// a launch from a synchronisation without CUPTI's tables.
void add_api_names(fc::RawCapture& raw) {
  std::set<std::pair<int, std::uint32_t>> seen;
  for (const fc::RawApi& a : raw.apis) seen.emplace(static_cast<int>(a.domain), a.cbid);
  for (const auto& [domain, cbid] : seen) {
    const char* name = nullptr;
    const CUpti_CallbackDomain d = domain == 0 ? CUPTI_CB_DOMAIN_RUNTIME_API : CUPTI_CB_DOMAIN_DRIVER_API;
    if (cuptiGetCallbackName(d, cbid, &name) != CUPTI_SUCCESS || name == nullptr) continue;
    raw.api_names.push_back(fc::RawApiName{static_cast<fc::ApiDomain>(domain), cbid, name});
  }
}


void write_capture() {
  if (g_capture == nullptr || g_capture->written) return;
  if (const CUptiResult r = cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED); r != CUPTI_SUCCESS) {
    report("cuptiActivityFlushAll", r);
  }
  std::lock_guard<std::mutex> lock(g_capture->mutex);
  g_capture->written = true;
  add_api_names(g_capture->raw);
  const char* dir = std::getenv("FLASHSIM_CAPTURE_DIR");
  const std::string base = std::string(dir != nullptr && *dir != '\0' ? dir : ".") + "/capture-" +
                           std::to_string(static_cast<long long>(getpid())) + ".raw";
  const std::string temp = base + ".tmp";
  std::FILE* f = std::fopen(temp.c_str(), "wb");
  if (f == nullptr) {
    std::fprintf(stderr, "flashsim capture: cannot write %s: %s\n", temp.c_str(), std::strerror(errno));
    return;
  }
  bool ok = fc::write_raw_capture(f, g_capture->raw);
  ok = std::fclose(f) == 0 && ok;
  if (!ok || std::rename(temp.c_str(), base.c_str()) != 0) {
    std::fprintf(stderr, "flashsim capture: writing %s failed: %s\n", base.c_str(), std::strerror(errno));
    std::remove(temp.c_str());
  }
}

// NVTX markers reach CUPTI only when NVTX_INJECTION64_PATH names libcupti:
// set it (unless the user did) before the program's first NVTX call, which
// comes after CUDA's initialisation in the programs of interest.
void enable_nvtx_injection() {
  Dl_info info{};
  if (dladdr(reinterpret_cast<void*>(&cuptiSubscribe), &info) == 0 || info.dli_fname == nullptr) return;
  setenv("NVTX_INJECTION64_PATH", info.dli_fname, 0);
}

bool check(const char* what, CUptiResult r) {
  if (r == CUPTI_SUCCESS) return true;
  report(what, r);
  return false;
}

}  // namespace

extern "C" __attribute__((visibility("default"))) int InitializeInjection(void) {
  if (g_capture != nullptr) return 1;
  g_capture = new Capture;
  g_capture->raw.pid = static_cast<std::int64_t>(getpid());
  bool ok = check("cuptiSubscribe", cuptiSubscribe(&g_capture->subscriber, on_callback, nullptr));
  for (const CUpti_CallbackId cbid : kRuntimeCallbacks) {
    ok = ok && check("cuptiEnableCallback",
                     cuptiEnableCallback(1, g_capture->subscriber, CUPTI_CB_DOMAIN_RUNTIME_API, cbid));
  }
  for (const CUpti_CallbackId cbid : kDriverCallbacks) {
    ok = ok && check("cuptiEnableCallback",
                     cuptiEnableCallback(1, g_capture->subscriber, CUPTI_CB_DOMAIN_DRIVER_API, cbid));
  }
  ok = ok && check("cuptiActivityRegisterCallbacks", cuptiActivityRegisterCallbacks(buffer_requested, buffer_completed));
  for (const CUpti_ActivityKind kind :
       {CUPTI_ACTIVITY_KIND_MEMCPY, CUPTI_ACTIVITY_KIND_MEMSET, CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL,
        CUPTI_ACTIVITY_KIND_MEMORY2, CUPTI_ACTIVITY_KIND_RUNTIME, CUPTI_ACTIVITY_KIND_DRIVER,
        CUPTI_ACTIVITY_KIND_SYNCHRONIZATION, CUPTI_ACTIVITY_KIND_CUDA_EVENT, CUPTI_ACTIVITY_KIND_MARKER}) {
    ok = ok && check("cuptiActivityEnable", cuptiActivityEnable(kind));
  }
  enable_nvtx_injection();
  // Registered after the CUDA runtime's own exit handlers, so it runs first.
  std::atexit(write_capture);
  if (!ok) std::fprintf(stderr, "flashsim capture: CUPTI setup failed; the capture will be incomplete\n");
  return ok ? 1 : 0;
}
