// The capture's facts about its host (trace schema v3, Program::host),
// worked out from what the capture recorded. CUDA-free (CI tests it).
//  * Pageable copy curves: per class (H2D; D2H into resident pages; D2H into
//    fresh pages, more than half its bytes not resident at the call), the
//    copies' recorded GPU time (CUPTI's memcpy record spans the driver's
//    whole staged copy) grouped by size — each distinct size a point while
//    there are at most kMaxExactSizes of them, else quarter-octave bins —
//    each point the median size and median time of its copies, made
//    non-decreasing in size by pool-adjacent-violators (weighted by copies).
//  * The capture's per-call cost: the capture probe (hw/capture/
//    capture_probe.cu) times short loops of one API call each, plain and
//    under the injection library, before and after the program. Its timing
//    files give the host time per call; its raw captures the recorded gap
//    between consecutive calls of a loop (CUPTI's cost that lands outside
//    the calls, what inflates a program's recorded host gaps).
#pragma once
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "traces/importers/cupti_raw.h"
#include "traces/program.h"

namespace flashsim::capture {

inline constexpr std::size_t kMaxExactSizes = 64;
inline constexpr std::size_t kMinCurveCopies = 3;  ///< fewer copies of a class: no curve

/// Fits a curve to (bytes, ns) samples by the rule above; empty with fewer
/// than kMinCurveCopies usable samples (bytes > 0, ns > 0).
std::vector<CopyTimePoint> fit_copy_time_curve(std::vector<std::pair<ByteCount, Nanoseconds>> samples);

/// Sets program.host's three pageable curves from its copy ops (gpu_ns,
/// bytes, host_fresh_bytes when residency was recorded).
void fit_pageable_curves(Program& program);

/// One probe run's timing file ("flashsim-capture-probe 1", then lines
/// "CALL NS_PER_CALL CALLS").
struct ProbeTiming {
  std::vector<std::pair<std::string, double>> ns_per_call;  ///< in the file's order
};

/// Reads a timing file. Throws InputError naming the file and line.
ProbeTiming read_probe_timing(const std::filesystem::path& path);

/// The probe call a loop of API calls named `api_name` (cuptiGetCallbackName,
/// e.g. "cudaLaunchKernel_v7000") belongs to, or "" for none.
std::string probe_call_of(const std::string& api_name);

/// The call costs: per probe call, the median over `plain` of its host time
/// (plain_ns), over `captured` (captured_ns), and over `captured_raw` of
/// the median gap between consecutive records of its loop (the longest run
/// of one call on one thread). Calls missing from any side are left out.
std::vector<CaptureCallCost> probe_call_costs(const std::vector<ProbeTiming>& plain,
                                              const std::vector<ProbeTiming>& captured,
                                              const std::vector<RawCapture>& captured_raw);

/// Reads a probe folder as `flashsim capture` leaves it (plain-*.txt,
/// captured-*.txt, raw/*.raw) and returns probe_call_costs of it; empty when
/// the folder does not exist. What it cannot use is appended to `warnings`
/// (each naming the folder or file): a damaged timing file (skipped), no
/// plain or captured timing files, no raw capture of the probe, and probe
/// calls left out for want of a side. Throws nothing for its content.
std::vector<CaptureCallCost> read_probe_dir(const std::filesystem::path& dir, std::vector<std::string>& warnings);

}  // namespace flashsim::capture
