// ARC, the Adaptive Replacement Cache (Megiddo & Modha, "ARC: A self-tuning,
// low overhead replacement cache", FAST 2003, Fig. 4), adapted to bytes.
//
// Lists: T1 (resident, seen once recently), T2 (resident, seen at least
// twice), B1/B2 (ghosts of T1/T2: BlockIndex and the block's size only).
// All sizes |X| below are in bytes, c = capacity_bytes.
//
// p, the target size of T1, is a byte count in [0, c]. On a miss that hits
// ghost B1, p += bytes(x) * max(1, |B2| / |B1|) (capped at c); on a hit in B2,
// p -= bytes(x) * max(1, |B1| / |B2|) (floored at 0). For blocks of one size
// s this is the paper's delta (in pages) times s, so ARC over uniform blocks
// decides exactly as the paper's page version. (libCacheSim's ARC.c moves p
// by max(|B2|/|B1|, 1) *bytes*, i.e. one byte per ghost hit; we scale by the
// block instead, so that adaptation speed does not depend on the unit.)
//
// REPLACE (called through evict()): take the LRU of T1 into B1 if T1 is not
// empty and (|T1| > p, or the block being fetched was found in B2 and
// |T1| >= p, the byte form of the paper's |T1| = p); otherwise the LRU of T2
// into B2. When the chosen list holds no block the driver allows, the other
// list is used.
// Ghost bounds (paper's case IV, in bytes) are restored after each insert
// and on each miss: while |T1| + |B1| > c, drop B1's LRU; while
// |T1| + |T2| + |B1| + |B2| > 2c, drop B2's LRU (then B1's).
// A ghost hit followed by a bypass (the driver did not insert) loses the
// ghost entry; remove() forgets a resident block without making it a ghost.
#include <algorithm>
#include <memory>

#include "sim/core/block_vector.h"
#include "sim/core/hash_map.h"
#include "sim/policy/block_table.h"
#include "sim/policy/i_eviction_policy.h"
#include "sim/policy/intrusive_list.h"

namespace flashsim {
namespace {

enum ArcWhere : std::uint8_t { kNone = 0, kT1, kT2, kB1, kB2, kPendingT2 };

// 16 bytes: the size at insertion (kept while a ghost) in 32 bits; a block
// of 4 GiB or more has kBigBytes there and its size in ArcPolicy::big_bytes_.
struct ArcNode : ListLink {
  std::uint32_t bytes = 0;
  std::uint8_t where = kNone;
};
constexpr std::uint32_t kBigBytes = 0xFFFFFFFFu;

class ArcPolicy final : public IEvictionPolicy {
 public:
  explicit ArcPolicy(const PolicyContext& context) : c_(context.capacity_bytes) {
    nodes_.reserve(context.block_count);
  }

  std::string_view name() const override { return "arc"; }
  void prefetch(BlockIndex block) const override {
    if (block < nodes_.size()) __builtin_prefetch(&nodes_[block], 1);
  }

  void on_hit(const PolicyAccess& a) override {
    const BlockIndex b = a.block;
    if (nodes_[b].where == kT2) {
      t2_.move_to_front(nodes_, b);
      return;
    }
    // Case I from T1: now seen twice.
    t1_.erase(nodes_, b);
    t1_bytes_ -= bytes_of(b);
    t2_.push_front(nodes_, b);
    t2_bytes_ += bytes_of(b);
    nodes_[b].where = kT2;
  }

  void on_miss(const PolicyAccess& a) override {
    const BlockIndex b = a.block;
    grow(b);
    fetching_from_b2_ = false;
    const std::uint8_t w = nodes_[b].where;
    if (w == kB1 || w == kB2) {
      ghost_hit(b);
    } else if (w == kPendingT2) {
      nodes_[b].where = kNone;  // a bypassed ghost hit earlier: forgotten
    }
    trim_ghosts();
  }

  void on_insert(const PolicyAccess& a) override {
    const BlockIndex b = a.block;
    grow(b);
    std::uint8_t w = nodes_[b].where;
    if (w == kT1 || w == kT2) {
      on_hit(a);
      return;
    }
    if (w == kB1 || w == kB2) {  // inserted without on_miss (a prefetch)
      ghost_hit(b);
      w = kPendingT2;
    }
    set_bytes(b, a.bytes);
    if (w == kPendingT2) {
      t2_.push_front(nodes_, b);
      t2_bytes_ += a.bytes;
      nodes_[b].where = kT2;
    } else {
      t1_.push_front(nodes_, b);
      t1_bytes_ += a.bytes;
      nodes_[b].where = kT1;
    }
    fetching_from_b2_ = false;
    trim_ghosts();
  }

  std::optional<BlockIndex> evict(Nanoseconds, const EvictionFilter& filter) override {
    const double t1 = static_cast<double>(t1_bytes_);
    const bool from_t1 = t1_bytes_ > 0 && (t1 > p_ || (fetching_from_b2_ && t1 >= p_));
    BlockIndex v = from_t1 ? first_allowed(t1_, filter) : first_allowed(t2_, filter);
    bool v_in_t1 = from_t1;
    if (v == kNoBlock) {
      v = from_t1 ? first_allowed(t2_, filter) : first_allowed(t1_, filter);
      v_in_t1 = !from_t1;
    }
    if (v == kNoBlock) return std::nullopt;
    if (v_in_t1) {
      t1_.erase(nodes_, v);
      t1_bytes_ -= bytes_of(v);
      b1_.push_front(nodes_, v);
      b1_bytes_ += bytes_of(v);
      nodes_[v].where = kB1;
    } else {
      t2_.erase(nodes_, v);
      t2_bytes_ -= bytes_of(v);
      b2_.push_front(nodes_, v);
      b2_bytes_ += bytes_of(v);
      nodes_[v].where = kB2;
    }
    return v;
  }

  void remove(BlockIndex block) override {
    if (block >= nodes_.size()) return;
    if (nodes_[block].where == kT1) {
      t1_.erase(nodes_, block);
      t1_bytes_ -= bytes_of(block);
    } else if (nodes_[block].where == kT2) {
      t2_.erase(nodes_, block);
      t2_bytes_ -= bytes_of(block);
    } else {
      return;
    }
    nodes_[block].where = kNone;
  }

  std::size_t size() const override { return t1_.size() + t2_.size(); }

 private:
  void grow(BlockIndex b) {
    grow_to_hold(nodes_, b);
  }

  /// Cases II and III: adapt p, take `b` out of its ghost list.
  void ghost_hit(BlockIndex b) {
    const double x = static_cast<double>(bytes_of(b));
    const double b1 = static_cast<double>(b1_bytes_);
    const double b2 = static_cast<double>(b2_bytes_);
    if (nodes_[b].where == kB1) {
      const double delta = x * std::max(1.0, b1 > 0 ? b2 / b1 : 1.0);
      p_ = std::min(static_cast<double>(c_), p_ + delta);
      b1_.erase(nodes_, b);
      b1_bytes_ -= bytes_of(b);
    } else {
      const double delta = x * std::max(1.0, b2 > 0 ? b1 / b2 : 1.0);
      p_ = std::max(0.0, p_ - delta);
      b2_.erase(nodes_, b);
      b2_bytes_ -= bytes_of(b);
      fetching_from_b2_ = true;
    }
    nodes_[b].where = kPendingT2;
  }

  void drop_ghost_back(IntrusiveList& list, ByteCount& list_bytes) {
    const BlockIndex g = list.pop_back(nodes_);
    list_bytes -= bytes_of(g);
    nodes_[g].where = kNone;
  }

  void trim_ghosts() {
    while (!b1_.empty() && t1_bytes_ + b1_bytes_ > c_) drop_ghost_back(b1_, b1_bytes_);
    while (t1_bytes_ + t2_bytes_ + b1_bytes_ + b2_bytes_ > 2 * c_) {
      if (!b2_.empty()) drop_ghost_back(b2_, b2_bytes_);
      else if (!b1_.empty()) drop_ghost_back(b1_, b1_bytes_);
      else break;
    }
  }

  BlockIndex first_allowed(const IntrusiveList& list, const EvictionFilter& filter) const {
    for (BlockIndex b = list.back(); b != kNoBlock; b = IntrusiveList::toward_front(nodes_, b))
      if (filter.allows(b)) return b;
    return kNoBlock;
  }

  ByteCount bytes_of(BlockIndex b) const {
    const std::uint32_t low = nodes_[b].bytes;
    return low != kBigBytes ? low : big_bytes_.at(b);
  }
  void set_bytes(BlockIndex b, ByteCount bytes) {
    if (bytes < kBigBytes) {
      if (nodes_[b].bytes == kBigBytes) big_bytes_.erase(b);
      nodes_[b].bytes = static_cast<std::uint32_t>(bytes);
    } else {
      nodes_[b].bytes = kBigBytes;
      big_bytes_[b] = bytes;
    }
  }

  ByteCount c_;
  double p_ = 0.0;  ///< target bytes of T1
  bool fetching_from_b2_ = false;  ///< the miss being served was a B2 ghost hit
  BlockVector<ArcNode> nodes_;
  HashMap<BlockIndex, ByteCount> big_bytes_;  // sizes of blocks of 4 GiB or more
  IntrusiveList t1_, t2_, b1_, b2_;
  ByteCount t1_bytes_ = 0, t2_bytes_ = 0, b1_bytes_ = 0, b2_bytes_ = 0;
};

}  // namespace

FLASHSIM_REGISTER_POLICY({"arc",
                          "adaptive replacement cache, T1/T2/B1/B2 with target p in bytes "
                          "(Megiddo & Modha, FAST 2003)",
                          {},
                          [](const ParamValues&, const PolicyContext& c) -> std::unique_ptr<IEvictionPolicy> {
                            return std::make_unique<ArcPolicy>(c);
                          }});

}  // namespace flashsim
