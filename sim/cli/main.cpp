// flashsim: dispatches to the subcommands (sim/cli/commands.h) and turns
// errors into exit codes: 0 success, 1 error, 2 bad input (InputError,
// bad command line). Library code throws; only this file exits.
#include <cstring>
#include <exception>
#include <iostream>
#include <string_view>

#include "sim/cli/commands.h"
#include "sim/core/errors.h"
#include "sim/results/run_result.h"
#include "traces/atomic_file.h"

namespace {

constexpr const char* kUsage =
    "flashsim: which eviction policy keeps the fast tier fed?\n"
    "\n"
    "usage: flashsim <command> [options]\n"
    "\n"
    "commands:\n"
    "  run [SCENARIO] [--out DIR] [--jobs N] [--set KEY=VALUE ...]\n"
    "                     replay a trace under each policy of a scenario (YAML) and write\n"
    "                     results.h5 and summary.json; without SCENARIO, the embedded default\n"
    "  trace import|convert|stats ...\n"
    "                     import traces (CSV, libCacheSim oracleGeneral, PyTorch Kineto) into\n"
    "                     the canonical HDF5 form, and print their statistics\n"
    "  policies           list the registered eviction policies and their parameters\n"
    "\n"
    "  flashsim <command> --help   options of a command\n"
    "  flashsim --version          the tool version\n";

}  // namespace

int main(int argc, char** argv) {
  flashsim::remove_temp_files_on_signals();  // Ctrl-C leaves no *.tmp-XXXXXX behind
  if (argc < 2) {
    std::cerr << kUsage;
    return 2;
  }
  const std::string_view command = argv[1];
  try {
    if (command == "run") return flashsim::cli::run_command(argc - 1, argv + 1);
    if (command == "trace") return flashsim::cli::trace_command(argc - 1, argv + 1);
    if (command == "policies") return flashsim::cli::policies_command(argc - 1, argv + 1);
    if (command == "--help" || command == "-h" || command == "help") {
      std::cout << kUsage;
      return 0;
    }
    if (command == "--version" || command == "-V" || command == "version") {
      std::cout << "flashsim " << flashsim::tool_version_string() << "\n";
      return 0;
    }
    std::cerr << "flashsim: unknown command '" << command << "'\n\n" << kUsage;
    return 2;
  } catch (const flashsim::InputError& e) {
    std::cerr << "flashsim " << command << ": error: " << e.what() << "\n";
    return 2;
  } catch (const flashsim::Error& e) {
    std::cerr << "flashsim " << command << ": error: " << e.what() << "\n";
    return 1;
  } catch (const std::exception& e) {
    std::cerr << "flashsim " << command << ": internal error: " << e.what() << "\n";
    return 1;
  }
}
