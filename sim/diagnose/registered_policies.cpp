#include "sim/diagnose/registered_policies.h"

#include "sim/core/errors.h"
#include "sim/policy/i_eviction_policy.h"

namespace flashsim::diagnose {
namespace {

// A catalog view that knows no block: enough for a policy's constructor.
class NoBlocks final : public IBlockCatalogView {
 public:
  const BlockCatalogEntry* entry(BlockIndex) const override { return nullptr; }
};

// Whether `name` builds (its constructor checks what it needs from `meta`).
bool builds(const std::string& name, const TraceMeta* meta) {
  static const NoBlocks no_blocks;
  PolicyContext context;
  context.capacity_bytes = ByteCount{1} << 50;
  context.meta = meta;
  context.catalog = meta ? &no_blocks : nullptr;
  try {
    PolicyRegistry::instance().create(name, {}, context);
    return true;
  } catch (const InputError&) {
    return false;
  }
}

}  // namespace

std::vector<std::string> registered_policy_names(const TraceMeta* meta) {
  std::vector<std::string> names;
  for (const auto* e : PolicyRegistry::instance().entries()) {
    if (builds(e->name, meta)) names.push_back(e->name);
  }
  return names;
}

bool is_offline_policy(const std::string& name) {
  // Asked of an instance: the property belongs to the implementation. A
  // policy that needs a catalog is model-aware, none of them offline.
  PolicyRegistry::instance().find(name);  // UnknownNameError
  if (!builds(name, nullptr)) return false;
  return PolicyRegistry::instance().create(name, {}, PolicyContext{1, 0})->needs_next_use();
}

}  // namespace flashsim::diagnose
