// Runs tools/plot_validation.py (compiled into the binary; see
// sim/scenario/embed_files.cmake) on one validation.json and collects the
// SVG figures for the HTML report. The script is written to a fresh temp
// folder with its figures, which is removed afterwards, so the binary needs
// no source tree.
#pragma once
#include <filesystem>
#include <string>
#include <vector>

namespace flashsim::report {

struct PlotFigure {
  std::string name;     ///< "parity_time_per_token_ns", "error_bars", "mrc", ...
  std::string title;    ///< "Parity: time_per_token_ns"
  std::string caption;  ///< what is drawn
  std::string svg;      ///< the <svg ...>...</svg> element (XML prolog and DOCTYPE dropped)
};

struct PlotOutcome {
  bool ran = false;            ///< false: skipped, see skipped_reason
  bool disabled = false;       ///< skipped on request (--no-plots), not for want of matplotlib
  std::string skipped_reason;  ///< "python3 not found ('/usr/bin/python3')", "cannot import matplotlib: ..."
  std::vector<PlotFigure> figures;  ///< in the script's order (plots.json)
};

struct PlotOptions {
  /// The interpreter; empty: /usr/bin/python3 when executable (Debian's, which
  /// sees python3-matplotlib), else python3 on PATH. Run with -s (no user site).
  std::string python;
  /// Prefix of the SVG id salt: distinct per input, so that figures of several
  /// files inlined in one page never share a clip-path or marker id.
  std::string id_salt;
  /// Further arguments of the script ("--section", "0" for one run summary
  /// of the report's data, FILE-mrc.json or FILE-hit-ratio.json).
  std::vector<std::string> extra_args;
};

/// The interpreter PlotOptions{python} resolves to.
std::string resolve_python(const std::string& python);

/// Plots `validation_json` (or the report's data, schema
/// flashsim-report-mrc/1 or flashsim-report-hit-ratio/1: the script tells
/// them apart by the schema). Returns ran == false with the reason when the
/// interpreter cannot be started or the script reports that matplotlib
/// cannot be imported (its exit status 3). Throws InputError naming the file
/// when the script rejects it (exit 2), Error with the script's stderr tail
/// when it fails otherwise, or when the temp folder cannot be made.
PlotOutcome plot_validation(const std::filesystem::path& validation_json, const PlotOptions& options = {});

}  // namespace flashsim::report
