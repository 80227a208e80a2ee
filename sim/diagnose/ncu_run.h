// Running a program under Nsight Compute for the L2 hit rate (`flashsim
// diagnose --counters`), bounded and with progress: ncu replays each
// profiled kernel launch several times (one pass per metric group), so the
// program slows by a per-launch cost that the launch budget and the
// timeout bound. Costs measured on two H100 hosts (the lent machine that
// day): docs/diagnose.md "Cost of --counters",
// validate/baselines/h100/diagnose-counters/.
#pragma once
#include <filesystem>
#include <fstream>
#include <ostream>
#include <regex>
#include <string>
#include <vector>

#include "sim/diagnose/ncu_l2.h"

namespace flashsim::diagnose {

struct NcuRunOptions {
  std::string ncu = "ncu";        ///< the Nsight Compute CLI (looked up on PATH)
  long long launches = kDefaultNcuLaunches;  ///< ncu --launch-count: launches profiled at most
  double timeout_s = kDefaultNcuTimeoutSeconds;  ///< 0 = none
  std::string weight_kernels;     ///< ncu -k regex: (the kernels that read weights)
  /// 100 launches at 0.21–0.23 s each added 20–25 s to the program's own
  /// 13–19 s (measured above): the live diagnose took 49 and 65 s.
  static constexpr long long kDefaultNcuLaunches = 100;
  static constexpr double kDefaultNcuTimeoutSeconds = 300;
};

/// Follows ncu's log file as it grows: one "==PROF== Profiling" line per
/// profiled launch, "==ERROR==" lines kept for messages.
class NcuLogFollower {
 public:
  explicit NcuLogFollower(std::filesystem::path log) : log_(std::move(log)) {}
  /// Reads what was appended since the last call; returns launches profiled so far.
  std::size_t poll();
  std::size_t profiled() const { return profiled_; }
  /// The last ==ERROR== lines (at most 5), in order.
  const std::vector<std::string>& errors() const { return errors_; }

 private:
  std::filesystem::path log_;
  std::ifstream in_;
  std::string partial_;
  std::size_t profiled_ = 0;
  std::vector<std::string> errors_;
};

/// "profiled 37 of at most 100 launches (--ncu-launches), 41 s".
std::string ncu_progress_text(std::size_t profiled, long long budget, double elapsed_s);

/// Runs `command` under ncu (clocks and caches as they are, the SM-lookup
/// metrics of kNcuL2Metrics, --target-processes all) into a report
/// `dir`/ncu.ncu-rep with its log in `dir`/ncu.log, then prints the report
/// as CSV (`ncu --import ... --csv`, `dir`/ncu.csv), writing a progress
/// line to `progress` every 10 s (on a terminal one line rewritten in place
/// every second), and reads the result.
/// Throws Error naming the real cause: ncu not found ("is Nsight Compute
/// installed? --ncu PATH"), the timeout (what was profiled by then, and
/// what to lower), a signal from outside (Ctrl-C, a scheduler, the OOM
/// killer), or a failed exit with ncu's ==ERROR== lines; InputError from
/// read_ncu_l2 when its CSV is unreadable.
NcuL2 run_ncu_l2(const std::vector<std::string>& command, const NcuRunOptions& options,
                 const std::filesystem::path& dir, const std::regex& weight_kernels, std::ostream& progress,
                 bool progress_is_terminal);

}  // namespace flashsim::diagnose
