// What a scenario says about the fast tier: capacity, eviction policy, slot
// allocator and pins. Read by every driver of the access protocol
// (sim/cache/tier_session.h): the event engine, the cache-only replay and
// the GPU replay.
#pragma once
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "sim/core/size_change.h"
#include "sim/core/units.h"

namespace flashsim {

/// Which registered implementation to build, with its parameters (value text).
struct ComponentChoice {
  std::string impl;
  std::map<std::string, std::string> params;
};

/// Blocks the fast tier never evicts: by id, or by group through the trace's
/// block catalog (every block of a layer, of a kind such as "embedding", or
/// of a model segment such as "shared": tied embeddings and parameters a
/// model config marks as shared).
struct PinSpec {
  std::vector<BlockId> blocks;
  std::vector<std::int32_t> layers;
  std::vector<std::string> kinds;
  std::vector<std::string> segments;
  bool empty() const { return blocks.empty() && layers.empty() && kinds.empty() && segments.empty(); }
};

struct CacheConfig {
  ByteCount capacity_bytes = 0;                       ///< fast-tier capacity
  ComponentChoice eviction{"lru", {}};                ///< PolicyRegistry name + params
  ComponentChoice allocator{"bytes", {}};             ///< SlotAllocatorRegistry name + params
  ComponentChoice admission{"always", {}};            ///< AdmissionRegistry name + params (a policy entry's `admission:`)
  PinSpec pinned;
  SizeChange size_change = SizeChange::refetch;       ///< cache.size_change
  /// cache.ignore_sizes: every block counts as one unit and capacity_bytes
  /// is a number of blocks (libCacheSim's `--ignore-obj-size`).
  bool ignore_sizes = false;
};

}  // namespace flashsim
