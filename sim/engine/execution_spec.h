// What the execution model of real programs (sim/engine/program/program_executor.h)
// needs to know about the machine: the copy engines of each direction and
// their duplex limit, pageable (staged) copy time against size in both
// directions, and the host cost of the CUDA API calls it charges. Every
// figure comes from the `execution:` section of a hardware profile, as
// `flashsim calibrate` measures it (hw/calibrate/calibrate.h;
// scenarios/hardware/h200-calibrated.yaml); the defaults are neutral
// except the link figures, which default to the tier link's.
#pragma once
#include <string_view>
#include <utility>
#include <vector>

#include "sim/core/params.h"
#include "sim/core/units.h"

namespace flashsim {

/// Copy time against size, measured: (bytes, ns) points sorted by bytes.
/// time(b) interpolates linearly between the two neighbouring points and
/// extends the first / last segment beyond them. Empty: no curve.
struct CopyCurve {
  std::vector<std::pair<ByteCount, Nanoseconds>> points;
  bool empty() const { return points.empty(); }
  /// Nanoseconds for `bytes` (0 for an empty curve or bytes 0).
  Nanoseconds time_ns(ByteCount bytes) const;
};

/// A copy curve measured on the program's own host over the sizes it saw
/// (`inner`, a capture's fit), and another (`outer`, the profile's) beyond
/// them, scaled to meet `inner` at its nearest end. Either may be empty.
struct BlendedCopyCurve {
  CopyCurve inner, outer;
  bool empty() const { return inner.empty() && outer.empty(); }
  /// Nanoseconds for `bytes` by the rule above (0 when both are empty).
  Nanoseconds time_ns(ByteCount bytes) const;
};

/// Host memory of a program's copies (the program engine; a what-if: the
/// same program with its host buffers pinned, or pageable).
enum class HostMemoryMode { as_recorded, pinned, pageable };

/// "pinned" | "pageable" | anything else: as_recorded (callers check the
/// choice: workload.host_memory, flashsim predict --host-memory).
HostMemoryMode host_memory_mode(std::string_view text);

struct ExecutionSpec {
  // Pinned copies: t = latency + bytes / bandwidth per direction; with both
  // directions busy at once, each gets at most duplex_bandwidth / 2.
  Nanoseconds h2d_latency_ns = 0;
  BytesPerSecond h2d_bandwidth = 0;  ///< 0: the host link's bandwidth
  Nanoseconds d2h_latency_ns = 0;
  BytesPerSecond d2h_bandwidth = 0;  ///< 0: the host link's bandwidth
  BytesPerSecond duplex_bandwidth = 0;  ///< 0: no duplex limit
  // Pageable copies: the measured curves (the driver stages them through
  // pinned buffers; the host is blocked for the whole copy).
  CopyCurve pageable_h2d, pageable_d2h;
  /// Pageable D2H into host memory never touched (first-touch faults in the
  /// staging copy: `.to("cpu")` into a new tensor); may be empty.
  CopyCurve pageable_d2h_fresh;
  BytesPerSecond host_memcpy_bandwidth = 0;  ///< pageable -> pinned memcpy (record only)
  // Host cost of API calls, ns per call (no capture attached).
  Nanoseconds api_launch_ns = 0;
  Nanoseconds api_copy_async_ns = 0;
  Nanoseconds api_event_record_ns = 0;
  Nanoseconds api_stream_wait_event_ns = 0;
  Nanoseconds api_stream_sync_ns = 0;
  Nanoseconds api_event_sync_ns = 0;
  Nanoseconds api_device_sync_ns = 0;
  Nanoseconds api_sync_copy_small_ns = 0;
  bool calibrated = false;  ///< the profile has an execution: section

  /// Scalar keys (the *_points lists are read by the hardware loader).
  static const std::vector<ParamSpec>& param_specs();
  static ExecutionSpec from(const ParamValues& values);
};

/// Parses a "[[bytes, ns], ...]" list given as (bytes, ns) pairs: sorts by
/// bytes and checks that bytes and times are positive and time does not
/// fall as size grows. Throws InputError naming `key`.
CopyCurve make_copy_curve(std::vector<std::pair<double, double>> points, const std::string& key);

}  // namespace flashsim
