#include "sim/engine/event/tlb.h"

#include "sim/core/errors.h"

namespace flashsim {

Tlb::Tlb(const TlbSpec& spec) : spec_(spec), capacity_(spec.entries) {
  if (capacity_ > 0 && spec.page_bytes == 0) throw InputError("tlb: page_size must be > 0 bytes");
  if (spec.miss_penalty_ns < 0) throw InputError("tlb: miss_penalty must be >= 0 ns");
  page_.reserve(capacity_);
  prev_.reserve(capacity_);
  next_.reserve(capacity_);
  slot_of_page_.reserve(capacity_);
}

void Tlb::unlink(std::uint32_t s) {
  if (prev_[s] != kNone) next_[prev_[s]] = next_[s]; else head_ = next_[s];
  if (next_[s] != kNone) prev_[next_[s]] = prev_[s]; else tail_ = prev_[s];
}

void Tlb::push_front(std::uint32_t s) {
  prev_[s] = kNone;
  next_[s] = head_;
  if (head_ != kNone) prev_[head_] = s;
  head_ = s;
  if (tail_ == kNone) tail_ = s;
}

Nanoseconds Tlb::access(std::uint64_t address) {
  if (capacity_ == 0) return 0;
  const std::uint64_t page = address / spec_.page_bytes;
  if (auto it = slot_of_page_.find(page); it != slot_of_page_.end()) {
    ++hits_;
    if (it->second != head_) {
      unlink(it->second);
      push_front(it->second);
    }
    return 0;
  }
  ++misses_;
  std::uint32_t slot;
  if (page_.size() < capacity_) {
    slot = static_cast<std::uint32_t>(page_.size());
    page_.push_back(page);
    prev_.push_back(kNone);
    next_.push_back(kNone);
  } else {
    slot = tail_;
    unlink(slot);
    slot_of_page_.erase(page_[slot]);
    page_[slot] = page;
  }
  push_front(slot);
  slot_of_page_.emplace(page, slot);
  return spec_.miss_penalty_ns;
}

}  // namespace flashsim
