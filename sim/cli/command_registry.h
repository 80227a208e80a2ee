// The `flashsim` subcommands as a registry: each command is one file with one
// FLASHSIM_REGISTER_COMMAND line, so adding `replay` (hw/cli/) or `capture`
// touches no dispatcher. main() looks the first argument up here.
#pragma once
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace flashsim::cli {

/// One subcommand. `run` gets argv[0] = the command's name and returns the
/// process exit code (0 success, 1 error, 2 bad input); it throws
/// flashsim::InputError on bad input and flashsim::Error on failure, which
/// main() turns into exit codes 2 and 1.
struct Command {
  std::string name;      ///< "run", "trace", "replay", ...
  std::string synopsis;  ///< "run [SCENARIO] [--out DIR] ..." (one line, for the usage text)
  std::string summary;   ///< what it does (may span lines; indented by the usage printer)
  int (*run)(int argc, char** argv) = nullptr;
};

class CommandRegistry {
 public:
  static CommandRegistry& instance();
  /// Throws flashsim::Error on a duplicate name (a build defect).
  bool add(Command command);
  /// nullptr when unknown.
  const Command* find(std::string_view name) const;
  /// Sorted by name.
  std::vector<const Command*> all() const;

 private:
  std::map<std::string, Command, std::less<>> commands_;
};

}  // namespace flashsim::cli

/// FLASHSIM_REGISTER_COMMAND("name", "synopsis", "summary", &function);
#define FLASHSIM_REGISTER_COMMAND(...)                                                  \
  [[maybe_unused]] static const bool FLASHSIM_CLI_CONCAT(flashsim_command_, __LINE__) = \
      ::flashsim::cli::CommandRegistry::instance().add(::flashsim::cli::Command{__VA_ARGS__})
#define FLASHSIM_CLI_CONCAT_INNER(a, b) a##b
#define FLASHSIM_CLI_CONCAT(a, b) FLASHSIM_CLI_CONCAT_INNER(a, b)
