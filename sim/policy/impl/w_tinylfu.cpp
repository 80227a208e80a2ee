// W-TinyLFU (Einziger, Friedman, Manes, "TinyLFU: A Highly Efficient Cache
// Admission Policy", ACM ToS 2017), in bytes: a window LRU in front of a
// segmented-LRU main cache (probation, protected), and a frequency sketch
// that decides whether the window's victim may replace main's victim.
//
// Two variants (parameter `variant`), sharing the window and the SLRU:
//
// * "libcachesim" (default): decision for decision libCacheSim's WTinyLFU.c
//   (1a1a11a/libCacheSim aa0fc40, main-cache=SLRU, window-size=0.01), so
//   that miss counts can be compared exactly:
//   - window bytes = (int64)(capacity * window_share); the window is NOT kept
//     to that size: every miss enters the window, and an eviction takes
//     window victims one by one: into main while main has room; else a duel
//     with main's victim (SLRU: tail of the lowest non-empty segment),
//     estimate(window victim) > estimate(main victim) moves the window victim
//     into main (main's victim leaves) and the eviction goes on with the
//     next window victim; otherwise the window victim leaves and the
//     eviction ends. An empty window: main's victim leaves.
//   - main: libCacheSim SLRU with seg-size=1:4 (probation (int64)(0.2 main),
//     protected (int64)(0.8 main)); insertion into the lowest segment with
//     room (a block can enter protected directly), else probation; a
//     probation hit promotes, protected overflow cools its tail into
//     probation, and probation overflow there evicts probation's tail — on
//     a hit (see "pending" below).
//   - sketch: libCacheSim's counting Bloom filter ("minimalIncrementCBF",
//     error 0.001: 10 hashes over ceil(14.38 entries) 32-bit counters,
//     entries = main bytes; every counter of a key is incremented, not only
//     the minimal ones, as libCacheSim does), indices (a + i b) mod n with
//     a, b the low 32 bits of XXH64 of the 8-byte key, seeds 0x12345678 and
//     0x12344321. Added on insertion, on a hit in main (not in the window),
//     and for each window victim an eviction handles; halved when main hits
//     reach 32 x main bytes. No doorkeeper (libCacheSim: "TODO").
//   - pending: libCacheSim may evict more blocks in one eviction than the
//     incoming block needs, and evicts on a probation hit; IEvictionPolicy
//     returns one victim per evict() and none on a hit, so those blocks wait
//     in a pending list and are returned by the next evict() calls, before
//     any new decision. Their bytes are free in libCacheSim and still held
//     by the driver: the driver calls evict() exactly when libCacheSim would
//     (for unit sizes). A hit on a pending block is a miss in libCacheSim:
//     the policy then does what libCacheSim does on that miss (window
//     insertion, sketch add), so its state stays the same; only that
//     access's outcome differs (H here, M there).
//
// * "caffeine": the paper's design as in Caffeine: the window kept to
//   window_share of capacity (its overflow is the candidate), a protected
//   segment of protected_share of main (overflow demoted to probation, no
//   eviction on a hit), new blocks enter main through probation; a
//   count-min sketch of 4 rows of 4-bit counters (saturating at 15; width
//   the power of two >= the capacity in blocks), each row indexed by XXH64
//   with its own seed; a doorkeeper Bloom filter (2 hashes, 8 bits per
//   block) absorbs each key's first access; every access is counted and
//   after `sample_factor` x capacity-in-blocks of them every counter is
//   halved, the doorkeeper cleared and the count halved (the paper's reset).
//   Caffeine's random admission of warm candidates (hash-flooding defence)
//   is left out.
//
// Capacity in blocks: capacity bytes with sizes ignored; otherwise the
// number of distinct blocks (PolicyContext::block_count) when smaller, as
// an upper bound on what fits. libCacheSim sizes its filter by main's bytes
// (its note: "should be divided by average object size"); here the entries
// are capped at 2^20 so a capacity of gigabytes does not allocate gigabytes
// of counters (identical to libCacheSim up to 2^20 blocks, sizes ignored).
//
// Hashes take the BlockIndex the driver gives, zero-extended to 8 bytes;
// libCacheSim hashes the trace's object id. The two agree when the block
// index equals the object id; flashsim's drivers number blocks densely in
// order of first appearance, so collisions (and so estimates) differ.
// A block refused by the driver's filter keeps its place; victims are then
// the nearest allowed blocks toward the front of each list.
#include <algorithm>
#include <bit>
#include <climits>
#include <cmath>
#include <cstdint>
#include <memory>
#include <vector>

#include "sim/policy/block_table.h"
#include "sim/policy/i_eviction_policy.h"
#include "sim/policy/intrusive_list.h"

namespace flashsim {
namespace {

// XXH64 (Collet, xxHash specification) of one 8-byte little-endian input.
constexpr std::uint64_t kP1 = 0x9E3779B185EBCA87ULL, kP2 = 0xC2B2AE3D27D4EB4FULL, kP3 = 0x165667B19E3779F9ULL,
                        kP4 = 0x85EBCA77C2B2AE63ULL, kP5 = 0x27D4EB2F165667C5ULL;
constexpr std::uint64_t rotl64(std::uint64_t x, int r) { return (x << r) | (x >> (64 - r)); }
constexpr std::uint64_t xxh64_u64(std::uint64_t key, std::uint64_t seed) {
  std::uint64_t h = seed + kP5 + 8;
  h ^= rotl64(key * kP2, 31) * kP1;
  h = rotl64(h, 27) * kP1 + kP4;
  h ^= h >> 33;
  h *= kP2;
  h ^= h >> 29;
  h *= kP3;
  h ^= h >> 32;
  return h;
}
// libCacheSim's hash seeds (dataStructure/hash/hash.h).
constexpr std::uint64_t kSeeds[6] = {0x12345678, 0x12344321, 0x23456789, 0x3456789A, 0x456789AB, 0x56789ABC};
constexpr std::int64_t kMaxSketchEntries = std::int64_t{1} << 20;

/// libCacheSim's counting Bloom filter with its error 0.001.
class CountingBloom {
 public:
  explicit CountingBloom(std::int64_t entries_in) {
    const int entries = static_cast<int>(std::max<std::int64_t>(entries_in, 0));
    const double bpe = -std::log(0.001) / 0.480453013918201;  // bits per entry: -ln(e) / ln(2)^2
    hashes_ = static_cast<int>(std::ceil(0.693147180559945 * bpe));
    int n = static_cast<int>(std::fmin(std::ceil(bpe * entries), static_cast<double>(INT_MAX)));
    if (n < hashes_) n = hashes_ * 2;
    counters_.assign(static_cast<std::size_t>(n), 0);
  }
  /// The smallest of the key's counters; with add, every one of them + 1 first.
  std::uint32_t check_add(std::uint64_t key, bool add) {
    const auto a = static_cast<std::uint32_t>(xxh64_u64(key, kSeeds[0]));
    const auto b = static_cast<std::uint32_t>(xxh64_u64(key, kSeeds[1]));
    const auto n = static_cast<std::uint32_t>(counters_.size());
    std::uint32_t least = UINT_MAX;
    for (std::uint32_t i = 0; i < static_cast<std::uint32_t>(hashes_); ++i) least = std::min(least, counters_[(a + i * b) % n]);
    if (add && least < UINT_MAX) {
      for (std::uint32_t i = 0; i < static_cast<std::uint32_t>(hashes_); ++i) ++counters_[(a + i * b) % n];
      ++least;
    }
    return least;
  }
  void halve() {
    for (auto& c : counters_) c >>= 1;
  }

 private:
  int hashes_ = 0;
  std::vector<std::uint32_t> counters_;
};

/// Count-min sketch (4 rows of 4-bit counters) behind a doorkeeper, with
/// the TinyLFU reset.
class TinyLfuSketch {
 public:
  TinyLfuSketch(std::uint64_t blocks, std::uint64_t sample_factor, bool doorkeeper) : doorkeeper_on_(doorkeeper) {
    width_ = std::bit_ceil(std::max<std::uint64_t>(blocks, 16));
    rows_.assign(4 * width_, 0);
    door_.assign(std::bit_ceil(std::max<std::uint64_t>(8 * blocks, 64)) / 64, 0);
    sample_ = std::max<std::uint64_t>(sample_factor * blocks, 1);
  }
  void record(std::uint64_t key) {
    if (doorkeeper_on_ && !door_add(key)) {
      // first access since the last reset: the doorkeeper holds it
    } else {
      for (int r = 0; r < 4; ++r) {
        std::uint8_t& c = rows_[static_cast<std::size_t>(r) * width_ + (xxh64_u64(key, kSeeds[r]) & (width_ - 1))];
        if (c < 15) ++c;
      }
    }
    if (++additions_ >= sample_) reset();
  }
  std::uint32_t estimate(std::uint64_t key) const {
    std::uint32_t least = 15;
    for (int r = 0; r < 4; ++r)
      least = std::min<std::uint32_t>(least, rows_[static_cast<std::size_t>(r) * width_ + (xxh64_u64(key, kSeeds[r]) & (width_ - 1))]);
    return least + (doorkeeper_on_ && door_contains(key) ? 1 : 0);
  }

 private:
  std::uint64_t door_bit(std::uint64_t key, int h) const { return xxh64_u64(key, kSeeds[4 + h]) & (door_.size() * 64 - 1); }
  bool door_contains(std::uint64_t key) const {
    for (int h = 0; h < 2; ++h) {
      const std::uint64_t i = door_bit(key, h);
      if ((door_[i / 64] & (std::uint64_t{1} << (i % 64))) == 0) return false;
    }
    return true;
  }
  /// Sets the key's bits; true if it was there already.
  bool door_add(std::uint64_t key) {
    const bool was = door_contains(key);
    for (int h = 0; h < 2; ++h) {
      const std::uint64_t i = door_bit(key, h);
      door_[i / 64] |= std::uint64_t{1} << (i % 64);
    }
    return was;
  }
  void reset() {
    for (auto& c : rows_) c = static_cast<std::uint8_t>(c >> 1);
    std::fill(door_.begin(), door_.end(), 0);
    additions_ /= 2;
  }

  bool doorkeeper_on_;
  std::uint64_t width_ = 0, sample_ = 0, additions_ = 0;
  std::vector<std::uint8_t> rows_;
  std::vector<std::uint64_t> door_;
};

enum WhereW : std::uint8_t { kNone = 0, kWindow, kProbation, kProtected, kPending };

struct WNode : ListLink {
  ByteCount bytes = 0;
  std::uint8_t where = kNone;
};

class WTinyLfuPolicy final : public IEvictionPolicy {
 public:
  WTinyLfuPolicy(const ParamValues& p, const PolicyContext& context)
      : lcs_(p.text("variant") == "libcachesim"),
        cbf_(lcs_ ? 0 : 1),
        sketch_(1, 1, false) {
    const auto capacity = static_cast<std::int64_t>(context.capacity_bytes);
    // libCacheSim: cache_size *= window_size on an int64 (truncation).
    window_cap_ = static_cast<std::int64_t>(static_cast<double>(capacity) * p.real("window_share"));
    main_cap_ = capacity - window_cap_;
    // floor(share * main) as libCacheSim's (int64)(1.0 / 5 * main) gives it
    // (the epsilon keeps 1 - 0.8 = 0.19999.. from losing a byte at exact products).
    const double prot = p.real("protected_share");
    const double eps = 1e-9 * std::max(1.0, static_cast<double>(main_cap_));
    seg_max_[1] = static_cast<std::int64_t>(prot * static_cast<double>(main_cap_) + eps);
    seg_max_[0] = static_cast<std::int64_t>((1.0 - prot) * static_cast<double>(main_cap_) + eps);
    std::uint64_t blocks = context.capacity_bytes;
    if (context.block_count != 0) blocks = std::min<std::uint64_t>(blocks, context.block_count);
    blocks = std::min<std::uint64_t>(blocks, static_cast<std::uint64_t>(kMaxSketchEntries));
    if (lcs_) {
      cbf_ = CountingBloom(std::min(main_cap_, kMaxSketchEntries));
      decay_every_ = 32 * static_cast<std::uint64_t>(std::max<std::int64_t>(main_cap_, 0));
    } else {
      sketch_ = TinyLfuSketch(blocks, static_cast<std::uint64_t>(p.integer("sample_factor")),
                              p.text("doorkeeper") == "true");
    }
    nodes_.reserve(context.block_count);
  }

  std::string_view name() const override { return "w_tinylfu"; }
  void prefetch(BlockIndex block) const override {
    if (block < nodes_.size()) __builtin_prefetch(&nodes_[block], 1);
  }

  void on_hit(const PolicyAccess& a) override {
    const BlockIndex b = a.block;
    WNode& n = nodes_[b];
    if (!lcs_) sketch_.record(b);
    switch (n.where) {
      case kWindow:
        window_.move_to_front(nodes_, b);  // libCacheSim: no sketch add on a window hit
        break;
      case kProbation:
      case kProtected:
        main_hit(b);
        if (lcs_) {
          cbf_.check_add(b, true);
          if (++main_hits_ >= decay_every_) {
            main_hits_ = 0;
            cbf_.halve();
          }
        }
        break;
      case kPending:  // libCacheSim evicted it: its miss, inserted into the window
        pending_.erase(nodes_, b);
        n.where = kNone;
        insert_window(b, a.bytes);
        if (lcs_) cbf_.check_add(b, true);
        break;
      default:
        break;
    }
  }

  void on_miss(const PolicyAccess& a) override {
    incoming_bytes_ = a.bytes;
    if (!lcs_) sketch_.record(a.block);
  }

  void on_insert(const PolicyAccess& a) override {
    const BlockIndex b = a.block;
    grow_to_hold(nodes_, b);
    if (nodes_[b].where != kNone) {
      on_hit(a);
      return;
    }
    insert_window(b, a.bytes);
    if (lcs_) cbf_.check_add(b, true);
    incoming_bytes_ = 0;
  }

  void on_bypass(const PolicyAccess&) override { incoming_bytes_ = 0; }

  std::optional<BlockIndex> evict(Nanoseconds, const EvictionFilter& filter) override {
    if (const BlockIndex v = take_pending(filter); v != kNoBlock) return v;
    if (lcs_) {
      evict_like_libcachesim(filter);
      const BlockIndex v = take_pending(filter);
      if (v != kNoBlock) return v;
      return std::nullopt;
    }
    const BlockIndex v = evict_caffeine(filter);
    if (v != kNoBlock) return v;
    return std::nullopt;
  }

  void remove(BlockIndex block) override {
    if (block >= nodes_.size() || nodes_[block].where == kNone) return;
    unlink(block);
    nodes_[block].where = kNone;
  }

  std::size_t size() const override {
    return window_.size() + seg_[0].size() + seg_[1].size() + pending_.size();
  }

 private:
  std::int64_t main_bytes() const { return seg_bytes_[0] + seg_bytes_[1]; }

  IntrusiveList& list_of(std::uint8_t where) {
    return where == kWindow ? window_ : where == kProbation ? seg_[0] : where == kProtected ? seg_[1] : pending_;
  }

  void unlink(BlockIndex b) {
    WNode& n = nodes_[b];
    list_of(n.where).erase(nodes_, b);
    const auto bytes = static_cast<std::int64_t>(n.bytes);
    if (n.where == kWindow) window_bytes_ -= bytes;
    if (n.where == kProbation) seg_bytes_[0] -= bytes;
    if (n.where == kProtected) seg_bytes_[1] -= bytes;
  }

  void insert_window(BlockIndex b, ByteCount bytes) {
    nodes_[b].bytes = bytes;
    nodes_[b].where = kWindow;
    window_.push_front(nodes_, b);
    window_bytes_ += static_cast<std::int64_t>(bytes);
  }

  void put_segment(BlockIndex b, int seg) {
    nodes_[b].where = seg == 0 ? kProbation : kProtected;
    seg_[seg].push_front(nodes_, b);
    seg_bytes_[seg] += static_cast<std::int64_t>(nodes_[b].bytes);
  }

  /// The block leaves the policy now; the driver learns it at the next evict().
  void drop(BlockIndex b) {
    unlink(b);
    nodes_[b].where = kPending;
    pending_.push_front(nodes_, b);
  }

  BlockIndex take_pending(const EvictionFilter& filter) {
    for (BlockIndex b = pending_.back(); b != kNoBlock; b = IntrusiveList::toward_front(nodes_, b)) {
      if (filter.allows(b)) {
        pending_.erase(nodes_, b);
        nodes_[b].where = kNone;
        return b;
      }
    }
    return kNoBlock;
  }

  BlockIndex last_allowed(const IntrusiveList& list, const EvictionFilter& filter) const {
    for (BlockIndex b = list.back(); b != kNoBlock; b = IntrusiveList::toward_front(nodes_, b))
      if (filter.allows(b)) return b;
    return kNoBlock;
  }

  /// Main's victim: probation's tail, else protected's (libCacheSim: the
  /// tail of the lowest non-empty segment).
  BlockIndex main_victim(const EvictionFilter& filter) const {
    const BlockIndex v = last_allowed(seg_[0], filter);
    return v != kNoBlock ? v : last_allowed(seg_[1], filter);
  }

  std::uint32_t estimate(BlockIndex b) { return lcs_ ? cbf_.check_add(b, false) : sketch_.estimate(b); }

  /// A block from the window enters main.
  void main_insert(BlockIndex b, const EvictionFilter& filter) {
    const auto bytes = static_cast<std::int64_t>(nodes_[b].bytes);
    if (!lcs_) {
      put_segment(b, 0);
      return;
    }
    // libCacheSim SLRU_insert: the lowest segment with room; none: evict
    // until main has room, then probation.
    for (int s = 0; s < 2; ++s) {
      if (seg_bytes_[s] + bytes <= seg_max_[s]) {
        put_segment(b, s);
        return;
      }
    }
    while (main_bytes() + bytes > main_cap_) {
      const BlockIndex v = main_victim(filter);
      if (v == kNoBlock) break;
      drop(v);
    }
    put_segment(b, 0);
  }

  void main_hit(BlockIndex b) {
    WNode& n = nodes_[b];
    if (n.where == kProtected) {
      seg_[1].move_to_front(nodes_, b);
      return;
    }
    unlink(b);
    put_segment(b, 1);
    if (lcs_) {
      // SLRU_find: cool the promoted block's segment while it is over its size.
      while (nodes_[b].where == kProbation || nodes_[b].where == kProtected) {
        const int s = nodes_[b].where == kProtected ? 1 : 0;
        if (seg_bytes_[s] <= seg_max_[s]) break;
        cool(s);
      }
    } else {
      while (seg_bytes_[1] > seg_max_[1] && seg_[1].size() > 1) {
        const BlockIndex d = seg_[1].back();
        unlink(d);
        put_segment(d, 0);
      }
    }
  }

  /// libCacheSim SLRU_cool: protected's tail to probation's front; probation
  /// over its size evicts (the tail of the lowest non-empty segment).
  void cool(int s) {
    if (s == 0) {
      const BlockIndex v = seg_[0].empty() ? seg_[1].back() : seg_[0].back();
      if (v != kNoBlock) drop(v);
      return;
    }
    const BlockIndex d = seg_[1].back();
    unlink(d);
    put_segment(d, 0);
    while (seg_bytes_[0] > seg_max_[0] && !seg_[0].empty()) cool(0);
  }

  /// One call of libCacheSim's WTinyLFU_evict: its victims go to pending.
  void evict_like_libcachesim(const EvictionFilter& filter) {
    for (;;) {
      const BlockIndex w = last_allowed(window_, filter);
      if (w == kNoBlock) {
        const BlockIndex v = main_victim(filter);
        if (v != kNoBlock) drop(v);
        return;
      }
      const auto w_bytes = static_cast<std::int64_t>(nodes_[w].bytes);
      bool done = false;
      if (main_bytes() + w_bytes <= main_cap_) {
        unlink(w);
        main_insert(w, filter);
      } else {
        const BlockIndex m = main_victim(filter);
        if (m != kNoBlock && estimate(w) > estimate(m)) {
          drop(m);
          unlink(w);
          main_insert(w, filter);
        } else {
          drop(w);
          done = true;
        }
      }
      cbf_.check_add(w, true);
      if (done) return;
    }
  }

  /// Caffeine: window overflow duels main's victim; one victim per call.
  BlockIndex evict_caffeine(const EvictionFilter& filter) {
    for (;;) {
      const BlockIndex w = window_bytes_ + static_cast<std::int64_t>(incoming_bytes_) > window_cap_
                               ? last_allowed(window_, filter)
                               : kNoBlock;
      if (w == kNoBlock) {
        const BlockIndex v = main_victim(filter);
        const BlockIndex victim = v != kNoBlock ? v : last_allowed(window_, filter);
        if (victim != kNoBlock) {
          unlink(victim);
          nodes_[victim].where = kNone;
        }
        return victim;
      }
      if (main_bytes() + static_cast<std::int64_t>(nodes_[w].bytes) <= main_cap_) {
        unlink(w);
        put_segment(w, 0);
        continue;
      }
      const BlockIndex m = main_victim(filter);
      const BlockIndex victim = (m != kNoBlock && estimate(w) > estimate(m)) ? m : w;
      unlink(victim);
      nodes_[victim].where = kNone;
      if (victim == m) {
        unlink(w);
        put_segment(w, 0);
      }
      return victim;
    }
  }

  bool lcs_;
  CountingBloom cbf_;
  TinyLfuSketch sketch_;
  std::int64_t window_cap_ = 0, main_cap_ = 0;
  std::int64_t seg_max_[2] = {0, 0};
  std::int64_t window_bytes_ = 0, seg_bytes_[2] = {0, 0};
  std::uint64_t decay_every_ = 0, main_hits_ = 0;
  ByteCount incoming_bytes_ = 0;
  std::vector<WNode> nodes_;
  IntrusiveList window_, seg_[2], pending_;
};

}  // namespace

FLASHSIM_REGISTER_POLICY({"w_tinylfu",
                          "W-TinyLFU: window LRU, SLRU main, frequency-sketch admission (Einziger, Friedman, Manes, "
                          "ACM ToS 2017); default decisions as libCacheSim's WTinyLFU",
                          {{"variant", ParamType::choice, "libcachesim",
                            "libcachesim: libCacheSim WTinyLFU.c exactly (unbounded window, counting Bloom filter, "
                            "no doorkeeper); caffeine: bounded window, count-min sketch with doorkeeper and reset",
                            0, 0, {"libcachesim", "caffeine"}},
                           {"window_share", ParamType::real, "0.01",
                            "window bytes as a fraction of capacity (paper, Caffeine, libCacheSim: 1%)", 0.0, 0.99, {}},
                           {"protected_share", ParamType::real, "0.8",
                            "protected segment as a fraction of main (Caffeine 80%; libCacheSim seg-size=1:4)", 0.0,
                            1.0, {}},
                           {"sample_factor", ParamType::integer, "10",
                            "caffeine: counter halving after this many x capacity-in-blocks accesses (paper: W = 10 C)",
                            1, 1000, {}},
                           {"doorkeeper", ParamType::choice, "true",
                            "caffeine: a Bloom filter absorbs each key's first access (paper section 3.4.2)", 0, 0,
                            {"true", "false"}}},
                          [](const ParamValues& p, const PolicyContext& c) -> std::unique_ptr<IEvictionPolicy> {
                            return std::make_unique<WTinyLfuPolicy>(p, c);
                          }});

}  // namespace flashsim
