#include "sim/cli/cli_parse.h"

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <iostream>

#include "sim/core/errors.h"

namespace flashsim::cli {
namespace {

// CLI11 2.1 reads "-1" into an unsigned option as 2^64-1 (a count, a run
// number, a cap of "no limit"), an empty value ("$UNSET") into any number
// as 0 (often "no limit"), and a whole number past 64 bits as the largest
// one. Every numeric option of every command is checked here, once.
std::string check_number_text(const std::string& type, const std::string& text) {
  const auto first = text.find_first_not_of(" \t");
  if (first == std::string::npos) return "expects a number, not an empty value";
  if (type == "UINT" && text[first] == '-') return "expects a whole number >= 0, not " + text;
  if (type == "UINT" || type == "INT") {
    errno = 0;
    char* end = nullptr;
    if (type == "UINT") {
      std::strtoull(text.c_str() + first, &end, 0);
    } else {
      std::strtoll(text.c_str() + first, &end, 0);
    }
    if (errno == ERANGE) return "expects a whole number of at most 64 bits, not " + text;
  }
  return "";
}

void check_numeric_options(CLI::App& app) {
  for (CLI::Option* option : app.get_options()) {
    const std::string type = option->get_type_name();
    if (type != "UINT" && type != "INT" && type != "FLOAT" && type != "NUMBER") continue;
    option->check(CLI::Validator([type](std::string& text) { return check_number_text(type, text); }, "",
                                 "a number"));
  }
  for (CLI::App* sub : app.get_subcommands({})) check_numeric_options(*sub);
}

template <class Parse>
bool parse_with(CLI::App& app, Parse&& parse) {
  check_numeric_options(app);
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
