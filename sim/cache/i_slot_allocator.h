// Interface (c) of the core: where a block sits inside the fast tier. Both
// engines use the same allocator, so the simulator sees the fragmentation
// the GPU pool has: a 23 MB tensor and a 4 KB norm do not fit the same
// slots. Offsets are what hw/ adds to its device pool's base pointer.
#pragma once
#include <cstdint>
#include <optional>
#include <string_view>

#include "sim/core/registry.h"
#include "sim/core/units.h"

namespace flashsim {

/// A placement inside the fast tier: [offset_bytes, offset_bytes + reserved_bytes).
struct SlotRange {
  ByteCount offset_bytes = 0;
  ByteCount reserved_bytes = 0;  ///< >= requested bytes (rounding = internal fragmentation)
};

struct SlotAllocatorContext {
  ByteCount capacity_bytes = 0;  ///< size of the region to manage
};

class ISlotAllocator {
 public:
  virtual ~ISlotAllocator() = default;
  virtual std::string_view name() const = 0;

  /// Places `bytes` (> 0); std::nullopt if no free space fits it now
  /// (the caller evicts and retries). Never throws for lack of space.
  virtual std::optional<SlotRange> allocate(ByteCount bytes) = 0;

  /// Returns a range obtained from allocate(). Throws Error on a range
  /// this allocator did not hand out.
  virtual void release(const SlotRange& range) = 0;

  /// Could `bytes` ever fit, with everything freed? (A block larger than
  /// this is served without caching.)
  virtual bool could_ever_fit(ByteCount bytes) const = 0;

  virtual ByteCount capacity_bytes() const = 0;
  /// Sum of reserved_bytes of live ranges.
  virtual ByteCount reserved_bytes() const = 0;
  /// Largest request that allocate() would satisfy right now.
  virtual ByteCount largest_free_bytes() const = 0;
  /// False for an allocator that only counts bytes: every range it hands
  /// out is {0, the bytes asked}, so a caller need not store it (the fast
  /// tier then keeps no slot table).
  virtual bool places() const { return true; }
};

using SlotAllocatorRegistry = Registry<ISlotAllocator, SlotAllocatorContext>;

}  // namespace flashsim

#define FLASHSIM_REGISTER_SLOT_ALLOCATOR(...) \
  FLASHSIM_REGISTER(::flashsim::SlotAllocatorRegistry, ::flashsim::SlotAllocatorRegistry::Entry(__VA_ARGS__))
