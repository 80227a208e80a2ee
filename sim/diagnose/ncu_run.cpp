#include "sim/diagnose/ncu_run.h"

#include <algorithm>
#include <csignal>
#include <cstdio>

#include "sim/core/errors.h"
#include "traces/importers/capture_launch.h"

namespace flashsim::diagnose {
namespace {

std::string seconds_text(double s) { return std::to_string(static_cast<long long>(s + 0.5)) + " s"; }

}  // namespace

std::size_t NcuLogFollower::poll() {
  if (!in_.is_open()) {
    in_.open(log_, std::ios::binary);
    if (!in_.is_open()) return profiled_;
  }
  in_.clear();  // past the old end: EOF was set
  std::string chunk(1 << 16, '\0');
  for (;;) {
    in_.read(chunk.data(), static_cast<std::streamsize>(chunk.size()));
    const std::streamsize got = in_.gcount();
    if (got <= 0) break;
    partial_.append(chunk.data(), static_cast<std::size_t>(got));
    std::size_t start = 0;
    for (std::size_t nl; (nl = partial_.find('\n', start)) != std::string::npos; start = nl + 1) {
      const std::string_view line(partial_.data() + start, nl - start);
      if (line.starts_with("==PROF== Profiling")) ++profiled_;
      if (line.starts_with("==ERROR==")) {
        if (errors_.size() == 5) errors_.erase(errors_.begin());
        errors_.emplace_back(line.substr(0, 300));
      }
    }
    partial_.erase(0, start);
    if (got < static_cast<std::streamsize>(chunk.size())) break;
  }
  return profiled_;
}

std::string ncu_progress_text(std::size_t profiled, long long budget, double elapsed_s) {
  return "profiled " + std::to_string(profiled) + " of at most " + std::to_string(budget) +
         " launches (--ncu-launches), " + seconds_text(elapsed_s);
}

NcuL2 run_ncu_l2(const std::vector<std::string>& command, const NcuRunOptions& options,
                 const std::filesystem::path& dir, const std::regex& weight_kernels, std::ostream& progress,
                 bool progress_is_terminal) {
  // Two steps, as ncu's manual has them: profile into a report, then print
  // it as CSV (`--import --csv`). The run is not in CSV mode because only
  // the plain mode writes a "==PROF== Profiling" line per launch (in CSV
  // mode only Connected/Disconnected: seen on the H200,
  // validate/baselines/h200/diagnose/ncu-l2-*.csv), and those lines are
  // the progress.
  const std::filesystem::path log_path = dir / "ncu.log", report_stem = dir / "ncu",
                              report = dir / "ncu.ncu-rep", csv = dir / "ncu.csv";
  for (const auto& stale : {log_path, report, csv}) {  // an earlier run's would be read as this one's
    std::error_code ec;
    std::filesystem::remove(stale, ec);
  }
  // Clocks as they are (the GPU's own boost, as the program runs); caches not
  // flushed between kernels, so a weight left in L2 by the previous kernel counts.
  std::vector<std::string> argv = {options.ncu, "--log-file", log_path.string(), "--export", report_stem.string(),
                                   "--force-overwrite", "--clock-control", "none", "--cache-control", "none",
                                   "--metrics", kNcuL2Metrics, "--target-processes", "all", "--launch-count",
                                   std::to_string(options.launches), "-k", "regex:" + options.weight_kernels};
  argv.insert(argv.end(), command.begin(), command.end());
  progress << "flashsim diagnose: running the program again under Nsight Compute (" << options.ncu << "; at most "
           << options.launches << " launches";
  if (options.timeout_s > 0) progress << ", --counters-timeout " << seconds_text(options.timeout_s);
  progress << ")\n" << std::flush;

  NcuLogFollower log(log_path);
  double last_line_s = 0;
  capture::RunLimits limits;
  limits.timeout_s = options.timeout_s;
  limits.tick_s = 1.0;
  // When profiling began (the program's start-up before it is not a cost
  // per launch) and how many launches were in by then.
  double first_seen_s = -1;
  std::size_t first_seen_count = 0;
  limits.on_tick = [&](double elapsed_s) {
    log.poll();
    if (first_seen_s < 0 && log.profiled() > 0) {
      first_seen_s = elapsed_s;
      first_seen_count = log.profiled();
    }
    const std::string text = ncu_progress_text(log.profiled(), options.launches, elapsed_s);
    if (progress_is_terminal) {
      progress << "\r  Nsight Compute: " << text << "\x1b[K" << std::flush;
    } else if (elapsed_s - last_line_s >= 10) {
      last_line_s = elapsed_s;
      progress << "  Nsight Compute: " << text << "\n" << std::flush;
    }
  };
  const capture::LaunchResult r = capture::run_command(argv, {}, limits);
  log.poll();
  if (progress_is_terminal) progress << "\r\x1b[K";
  progress << "  Nsight Compute: " << ncu_progress_text(log.profiled(), options.launches, r.elapsed_s)
           << (r.ok() ? ": done" : "") << "\n" << std::flush;

  const std::string profiled = "having profiled " + std::to_string(log.profiled()) + " of at most " +
                               std::to_string(options.launches) + " launches";
  std::string ncu_errors;
  for (const std::string& e : log.errors()) ncu_errors += "\n  " + e;
  if (!r.failure.empty()) {
    throw Error("'" + options.ncu + "' " + r.describe() + " (is Nsight Compute installed? --ncu PATH)");
  }
  if (r.timed_out) {
    std::string advice = "lower --ncu-launches";
    if (first_seen_s >= 0 && log.profiled() > first_seen_count && r.elapsed_s > first_seen_s) {
      // Launches profiled after the first were seen, over the time since:
      // the cost per launch, without the start-up before profiling began.
      const double per_launch_s =
          (r.elapsed_s - first_seen_s) / static_cast<double>(log.profiled() - first_seen_count);
      const auto fit = static_cast<long long>(std::max(0.0, options.timeout_s - first_seen_s) * 0.8 / per_launch_s);
      char each[32];
      std::snprintf(each, sizeof each, "%.2f", per_launch_s);
      advice += std::string(" (about ") + each + " s per launch here after " + seconds_text(first_seen_s) +
                " of start-up: --ncu-launches " + std::to_string(std::max(1LL, fit)) + " fits)";
    }
    throw Error("Nsight Compute timed out after " + seconds_text(r.elapsed_s) + " (--counters-timeout " +
                seconds_text(options.timeout_s) + "), " + profiled +
                "; ncu writes its report only when the program ends, so there is no L2 reading: " + advice +
                ", or raise --counters-timeout (0 = none)" + ncu_errors);
  }
  if (r.signal != 0) {
    const std::string who = r.signal == SIGINT ? "interrupted (Ctrl-C)"
                                               : "ended from outside flashsim (a job scheduler's limit, the "
                                                 "kernel's OOM killer, kill)";
    throw Error("'" + options.ncu + "' " + r.describe() + " after " + seconds_text(r.elapsed_s) + ", " + profiled +
                ": " + who + "; no L2 reading" + ncu_errors);
  }
  if (r.exit_code != 0) {
    throw Error("'" + options.ncu + "' " + r.describe() + " after " + seconds_text(r.elapsed_s) + ", " + profiled +
                (ncu_errors.empty() ? ": no ==ERROR== from ncu, so the program under it failed (its output is above)"
                                    : ": ncu said:" + ncu_errors));
  }
  std::error_code ec;
  if (!std::filesystem::is_regular_file(report, ec)) {
    throw Error("'" + options.ncu + "' ended well but wrote no report " + report.string() +
                (log.profiled() == 0 ? ": it profiled no launch (do any kernels match --weight-kernels '" +
                                           options.weight_kernels + "'?)"
                                     : ""));
  }
  const capture::LaunchResult printed =
      capture::run_command({options.ncu, "--import", report.string(), "--csv", "--page", "details", "--log-file",
                            csv.string()});
  if (!printed.ok()) throw Error("'" + options.ncu + " --import " + report.string() + " --csv' " + printed.describe());
  std::ifstream in(csv);
  if (!in) throw Error(options.ncu + " --import wrote no " + csv.string());
  return read_ncu_l2(in, csv.string(), weight_kernels);
}

}  // namespace flashsim::diagnose
