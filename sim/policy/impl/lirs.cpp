// LIRS, Low Inter-reference Recency Set (Jiang & Zhang, "LIRS: an efficient
// low inter-reference recency set replacement policy to improve buffer
// cache performance", SIGMETRICS 2002, Section 3.3), in bytes.
//
// Blocks are LIR (resident, small inter-reference recency) or HIR
// (resident or not). Two lists:
//   S  the LIRS stack, most recent on top: LIR blocks, resident HIR blocks
//      and non-resident HIR blocks, in recency order. "Stack pruning" keeps
//      an LIR block at the bottom (HIR entries below the lowest LIR block
//      leave S: a resident one stays in Q, a non-resident one is forgotten).
//   Q  the resident HIR blocks, in order of last access; its front (the
//      oldest) is the only eviction candidate.
// L_hirs = max(1, hir_share * capacity) bytes, L_lirs = capacity - L_hirs.
// Access to x:
//   LIR hit           x to the top of S; prune if it was the bottom.
//   HIR hit, x in S   x to the top of S, out of Q, becomes LIR; while the
//                     LIR set exceeds L_lirs, the bottom LIR of S moves to
//                     the end of Q as resident HIR, then S is pruned.
//   HIR hit, not in S x to the top of S (stays HIR), to the end of Q.
//   miss, x non-resident HIR in S: evict() takes Q's front (which becomes
//                     non-resident if it is in S); x becomes LIR at the top
//                     of S and the excess LIR moves to Q as above.
//   miss, x not in S  LIR at the top of S while the LIR set has room
//                     (the warm-up rule), otherwise resident HIR at the top
//                     of S and the end of Q.
// Byte adaptations: the LIR set is capped by bytes (several bottom LIR
// blocks may move to Q for one large block; a block larger than L_lirs
// stays LIR alone on top); Q may exceed L_hirs after such a move until the
// next evictions take its front. evict() takes the oldest Q block the
// driver allows; when Q has none, the lowest allowed LIR block of S goes
// (forgotten, S pruned): a case the paper's uniform blocks never reach.
//
// Non-resident HIR entries are what S spends memory on: after each access,
// while S holds more than stack_max * capacity bytes of entries, the entry
// that became non-resident earliest leaves S (libCacheSim's LIRS.c bounds S
// the same way, at 2 x capacity, which is our default; the paper leaves S
// unbounded in its algorithm and discusses a bound only as an option).
// remove() forgets a block (no non-resident entry).
#include <algorithm>
#include <cmath>
#include <memory>

#include "sim/policy/block_table.h"
#include "sim/policy/i_eviction_policy.h"
#include "sim/policy/intrusive_list.h"

namespace flashsim {
namespace {

struct LirsNode {
  ListLink s;              ///< links in stack S
  ListLink q;              ///< links in Q
  ListLink nh;             ///< links in the non-resident order
  ByteCount bytes = 0;     ///< size at insertion (kept while non-resident)
  bool in_s = false;
  bool in_q = false;       ///< resident HIR
  bool lir = false;
  bool resident = false;
};

/// The view of one link pair of the node table, the "Table" IntrusiveList works on.
template <ListLink LirsNode::*Member>
struct LinkView {
  std::vector<LirsNode>* nodes;
  ListLink& operator[](BlockIndex b) { return (*nodes)[b].*Member; }
  const ListLink& operator[](BlockIndex b) const { return (*nodes)[b].*Member; }
};

class LirsPolicy final : public IEvictionPolicy {
 public:
  LirsPolicy(const ParamValues& params, const PolicyContext& context)
      : hir_limit_bytes_(std::max<ByteCount>(
            1, static_cast<ByteCount>(params.real("hir_share") * static_cast<double>(context.capacity_bytes)))),
        lir_limit_bytes_(context.capacity_bytes > hir_limit_bytes_ ? context.capacity_bytes - hir_limit_bytes_ : 0),
        stack_limit_bytes_(params.real("stack_max") * static_cast<double>(context.capacity_bytes)),
        libcachesim_q_hit_(params.text("q_hit") == "libcachesim") {
    nodes_.reserve(context.block_count);
  }

  std::string_view name() const override { return "lirs"; }
  void prefetch(BlockIndex block) const override {
    if (block < nodes_.size()) __builtin_prefetch(&nodes_[block], 1);
  }

  void on_hit(const PolicyAccess& a) override {
    const BlockIndex b = a.block;
    LirsNode& n = nodes_[b];
    if (n.lir) {
      const bool was_bottom = s_.back() == b;
      s_.move_to_front(sv_, b);
      if (was_bottom) prune();
    } else if (n.in_s) {
      s_.move_to_front(sv_, b);
      q_.erase(qv_, b);
      n.in_q = false;
      n.lir = true;
      lir_bytes_ += n.bytes;
      ++lir_count_;
      demote_excess_lir(b);
    } else {
      q_.move_to_front(qv_, b);
      if (libcachesim_q_hit_) {
        // libCacheSim's hit_RD_HIRinQ: make room in the LIR set as if x
        // were joining it, although x stays HIR (see the file comment).
        while (lir_bytes_ + n.bytes > lir_limit_bytes_ && demote_bottom_lir(kNoBlock)) {
        }
      }
      s_.push_front(sv_, b);
      n.in_s = true;
      s_bytes_ += n.bytes;
    }
    bound_stack();
  }

  void on_insert(const PolicyAccess& a) override {
    const BlockIndex b = a.block;
    grow_to_hold(nodes_, b);
    LirsNode& n = nodes_[b];
    if (n.resident) {
      on_hit(a);
      return;
    }
    n.resident = true;
    if (n.in_s) {  // a non-resident HIR block of S: small IRR, becomes LIR
      nh_.erase(nhv_, b);
      s_bytes_ = s_bytes_ - n.bytes + a.bytes;
      n.bytes = a.bytes;
      s_.move_to_front(sv_, b);
      n.lir = true;
      lir_bytes_ += a.bytes;
      ++lir_count_;
      demote_excess_lir(b);
    } else {
      n.bytes = a.bytes;
      s_.push_front(sv_, b);
      n.in_s = true;
      s_bytes_ += a.bytes;
      if (lir_bytes_ + a.bytes <= lir_limit_bytes_) {
        n.lir = true;
        lir_bytes_ += a.bytes;
        ++lir_count_;
      } else {
        q_.push_front(qv_, b);
        n.in_q = true;
      }
    }
    bound_stack();
  }

  void on_bypass(const PolicyAccess&) override { bound_stack(); }

  std::optional<BlockIndex> evict(Nanoseconds, const EvictionFilter& filter) override {
    for (BlockIndex v = q_.back(); v != kNoBlock; v = IntrusiveList::toward_front(qv_, v)) {
      if (!filter.allows(v)) continue;
      LirsNode& n = nodes_[v];
      q_.erase(qv_, v);
      n.in_q = false;
      n.resident = false;
      if (n.in_s) nh_.push_front(nhv_, v);  // non-resident HIR, still in S
      return v;
    }
    for (BlockIndex v = s_.back(); v != kNoBlock; v = IntrusiveList::toward_front(sv_, v)) {
      if (!nodes_[v].lir || !filter.allows(v)) continue;
      forget_lir(v);
      return v;
    }
    return std::nullopt;
  }

  void remove(BlockIndex block) override {
    if (block >= nodes_.size() || !nodes_[block].resident) return;
    LirsNode& n = nodes_[block];
    if (n.lir) {
      forget_lir(block);
      return;
    }
    q_.erase(qv_, block);
    if (n.in_s) {
      s_.erase(sv_, block);
      s_bytes_ -= n.bytes;
    }
    n = LirsNode{};
  }

  std::size_t size() const override { return lir_count_ + q_.size(); }

 private:
  /// Takes LIR block `v` out of S and out of the policy; prunes S.
  void forget_lir(BlockIndex v) {
    s_.erase(sv_, v);
    s_bytes_ -= nodes_[v].bytes;
    lir_bytes_ -= nodes_[v].bytes;
    --lir_count_;
    nodes_[v] = LirsNode{};
    prune();
  }

  /// While the LIR set exceeds its bytes, moves the bottom LIR block of S
  /// (never `keep`, the block just made LIR on top) to Q.
  void demote_excess_lir(BlockIndex keep) {
    while (lir_bytes_ > lir_limit_bytes_ && demote_bottom_lir(keep)) {
    }
  }

  /// The bottom LIR block of S becomes a resident HIR block at the end of
  /// Q, and S is pruned; false (nothing done) when S is empty or its bottom
  /// is `keep`.
  bool demote_bottom_lir(BlockIndex keep) {
    const BlockIndex v = s_.back();
    if (v == keep || v == kNoBlock) return false;
    LirsNode& n = nodes_[v];
    s_.erase(sv_, v);
    s_bytes_ -= n.bytes;
    n.in_s = false;
    n.lir = false;
    lir_bytes_ -= n.bytes;
    --lir_count_;
    q_.push_front(qv_, v);
    n.in_q = true;
    prune();
    return true;
  }

  /// Stack pruning: HIR entries at the bottom of S leave it.
  void prune() {
    while (!s_.empty() && !nodes_[s_.back()].lir) {
      const BlockIndex v = s_.pop_back(sv_);
      LirsNode& n = nodes_[v];
      s_bytes_ -= n.bytes;
      n.in_s = false;
      if (!n.resident) {
        nh_.erase(nhv_, v);
        n = LirsNode{};
      }
    }
  }

  /// Drops the oldest non-resident entries while S is over its bound.
  void bound_stack() {
    while (static_cast<double>(s_bytes_) > stack_limit_bytes_ && !nh_.empty()) {
      const BlockIndex v = nh_.pop_back(nhv_);
      s_.erase(sv_, v);
      s_bytes_ -= nodes_[v].bytes;
      nodes_[v] = LirsNode{};
    }
  }

  ByteCount hir_limit_bytes_;
  ByteCount lir_limit_bytes_;
  double stack_limit_bytes_;
  bool libcachesim_q_hit_;  ///< q_hit = libcachesim
  std::vector<LirsNode> nodes_;
  LinkView<&LirsNode::s> sv_{&nodes_};    ///< S's links
  LinkView<&LirsNode::q> qv_{&nodes_};    ///< Q's links
  LinkView<&LirsNode::nh> nhv_{&nodes_};  ///< the non-resident order's links
  IntrusiveList s_, q_, nh_;  ///< front = most recent; Q's back is the paper's "front of Q"
  ByteCount lir_bytes_ = 0;
  ByteCount s_bytes_ = 0;     ///< bytes of every entry of S, resident or not
  std::size_t lir_count_ = 0;
};

}  // namespace

FLASHSIM_REGISTER_POLICY({"lirs",
                          "LIRS: LIR set by inter-reference recency, resident-HIR queue Q evicted FIFO, stack S "
                          "with pruning (Jiang & Zhang, SIGMETRICS 2002)",
                          {{"hir_share", ParamType::real, "0.01",
                            "resident HIR bytes (Q) as a share of capacity (paper and libCacheSim: 1%)", 0.0, 1.0, {}},
                           {"stack_max", ParamType::real, "2",
                            "bound on the bytes of all entries of stack S, as a multiple of capacity; the oldest "
                            "non-resident entries leave first (libCacheSim LIRS.c: 2)",
                            0.0, 1000.0, {}},
                           {"q_hit", ParamType::choice, "paper",
                            "hit on a resident HIR block not in S: paper (it moves to the top of S and the end of "
                            "Q, nothing else) or libcachesim (LIRS.c also moves bottom LIR blocks to Q while the "
                            "LIR set has no room for the block, as if it were becoming LIR)",
                            0, 0, {"paper", "libcachesim"}}},
                          [](const ParamValues& p, const PolicyContext& c) -> std::unique_ptr<IEvictionPolicy> {
                            return std::make_unique<LirsPolicy>(p, c);
                          }});

}  // namespace flashsim
