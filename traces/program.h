// Trace schema v2: the program behind the accesses. Per host thread, the
// CUDA API calls in order with their host times; per stream, the device
// operations they issued; the event record / wait / synchronise calls that
// order streams and block the host; step markers. The execution model
// (sim/engine/program/program_executor.h) replays it; the accesses (schema v1
// records) remain the policies' view: every copy that became access
// records names them (ProgramOp::first_access, access_count).
//
// Times are ns from the program's origin (its first API call). Version 1
// traces have no program; version 2 files without one read as version 1.
// Version 3 adds what the capture measured about its host (CaptureHost:
// per-copy host page residency, the host's own pageable copy curves, the
// capture's per-call cost) and the repeat marks; version 2 files read with
// those absent (docs/capture.md).
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "sim/core/units.h"

namespace flashsim {

inline constexpr std::uint32_t kNoStream = 0xFFFFFFFFu;
inline constexpr std::uint32_t kNoEvent = 0xFFFFFFFFu;
inline constexpr std::uint64_t kNoAccess = ~std::uint64_t{0};

/// What an API call does, as the execution model needs to know it.
enum class ProgramOpKind : std::uint8_t {
  host = 0,               ///< host time only (allocator, queries, anything else)
  kernel = 1,             ///< launches a kernel on `stream` (device time: gpu_ns)
  copy = 2,               ///< a copy on `stream` (direction, bytes, host memory kind)
  memset = 3,             ///< a memset on `stream` (device time: gpu_ns)
  event_record = 4,       ///< records `event` on `stream`
  stream_wait_event = 5,  ///< `stream` waits for the last record of `event`
  stream_sync = 6,        ///< host waits until `stream` has drained
  event_sync = 7,         ///< host waits for the last record of `event`
  device_sync = 8,        ///< host waits until every stream has drained
  step = 9,               ///< a step marker (NVTX mark or range start): host time 0
};

enum class CopyDirection : std::uint8_t { h2d = 0, d2h = 1, d2d = 2, other = 3 };

/// The host side of a copy: pinned copies are DMA'd directly; pageable ones
/// are staged by the driver through pinned buffers (sim/engine/copy_model.h).
enum class HostMemory : std::uint8_t { none = 0, pinned = 1, pageable = 2 };

struct ProgramOp {
  ProgramOpKind kind = ProgramOpKind::host;
  std::uint32_t thread = 0;  ///< dense host thread index
  Nanoseconds host_start_ns = 0;  ///< API enter (marker time for steps)
  Nanoseconds host_end_ns = 0;    ///< API exit (>= start)
  std::uint32_t stream = kNoStream;  ///< dense stream index (device ops, event ops, stream sync)
  std::uint32_t event = kNoEvent;    ///< dense event index (event ops)
  /// Device work: the recorded GPU duration of the kernel / memset / copy
  /// (for kernels the time the model charges; for copies only a record).
  Nanoseconds gpu_ns = 0;
  Nanoseconds gpu_start_ns = 0;  ///< recorded GPU start (diagnostics, as_recorded comparisons)
  ByteCount bytes = 0;
  CopyDirection direction = CopyDirection::other;
  HostMemory host_memory = HostMemory::none;
  /// The call returns only when the copy is done (cudaMemcpy, not *Async);
  /// pageable copies block whatever the call (sim/engine/copy_model.h).
  bool blocking = false;
  std::uint64_t first_access = kNoAccess;  ///< first access record this copy became
  std::uint32_t access_count = 0;          ///< how many (block_bytes pieces)
  /// Schema v3, pageable copies: bytes of the host range whose pages were not
  /// resident when the call was made (mincore at the API entry): a D2H copy
  /// into them takes first-touch page faults. 0 when not measured
  /// (CaptureHost::residency_recorded says whether it was).
  ByteCount host_fresh_bytes = 0;
};

/// One point of a copy-time curve fitted from a capture's own copies: the
/// median recorded GPU time of the `copies` copies of (about) that size.
struct CopyTimePoint {
  ByteCount bytes = 0;
  Nanoseconds ns = 0;
  std::uint32_t copies = 0;
};

/// The capture's own cost per API call of one kind, measured on the host
/// that captured by running a short loop of that call (the capture probe,
/// hw/capture/capture_probe.cu) without and under the injection library.
struct CaptureCallCost {
  std::string call;                  ///< probe loop: launch, copy_async, event_record, ... (docs/capture.md)
  Nanoseconds plain_ns = 0;          ///< host time per call, no capture attached
  Nanoseconds captured_ns = 0;       ///< host time per call under capture (wall clock of the loop)
  Nanoseconds recorded_gap_ns = 0;   ///< median recorded gap between consecutive calls (exit -> next enter)
};

/// Schema v3: what the capture recorded about the host it ran on. Every part
/// may be absent (empty / false): older captures, or a probe that failed.
struct CaptureHost {
  /// ProgramOp::host_fresh_bytes was measured for pageable D2H copies.
  bool residency_recorded = false;
  /// Pageable copy time against size, fitted from the capture's own copies
  /// (CUPTI GPU time, traces/importers/capture_host_facts.h): H2D, D2H into
  /// resident (touched) pages, D2H into fresh pages. Sorted by bytes.
  std::vector<CopyTimePoint> pageable_h2d, pageable_d2h, pageable_d2h_fresh;
  /// The probe's loops, before and after the program (both runs' medians).
  std::vector<CaptureCallCost> call_costs;

  /// The recorded gap the capture adds around a call of probe call `call`
  /// (half before it, half after); the median over the measured calls when
  /// `call` was not measured; 0 when none was.
  Nanoseconds gap_ns(std::string_view call) const;
  /// The capture's cost inside such a call: captured − plain − gap, floored at 0.
  Nanoseconds inside_ns(std::string_view call) const;
  bool empty() const {
    return !residency_recorded && pageable_h2d.empty() && pageable_d2h.empty() && pageable_d2h_fresh.empty() &&
           call_costs.empty();
  }
};

/// The program of a schema v2 trace.
struct Program {
  std::vector<ProgramOp> ops;  ///< sorted by host_start_ns (threads interleave)
  std::uint32_t thread_count = 0;
  std::uint32_t stream_count = 0;
  std::uint32_t event_count = 0;
  /// What marks a step: "nvtx:NAME", "kernel:NAME", "api:NAME" or "" (none).
  std::string step_rule;
  /// Schema v3: host times of the NVTX marks "flashsim.repeat" (the start of
  /// a repeat of the measured loop: one step regime each), sorted.
  std::vector<Nanoseconds> repeat_marks_ns;
  /// Schema v3: facts about the capturing host (empty for older traces).
  CaptureHost host;
  bool empty() const { return ops.empty(); }
  /// The schema version this program needs: 3 with repeat marks or host facts, else 2.
  int schema_version() const { return repeat_marks_ns.empty() && host.empty() ? 2 : 3; }
};

/// A step mark on `thread` at `at_ns` (host time; start = end).
inline ProgramOp step_op(std::uint32_t thread, Nanoseconds at_ns) {
  ProgramOp s;
  s.kind = ProgramOpKind::step;
  s.thread = thread;
  s.host_start_ns = s.host_end_ns = at_ns;
  return s;
}

/// One line for people: ops, threads, streams, events, steps and the step rule.
std::string describe_program(const Program& program);

/// One line for people: what the capture measured about its host.
std::string describe_capture_host(const CaptureHost& host);

/// The capture probe's loop that stands for `op`'s call: "launch",
/// "copy_async", "sync_copy" (a blocking copy), "event_record",
/// "stream_wait_event", "stream_sync", "event_sync", "device_sync",
/// "host_call"; "" for a step mark (no API call).
std::string_view probe_call_for(const ProgramOp& op);

/// The probe's nine loops by name, in its order (hw/capture/capture_probe.cu).
inline constexpr std::string_view kProbeCalls[] = {"launch",      "copy_async", "sync_copy",
                                                   "event_record", "stream_wait_event", "stream_sync",
                                                   "event_sync",  "device_sync", "host_call"};
/// True when `name` is one of kProbeCalls.
bool is_probe_call(std::string_view name);

/// Checks the invariants above (indices in range, times ordered, accesses
/// within `record_count`); returns "" or what is wrong with which op.
std::string check_program(const Program& program, std::uint64_t record_count);

}  // namespace flashsim
