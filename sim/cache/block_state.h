// Interface (b) of the core: the life of a block in the fast tier, shared by
// both engines so a prefetch can be late (accessed while in flight) or
// dropped (cancelled before it arrives).
//
//   absent --begin_fetch--> in_flight --on_arrival--> resident <--> in_use
//      ^                       |                        |  acquire/release
//      +-------cancel----------+<-------evict/remove----+
#pragma once
#include <cstdint>
#include <string_view>

namespace flashsim {

enum class BlockState : std::uint8_t {
  absent = 0,     ///< not in the fast tier, no space held
  in_flight = 1,  ///< space reserved, copy under way; not evictable
  resident = 2,   ///< usable; evictable unless pinned
  in_use = 3,     ///< being read by a consumer (refcounted); not evictable
};

std::string_view to_string(BlockState state);

}  // namespace flashsim
