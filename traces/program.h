// Trace schema v2: the program behind the accesses. Per host thread, the
// CUDA API calls in order with their host times; per stream, the device
// operations they issued; the event record / wait / synchronise calls that
// order streams and block the host; step markers. The execution model
// (sim/engine/program_executor.h) replays it; the accesses (schema v1
// records) remain the policies' view: every copy that became access
// records names them (ProgramOp::first_access, access_count).
//
// Times are ns from the program's origin (its first API call). Version 1
// traces have no program; version 2 files without one read as version 1.
#pragma once
#include <cstdint>
#include <string>
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
};

/// The program of a schema v2 trace.
struct Program {
  std::vector<ProgramOp> ops;  ///< sorted by host_start_ns (threads interleave)
  std::uint32_t thread_count = 0;
  std::uint32_t stream_count = 0;
  std::uint32_t event_count = 0;
  /// What marks a step: "nvtx:NAME", "kernel:NAME", "api:NAME" or "" (none).
  std::string step_rule;
  bool empty() const { return ops.empty(); }
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

/// Checks the invariants above (indices in range, times ordered, accesses
/// within `record_count`); returns "" or what is wrong with which op.
std::string check_program(const Program& program, std::uint64_t record_count);

}  // namespace flashsim
