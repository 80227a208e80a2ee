// What an access of a cached block with a size other than the one the block
// was admitted with does: one rule for the simulator's drivers
// (sim/cache/tier_session.h) and the one-pass LRU curves of trace stats.
#pragma once
#include <cstdint>

namespace flashsim {

/// cache.size_change in a scenario; `trace stats --size-change`.
enum class SizeChange : std::uint8_t {
  refetch,  ///< the old copy is dropped (not an eviction) and the access is a miss of the new size
  hit,      ///< a hit of the recorded bytes; the block keeps the space it was admitted with. This is
            ///< libCacheSim's rule: cache_get_base (libCacheSim/cache/cache.c) finds the object and
            ///< counts a hit without touching its size or the occupied bytes.
};

}  // namespace flashsim
