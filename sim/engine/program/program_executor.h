// The execution model of real programs: replays the program of a schema v2
// trace (traces/program.h) as CUDA runs it.
//  * Host threads issue their calls in recorded order, spending the recorded
//    host time between calls (the gap from one call's exit to the next one's
//    entry) and each call's own host cost (HostTime below).
//  * A call blocks the host as CUDA defines: synchronisations until their
//    stream / event / device is done; a copy from a non-*Async call until it
//    completes; a pageable copy always (the driver stages it); everything
//    else returns at once.
//  * Streams run their operations in order; an event record completes when
//    its stream reaches it, a stream wait holds its stream until the last
//    record of the event made before the wait was issued completes.
//  * Kernels and memsets take their recorded GPU time (kernels on different
//    streams overlap freely). Copies use one copy engine per direction (FIFO
//    in issue order): pinned t = latency + bytes / bandwidth, at most
//    duplex_bandwidth / 2 while the other direction's engine is busy;
//    pageable copies take the calibrated curve's time (ExecutionSpec).
//  * The fast tier: with a policy (not "as_recorded"), every H2D copy that
//    became access records asks the shared access protocol
//    (sim/cache/tier_session.h) about each of them in program order; bytes
//    that hit are not copied (a copy that hits entirely takes no time), a
//    miss keeps its bytes. "as_recorded" makes every copy the program made.
// Time per step: from one step marker's host time to the next.
#pragma once
#include <string>
#include <vector>

#include "sim/cache/cache_config.h"
#include "sim/engine/hardware_profile.h"
#include "sim/metrics/metrics.h"
#include "traces/access_record.h"
#include "traces/program.h"
#include "traces/trace_source.h"

namespace flashsim {

/// The host cost charged for a call that does not block.
enum class HostTime {
  recorded,    ///< the call's recorded duration (includes the capture's own cost)
  calibrated,  ///< ExecutionSpec's api_* cost for launches, copies, event records, waits; recorded for the rest
};

/// Where the pageable copy curves come from.
enum class CopyCurveSource {
  capture,  ///< the trace's own curves (schema v3, fitted at capture from its copies) where it has them, else the profile's
  fit,      ///< fitted now from the trace's copies by the same rule (any schema: older traces too)
  profile,  ///< the hardware profile's execution: curves
};

/// Which pageable D2H copies land in fresh host pages (first-touch faults).
enum class FreshPages {
  per_copy,  ///< each copy's recorded fresh bytes (schema v3 residency); none where not recorded
  all,       ///< every one (the user's statement: `.to("cpu")` into new tensors)
  none,      ///< none (the touched-buffer curve for all)
};

/// ExecutorOptions::capture_gap_ns: the trace's measured capture cost.
inline constexpr Nanoseconds kMeasuredCaptureGap = -1;

struct ExecutorOptions {
  HostTime host_time = HostTime::calibrated;
  HostMemoryMode host_memory = HostMemoryMode::as_recorded;
  /// ns subtracted from every recorded host gap between two calls (the
  /// capture's per-call cost that lands outside the calls), floored at 0.
  /// kMeasuredCaptureGap: the trace's probe figures (schema v3), half of the
  /// earlier call's gap and half of the later one's (0 without them); the
  /// capture's cost inside host-only calls comes off their recorded time too.
  Nanoseconds capture_gap_ns = kMeasuredCaptureGap;
  /// Copies that move all their recorded bytes take their recorded GPU time
  /// instead of the model's (an attribution run: how much of an error is the
  /// copy model's; not a prediction).
  bool recorded_copy_time = false;
  CopyCurveSource copy_curves = CopyCurveSource::capture;
  /// A copy's fresh share f takes touched(b) + f · (fresh(b) − touched(b)),
  /// the fresh curve from the trace or the profile (none: touched only).
  FreshPages fresh_pages = FreshPages::per_copy;
  /// "as_recorded" or a fast tier (cache.policy and capacity): see above.
  bool as_recorded = true;
  CacheConfig cache;
};

/// Where each figure of a run came from (flashsim predict prints it).
struct PredictionSources {
  std::string pageable_h2d, pageable_d2h, pageable_d2h_fresh;  ///< "capture (N sizes, M copies)" / "profile NAME" / "none"
  std::string fresh_pages;   ///< "per copy (capture)", "all", "none", "none (not recorded)"
  std::string capture_cost;  ///< "measured at capture (median gap N ns)", "N ns (--capture-gap)", "none"
  /// What a reader should know the figures lack (e.g. fresh pages recorded
  /// but no fresh-page curve to time them); predict prints each as a warning.
  std::vector<std::string> warnings;
};

struct ProgramPrediction {
  std::vector<Nanoseconds> step_start_ns;     ///< simulated host time of each step marker
  std::vector<Nanoseconds> recorded_step_ns;  ///< the marker's recorded host time (the captured run)
  Nanoseconds end_ns = 0;                     ///< when the last thread finished
  std::uint64_t copies = 0, copies_removed = 0;
  ByteCount h2d_bytes = 0, d2h_bytes = 0, bytes_removed = 0;
  Nanoseconds host_blocked_ns = 0;  ///< host time spent waiting in blocking calls
  /// Per direction (0 H2D, 1 D2H) and host memory (0 pinned, 1 pageable):
  /// copies, the model's copy time and the recorded GPU time of the same
  /// copies (what the model misses shows here first).
  std::uint64_t copy_count[2][2] = {{0, 0}, {0, 0}};
  Nanoseconds copy_model_ns[2][2] = {{0, 0}, {0, 0}};
  Nanoseconds copy_recorded_ns[2][2] = {{0, 0}, {0, 0}};
  /// The fast tier's decisions (policy runs); as_recorded: every access a
  /// miss served by the program's copy (bytes_fetched = the H2D bytes).
  AccessCounters counters;
  PredictionSources sources;

  /// Median of step_durations(skip, recorded) in ns (0 with no step).
  double median_step_ns(std::size_t skip, bool recorded = false) const;
  /// Durations between consecutive markers, after skipping `skip` steps.
  std::vector<Nanoseconds> step_durations(std::size_t skip, bool recorded = false) const;
};

/// Why a trace without a program cannot be predicted, in one wording for
/// every command: "has no program (trace schema 1: records only; ...): ..."
/// with what to do (capture it, or import Kineto/nsys with program: on).
std::string no_program_reason(const TraceMeta& meta);

/// Runs the model. `records` are the trace's access records (the copies'
/// blocks); `meta` its catalog. Throws InputError when the trace has no
/// program or the program references records it lacks, or when
/// FreshPages::all finds no fresh-page D2H curve (neither the trace's, as
/// the copy-curve source gives it, nor the profile's); Error when the
/// simulation deadlocks (a wait on an event never recorded cannot happen;
/// a stream waiting forever means a malformed program, named by its op).
ProgramPrediction run_program(const TraceMeta& meta, const std::vector<AccessRecord>& records,
                              const HardwareProfile& hardware, const ExecutorOptions& options);

}  // namespace flashsim
