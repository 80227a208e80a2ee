// `flashsim timeline`: a run as a Chrome / Perfetto trace (Trace Event
// Format JSON, loadable in ui.perfetto.dev and chrome://tracing), so that a
// simulated run and its GPU replay can be looked at side by side.
//
// Results keep no per-event data, so a simulator run (engine: event) is
// run again from its resolved scenario (results.h5 /scenario, as diagnose's
// levers do) with an IEngineObserver (sim/engine/event/engine_observer.h)
// recording it; a GPU replay's run is read from its access log
// (access_log_run_NNN.h5: per access, the consume kernel's start and
// duration). Each results folder is one process ("simulator" or
// "hardware"); both use the same track names:
//   stream S accesses   one slice per access. Simulator: issue to
//                       completion, named hit / miss / delayed hit /
//                       bypass / write allocation / write-through; args
//                       block, bytes, record. Hardware: the replay's latency
//                       (end of the previous kernel to this one's start),
//                       named "access" (the log has no outcome).
//   stream S compute    simulator: the compute between accesses (closed
//                       loop: compute_ns or gap); hardware: the consume kernel.
//   stream S stalls     simulator: the stalled accesses again (their whole
//                       latency is stall, as stall_ns counts it).
//   link A->B (H2D)     simulator: each copy over that link (args block,
//                       bytes); prefetch and bypass copies named so.
//   link B->A (D2H)     simulator: write-backs of dirty blocks, instants
//                       (the engine gives them no time).
//   evictions           simulator: blocks leaving the fast tier, instants.
//   prefetches          simulator: prefetches issued, instants.
// Counters (process tracks): "fast tier occupancy bytes" (simulator: every
// change; hardware: per window), and per window of the results' time series
// "hit ratio by access" and "link utilisation share".
// Slices that overlap on one track (fair-shared links, open-loop streams)
// are spread over lanes named "TRACK (2)", "TRACK (3)", ...
// Times: ns from the run's start, written as µs with three decimals (exact).
#pragma once
#include <cstdint>
#include <filesystem>
#include <ostream>
#include <string>
#include <vector>

#include "sim/core/units.h"

namespace flashsim::report {

/// Builds a Trace Event Format document in memory and writes it.
class TraceEvents {
 public:
  /// At most `max_events` slices, instants and counter values per process
  /// (metadata not counted); 0 = no cap.
  explicit TraceEvents(std::uint64_t max_events) : max_events_(max_events) {}

  /// A new process named `name` (its tracks are added to it); returns its id.
  std::uint32_t add_process(const std::string& name);
  /// A track `name` of process `pid` (the same name returns the same track).
  std::uint32_t track(std::uint32_t pid, const std::string& name);

  /// One argument of an event: a key and an integer or a text value.
  struct Arg {
    std::string key;
    std::int64_t number = 0;
    std::string text;  ///< written instead of `number` when not empty
  };
  /// A slice [start_ns, end_ns] on `track` (end_ns >= start_ns). False when
  /// the process's cap is reached (the event is counted as dropped).
  bool slice(std::uint32_t track, const std::string& name, Nanoseconds start_ns, Nanoseconds end_ns,
             std::vector<Arg> args = {});
  /// An instant at `time_ns` on `track`. False when capped.
  bool instant(std::uint32_t track, const std::string& name, Nanoseconds time_ns, std::vector<Arg> args = {});
  /// A value of counter `name` (its track: "NAME UNIT") of process `pid`. False when capped.
  bool counter(std::uint32_t pid, const std::string& name, const std::string& unit, Nanoseconds time_ns, double value);

  /// Whether process `pid` reached its cap.
  bool full(std::uint32_t pid) const;
  std::uint64_t written(std::uint32_t pid) const { return processes_.at(pid - 1).events; }
  std::uint64_t dropped(std::uint32_t pid) const { return processes_.at(pid - 1).dropped; }
  /// A note kept in the document's metadata (flashsim.notes).
  void note(const std::string& text) { notes_.push_back(text); }

  /// The document as JSON text ({"traceEvents": [...], "metadata": {"flashsim": ...}}); ts and
  /// dur in µs, the format's default unit.
  std::string json() const;
  /// json() written to `path` through a temp file renamed into place
  /// (traces/atomic_file.h). Throws Error naming the path.
  void write(const std::filesystem::path& path) const;

 private:
  struct Event {
    std::uint32_t pid;
    std::uint32_t track;     // index into tracks_ (counters: unused)
    char phase;              // 'X', 'i', 'C'
    std::uint32_t name;      // index into names_
    Nanoseconds start_ns, end_ns;
    double value;            // counter
    std::vector<Arg> args;   // counter: one, whose key is the unit
  };
  struct Track {
    std::uint32_t pid;
    std::string name;
  };
  struct Process {
    std::string name;
    std::uint64_t events = 0, dropped = 0;
  };
  bool admit(std::uint32_t pid);
  std::uint32_t name_id(const std::string& name);

  std::uint64_t max_events_;
  std::vector<Process> processes_;
  std::vector<Track> tracks_;
  std::vector<std::string> names_;
  std::vector<Event> events_;
  std::vector<std::string> notes_;
};

struct TimelineOptions {
  std::size_t run = 0;                 ///< the run (summary.json runs[].run) of every results folder
  std::uint64_t max_events = 300'000;  ///< per side (TraceEvents)
};

/// What a side added.
struct TimelineSide {
  std::string process;     ///< "simulator" or "hardware"
  std::string run_label;   ///< "run 0: lru @ 50%"
  std::uint64_t events = 0, dropped = 0;
  Nanoseconds span_ns = 0;       ///< the run's simulated_ns
  Nanoseconds covered_ns = 0;    ///< how far the events reach (< span_ns when truncated)
  std::string note;        ///< e.g. the re-run differs from the stored run; "" when none
};

/// Adds run `options.run` of a results folder (of `flashsim run` or
/// `flashsim replay`; the folder or its summary.json) to `events`: a
/// simulator run re-run with an observer, a replay's run from its access
/// log. Throws InputError naming the file and key when the folder is not
/// one, the run is missing, its engine has no time (cache_only) or is a
/// captured program, results.h5 lacks /scenario or /timeseries, or the
/// access log is missing; Error from the re-run.
TimelineSide add_results_run(TraceEvents& events, const std::filesystem::path& results,
                             const TimelineOptions& options);

}  // namespace flashsim::report
