// S3-FIFO (Yang, Zhang, Qiu, Yue, Vinayak, "FIFO queues are all you need for
// cache eviction", SOSP 2023, Algorithm 1), in bytes. Decisions follow the
// authors' artifact, libCacheSim S3FIFOv0.c ("original SOSP paper
// implementation") where the paper's pseudocode leaves a choice open.
//
//   S  small FIFO, target small_ratio * capacity bytes (paper: 10%);
//   M  main FIFO with a 2-bit counter, i.e. FIFO-reinsertion (CLOCK);
//   G  ghost FIFO of BlockIndex (and size), at most ghost_ratio * capacity
//      bytes (paper: sized like M, 90%).
// A hit sets freq = min(freq + 1, 3). A miss found in G goes to M's front,
// any other miss to S's front, both with freq 0.
// evict(): if |M| exceeds its share (capacity - S target) or S is empty,
// evict from M, else from S (equivalent to the paper's "|S| >= 10% of the
// cache" when the cache is full; this form also holds while it is filling).
//   from S: walk from S's tail; a block with freq >= move_to_main_threshold
//           (paper: freq > 1, i.e. 2) moves to M's front with freq 0 (as in
//           the artifact) and the walk goes on; the first other block is the
//           victim and its id enters G's front (G's tail is dropped while |G|
//           exceeds its bound). If S runs out, evict from M.
//   from M: walk from M's tail; freq > 0: freq -= 1 and reinsert at M's
//           front; freq == 0: the victim (no ghost).
// Moving blocks from S into M can push |M| above its share; the next evict()
// then takes from M. (The paper's pseudocode calls evictM() inside evictS;
// each evict() here returns exactly one victim, so the driver's next call
// does it.) A block the driver's filter refuses keeps its place. A block
// larger than S's target still enters S (libCacheSim refuses it; here the
// driver alone decides admission) and leaves at the next eviction from S
// unless it was hit.
#include <memory>

#include "sim/core/block_vector.h"
#include "sim/policy/block_table.h"
#include "sim/policy/i_eviction_policy.h"
#include "sim/policy/intrusive_list.h"

namespace flashsim {
namespace {

enum S3Where : std::uint8_t { kNone = 0, kSmall, kMain, kGhost, kPendingMain };

struct S3Node : ListLink {
  ByteCount bytes = 0;  ///< size at insertion (kept while a ghost)
  std::uint8_t where = kNone;
  std::uint8_t freq = 0;
};

class S3FifoPolicy final : public IEvictionPolicy {
 public:
  S3FifoPolicy(const ParamValues& params, const PolicyContext& context) {
    const double c = static_cast<double>(context.capacity_bytes);
    small_target_ = static_cast<ByteCount>(params.real("small_ratio") * c);
    main_target_ = context.capacity_bytes - small_target_;
    ghost_bound_ = static_cast<ByteCount>(params.real("ghost_ratio") * c);
    threshold_ = static_cast<std::uint8_t>(params.integer("move_to_main_threshold"));
    nodes_.reserve(context.block_count);
  }

  std::string_view name() const override { return "s3fifo"; }
  void prefetch(BlockIndex block) const override {
    if (block < nodes_.size()) __builtin_prefetch(&nodes_[block], 1);
  }

  void on_hit(const PolicyAccess& a) override {
    std::uint8_t& f = nodes_[a.block].freq;
    if (f < 3) ++f;
  }

  void on_miss(const PolicyAccess& a) override {
    const BlockIndex b = a.block;
    grow(b);
    S3Node& s = nodes_[b];
    if (s.where == kGhost) {
      ghost_.erase(nodes_, b);
      ghost_bytes_ -= nodes_[b].bytes;
      s.where = kPendingMain;
    } else if (s.where == kPendingMain) {
      s.where = kNone;  // an earlier ghost hit that was bypassed
    }
  }

  void on_insert(const PolicyAccess& a) override {
    const BlockIndex b = a.block;
    grow(b);
    S3Node& s = nodes_[b];
    if (s.where == kSmall || s.where == kMain) {
      on_hit(a);
      return;
    }
    if (s.where == kGhost) {  // inserted without on_miss (a prefetch)
      ghost_.erase(nodes_, b);
      ghost_bytes_ -= nodes_[b].bytes;
      s.where = kPendingMain;
    }
    nodes_[b].bytes = a.bytes;
    s.freq = 0;
    if (s.where == kPendingMain) {
      main_.push_front(nodes_, b);
      main_bytes_ += a.bytes;
      s.where = kMain;
    } else {
      small_.push_front(nodes_, b);
      small_bytes_ += a.bytes;
      s.where = kSmall;
    }
  }

  std::optional<BlockIndex> evict(Nanoseconds, const EvictionFilter& filter) override {
    if (main_bytes_ <= main_target_ && !small_.empty()) {
      const BlockIndex v = evict_small(filter);
      if (v != kNoBlock) return v;
    }
    const BlockIndex v = evict_main(filter);
    if (v != kNoBlock) return v;
    // M had nothing the filter allows: S may still have one.
    const BlockIndex w = evict_small(filter);
    if (w != kNoBlock) return w;
    return std::nullopt;
  }

  void remove(BlockIndex block) override {
    if (block >= nodes_.size()) return;
    S3Node& s = nodes_[block];
    if (s.where == kSmall) {
      small_.erase(nodes_, block);
      small_bytes_ -= nodes_[block].bytes;
    } else if (s.where == kMain) {
      main_.erase(nodes_, block);
      main_bytes_ -= nodes_[block].bytes;
    } else {
      return;
    }
    s.where = kNone;
  }

  std::size_t size() const override { return small_.size() + main_.size(); }

 private:
  void grow(BlockIndex b) {
    grow_to_hold(nodes_, b);
  }

  BlockIndex evict_small(const EvictionFilter& filter) {
    for (BlockIndex b = small_.back(); b != kNoBlock;) {
      const BlockIndex next = IntrusiveList::toward_front(nodes_, b);
      if (filter.allows(b)) {
        S3Node& s = nodes_[b];
        small_.erase(nodes_, b);
        small_bytes_ -= nodes_[b].bytes;
        if (s.freq >= threshold_) {
          s.freq = 0;
          s.where = kMain;
          main_.push_front(nodes_, b);
          main_bytes_ += nodes_[b].bytes;
        } else {
          s.where = kGhost;
          ghost_.push_front(nodes_, b);
          ghost_bytes_ += nodes_[b].bytes;
          while (ghost_bytes_ > ghost_bound_ && !ghost_.empty()) {
            const BlockIndex g = ghost_.pop_back(nodes_);
            ghost_bytes_ -= nodes_[g].bytes;
            nodes_[g].where = kNone;
          }
          return b;
        }
      }
      b = next;
    }
    return kNoBlock;
  }

  BlockIndex evict_main(const EvictionFilter& filter) {
    // FIFO-reinsertion: repeated passes until a block at freq 0 is found;
    // each pass lowers every allowed block's freq, so at most 4 passes.
    for (;;) {
      bool any_allowed = false;
      for (BlockIndex b = main_.back(); b != kNoBlock;) {
        const BlockIndex next = IntrusiveList::toward_front(nodes_, b);
        if (filter.allows(b)) {
          any_allowed = true;
          S3Node& s = nodes_[b];
          if (s.freq == 0) {
            main_.erase(nodes_, b);
            main_bytes_ -= nodes_[b].bytes;
            s.where = kNone;
            return b;
          }
          --s.freq;
          main_.move_to_front(nodes_, b);
        }
        b = next;
      }
      if (!any_allowed) return kNoBlock;
    }
  }

  ByteCount small_target_ = 0;
  ByteCount main_target_ = 0;
  ByteCount ghost_bound_ = 0;
  std::uint8_t threshold_ = 2;
  BlockVector<S3Node> nodes_;
  IntrusiveList small_, main_, ghost_;
  ByteCount small_bytes_ = 0, main_bytes_ = 0, ghost_bytes_ = 0;
};

}  // namespace

FLASHSIM_REGISTER_POLICY({"s3fifo",
                          "S3-FIFO: small FIFO, main FIFO-reinsertion, ghost FIFO (Yang et al., SOSP 2023)",
                          {{"small_ratio", ParamType::real, "0.1",
                            "S target as a fraction of capacity bytes (paper: 10%)", 0.0, 1.0, {}},
                           {"ghost_ratio", ParamType::real, "0.9",
                            "G bound as a fraction of capacity bytes (paper: as many entries as M, 90%)", 0.0, 10.0,
                            {}},
                           {"move_to_main_threshold", ParamType::integer, "2",
                            "freq at which a block leaving S moves to M (paper Alg. 1: freq > 1; "
                            "libCacheSim S3FIFOv0 default 2); 1 = any hit",
                            1, 3, {}}},
                          [](const ParamValues& p, const PolicyContext& c) -> std::unique_ptr<IEvictionPolicy> {
                            return std::make_unique<S3FifoPolicy>(p, c);
                          }});

}  // namespace flashsim
