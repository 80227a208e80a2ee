// `bytes`: the idealised pool. A request fits whenever the free byte count
// covers it, as if the pool could always be compacted: no external and no
// internal fragmentation (reserved_bytes == requested bytes). This is the
// model of every byte-capacity cache simulator (libCacheSim's cache_size)
// and the baseline the other allocators are compared against.
//
// Nothing is placed: every range is {0, bytes} (places() is false, so the
// fast tier stores no slots). A driver that needs real addresses (hw/)
// must use first_fit or size_class.
#include <memory>

#include "sim/cache/i_slot_allocator.h"
#include "sim/core/errors.h"

namespace flashsim {
namespace {

class BytesAllocator final : public ISlotAllocator {
 public:
  explicit BytesAllocator(ByteCount capacity) : capacity_(capacity) {}

  std::string_view name() const override { return "bytes"; }

  std::optional<SlotRange> allocate(ByteCount bytes) override {
    if (bytes == 0 || bytes > capacity_ - reserved_) return std::nullopt;
    reserved_ += bytes;
    return SlotRange{0, bytes};
  }

  void release(const SlotRange& range) override {
    // Only the byte count can be checked: offsets are not tracked.
    if (range.reserved_bytes == 0 || range.reserved_bytes > reserved_) {
      throw Error("slot allocator 'bytes': release of " + std::to_string(range.reserved_bytes) +
                  " bytes, but only " + std::to_string(reserved_) + " are reserved");
    }
    reserved_ -= range.reserved_bytes;
  }

  bool could_ever_fit(ByteCount bytes) const override { return bytes > 0 && bytes <= capacity_; }
  ByteCount capacity_bytes() const override { return capacity_; }
  ByteCount reserved_bytes() const override { return reserved_; }
  ByteCount largest_free_bytes() const override { return capacity_ - reserved_; }
  bool places() const override { return false; }

 private:
  ByteCount capacity_;
  ByteCount reserved_ = 0;
};

}  // namespace

FLASHSIM_REGISTER_SLOT_ALLOCATOR(
    {"bytes",
     "byte counting only: no fragmentation, nothing placed (offsets are 0; the idealised pool)",
     {},
     [](const ParamValues&, const SlotAllocatorContext& c) -> std::unique_ptr<ISlotAllocator> {
       return std::make_unique<BytesAllocator>(c.capacity_bytes);
     }});

}  // namespace flashsim
