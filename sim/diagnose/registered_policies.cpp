#include "sim/diagnose/registered_policies.h"

#include "sim/policy/i_eviction_policy.h"

namespace flashsim::diagnose {

std::vector<std::string> registered_policy_names() {
  std::vector<std::string> names;
  for (const auto* e : PolicyRegistry::instance().entries()) names.push_back(e->name);
  return names;
}

bool is_offline_policy(const std::string& name) {
  // Asked of an instance: the property belongs to the implementation.
  return PolicyRegistry::instance().create(name, {}, PolicyContext{1, 0})->needs_next_use();
}

}  // namespace flashsim::diagnose
