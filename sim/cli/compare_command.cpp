// flashsim compare A B [--all]: two results' runs side by side with deltas.
#include <iostream>
#include <string>

#include "sim/cli/cli_parse.h"
#include "sim/cli/command_registry.h"
#include "sim/core/errors.h"
#include "sim/results/results_compare.h"

namespace flashsim::cli {
namespace {

int compare_command(int argc, char** argv) {
  CLI::App app(
      "Prints the runs of two results (folders of `flashsim run`/`replay`, or their summary.json)\n"
      "side by side: every metric that differs, A, B and B - A (ratios in percentage points,\n"
      "others with the relative change). Runs are matched by sweep point and policy label;\n"
      "two results of one run each are compared whatever their labels.",
      "flashsim compare");
  std::string a, b;
  CompareOptions options;
  app.add_option("A", a, "the first results")->required();
  app.add_option("B", b, "the second results")->required();
  app.add_flag("--all", options.all_metrics, "also the metrics equal in both");
  if (!parse_command_line(app, argc, argv)) return 0;
  const ComparedResults ra = ComparedResults::read(a), rb = ComparedResults::read(b);
  if (print_comparison(std::cout, ra, rb, options) == 0) {
    throw InputError("compare: no run of '" + a + "' matches one of '" + b +
                     "' (same sweep point and policy label); compare results of one run each to pair them anyway");
  }
  return 0;
}

}  // namespace

FLASHSIM_REGISTER_COMMAND("compare", "compare A B [--all]",
                          "two results' runs side by side, metric by metric, with deltas", &compare_command);

}  // namespace flashsim::cli
