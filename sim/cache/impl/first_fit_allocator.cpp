// `first_fit`: real placements in one contiguous region, as a device-memory
// pool has. Free space is an address-ordered list of extents; a request
// takes the lowest-addressed extent large enough (first fit), and a released
// range is coalesced with free neighbours on both sides. This models
// external fragmentation: the free bytes may exceed a request while no
// single extent holds it, and the caller must evict more (Wilson, Johnstone,
// Neely & Boles, "Dynamic Storage Allocation: A Survey and Critical Review",
// IWMM 1995, §3.4 on address-ordered first fit). Requests are rounded up to
// `alignment` (the only internal fragmentation here), so every offset is
// aligned as cudaMalloc-style pools align them (256 B).
//
// Cost: allocate and largest_free scan the free list (O(extents));
// release is a binary search plus a vector insert. Extents stay few in
// practice because of coalescing.
#include <algorithm>
#include <memory>
#include <vector>

#include "sim/core/hash_map.h"
#include "sim/cache/i_slot_allocator.h"
#include "sim/core/errors.h"

namespace flashsim {
namespace {

struct Extent {
  ByteCount offset;
  ByteCount bytes;
};

class FirstFitAllocator final : public ISlotAllocator {
 public:
  FirstFitAllocator(ByteCount capacity, ByteCount alignment) : capacity_(capacity), alignment_(alignment) {
    if (capacity_ > 0) free_.push_back({0, capacity_});
  }

  std::string_view name() const override { return "first_fit"; }

  std::optional<SlotRange> allocate(ByteCount bytes) override {
    if (bytes == 0) return std::nullopt;
    const ByteCount need = round_up(bytes);
    for (std::size_t i = 0; i < free_.size(); ++i) {
      Extent& e = free_[i];
      if (e.bytes < need) continue;
      const SlotRange range{e.offset, need};
      e.offset += need;
      e.bytes -= need;
      if (e.bytes == 0) free_.erase(free_.begin() + static_cast<std::ptrdiff_t>(i));
      live_.emplace(range.offset_bytes, need);
      reserved_ += need;
      return range;
    }
    return std::nullopt;
  }

  void release(const SlotRange& range) override {
    auto it = live_.find(range.offset_bytes);
    if (it == live_.end() || it->second != range.reserved_bytes) {
      throw Error("slot allocator 'first_fit': release of [" + std::to_string(range.offset_bytes) + ", +" +
                  std::to_string(range.reserved_bytes) + ") which it did not hand out");
    }
    live_.erase(it);
    reserved_ -= range.reserved_bytes;
    // Insert in address order, then coalesce with the neighbours.
    auto pos = std::lower_bound(free_.begin(), free_.end(), range.offset_bytes,
                                [](const Extent& e, ByteCount off) { return e.offset < off; });
    const bool merge_prev = pos != free_.begin() && (pos - 1)->offset + (pos - 1)->bytes == range.offset_bytes;
    const bool merge_next = pos != free_.end() && range.offset_bytes + range.reserved_bytes == pos->offset;
    if (merge_prev && merge_next) {
      (pos - 1)->bytes += range.reserved_bytes + pos->bytes;
      free_.erase(pos);
    } else if (merge_prev) {
      (pos - 1)->bytes += range.reserved_bytes;
    } else if (merge_next) {
      pos->offset = range.offset_bytes;
      pos->bytes += range.reserved_bytes;
    } else {
      free_.insert(pos, Extent{range.offset_bytes, range.reserved_bytes});
    }
  }

  bool could_ever_fit(ByteCount bytes) const override { return bytes > 0 && round_up(bytes) <= capacity_; }
  ByteCount capacity_bytes() const override { return capacity_; }
  ByteCount reserved_bytes() const override { return reserved_; }
  ByteCount largest_free_bytes() const override {
    ByteCount best = 0;
    for (const Extent& e : free_) best = std::max(best, e.bytes);
    // A request is rounded up, so the largest satisfiable one is the
    // largest extent rounded down to the alignment.
    return best - best % alignment_;
  }

 private:
  ByteCount round_up(ByteCount bytes) const { return (bytes + alignment_ - 1) / alignment_ * alignment_; }

  ByteCount capacity_;
  ByteCount alignment_;
  ByteCount reserved_ = 0;
  std::vector<Extent> free_;                         // address-ordered, coalesced
  HashMap<ByteCount, ByteCount> live_;  // offset -> reserved bytes
};

}  // namespace

FLASHSIM_REGISTER_SLOT_ALLOCATOR(
    {"first_fit",
     "address-ordered first fit with coalescing: real offsets, external fragmentation (Wilson et al., IWMM 1995)",
     {{"alignment", ParamType::bytes, "256B",
       "every request is rounded up to this and every offset aligned to it (cudaMalloc aligns to 256 B)", 1, 1e15, {}}},
     [](const ParamValues& p, const SlotAllocatorContext& c) -> std::unique_ptr<ISlotAllocator> {
       return std::make_unique<FirstFitAllocator>(c.capacity_bytes, p.bytes("alignment"));
     }});

}  // namespace flashsim
