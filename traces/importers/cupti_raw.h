// The raw records of a CUPTI capture (`flashsim capture`): what the injection
// library (hw/capture/) saw in one process, before any interpretation. The
// library writes one file per process at exit; traces/importers/cupti_capture.h
// turns them into a canonical trace. This header and cupti_raw_writer.cpp use
// only the standard library, so the injection library compiles them without
// the simulator; the enumerations carry CUPTI's own numeric values (the
// library static_asserts that they match).
//
// File format "flashsim-capture-raw 3" (text, one record per line, fields
// separated by one space, integers decimal, addresses 0x-hex; version 1 files,
// without the A/Y/V/N/Q records and with the shorter E line, and version 2
// files, whose X lines end at host_ts, still read):
//   flashsim-capture-raw 3 <pid>                                   (first line)
//   C corr runtime_corr copy_kind src_kind dst_kind bytes start end device context stream
//   S corr memory_kind bytes start end device context stream       (memset)
//   K corr start end device context stream gx gy gz bx by bz name  (name: rest of line)
//   M corr operation memory_kind address bytes timestamp device context stream
//   X corr domain(R|D) cbid what(copy|memset) dst src bytes host_ts checked resident
//                                    (API call arguments; v3: checked 1 when the host
//                                     destination's page residency was read, resident
//                                     = its bytes resident at the call)
//   L driver_corr runtime_corr                                     (driver call inside a runtime call)
//   H operation(register|unregister) address bytes host_ts          (host-registered range)
//   A corr domain(R|D) cbid start end thread                       (every API call: host enter/exit)
//   Y type start end corr context stream event                     (synchronisation, SyncType values)
//   V corr context stream event                                    (cudaEventRecord: event on stream)
//   N flags timestamp thread name                                  (NVTX marker; name: rest of line)
//   Q domain(R|D) cbid name                                        (name of a callback id seen in A)
//   E copies memsets kernels memory api links host dropped [apis syncs events markers names]
//                                                                  (last line: counts, dropped = CUPTI's)
// Times are CUPTI timestamps in ns (one clock for activity and API records).
// A file without its E line, or whose counts disagree, was cut short.
#pragma once
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

namespace flashsim::capture {

inline constexpr const char* kRawMagic = "flashsim-capture-raw";
inline constexpr int kRawVersion = 3;

/// CUpti_ActivityMemcpyKind values.
enum class CopyKind : std::uint8_t {
  unknown = 0, htod = 1, dtoh = 2, htoa = 3, atoh = 4, atoa = 5, atod = 6, dtoa = 7, dtod = 8, htoh = 9, ptop = 10
};
/// CUpti_ActivityMemoryKind values: where the bytes live.
enum class MemoryKind : std::uint8_t {
  unknown = 0, pageable = 1, pinned = 2, device = 3, array = 4, managed = 5, device_static = 6, managed_static = 7
};
/// CUpti_ActivityMemoryOperationType values.
enum class MemoryOperation : std::uint8_t { invalid = 0, allocation = 1, release = 2 };

/// A copy as the GPU ran it (CUPTI_ACTIVITY_KIND_MEMCPY).
struct RawCopy {
  std::uint32_t correlation_id = 0;          ///< of the driver API call that issued it
  std::uint32_t runtime_correlation_id = 0;  ///< of the runtime API call (0: none)
  CopyKind copy_kind = CopyKind::unknown;
  MemoryKind src_kind = MemoryKind::unknown;
  MemoryKind dst_kind = MemoryKind::unknown;
  std::uint64_t bytes = 0;
  std::uint64_t start_ns = 0, end_ns = 0;  ///< GPU time
  std::uint32_t device_id = 0, context_id = 0, stream_id = 0;
};

/// A memset as the GPU ran it (CUPTI_ACTIVITY_KIND_MEMSET).
struct RawMemset {
  std::uint32_t correlation_id = 0;
  MemoryKind memory_kind = MemoryKind::unknown;
  std::uint64_t bytes = 0;
  std::uint64_t start_ns = 0, end_ns = 0;
  std::uint32_t device_id = 0, context_id = 0, stream_id = 0;
};

/// A kernel as the GPU ran it (CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL).
struct RawKernel {
  std::uint32_t correlation_id = 0;
  std::uint64_t start_ns = 0, end_ns = 0;
  std::uint32_t device_id = 0, context_id = 0, stream_id = 0;
  std::int32_t grid[3] = {0, 0, 0};
  std::int32_t block[3] = {0, 0, 0};
  std::string name;  ///< mangled, as CUPTI gives it; never contains a newline
};

/// An allocation or release (CUPTI_ACTIVITY_KIND_MEMORY2): device, pinned
/// host (cudaMallocHost/cudaHostAlloc) and managed memory.
struct RawMemory {
  std::uint32_t correlation_id = 0;
  MemoryOperation operation = MemoryOperation::invalid;
  MemoryKind memory_kind = MemoryKind::unknown;
  std::uint64_t address = 0;
  std::uint64_t bytes = 0;
  std::uint64_t timestamp_ns = 0;
  std::uint32_t device_id = 0, context_id = 0, stream_id = 0;
};

enum class ApiDomain : std::uint8_t { runtime = 0, driver = 1 };
enum class ApiWhat : std::uint8_t { copy = 0, memset = 1 };

/// The arguments of a copy or memset API call (callback API, at entry): the
/// addresses that activity records lack. Joined to them by correlation id.
struct RawApiCall {
  std::uint32_t correlation_id = 0;
  ApiDomain domain = ApiDomain::runtime;
  std::uint32_t cbid = 0;  ///< CUPTI callback id within the domain
  ApiWhat what = ApiWhat::copy;
  std::uint64_t dst = 0, src = 0;  ///< src = 0 for memsets
  std::uint64_t bytes = 0;         ///< as passed (a 2-D copy: width × height)
  std::uint64_t host_ns = 0;       ///< CUPTI timestamp at entry
  /// Version 3: the host destination's page residency was read at entry
  /// (mincore; copies that may go device → host, outside a runtime call).
  bool host_checked = false;
  std::uint64_t host_resident_bytes = 0;  ///< bytes of [dst, dst + bytes) resident then (<= bytes)
};

/// A driver API call made inside a runtime API call on the same thread: the
/// activity record may name either correlation id.
struct RawLink {
  std::uint32_t driver_correlation_id = 0;
  std::uint32_t runtime_correlation_id = 0;
};

/// cudaHostRegister / cuMemHostRegister (and unregister: bytes 0).
struct RawHostRegister {
  bool registered = true;
  std::uint64_t address = 0;
  std::uint64_t bytes = 0;
  std::uint64_t host_ns = 0;
};

/// One host API call (CUPTI_ACTIVITY_KIND_RUNTIME / DRIVER): what the host
/// thread did and for how long, in order.
struct RawApi {
  std::uint32_t correlation_id = 0;
  ApiDomain domain = ApiDomain::runtime;
  std::uint32_t cbid = 0;
  std::uint64_t start_ns = 0, end_ns = 0;  ///< host enter/exit (CUPTI clock)
  std::uint32_t thread = 0;                ///< OS thread id
};

/// CUpti_ActivitySynchronizationType values.
enum class SyncType : std::uint8_t {
  unknown = 0, event_synchronize = 1, stream_wait_event = 2, stream_synchronize = 3, context_synchronize = 4
};

/// A synchronisation API call (CUPTI_ACTIVITY_KIND_SYNCHRONIZATION).
struct RawSync {
  SyncType type = SyncType::unknown;
  std::uint64_t start_ns = 0, end_ns = 0;
  std::uint32_t correlation_id = 0, context_id = 0;
  std::uint32_t stream_id = 0;  ///< the waiting / synchronised stream (unused for context sync)
  std::uint32_t event_id = 0;   ///< event synchronised or waited on
};

/// cudaEventRecord (CUPTI_ACTIVITY_KIND_CUDA_EVENT): event recorded on stream.
struct RawEventRecord {
  std::uint32_t correlation_id = 0, context_id = 0, stream_id = 0, event_id = 0;
};

/// An NVTX marker (CUPTI_ACTIVITY_KIND_MARKER): an instantaneous mark or the
/// start/end of a range (flags: CUpti_ActivityFlag MARKER_* bits).
struct RawMarker {
  std::uint32_t flags = 0;
  std::uint64_t timestamp_ns = 0;
  std::uint32_t thread = 0;
  std::string name;  ///< never contains a newline; "?" when unnamed (range ends)
};

inline constexpr std::uint32_t kMarkerInstantaneous = 1u << 0;
inline constexpr std::uint32_t kMarkerStart = 1u << 1;
inline constexpr std::uint32_t kMarkerEnd = 1u << 2;

/// The name of a callback id (cuptiGetCallbackName), e.g. "cudaLaunchKernel_v7000".
struct RawApiName {
  ApiDomain domain = ApiDomain::runtime;
  std::uint32_t cbid = 0;
  std::string name;
};

/// Everything one process recorded.
struct RawCapture {
  std::int64_t pid = 0;
  std::vector<RawCopy> copies;
  std::vector<RawMemset> memsets;
  std::vector<RawKernel> kernels;
  std::vector<RawMemory> memory;
  std::vector<RawApiCall> api_calls;
  std::vector<RawLink> links;
  std::vector<RawHostRegister> host_registers;
  // --- version 2: the program's structure ---
  std::vector<RawApi> apis;
  std::vector<RawSync> syncs;
  std::vector<RawEventRecord> event_records;
  std::vector<RawMarker> markers;
  std::vector<RawApiName> api_names;
  std::uint64_t dropped_records = 0;  ///< activity records CUPTI dropped (buffers full) or left incomplete at exit

  bool empty() const {
    return copies.empty() && memsets.empty() && kernels.empty() && memory.empty() && api_calls.empty();
  }
};

/// Writes `capture` in the format above to `out` (stdio so that the
/// injection library needs no iostreams at exit). Returns false on a write
/// error (the caller removes the file).
bool write_raw_capture(std::FILE* out, const RawCapture& capture);

/// Adds a RawLink for every driver API record (apis) that ran inside a
/// runtime API record on the same thread, unless one exists: version 2
/// captures derive the links from API timing instead of callbacks.
void derive_links_from_apis(RawCapture& capture);

/// Reads one raw file. Throws flashsim::InputError naming the file and line
/// (bad magic or version, malformed field, missing E line or counts that
/// disagree: the process was cut short). Defined in cupti_raw_reader.cpp
/// (flashsim_traces only).
RawCapture read_raw_capture(const std::filesystem::path& path);

/// Reads every `*.raw` file of `dir` (one per process that loaded CUDA),
/// sorted by file name. Throws InputError as read_raw_capture.
std::vector<RawCapture> read_raw_capture_dir(const std::filesystem::path& dir);

}  // namespace flashsim::capture
