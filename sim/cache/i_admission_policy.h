// Admission: whether a demand miss is cached at all, as its own component
// that any eviction policy composes with (scenario: `admission:` beside a
// policy's `impl:`). A refused miss is served uncached (a bypass): the
// eviction policy is told on_bypass and evicts nothing for it. Size-aware
// tiers need it: one large block admitted can flush many small hot ones.
//
// Contract, per access the fast tier sees (pinned blocks excluded):
//   * on_access(a) for every hit and every demand miss, before admit();
//   * admit(a) once per demand miss that could fit, before any eviction.
// Prefetches are not asked: the prefetcher chose them.
#pragma once
#include <cstdint>
#include <string_view>

#include "sim/core/registry.h"
#include "sim/core/units.h"
#include "sim/policy/i_eviction_policy.h"

namespace flashsim {

/// Fixed facts every admission factory receives.
struct AdmissionContext {
  ByteCount capacity_bytes = 0;  ///< fast-tier capacity the policy is told (pinned bytes excluded)
  std::size_t block_count = 0;   ///< distinct blocks if known (0 = unknown); a sizing hint
};

class IAdmissionPolicy {
 public:
  virtual ~IAdmissionPolicy() = default;
  /// Registered name ("always", "size_threshold", "adaptsize", "doorkeeper").
  virtual std::string_view name() const = 0;
  /// Every hit and demand miss of an unpinned block, in order.
  virtual void on_access(const PolicyAccess& access) { (void)access; }
  /// Whether demand miss `access` is cached (true) or bypassed (false).
  virtual bool admit(const PolicyAccess& access) = 0;
};

using AdmissionRegistry = Registry<IAdmissionPolicy, AdmissionContext>;

}  // namespace flashsim

/// One line per admission file: FLASHSIM_REGISTER_ADMISSION({"always", "summary", {params}, factory});
#define FLASHSIM_REGISTER_ADMISSION(...) \
  FLASHSIM_REGISTER(::flashsim::AdmissionRegistry, ::flashsim::AdmissionRegistry::Entry(__VA_ARGS__))
