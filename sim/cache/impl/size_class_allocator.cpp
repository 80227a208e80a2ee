// `size_class`: simple segregated storage (Wilson, Johnstone, Neely & Boles,
// "Dynamic Storage Allocation: A Survey and Critical Review", IWMM 1995,
// §3.6; the slab idea of Bonwick, USENIX Summer 1994). A request is rounded
// up to its size class -- the next power of two from `min_class`, or the
// smallest entry of the `classes` slab list -- and served from that class's
// free slots; a class with none carves a new slot from the untouched part
// of the region (a bump pointer), and failing that takes a free slot of the
// smallest larger class that has one (segregated fit). Slots keep their
// size once carved and are never split or merged.
//
// Fragmentation modelled: internal (reserved_bytes - requested, up to ~50%
// with powers of two) and calcification (memory carved into slots of one
// class cannot serve a larger class until everything is freed: memcached's
// "slab calcification"). When the last live slot is released the whole
// region is uncarved again, so could_ever_fit() (everything freed) holds.
#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "sim/core/hash_map.h"
#include "sim/cache/i_slot_allocator.h"
#include "sim/core/errors.h"
#include "sim/core/unit_parse.h"

namespace flashsim {
namespace {

class SizeClassAllocator final : public ISlotAllocator {
 public:
  SizeClassAllocator(ByteCount capacity, std::vector<ByteCount> classes)
      : capacity_(capacity), classes_(std::move(classes)), free_(classes_.size()) {}

  std::string_view name() const override { return "size_class"; }

  std::optional<SlotRange> allocate(ByteCount bytes) override {
    if (bytes == 0) return std::nullopt;
    const auto it = std::lower_bound(classes_.begin(), classes_.end(), bytes);
    if (it == classes_.end()) return std::nullopt;
    const std::size_t c = static_cast<std::size_t>(it - classes_.begin());
    if (!free_[c].empty()) return take(c);
    if (classes_[c] <= capacity_ - top_) {
      const SlotRange range{top_, classes_[c]};
      top_ += classes_[c];
      live_.emplace(range.offset_bytes, static_cast<std::uint32_t>(c));
      reserved_ += range.reserved_bytes;
      return range;
    }
    for (std::size_t larger = c + 1; larger < classes_.size(); ++larger) {
      if (!free_[larger].empty()) return take(larger);
    }
    return std::nullopt;
  }

  void release(const SlotRange& range) override {
    auto it = live_.find(range.offset_bytes);
    if (it == live_.end() || classes_[it->second] != range.reserved_bytes) {
      throw Error("slot allocator 'size_class': release of [" + std::to_string(range.offset_bytes) + ", +" +
                  std::to_string(range.reserved_bytes) + ") which it did not hand out");
    }
    free_[it->second].push_back(range.offset_bytes);
    live_.erase(it);
    reserved_ -= range.reserved_bytes;
    if (reserved_ == 0) {  // everything free: uncarve the region
      for (auto& list : free_) list.clear();
      top_ = 0;
    }
  }

  bool could_ever_fit(ByteCount bytes) const override {
    return bytes > 0 && !classes_.empty() && bytes <= classes_.back();
  }
  ByteCount capacity_bytes() const override { return capacity_; }
  ByteCount reserved_bytes() const override { return reserved_; }
  ByteCount largest_free_bytes() const override {
    ByteCount best = 0;
    for (std::size_t c = 0; c < classes_.size(); ++c) {
      if (!free_[c].empty() || classes_[c] <= capacity_ - top_) best = classes_[c];
    }
    return best;
  }

 private:
  SlotRange take(std::size_t c) {
    const SlotRange range{free_[c].back(), classes_[c]};
    free_[c].pop_back();
    live_.emplace(range.offset_bytes, static_cast<std::uint32_t>(c));
    reserved_ += range.reserved_bytes;
    return range;
  }

  ByteCount capacity_;
  std::vector<ByteCount> classes_;               // ascending slot sizes, each <= capacity
  std::vector<std::vector<ByteCount>> free_;     // per class: offsets of free slots (LIFO)
  HashMap<ByteCount, std::uint32_t> live_;  // offset -> class
  ByteCount top_ = 0;                            // region below is carved
  ByteCount reserved_ = 0;
};

// The class list: the `classes` text ("4KiB,2MiB,32MiB") or powers of two
// from min_class up to the capacity. Throws InputError naming the parameter.
std::vector<ByteCount> make_classes(const ParamValues& p, ByteCount capacity) {
  std::vector<ByteCount> classes;
  const std::string& text = p.text("classes");
  if (text.empty()) {
    for (ByteCount c = p.bytes("min_class"); c > 0 && c <= capacity; c *= 2) classes.push_back(c);
    return classes;
  }
  std::size_t start = 0;
  while (start <= text.size()) {
    std::size_t comma = text.find(',', start);
    if (comma == std::string::npos) comma = text.size();
    std::string item = text.substr(start, comma - start);
    item.erase(0, item.find_first_not_of(" \t"));
    item.erase(item.find_last_not_of(" \t") + 1);
    ByteCount bytes = 0;
    try {
      bytes = parse_bytes(item);
    } catch (const InputError& e) {
      throw InputError("slot allocator size_class: parameter 'classes' = '" + text + "': " + e.what());
    }
    if (bytes == 0 || bytes > capacity) {
      throw InputError("slot allocator size_class: parameter 'classes' = '" + text + "': slot size '" + item +
                       "' must be > 0 and <= the capacity (" + std::to_string(capacity) + " bytes)");
    }
    classes.push_back(bytes);
    start = comma + 1;
  }
  std::sort(classes.begin(), classes.end());
  classes.erase(std::unique(classes.begin(), classes.end()), classes.end());
  return classes;
}

}  // namespace

FLASHSIM_REGISTER_SLOT_ALLOCATOR(
    {"size_class",
     "segregated size classes carved on demand: internal fragmentation and slab calcification "
     "(Wilson et al., IWMM 1995; Bonwick, USENIX 1994)",
     {{"min_class", ParamType::bytes, "256B", "smallest power-of-two class (used when 'classes' is empty)", 1, 1e15, {}},
      {"classes", ParamType::text, "",
       "comma-separated slot sizes, e.g. '4KiB,2MiB,32MiB'; empty = powers of two from min_class", -1e300, 1e300, {}}},
     [](const ParamValues& p, const SlotAllocatorContext& c) -> std::unique_ptr<ISlotAllocator> {
       return std::make_unique<SizeClassAllocator>(c.capacity_bytes, make_classes(p, c.capacity_bytes));
     }});

}  // namespace flashsim
