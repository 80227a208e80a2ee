#include "sim/cli/cli_parse.h"

#include <algorithm>
#include <iostream>

#include "sim/core/errors.h"

namespace flashsim::cli {
namespace {

// CLI11 2.1 reads "-1" into an unsigned option as 2^64-1 (a count, a run
// number, a cap of "no limit"); every unsigned option of every command is
// refused a negative value here, once.
void refuse_negative_counts(CLI::App& app) {
  for (CLI::Option* option : app.get_options()) {
    if (option->get_type_name() != "UINT") continue;
    option->check(CLI::Validator(
        [](std::string& text) -> std::string {
          const auto first = text.find_first_not_of(" \t");
          return first != std::string::npos && text[first] == '-' ? "expects a whole number >= 0, not " + text : "";
        },
        "", "non-negative"));
  }
  for (CLI::App* sub : app.get_subcommands({})) refuse_negative_counts(*sub);
}

template <class Parse>
bool parse_with(CLI::App& app, Parse&& parse) {
  refuse_negative_counts(app);
  try {
    parse();
    return true;
  } catch (const CLI::CallForHelp&) {
    std::cout << app.help();
    return false;
  } catch (const CLI::ParseError& e) {
    throw InputError(std::string(e.what()) + " (" + app.get_name() + " --help)");
  }
}

}  // namespace

bool parse_command_line(CLI::App& app, int argc, char** argv) {
  return parse_with(app, [&] { app.parse(argc, argv); });
}

bool parse_command_line(CLI::App& app, std::vector<std::string> args) {
  std::reverse(args.begin(), args.end());  // CLI11 takes the arguments last-first
  return parse_with(app, [&] { app.parse(args); });
}

int run_action(int argc, char** argv, const std::string& command, const std::string& usage,
               const std::vector<CommandAction>& actions) {
  if (argc < 2) throw InputError("flashsim " + command + " needs an action\n" + usage);
  const std::string action = argv[1];
  if (action == "--help" || action == "-h" || action == "help") {
    std::cout << usage;
    return 0;
  }
  const std::vector<std::string> args(argv + 2, argv + argc);
  for (const CommandAction& a : actions) {
    if (action == a.name) return a.run(args);
  }
  throw InputError("unknown " + command + " action '" + action + "'\n" + usage);
}

}  // namespace flashsim::cli
