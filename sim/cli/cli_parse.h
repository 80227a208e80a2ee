// CLI11 glue shared by the subcommands: parse errors become InputError
// (exit code 2 in main), --help prints and asks the caller to return 0.
#pragma once
#include <CLI/CLI.hpp>
#include <functional>
#include <string>
#include <vector>

#include "sim/core/errors.h"

namespace flashsim::cli {

/// Parses argv (argv[0] = the command's name) into `app`. Returns false when
/// --help was given (the help text is already on stdout: return 0). Throws
/// InputError with CLI11's message and a pointer to --help on bad input.
bool parse_command_line(CLI::App& app, int argc, char** argv);

/// The same for an already split argument list (without the command name).
bool parse_command_line(CLI::App& app, std::vector<std::string> args);

/// One action of a command that has actions (`flashsim sweep plan ...`):
/// its name and what runs it on the arguments after the action.
struct CommandAction {
  const char* name;
  std::function<int(const std::vector<std::string>& args)> run;
};

/// Runs the action argv[1] names (argv[0] = the command's name) on
/// argv[2..] and returns its exit code; "--help", "-h" or "help" print
/// `usage` and return 0. Throws InputError "flashsim <command> needs an
/// action" or "unknown <command> action '<name>'", each followed by `usage`.
int run_action(int argc, char** argv, const std::string& command, const std::string& usage,
               const std::vector<CommandAction>& actions);

/// parse(text), with an InputError from it prefixed by the option's name
/// ("--max-memory: ..."), so a bad value names the option it came from.
template <class Parse>
auto parse_option(const char* option, const std::string& text, Parse&& parse) -> decltype(parse(text)) {
  try {
    return parse(text);
  } catch (const InputError& e) {
    throw InputError(std::string(option) + ": " + e.what());
  }
}

}  // namespace flashsim::cli
