// MLRU, the "Modified LRU" of the seed article (seeds/000_*.txt §3.1; see
// SEED-CLAIMS.md). Each block has a hit ratio h over its own last W accesses
// (W = `history`): hits and misses of that block, a miss recorded in
// on_miss, a hit in on_hit. The history is per-block metadata and survives
// while the block is absent. A block with no recorded access yet (inserted
// by a prefetch) has h = 0.
//
// The article writes T_age = t_last + (1 - h) * 500 ms and, in the same
// sentence, that a block with h = 0.6 "ages 4x faster" than one with h = 0.9.
// These contradict each other. With A = 500 ms the formula gives
//   h = 0.6: expiry = t_last + 0.4 * 500 ms = t_last + 200 ms
//   h = 0.9: expiry = t_last + 0.1 * 500 ms = t_last +  50 ms
// so the block with the *higher* hit ratio expires 150 ms sooner: its life
// is 4x shorter (200/50), i.e. the formula makes the h = 0.9 block age 4x
// faster, the opposite of the sentence. The sentence's 4x is the ratio of
// (1 - h): 0.4 / 0.1 = 4, as an aging *rate*. Both readings are offered:
//
//   reading: literal  expiry = t_last + (1 - h) * A, rounded down to whole
//            ns. "Evict expired blocks (expiry <= now) first, then the
//            earliest expiry" is the same order as "smallest expiry first",
//            which is what is implemented; `now` does not matter.
//   reading: intent   (default) effective age = (now - t_last) * (1 - h + eps);
//            evict the largest. eps (default 0.05) keeps a block with h = 1
//            evictable. With eps the rates of h = 0.6 and h = 0.9 are
//            0.45 / 0.15 = 3x apart, not 4x (4x exactly with eps = 0).
//
// Exact and fast although the intent order changes with `now`: resident
// blocks are grouped by the value of h (the reduced fraction hits/len of
// their window), so every block of a group has the same factor
// c = 1 - h + eps (and the same expiry offset (1 - h) * A). Within a group
// both orders are "oldest t_last first", kept as an intrusive list sorted by
// t_last. The victim is the best over the non-empty groups' oldest blocks:
// max (now - t_oldest) * c for intent, min t_oldest + offset for literal.
// An eviction costs O(number of non-empty groups) (at most ~0.3 W^2 + 1
// distinct fractions, in practice far fewer); a hit or insert is O(1) when
// the decision clock does not go backwards.
//
// Ties (equal score): the earlier t_last goes first, then the block touched
// (hit or inserted) earlier in call order. Time is the access's now_ns, the
// decision clock (sim/core/decision_clock.h).
#include <algorithm>
#include <memory>
#include <numeric>

#include "sim/core/errors.h"
#include "sim/policy/block_table.h"
#include "sim/policy/i_eviction_policy.h"
#include "sim/policy/intrusive_list.h"

namespace flashsim {
namespace {

constexpr std::uint32_t kNoGroup = 0xFFFFFFFFu;

struct MlruBlock : ListLink {
  Nanoseconds t_last_ns = 0;
  std::uint64_t touch = 0;       ///< call-order stamp of the last hit/insert (ties)
  std::uint32_t group = kNoGroup;  ///< kNoGroup when not held
  std::uint16_t hits = 0;        ///< hits among the window's `len` accesses
  std::uint16_t len = 0;         ///< accesses in the window, <= W
  std::uint16_t pos = 0;         ///< next bit to write (the oldest once len == W)
};

/// The oldest block of one non-empty group, copied into a compact array so
/// that an eviction scans contiguous memory rather than one cold block per
/// group.
struct MlruHead {
  Nanoseconds t_last_ns;  ///< of the group's oldest block
  double factor;          ///< the group's 1 - h + eps
  Nanoseconds offset_ns;  ///< the group's (1 - h) * A
  std::uint64_t touch;    ///< of the group's oldest block (ties)
  BlockIndex block;       ///< the group's oldest block
};

struct MlruGroup {
  IntrusiveList list;            ///< front = newest t_last, back = oldest
  double factor = 1.0;           ///< 1 - h + eps
  Nanoseconds offset_ns = 0;     ///< floor((1 - h) * A)
  std::uint32_t nonempty_pos = 0;  ///< index in heads_ while non-empty
};

class MlruPolicy final : public IEvictionPolicy {
 public:
  MlruPolicy(const ParamValues& params, const PolicyContext& context)
      : window_(static_cast<std::uint16_t>(params.integer("history"))),
        words_(static_cast<std::size_t>((window_ + 63) / 64)),
        literal_(params.text("reading") == "literal") {
    const Nanoseconds age_window_ns = params.duration_ns("age_window");
    const double eps = params.real("epsilon");
    build_groups(age_window_ns, eps);
    blocks_.reserve(context.block_count);
  }

  std::string_view name() const override { return "mlru"; }
  void prefetch(BlockIndex block) const override {
    if (block < blocks_.size()) __builtin_prefetch(&blocks_[block], 1);
  }

  void on_hit(const PolicyAccess& a) override {
    const BlockIndex b = a.block;
    record(b, true);
    MlruBlock& m = blocks_[b];
    m.t_last_ns = a.now_ns;
    m.touch = ++touch_;
    const std::uint32_t g = group_of(m);
    if (g == m.group) {
      // Same group: moving to the front keeps the list sorted unless the
      // clock went backwards (then the general insert below walks).
      IntrusiveList& list = groups_[g].list;
      const BlockIndex f = list.front();
      const BlockIndex ref = (f == b) ? IntrusiveList::toward_back(blocks_, b) : f;
      if (ref == kNoBlock || blocks_[ref].t_last_ns <= a.now_ns) {
        const bool was_oldest = list.back() == b;
        list.move_to_front(blocks_, b);
        if (was_oldest) refresh_head(g);
        return;
      }
    }
    leave_group(b);
    join_group(b, g);
  }

  void on_miss(const PolicyAccess& a) override {
    grow(a.block);
    record(a.block, false);
  }

  void on_insert(const PolicyAccess& a) override {
    const BlockIndex b = a.block;
    grow(b);
    if (blocks_[b].group != kNoGroup) {
      on_hit(a);
      return;
    }
    MlruBlock& m = blocks_[b];
    m.t_last_ns = a.now_ns;
    m.touch = ++touch_;
    join_group(b, group_of(m));
    ++held_;
  }

  std::optional<BlockIndex> evict(Nanoseconds now_ns, const EvictionFilter& filter) override {
    BlockIndex best = kNoBlock;
    double best_score = 0.0;      // intent: larger first
    Nanoseconds best_expiry = 0;  // literal: smaller first
    Nanoseconds best_t = 0;       // ties: earlier t_last, then earlier touch
    std::uint64_t best_touch = 0;
    const auto consider = [&](BlockIndex b, Nanoseconds t, std::uint64_t touch, double factor, Nanoseconds offset) {
      const bool tie_wins = t < best_t || (t == best_t && touch < best_touch);
      if (literal_) {
        const Nanoseconds expiry = t + offset;
        if (best != kNoBlock && !(expiry < best_expiry || (expiry == best_expiry && tie_wins))) return;
        best_expiry = expiry;
      } else {
        const double score = static_cast<double>(now_ns - t) * factor;
        if (best != kNoBlock && !(score > best_score || (score == best_score && tie_wins))) return;
        best_score = score;
      }
      best = b;
      best_t = t;
      best_touch = touch;
    };
    if (filter.allows_fn == nullptr) {
      for (const MlruHead& h : heads_) consider(h.block, h.t_last_ns, h.touch, h.factor, h.offset_ns);
    } else {
      // Within a group the first allowed block from the oldest end is the
      // group's best allowed candidate.
      for (const MlruHead& h : heads_) {
        if (filter.allows(h.block)) {
          consider(h.block, h.t_last_ns, h.touch, h.factor, h.offset_ns);
          continue;
        }
        BlockIndex b = IntrusiveList::toward_front(blocks_, h.block);
        while (b != kNoBlock && !filter.allows(b)) b = IntrusiveList::toward_front(blocks_, b);
        if (b != kNoBlock) consider(b, blocks_[b].t_last_ns, blocks_[b].touch, h.factor, h.offset_ns);
      }
    }
    if (best == kNoBlock) return std::nullopt;
    leave_group(best);
    --held_;
    return best;
  }

  void remove(BlockIndex block) override {
    if (block >= blocks_.size() || blocks_[block].group == kNoGroup) return;
    leave_group(block);
    --held_;
  }

  std::size_t size() const override { return held_; }

 private:
  /// One group per distinct reduced fraction hits/len (len = 0 counts as 0/1).
  void build_groups(Nanoseconds age_window_ns, double eps) {
    const std::size_t w1 = static_cast<std::size_t>(window_) + 1;
    group_of_pair_.assign(w1 * w1, kNoGroup);
    // Pass 1: a group per fraction in lowest terms (gcd = 1; 0/1 for h = 0).
    for (std::uint32_t den = 1; den <= window_; ++den) {
      for (std::uint32_t num = 0; num <= den; ++num) {
        if (std::gcd(num, den) != 1) continue;
        MlruGroup grp;
        const std::uint32_t miss = den - num;
        grp.factor = static_cast<double>(miss) / static_cast<double>(den) + eps;
        // floor(miss * A / den) without overflow: A = q * den + r.
        const Nanoseconds q = age_window_ns / den, r = age_window_ns % den;
        grp.offset_ns = static_cast<Nanoseconds>(miss) * q + (static_cast<Nanoseconds>(miss) * r) / den;
        group_of_pair_[num * w1 + den] = static_cast<std::uint32_t>(groups_.size());
        groups_.push_back(grp);
      }
    }
    // Pass 2: every (hits, len) maps to its fraction's group; len = 0 to 0/1.
    for (std::uint32_t len = 0; len <= window_; ++len) {
      for (std::uint32_t hits = 0; hits <= len; ++hits) {
        const std::uint32_t d = (len == 0) ? 1 : std::gcd(hits, len);
        const std::uint32_t num = (len == 0) ? 0 : hits / d, den = (len == 0) ? 1 : len / d;
        group_of_pair_[hits * w1 + len] = group_of_pair_[num * w1 + den];
      }
    }
  }

  std::uint32_t group_of(const MlruBlock& m) const {
    return group_of_pair_[static_cast<std::size_t>(m.hits) * (window_ + 1u) + m.len];
  }

  void grow(BlockIndex b) {
    grow_to_hold(blocks_, b);
    if (bits_.size() < blocks_.size() * words_) bits_.resize(blocks_.size() * words_, 0);
  }

  /// Appends one access outcome to `b`'s window of the last W accesses.
  void record(BlockIndex b, bool hit) {
    MlruBlock& m = blocks_[b];
    std::uint64_t* bits = &bits_[static_cast<std::size_t>(b) * words_];
    std::uint64_t& word = bits[m.pos >> 6];
    const std::uint64_t mask = std::uint64_t{1} << (m.pos & 63);
    if (m.len == window_) {
      if (word & mask) --m.hits;
    } else {
      ++m.len;
    }
    if (hit) {
      word |= mask;
      ++m.hits;
    } else {
      word &= ~mask;
    }
    m.pos = static_cast<std::uint16_t>(m.pos + 1 == window_ ? 0 : m.pos + 1);
  }

  /// Inserts `b` into group `g`, keeping the list sorted by t_last (newest in
  /// front; equal t_last: the later touch in front).
  void join_group(BlockIndex b, std::uint32_t g) {
    MlruGroup& grp = groups_[g];
    if (grp.list.empty()) {
      grp.nonempty_pos = static_cast<std::uint32_t>(heads_.size());
      heads_.push_back(MlruHead{0, grp.factor, grp.offset_ns, 0, kNoBlock});
      head_group_.push_back(g);
    }
    const Nanoseconds t = blocks_[b].t_last_ns;
    BlockIndex cur = grp.list.front();
    while (cur != kNoBlock && blocks_[cur].t_last_ns > t) cur = IntrusiveList::toward_back(blocks_, cur);
    if (cur == kNoBlock) grp.list.push_back(blocks_, b);
    else grp.list.insert_before(blocks_, cur, b);
    blocks_[b].group = g;
    if (grp.list.back() == b) refresh_head(g);
  }

  void leave_group(BlockIndex b) {
    const std::uint32_t g = blocks_[b].group;
    MlruGroup& grp = groups_[g];
    const bool was_oldest = grp.list.back() == b;
    grp.list.erase(blocks_, b);
    blocks_[b].group = kNoGroup;
    if (grp.list.empty()) {
      const std::uint32_t pos = grp.nonempty_pos;
      heads_[pos] = heads_.back();
      head_group_[pos] = head_group_.back();
      groups_[head_group_[pos]].nonempty_pos = pos;
      heads_.pop_back();
      head_group_.pop_back();
    } else if (was_oldest) {
      refresh_head(g);
    }
  }

  /// Copies group g's oldest block into its entry of heads_.
  void refresh_head(std::uint32_t g) {
    const BlockIndex oldest = groups_[g].list.back();
    MlruHead& h = heads_[groups_[g].nonempty_pos];
    h.block = oldest;
    h.t_last_ns = blocks_[oldest].t_last_ns;
    h.touch = blocks_[oldest].touch;
  }

  std::uint16_t window_;
  std::size_t words_;
  bool literal_;
  std::vector<MlruBlock> blocks_;
  std::vector<std::uint64_t> bits_;  ///< `words_` words per block: the window's hit bits
  std::vector<MlruGroup> groups_;
  std::vector<std::uint32_t> group_of_pair_;  ///< [hits * (W + 1) + len] -> group
  std::vector<MlruHead> heads_;               ///< one per non-empty group
  std::vector<std::uint32_t> head_group_;     ///< group of heads_[i]
  std::uint64_t touch_ = 0;
  std::size_t held_ = 0;
};

}  // namespace

FLASHSIM_REGISTER_POLICY({"mlru",
                          "seed article's MLRU: per-block hit ratio over its last W accesses ages blocks "
                          "(seeds/000 §3.1; readings intent/literal, docs/policies.md)",
                          {{"age_window", ParamType::duration, "500ms",
                            "A in expiry = t_last + (1 - h) * A (reading literal); seed 000 §3.1", 0.0, 1e15, {}},
                           {"history", ParamType::integer, "100",
                            "W: accesses of the block in its hit-ratio window; seed 000 §3.1 (\"past 100 accesses\")",
                            1, 1000, {}},
                           {"reading", ParamType::choice, "intent",
                            "intent: evict max (now - t_last) * (1 - h + epsilon); literal: evict min "
                            "t_last + (1 - h) * age_window (the seed's formula, which contradicts its own text)",
                            -1e300, 1e300, {"intent", "literal"}},
                           {"epsilon", ParamType::real, "0.05",
                            "added to 1 - h in the intent reading so a block with h = 1 still ages (ours, not the seed's)",
                            0.0, 1e6, {}}},
                          [](const ParamValues& p, const PolicyContext& c) -> std::unique_ptr<IEvictionPolicy> {
                            return std::make_unique<MlruPolicy>(p, c);
                          }});

}  // namespace flashsim
