// Raw CUPTI capture (format 2) → the program of a schema v2 trace
// (traces/program.h): what each host thread called, in order, with its host
// times, and what each call put on which stream. CUDA-free (CI tests it on
// synthetic records).
//
// The rules:
//  * Host calls: the API activity records (runtime, and driver calls not made
//    inside a runtime call on the same thread — cuBLAS and Triton launch
//    through the driver). Threads are dense per (process, OS thread) in order
//    of first call.
//  * What a call did: its kernels, copies and memsets (joined by correlation
//    id as for the accesses, traces/importers/cupti_capture.h), its
//    synchronisation record (event / stream / context synchronise, stream wait
//    event) or event record; else it is host time only. A call that issued
//    several device operations becomes one op per operation, the later ones
//    with no host time of their own.
//  * A copy blocks the host when its call is not an *Async one (the name of
//    the callback id); pageable copies are left to the execution model.
//  * Steps: NVTX marks (or range starts) named options.step_marker; a mark
//    named "flashsim.end" closes the last step. Marks named
//    options.repeat_marker start a repeat (Program::repeat_marks_ns).
//  * Host facts (schema v3, traces/importers/capture_host_facts.h): each
//    pageable D2H copy's fresh destination bytes (raw v3 residency), and
//    the pageable copy curves fitted from the copies' recorded GPU time. Without such marks, the
//    launches of kernels whose name contains options.step_kernel; without
//    that, the API call of each copy that starts a new token of the access
//    records (their token_index: the most-read-block rule).
#pragma once
#include <filesystem>
#include <string>
#include <vector>

#include "traces/importers/cupti_capture.h"
#include "traces/program.h"

namespace flashsim::capture {

struct ProgramOptions {
  std::string step_marker = "flashsim.step";  ///< NVTX mark name that starts a step
  std::string step_kernel;                    ///< if no marks: a kernel-name substring that starts a step
  std::string repeat_marker = "flashsim.repeat";  ///< NVTX mark that starts a repeat (a step regime)
  /// The capture probe's folder (read_probe_dir): the capture's per-call
  /// cost; empty or absent: not measured.
  std::filesystem::path probe_dir;
};

/// Where `flashsim capture` leaves the probe's files inside the raw folder.
inline constexpr const char* kProbeFolder = "probe";

/// What building the program found (for `flashsim capture`'s summary).
struct ProgramReport {
  std::uint64_t api_calls = 0, ops = 0, threads = 0, streams = 0, events = 0;
  std::uint64_t kernels = 0, copies = 0, syncs = 0, event_records = 0, stream_waits = 0, steps = 0;
  std::uint64_t repeat_marks = 0;
  std::uint64_t unmatched_device_ops = 0;  ///< device operations with no API call (not in the program)
  Nanoseconds api_host_ns = 0;             ///< sum of API call durations
  std::vector<std::string> warnings;        ///< what could not be used (a damaged probe folder), for people
};

/// Builds the program from format-2 raw captures and their conversion
/// (`converted` = convert_capture(processes, ...)). Returns an empty Program
/// when the captures hold no API records (format 1). Throws InputError
/// naming `source` when the result breaks check_program.
Program build_program(const std::vector<RawCapture>& processes, const ConvertedCapture& converted,
                      const ProgramOptions& options, const std::string& source, ProgramReport* report = nullptr);

/// build_program, then attach the program (if any) to converted.meta
/// (schema_version 2). The one step the capture command and the "cupti"
/// trace format share.
void attach_program(ConvertedCapture& converted, const std::vector<RawCapture>& processes,
                    const ProgramOptions& options, const std::string& source, ProgramReport* report = nullptr);

/// One line for people: calls, threads, streams, steps.
std::string describe(const ProgramReport& report);

}  // namespace flashsim::capture
