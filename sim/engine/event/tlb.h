// The TLB in front of the fast tier: fully associative, LRU, over page
// numbers (address / page_bytes). One translation per access, of the page
// of the access's first byte: a consumer streaming a large block takes
// further translations, which overlap with its data transfer and are not
// modelled. Disabled (every lookup hits, no cost) when entries == 0.
#pragma once
#include <cstdint>
#include <vector>

#include "sim/core/hash_map.h"
#include "sim/engine/hardware_profile.h"
#include "sim/metrics/component_stats.h"

namespace flashsim {

class Tlb {
 public:
  /// Throws InputError if entries > 0 and page_bytes == 0.
  explicit Tlb(const TlbSpec& spec);

  bool enabled() const { return capacity_ > 0; }
  const TlbSpec& spec() const { return spec_; }

  /// Translates `address`; returns the ns it adds (0 on a hit, the miss
  /// penalty on a miss, which installs the page, evicting the LRU entry).
  Nanoseconds access(std::uint64_t address);

  /// Its statistics under `component` (nothing when disabled).
  void report(const std::string& component, ComponentStats& out) const {
    if (!enabled()) return;
    out.add(component, "hits", "count", static_cast<double>(hits_));
    out.add(component, "misses", "count", static_cast<double>(misses_));
  }
  std::uint64_t hits() const { return hits_; }
  std::uint64_t misses() const { return misses_; }

 private:
  static constexpr std::uint32_t kNone = 0xffffffffu;
  void unlink(std::uint32_t slot);
  void push_front(std::uint32_t slot);

  TlbSpec spec_;
  std::size_t capacity_;
  HashMap<std::uint64_t, std::uint32_t> slot_of_page_;
  std::vector<std::uint64_t> page_;  // per slot
  std::vector<std::uint32_t> prev_, next_;
  std::uint32_t head_ = kNone, tail_ = kNone;  // head = most recently used
  std::uint64_t hits_ = 0, misses_ = 0;
};

}  // namespace flashsim
