// `flashsim calibrate`: microbenchmarks that measure the constants of a
// hardware profile (sim/engine/hardware_profile.h) on the GPU at hand, and
// the profile YAML (scenarios/hardware/<name>.yaml) written from them, each
// value with a comment saying how it was measured and its spread.
//
// Every figure is measured `repeats` times (>= 5); a repeat is itself the
// median of several timed iterations; a figure keeps the median of its
// repeats and their min and max. Timing: CUDA events around each copy;
// clock64 and %globaltimer inside the dependent-load kernels.
//
// Benchmarks, by group (`--only` picks groups; docs/hardware.md describes
// them in full):
//   copies      H2D and D2H time against size (256 B .. 256 MiB), pinned and
//               pageable host memory (both to 256 MiB), one copy at a time on
//               one stream; a fit t = latency + bytes / bandwidth by least
//               squares on the relative error
//   concurrent  256 MiB H2D split over 1, 2, 4, 8 streams; H2D and D2H at once
//   chase       dependent ld.global.cg loads (L1 bypassed), 256 B stride,
//               random cyclic order, against working set (1 MiB .. 2 GiB):
//               L2 hit (near and far partitions averaged), HBM. A cycle that
//               fits the L2 is walked whole before timing; each repeat
//               continues where the last stopped, so on a longer cycle no
//               timed load meets a line a previous repeat left in L2
//   tlb         one dependent load per 2 MiB page, random page order, line
//               offset varied within the page, against span (2 .. 128 GiB)
//   hbm         a streaming read of 4 GiB (the replay's consume kernel)
//   contention  the seed's "4.3 ns per extra MiB" probe: a fixed stream of
//               dependent loads over a 32 MiB hot set (warmed into L2), timed
//               after N MiB of other resident blocks of the same pool were
//               read, N = 0 .. 16 GiB; slope by least squares per repeat
//   execution   constants of the execution model (host threads issuing CUDA
//               calls, streams executing them): the host cost of each CUDA
//               API call (std::chrono::steady_clock around a loop of 2000
//               calls and nothing else, on a dedicated non-blocking stream,
//               drained between timed loops, not inside): cudaLaunchKernel
//               of an empty kernel, cudaMemcpyAsync 4 KiB pinned H2D,
//               cudaEventRecord, cudaStreamWaitEvent of a completed event,
//               cudaStreamSynchronize of an idle stream, cudaEventSynchronize
//               of a completed event, cudaDeviceSynchronize of an idle
//               device, a blocking 4 B cudaMemcpy D2H; and host std::memcpy
//               bandwidth of 256 MiB, pageable -> pinned (a driver staging
//               copy) and pageable -> pageable
// The profile's `execution:` section also carries the copies group's
// pageable points and pinned fits and the concurrent group's duplex figure.
#pragma once
#include <cstdint>
#include <filesystem>
#include <ostream>
#include <string>
#include <vector>

#include "hw/device_info.h"
#include "sim/core/units.h"

namespace flashsim::hw {

/// A measured figure: median of the repeats, their min and max, the repeats.
struct Measured {
  double median = 0, min = 0, max = 0;
  std::vector<double> samples;
  /// From repeat values; throws nothing (all 0 when empty).
  static Measured of(std::vector<double> samples);
  /// (max - min) / median; 0 when median is 0.
  double spread() const { return median != 0 ? (max - min) / median : 0.0; }
};

struct CopyPoint {
  ByteCount bytes = 0;
  Measured h2d_us, d2h_us;
};

/// t = latency + bytes / bandwidth fitted to a copy curve.
struct LinkFit {
  double latency_ns = 0;
  double bandwidth_bytes_per_s = 0;
  double max_abs_residual = 0;  ///< largest |fit - measured| / measured
};

struct StreamPoint {
  unsigned streams = 0;
  Measured gb_per_s;  ///< aggregate (1e9 B/s)
};

struct ChasePoint {
  ByteCount working_set_bytes = 0;
  Measured ns, cycles;
};

struct TlbPoint {
  ByteCount span_bytes = 0;
  std::uint64_t pages = 0;
  Measured ns;
};

struct ContentionPoint {
  ByteCount other_bytes = 0;
  Measured ns;  ///< per dependent load of the hot stream
};

/// Host cost of one CUDA API call: steady_clock around `calls` calls in a
/// loop with nothing else, ns per call.
struct ApiCost {
  Measured ns;        ///< per call: median over repeats of each repeat's median iteration
  Measured drain_us;  ///< after each timed loop, the wait for the stream to finish (the GPU's lag behind the host)
  unsigned calls = 0;  ///< calls per timed iteration
};

/// The execution model's constants (group `execution`).
struct ExecutionConstants {
  ApiCost launch;             ///< cudaLaunchKernel, empty kernel <<<1, 32>>> on the stream
  ApiCost copy_async;         ///< cudaMemcpyAsync 4 KiB pinned host -> device on the stream (issue cost)
  ApiCost event_record;       ///< cudaEventRecord, event with cudaEventDisableTiming
  ApiCost stream_wait_event;  ///< cudaStreamWaitEvent of a completed event
  ApiCost stream_sync;        ///< cudaStreamSynchronize of an idle stream
  ApiCost event_sync;         ///< cudaEventSynchronize of a completed event
  ApiCost device_sync;        ///< cudaDeviceSynchronize, device idle
  ApiCost sync_copy_small;    ///< blocking cudaMemcpy of 4 B device -> pinned host (round trip)
  ByteCount host_memcpy_bytes = 0;
  Measured host_memcpy_gb_per_s;           ///< std::memcpy pageable -> pinned (1e9 B/s)
  Measured host_memcpy_pageable_gb_per_s;  ///< std::memcpy pageable -> pageable (1e9 B/s)
};

/// The benchmark groups, in the order they run: copies, concurrent,
/// execution, hbm, chase, tlb, contention.
const std::vector<std::string>& calibration_groups();

/// "copies,concurrent,execution" -> those names; throws InputError naming an
/// unknown or repeated group, or for an empty list.
std::vector<std::string> parse_calibration_groups(const std::string& comma_separated);

struct CalibrationOptions {
  std::vector<std::string> only;  ///< groups to run (calibration_groups()); empty = all
  int device = 0;
  int repeats = 5;              ///< >= 5 (InputError otherwise)
  bool quick = false;           ///< fewer sizes and smaller spans (tests): minutes -> seconds
  ByteCount tlb_max_span_bytes = 128 * kGiB;  ///< clamped to the free device memory less 4 GiB
  ByteCount contention_max_bytes = 16 * kGiB;
};

struct CalibrationReport {
  DeviceInfo device;
  std::string date_utc;
  int repeats = 0;
  /// Groups not run (--only); empty = all ran. With any skipped the profile
  /// written is partial (its header says so) and not a complete profile.
  std::vector<std::string> skipped_groups;
  std::vector<CopyPoint> pinned, pageable;
  std::vector<CopyPoint> pageable_fresh_d2h;  ///< D2H into never-touched host memory (h2d_us unused)
  LinkFit h2d_pinned, d2h_pinned, h2d_pageable, d2h_pageable;
  std::vector<StreamPoint> concurrent_h2d;
  Measured bidirectional_gb_per_s;  ///< H2D + D2H at once, aggregate
  std::vector<ChasePoint> chase;
  std::vector<TlbPoint> tlb;
  std::uint64_t tlb_reach_pages = 0;   ///< most pages with no latency rise (0 = no rise seen)
  double tlb_miss_penalty_ns = 0;      ///< from spans past the reach (0 = none seen)
  Measured hbm_read_gb_per_s;
  std::vector<ContentionPoint> contention;
  Measured contention_slope_ns_per_mib;  ///< per-repeat least-squares slopes
  bool contention_slope_measurable = false;  ///< 0 lies outside [min, max] of the slopes
  double sm_clock_ghz = 0;             ///< cycles / ns of the chase kernels
  ExecutionConstants execution;
  /// Whether `group` ran (not in skipped_groups).
  bool ran(const std::string& group) const;
};

/// Runs every benchmark on options.device. Progress lines go to `log` (may
/// be null). Throws InputError (repeats < 5) or Error (CUDA, naming the call).
CalibrationReport run_calibration(const CalibrationOptions& options, std::ostream* log);

/// The hardware profile YAML (the keys of scenarios/hardware/h200.yaml, and
/// `execution:`), each value with its provenance comment. With skipped
/// groups: only what was measured, under a header naming the skipped groups.
std::string profile_yaml(const CalibrationReport& report, const std::string& name);

/// Least-squares fit of t = L + b / B on relative error over `points`
/// (bytes, seconds); throws nothing (zeros for fewer than 2 points).
LinkFit fit_link(const std::vector<std::pair<double, double>>& bytes_seconds);

}  // namespace flashsim::hw
