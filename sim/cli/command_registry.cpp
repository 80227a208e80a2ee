#include "sim/cli/command_registry.h"

#include "sim/core/errors.h"

namespace flashsim::cli {

CommandRegistry& CommandRegistry::instance() {
  static CommandRegistry registry;
  return registry;
}

bool CommandRegistry::add(Command command) {
  if (command.run == nullptr) throw Error("command '" + command.name + "' has no function");
  const std::string key = command.name;
  if (!commands_.emplace(key, std::move(command)).second) throw Error("duplicate command '" + key + "'");
  return true;
}

const Command* CommandRegistry::find(std::string_view name) const {
  auto it = commands_.find(name);
  return it == commands_.end() ? nullptr : &it->second;
}

std::vector<const Command*> CommandRegistry::all() const {
  std::vector<const Command*> out;
  for (const auto& [name, command] : commands_) out.push_back(&command);
  return out;
}

}  // namespace flashsim::cli
