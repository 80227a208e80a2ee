// flashsim timeline RESULTS [RESULTS] [--run N] --out FILE.json [--max-events N]
#include <iostream>
#include <string>
#include <vector>

#include "sim/cli/cli_parse.h"
#include "sim/cli/command_registry.h"
#include "sim/core/errors.h"
#include "sim/results/results_table.h"
#include "sim/report/timeline.h"

namespace flashsim::cli {
namespace {

int timeline_command(int argc, char** argv) {
  CLI::App app(
      "Writes a run as a Chrome/Perfetto trace (Trace Event Format JSON; open it in ui.perfetto.dev):\n"
      "a simulator run (engine: event) is run again from its resolved scenario with every access,\n"
      "copy, compute gap, stall, eviction and prefetch recorded; a GPU replay's run is read from its\n"
      "access log. Give a simulator results folder and a replay's to see both side by side\n"
      "(processes \"simulator\" and \"hardware\", the same track names). docs/timeline.md.",
      "flashsim timeline");
  std::vector<std::string> inputs;
  std::string out;
  report::TimelineOptions options;
  app.add_option("RESULTS", inputs, "results folders of flashsim run / replay (or their summary.json); at most two")
      ->required();
  app.add_option("--out", out, "the trace to write (FILE.json)")->required();
  app.add_option("--run", options.run, "the run of each results folder (summary.json runs[].run; default 0)");
  app.add_option("--max-events", options.max_events,
                 "at most this many events per process (default 300000; 0 = no cap); a simulator re-run stops there");
  if (!parse_command_line(app, argc, argv)) return 0;
  if (inputs.size() > 2) throw InputError("timeline: at most two results (a simulator run and a replay), got " +
                                          std::to_string(inputs.size()));
  report::TraceEvents events(options.max_events);
  for (const std::string& input : inputs) {
    const report::TimelineSide side = report::add_results_run(events, input, options);
    std::cout << side.process << ": " << input << " " << side.run_label << ": " << side.events << " events over "
              << format_duration(side.covered_ns) << " of " << format_duration(side.span_ns) << "\n";
    if (side.dropped > 0) {
      const std::string what = side.process + " truncated at --max-events " + std::to_string(options.max_events) +
                               ": events after " + format_duration(side.covered_ns) + " of " +
                               format_duration(side.span_ns) + " left out";
      std::cout << "  " << what << "\n";
      events.note(what);
    }
    if (!side.note.empty()) {
      std::cout << "  note: " << side.note << "\n";
      events.note(side.process + ": " + side.note);
    }
  }
  events.write(out);
  std::cout << "wrote " << out << " (open it in ui.perfetto.dev)\n";
  return 0;
}

}  // namespace

FLASHSIM_REGISTER_COMMAND("timeline", "timeline RESULTS [RESULTS] --out FILE.json [--run N] [--max-events N]",
                          "a run as a Chrome/Perfetto trace: simulator (re-run) and GPU replay side by side",
                          &timeline_command);

}  // namespace flashsim::cli
