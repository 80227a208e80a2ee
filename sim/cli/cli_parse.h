// CLI11 glue shared by the subcommands: parse errors become InputError
// (exit code 2 in main), --help prints and asks the caller to return 0.
#pragma once
#include <CLI/CLI.hpp>
#include <string>
#include <vector>

namespace flashsim::cli {

/// Parses argv (argv[0] = the command's name) into `app`. Returns false when
/// --help was given (the help text is already on stdout: return 0). Throws
/// InputError with CLI11's message and a pointer to --help on bad input.
bool parse_command_line(CLI::App& app, int argc, char** argv);

/// The same for an already split argument list (without the command name).
bool parse_command_line(CLI::App& app, std::vector<std::string> args);

}  // namespace flashsim::cli
