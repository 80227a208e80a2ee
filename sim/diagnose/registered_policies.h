// The eviction policies the levers try: every registered one that can run
// on the trace at hand (model-aware policies need a catalog with layers or
// experts), and which of them are offline (they read each access's next
// use, as Belady does): a reference to compare with, never a lever to pull.
#pragma once
#include <string>
#include <vector>

#include "traces/access_record.h"

namespace flashsim::diagnose {

/// Every registered eviction policy's name, in the registry's (sorted)
/// order, that builds on a trace described by `meta`; with `meta` null,
/// those that need no catalog at all.
std::vector<std::string> registered_policy_names(const TraceMeta* meta = nullptr);

/// True when `name` needs the future (IEvictionPolicy::needs_next_use).
/// Throws UnknownNameError for an unregistered name.
bool is_offline_policy(const std::string& name);

}  // namespace flashsim::diagnose
