// 2Q, full version (Johnson & Shasha, "2Q: A low overhead high performance
// buffer management replacement algorithm", VLDB 1994, Fig. "Full 2Q"),
// in bytes.
//
//   A1in  resident FIFO of blocks seen once; a hit there changes nothing
//         (the paper's "correlated reference" rule);
//   A1out ghost FIFO (BlockIndex and size) of blocks paged out of A1in;
//   Am    resident LRU of blocks re-referenced after leaving A1in.
// A miss found in A1out is inserted at the front of Am, any other miss at
// the front of A1in. Reclaim (evict()): if |A1in| > Kin, page out A1in's
// tail into A1out's front (dropping A1out's tail while |A1out| > Kout),
// else page out Am's tail (it does not enter A1out). If the chosen list has
// no block the driver allows, the other is used. Kin = kin * capacity and
// Kout = kout * capacity, in bytes; the paper recommends Kin = 25% of the
// pages and Kout = 50% of the pages. remove() forgets without a ghost.
#include <memory>

#include "sim/policy/block_table.h"
#include "sim/policy/i_eviction_policy.h"
#include "sim/policy/intrusive_list.h"

namespace flashsim {
namespace {

enum TwoQWhere : std::uint8_t { kNone = 0, kA1in, kAm, kA1out, kPendingAm };

struct TwoQNode : ListLink {
  ByteCount bytes = 0;          ///< size at insertion (kept while a ghost)
  std::uint8_t where = kNone;
};

class TwoQPolicy final : public IEvictionPolicy {
 public:
  TwoQPolicy(const ParamValues& params, const PolicyContext& context)
      : kin_bytes_(static_cast<ByteCount>(params.real("kin") * static_cast<double>(context.capacity_bytes))),
        kout_bytes_(static_cast<ByteCount>(params.real("kout") * static_cast<double>(context.capacity_bytes))) {
    nodes_.reserve(context.block_count);
  }

  std::string_view name() const override { return "2q"; }
  void prefetch(BlockIndex block) const override {
    if (block < nodes_.size()) __builtin_prefetch(&nodes_[block], 1);
  }

  void on_hit(const PolicyAccess& a) override {
    if (nodes_[a.block].where == kAm) am_.move_to_front(nodes_, a.block);
  }

  void on_miss(const PolicyAccess& a) override {
    const BlockIndex b = a.block;
    grow(b);
    if (nodes_[b].where == kA1out) {
      a1out_.erase(nodes_, b);
      a1out_bytes_ -= nodes_[b].bytes;
      nodes_[b].where = kPendingAm;
    } else if (nodes_[b].where == kPendingAm) {
      nodes_[b].where = kNone;  // an earlier A1out hit that was bypassed
    }
  }

  void on_insert(const PolicyAccess& a) override {
    const BlockIndex b = a.block;
    grow(b);
    const std::uint8_t w = nodes_[b].where;
    if (w == kA1in || w == kAm) {
      on_hit(a);
      return;
    }
    if (w == kA1out) {  // inserted without on_miss (a prefetch)
      a1out_.erase(nodes_, b);
      a1out_bytes_ -= nodes_[b].bytes;
    }
    nodes_[b].bytes = a.bytes;
    if (w == kA1out || w == kPendingAm) {
      am_.push_front(nodes_, b);
      am_bytes_ += a.bytes;
      nodes_[b].where = kAm;
    } else {
      a1in_.push_front(nodes_, b);
      a1in_bytes_ += a.bytes;
      nodes_[b].where = kA1in;
    }
  }

  std::optional<BlockIndex> evict(Nanoseconds, const EvictionFilter& filter) override {
    const bool from_a1in = a1in_bytes_ > kin_bytes_;
    BlockIndex v = from_a1in ? first_allowed(a1in_, filter) : first_allowed(am_, filter);
    bool v_in_a1in = from_a1in;
    if (v == kNoBlock) {
      v = from_a1in ? first_allowed(am_, filter) : first_allowed(a1in_, filter);
      v_in_a1in = !from_a1in;
    }
    if (v == kNoBlock) return std::nullopt;
    if (v_in_a1in) {
      a1in_.erase(nodes_, v);
      a1in_bytes_ -= nodes_[v].bytes;
      a1out_.push_front(nodes_, v);
      a1out_bytes_ += nodes_[v].bytes;
      nodes_[v].where = kA1out;
      while (a1out_bytes_ > kout_bytes_ && !a1out_.empty()) {
        const BlockIndex g = a1out_.pop_back(nodes_);
        a1out_bytes_ -= nodes_[g].bytes;
        nodes_[g].where = kNone;
      }
    } else {
      am_.erase(nodes_, v);
      am_bytes_ -= nodes_[v].bytes;
      nodes_[v].where = kNone;
    }
    return v;
  }

  void remove(BlockIndex block) override {
    if (block >= nodes_.size()) return;
    if (nodes_[block].where == kA1in) {
      a1in_.erase(nodes_, block);
      a1in_bytes_ -= nodes_[block].bytes;
    } else if (nodes_[block].where == kAm) {
      am_.erase(nodes_, block);
      am_bytes_ -= nodes_[block].bytes;
    } else {
      return;
    }
    nodes_[block].where = kNone;
  }

  std::size_t size() const override { return a1in_.size() + am_.size(); }

 private:
  void grow(BlockIndex b) {
    grow_to_hold(nodes_, b);
  }

  BlockIndex first_allowed(const IntrusiveList& list, const EvictionFilter& filter) const {
    for (BlockIndex b = list.back(); b != kNoBlock; b = IntrusiveList::toward_front(nodes_, b))
      if (filter.allows(b)) return b;
    return kNoBlock;
  }

  ByteCount kin_bytes_;
  ByteCount kout_bytes_;
  std::vector<TwoQNode> nodes_;
  IntrusiveList a1in_, am_, a1out_;
  ByteCount a1in_bytes_ = 0, am_bytes_ = 0, a1out_bytes_ = 0;
};

}  // namespace

FLASHSIM_REGISTER_POLICY({"2q",
                          "full 2Q: A1in FIFO, A1out ghost FIFO, Am LRU (Johnson & Shasha, VLDB 1994)",
                          {{"kin", ParamType::real, "0.25",
                            "A1in target as a fraction of capacity bytes (paper: 25% of the buffer)", 0.0, 1.0, {}},
                           {"kout", ParamType::real, "0.5",
                            "A1out ghost bound as a fraction of capacity bytes (paper: 50% of the buffer)", 0.0, 10.0,
                            {}}},
                          [](const ParamValues& p, const PolicyContext& c) -> std::unique_ptr<IEvictionPolicy> {
                            return std::make_unique<TwoQPolicy>(p, c);
                          }});

}  // namespace flashsim
