// flashsim: dispatches to the registered subcommands (sim/cli/command_registry.h)
// and turns errors into exit codes: 0 success, 1 error, 2 bad input
// (InputError, bad command line). Library code throws; only this file exits.
#include <exception>
#include <new>
#include <iostream>
#include <sstream>
#include <string>
#include <string_view>

#include "sim/cli/command_registry.h"
#include "sim/core/errors.h"
#include "sim/core/memory_limit.h"
#include "sim/results/run_result.h"
#include "traces/atomic_file.h"

namespace {

std::string usage() {
  std::ostringstream out;
  out << "flashsim: which eviction and pre-warm policy keeps the fast tier fed?\n\n"
         "usage: flashsim <command> [options]\n\ncommands:\n";
  for (const auto* c : flashsim::cli::CommandRegistry::instance().all()) {
    out << "  " << c->synopsis << "\n";
    std::istringstream summary(c->summary);
    for (std::string line; std::getline(summary, line);) out << "                     " << line << "\n";
  }
  out << "\n  flashsim <command> --help   options of a command\n"
         "  flashsim --version          the tool version\n";
  return out.str();
}

}  // namespace

int main(int argc, char** argv) {
  flashsim::remove_temp_files_on_signals();  // Ctrl-C leaves no *.tmp-XXXXXX behind
  if (argc < 2) {
    std::cerr << usage();
    return 2;
  }
  const std::string_view name = argv[1];
  try {
    if (const auto* command = flashsim::cli::CommandRegistry::instance().find(name)) {
      return command->run(argc - 1, argv + 1);
    }
    if (name == "--help" || name == "-h" || name == "help") {
      std::cout << usage();
      return 0;
    }
    if (name == "--version" || name == "-V" || name == "version") {
      std::cout << "flashsim " << flashsim::tool_version_string() << "\n";
      return 0;
    }
    std::cerr << "flashsim: unknown command '" << name << "'\n\n" << usage();
    return 2;
  } catch (const flashsim::InputError& e) {
    std::cerr << "flashsim " << name << ": error: " << e.what() << "\n";
    return 2;
  } catch (const flashsim::Error& e) {
    std::cerr << "flashsim " << name << ": error: " << e.what() << "\n";
    return 1;
  } catch (const std::bad_alloc&) {
    // An input the estimates did not foresee: say what capped memory.
    const flashsim::MemoryCap cap = flashsim::available_memory();
    const char* what = cap.source == flashsim::MemoryCapSource::address_space ? "the address-space limit (ulimit -v)"
                       : cap.source == flashsim::MemoryCapSource::cgroup    ? "the cgroup's memory.max"
                                                                            : "physical memory";
    std::cerr << "flashsim " << name << ": error: out of memory"
              << (cap.bytes > 0 ? " (this process may use " + flashsim::gib_text(static_cast<double>(cap.bytes)) +
                                      ", " + what + ")"
                                : std::string())
              << ": an input larger than memory allows (a huge field or line, a decompression bomb) or a limit too "
                 "low; give a smaller input or raise the limit\n";
    return 1;
  } catch (const std::exception& e) {
    std::cerr << "flashsim " << name << ": internal error: " << e.what() << "\n";
    return 1;
  }
}
