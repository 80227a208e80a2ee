// Belady's OPT / MIN (Belady, "A study of replacement algorithms for a
// virtual-storage computer", IBM Systems Journal 5(2), 1966): evict the
// resident block whose next use is furthest in the future (never used
// again = infinitely far). Offline: it reads PolicyAccess::next_use_index,
// which the driver precomputes (needs_next_use() is true).
//
// Optimal (fewest misses) for blocks of one size, under demand fetching.
// With variable sizes it is only a heuristic: minimising misses or bytes
// fetched with sizes is NP-hard (Chrobak et al., "Caching is hard — even in
// the fault model", Algorithmica 2012), and a far-future large block may be
// worth less than several near-future small ones.
//
// Structure: a binary max-heap of (next_use, block) with lazy deletion. A
// hit pushes a new entry and leaves the old one stale; an entry is live
// when its block is held and its next use equals the block's current one.
// When stale entries outnumber live ones the heap is compacted in place,
// so memory stays O(resident blocks) and each access costs O(log n)
// amortised. Ties (only possible among blocks never used again): the larger
// BlockIndex goes first.
#include <algorithm>
#include <memory>

#include "sim/policy/block_table.h"
#include "sim/policy/i_eviction_policy.h"

namespace flashsim {
namespace {

struct HeapEntry {
  std::uint64_t next_use;
  BlockIndex block;
};

inline bool heap_less(const HeapEntry& x, const HeapEntry& y) {
  return x.next_use < y.next_use || (x.next_use == y.next_use && x.block < y.block);
}

class BeladyPolicy final : public IEvictionPolicy {
 public:
  explicit BeladyPolicy(const PolicyContext& context) {
    next_use_.reserve(context.block_count);
    held_.reserve(context.block_count);
  }

  std::string_view name() const override { return "belady"; }
  bool needs_next_use() const override { return true; }

  void on_hit(const PolicyAccess& a) override {
    next_use_[a.block] = a.next_use_index;
    push(HeapEntry{a.next_use_index, a.block});
  }

  void on_insert(const PolicyAccess& a) override {
    grow_to_hold(next_use_, a.block, kNeverAccessedAgain);
    grow_to_hold(held_, a.block, std::uint8_t{0});
    if (!held_[a.block]) {
      held_[a.block] = 1;
      ++held_count_;
    }
    next_use_[a.block] = a.next_use_index;
    push(HeapEntry{a.next_use_index, a.block});
  }

  std::optional<BlockIndex> evict(Nanoseconds, const EvictionFilter& filter) override {
    std::optional<BlockIndex> victim;
    while (!heap_.empty()) {
      const HeapEntry top = heap_.front();
      std::pop_heap(heap_.begin(), heap_.end(), heap_less);
      heap_.pop_back();
      if (!live(top)) continue;
      if (!filter.allows(top.block)) {
        refused_.push_back(top);
        continue;
      }
      held_[top.block] = 0;
      --held_count_;
      victim = top.block;
      break;
    }
    for (const HeapEntry& e : refused_) push(e);
    refused_.clear();
    return victim;
  }

  void remove(BlockIndex block) override {
    if (block < held_.size() && held_[block]) {
      held_[block] = 0;
      --held_count_;
    }
  }

  std::size_t size() const override { return held_count_; }

 private:
  bool live(const HeapEntry& e) const { return held_[e.block] && next_use_[e.block] == e.next_use; }

  void push(const HeapEntry& e) {
    heap_.push_back(e);
    std::push_heap(heap_.begin(), heap_.end(), heap_less);
    if (heap_.size() > 2 * held_count_ + 4096) compact();
  }

  void compact() {
    std::erase_if(heap_, [this](const HeapEntry& e) { return !live(e); });
    std::make_heap(heap_.begin(), heap_.end(), heap_less);
  }

  std::vector<std::uint64_t> next_use_;
  std::vector<std::uint8_t> held_;
  std::vector<HeapEntry> heap_;
  std::vector<HeapEntry> refused_;
  std::size_t held_count_ = 0;
};

}  // namespace

FLASHSIM_REGISTER_POLICY({"belady",
                          "offline OPT/MIN: evict the furthest next use; optimal for uniform sizes, a heuristic "
                          "for variable sizes (Belady, IBM Systems Journal 1966)",
                          {},
                          [](const ParamValues&, const PolicyContext& c) -> std::unique_ptr<IEvictionPolicy> {
                            return std::make_unique<BeladyPolicy>(c);
                          }});

}  // namespace flashsim
