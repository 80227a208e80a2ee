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
// Structure:
//   * blocks never used again sit on a stack and go first; among them the
//     one that became "never used again" last goes first (LIFO; any order is
//     optimal for uniform sizes);
//   * the others sit in a 4-ary max-heap of (next_use, block) with lazy
//     deletion: a hit pushes a new entry and leaves the old one stale; an
//     entry is live when its block is held and its next use is still the
//     entry's. Live next uses are distinct access indices, so no two live
//     entries tie. A stale entry's next use is an access already made, so
//     stale entries sink below every live one. When stale entries outnumber
//     live ones the heap is compacted in place: memory stays O(resident
//     blocks), each access costs O(log n) amortised.
//
// `belady_bypass` adds admission (the offline policy for variable sizes and
// the one the flow bound of `flashsim trace bound` is compared with): a
// missed block whose next use is further than that of the block it would
// evict is not cached (a bypass). For uniform sizes this is OPT with
// bypassing allowed, which the bound meets exactly.
#include <memory>
#include <string_view>
#include <vector>

#include "sim/core/block_vector.h"
#include "sim/policy/block_table.h"
#include "sim/policy/i_eviction_policy.h"

namespace flashsim {
namespace {

struct HeapEntry {
  std::uint64_t next_use;
  BlockIndex block;
};

/// 8 bytes: whether the block is held (the top bit) and its current next
/// use while held (the low 63 bits, all ones for kNeverAccessedAgain; an
/// access index never reaches 2^63 - 1).
/// The largest next use BeladyBlock holds apart from never.
constexpr std::uint64_t kFarthestNextUse = (std::uint64_t{1} << 63) - 2;

class BeladyBlock {
 public:
  bool held() const { return word_ >> 63; }
  void set_held(bool held) { word_ = (word_ & kNextUseBits) | (std::uint64_t{held} << 63); }
  std::uint64_t next_use() const {
    const std::uint64_t v = word_ & kNextUseBits;
    return v == kNextUseBits ? kNeverAccessedAgain : v;
  }
  void set_next_use(std::uint64_t next_use) {
    word_ = (word_ & ~kNextUseBits) | (next_use >= kNextUseBits ? kNextUseBits : next_use);
  }

 private:
  static constexpr std::uint64_t kNextUseBits = (std::uint64_t{1} << 63) - 1;
  std::uint64_t word_ = kNextUseBits;
};

/// A 4-ary max-heap on next_use (shallower than binary: fewer cache misses).
class MaxHeap4 {
 public:
  bool empty() const { return v_.empty(); }
  std::size_t size() const { return v_.size(); }
  const HeapEntry& top() const { return v_.front(); }

  void push(const HeapEntry& e) {
    std::size_t i = v_.size();
    v_.push_back(e);
    while (i > 0) {
      const std::size_t parent = (i - 1) / 4;
      if (v_[parent].next_use >= e.next_use) break;
      v_[i] = v_[parent];
      i = parent;
    }
    v_[i] = e;
  }

  void pop() {
    const HeapEntry last = v_.back();
    v_.pop_back();
    if (!v_.empty()) sift_down(0, last);
  }

  /// Keeps the entries `keep` accepts and restores the heap order.
  template <class Keep>
  void filter(Keep keep) {
    std::size_t out = 0;
    for (const HeapEntry& e : v_)
      if (keep(e)) v_[out++] = e;
    v_.resize(out);
    for (std::size_t i = v_.size() / 4 + 1; i-- > 0;)
      if (i < v_.size()) sift_down(i, v_[i]);
  }

 private:
  void sift_down(std::size_t i, const HeapEntry e) {
    const std::size_t n = v_.size();
    for (;;) {
      const std::size_t first = 4 * i + 1;
      if (first >= n) break;
      std::size_t best = first;
      const std::size_t end = first + 4 < n ? first + 4 : n;
      for (std::size_t c = first + 1; c < end; ++c)
        if (v_[c].next_use > v_[best].next_use) best = c;
      if (v_[best].next_use <= e.next_use) break;
      v_[i] = v_[best];
      i = best;
    }
    v_[i] = e;
  }

  std::vector<HeapEntry> v_;
};

class BeladyPolicy final : public IEvictionPolicy {
 public:
  BeladyPolicy(const PolicyContext& context, bool bypass) : bypass_(bypass) { blocks_.reserve(context.block_count); }

  std::string_view name() const override { return bypass_ ? "belady_bypass" : "belady"; }
  void prefetch(BlockIndex block) const override {
    if (block < blocks_.size()) __builtin_prefetch(&blocks_[block], 1);
  }
  bool needs_next_use() const override { return true; }

  void on_miss(const PolicyAccess& a) override {
    incoming_ = true;
    incoming_next_use_ = a.next_use_index;
  }

  void on_bypass(const PolicyAccess&) override { incoming_ = false; }

  void on_hit(const PolicyAccess& a) override {
    incoming_ = false;
    // Already on the never-again stack: nothing changes (no duplicate).
    if (a.next_use_index == kNeverAccessedAgain && blocks_[a.block].next_use() == kNeverAccessedAgain) return;
    track(a.block, a.next_use_index);
  }

  void on_insert(const PolicyAccess& a) override {
    incoming_ = false;
    grow_to_hold(blocks_, a.block);
    if (!blocks_[a.block].held()) {
      blocks_[a.block].set_held(true);
      ++held_count_;
    }
    track(a.block, a.next_use_index);
  }

  std::optional<BlockIndex> evict(Nanoseconds, const EvictionFilter& filter) override {
    // Admission: a block never used again is not worth any eviction.
    if (bypass_ && incoming_ && incoming_next_use_ == kNeverAccessedAgain) return std::nullopt;
    std::optional<BlockIndex> victim;
    // Never used again first.
    while (!never_.empty()) {
      const BlockIndex b = never_.back();
      never_.pop_back();
      if (!blocks_[b].held() || blocks_[b].next_use() != kNeverAccessedAgain) continue;  // stale
      if (!filter.allows(b)) {
        refused_never_.push_back(b);
        continue;
      }
      victim = b;
      break;
    }
    for (auto it = refused_never_.rbegin(); it != refused_never_.rend(); ++it) never_.push_back(*it);
    refused_never_.clear();
    // Then the furthest next use.
    while (!victim && !heap_.empty()) {
      const HeapEntry top = heap_.top();
      heap_.pop();
      if (!live(top)) continue;
      if (!filter.allows(top.block)) {
        refused_.push_back(top);
        continue;
      }
      if (bypass_ && incoming_ && top.next_use < incoming_next_use_) {
        heap_.push(top);  // the incoming block is used later than every candidate: bypass it
        break;
      }
      victim = top.block;
    }
    for (const HeapEntry& e : refused_) heap_.push(e);
    refused_.clear();
    if (victim) {
      blocks_[*victim].set_held(false);
      --held_count_;
    }
    return victim;
  }

  void remove(BlockIndex block) override {
    if (block < blocks_.size() && blocks_[block].held()) {
      blocks_[block].set_held(false);
      --held_count_;
    }
  }

  std::size_t size() const override { return held_count_; }

 private:
  bool live(const HeapEntry& e) const { return blocks_[e.block].held() && blocks_[e.block].next_use() == e.next_use; }

  void track(BlockIndex b, std::uint64_t next_use) {
    // BeladyBlock keeps 63 bits: a next use of 2^63 - 1 or more (not never)
    // is the farthest one it can hold, so that the heap entry stays live.
    if (next_use != kNeverAccessedAgain && next_use > kFarthestNextUse) next_use = kFarthestNextUse;
    blocks_[b].set_next_use(next_use);
    if (next_use == kNeverAccessedAgain) {
      never_.push_back(b);
      if (never_.size() > 2 * held_count_ + 4096) {
        std::erase_if(never_, [this](BlockIndex x) {
          return !blocks_[x].held() || blocks_[x].next_use() != kNeverAccessedAgain;
        });
      }
      return;
    }
    heap_.push(HeapEntry{next_use, b});
    if (heap_.size() > 2 * held_count_ + 4096) heap_.filter([this](const HeapEntry& e) { return live(e); });
  }

  BlockVector<BeladyBlock> blocks_;
  MaxHeap4 heap_;
  std::vector<BlockIndex> never_;  ///< stack of blocks never used again (lazy: may hold stale ones)
  std::vector<HeapEntry> refused_;
  std::vector<BlockIndex> refused_never_;
  std::size_t held_count_ = 0;
  const bool bypass_;
  bool incoming_ = false;  ///< a miss is being served (on_miss seen, no insert yet)
  std::uint64_t incoming_next_use_ = kNeverAccessedAgain;
};

}  // namespace

FLASHSIM_REGISTER_POLICY({"belady",
                          "offline OPT/MIN: evict the furthest next use; optimal for uniform sizes, a heuristic "
                          "for variable sizes (Belady, IBM Systems Journal 1966)",
                          {},
                          [](const ParamValues&, const PolicyContext& c) -> std::unique_ptr<IEvictionPolicy> {
                            return std::make_unique<BeladyPolicy>(c, false);
                          }});

FLASHSIM_REGISTER_POLICY({"belady_bypass",
                          "offline: Belady with admission, a miss used later than the block it would evict is "
                          "not cached; OPT for uniform sizes with bypassing, the practical offline policy for "
                          "variable sizes (Belady 1966; bypass as in Berger et al., SIGMETRICS 2018)",
                          {},
                          [](const ParamValues&, const PolicyContext& c) -> std::unique_ptr<IEvictionPolicy> {
                            return std::make_unique<BeladyPolicy>(c, true);
                          }});

}  // namespace flashsim
