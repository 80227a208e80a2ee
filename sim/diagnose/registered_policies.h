// The eviction policies the levers try: every registered one, and which of
// them are offline (they read each access's next use, as Belady does): a
// reference to compare with, never a lever to pull.
#pragma once
#include <string>
#include <vector>

namespace flashsim::diagnose {

/// Every registered eviction policy's name, in the registry's (sorted) order.
std::vector<std::string> registered_policy_names();

/// True when `name` needs the future (IEvictionPolicy::needs_next_use).
/// Throws UnknownNameError for an unregistered name.
bool is_offline_policy(const std::string& name);

}  // namespace flashsim::diagnose
