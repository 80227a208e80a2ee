// CLOCK-Pro (Jiang, Chen & Zhang, "CLOCK-Pro: an effective improvement of
// the CLOCK replacement", USENIX ATC 2005, Sections 4.2 and 4.3), in bytes.
//
// One circular list holds hot pages (resident), cold resident pages and
// non-resident cold pages still in their test period ("test" entries).
// Every page has a reference bit, set by a hit. New pages are cold and in a
// test period; the "list head" is the position just behind hand_hot (the
// hands move forward along the circle, so a page placed at the head is the
// last each hand reaches). m_c, the cold target, is adaptive:
//   hand_cold  (evict()) looks at resident cold pages only:
//              referenced and in test -> hot, moved to the head, m_c grows
//                by its bytes, hand_hot runs while hot bytes > c - m_c;
//              referenced, not in test -> stays cold with a new test
//                period, moved to the head;
//              unreferenced -> the victim; it stays as a test entry if it
//                was in its test period, else it leaves the list; while test
//                entries exceed test_max * c bytes, hand_test runs.
//   hand_hot   passes hot pages with the bit set (clearing it) and cold
//              pages (ending their test period: m_c shrinks by the page's
//              bytes, a test entry leaves the list); it stops after turning
//              the first unreferenced hot page cold (not in test).
//   hand_test  ends the test period of the next cold page in test (m_c
//              shrinks; a test entry leaves the list).
// A miss on a test entry (checked at insertion, after hand_cold ran for
// room, as the paper orders it) grows m_c by the block's bytes and inserts
// the block hot at the head (then hand_hot runs as above); any other miss
// is inserted cold, in test, at the head. m_c stays in [0, c]; it starts at
// cold_target * c. The paper's units are pages; here every count is bytes,
// which for blocks of one size is the paper's rule times the size.
//
// Choices the paper leaves open, made here: a cold page accessed outside its
// test period starts a new one when hand_cold moves it to the head (as a
// page placed at the head does); hand_test and hand_hot are independent
// pointers (a hand pointing at a page that leaves the list moves on to its
// successor); evict() skips pages the driver refuses, and when no resident
// cold page is allowed it makes hand_hot turn hot pages cold until one is.
// remove() forgets a block without a test entry.
#include <algorithm>
#include <memory>

#include "sim/policy/block_table.h"
#include "sim/policy/i_eviction_policy.h"
#include "sim/policy/intrusive_list.h"

namespace flashsim {
namespace {

enum ClockProKind : std::uint8_t { kAbsent = 0, kHot, kCold, kTest };

struct ClockProNode : ListLink {  ///< prev/next: the circle (next = the way the hands move)
  ByteCount bytes = 0;            ///< size at insertion (kept while a test entry)
  std::uint8_t kind = kAbsent;
  bool referenced = false;
  bool in_test = false;           ///< cold resident pages only (test entries always are)
};

class ClockProPolicy final : public IEvictionPolicy {
 public:
  ClockProPolicy(const ParamValues& params, const PolicyContext& context)
      : c_(context.capacity_bytes),
        test_limit_bytes_(params.real("test_max") * static_cast<double>(context.capacity_bytes)),
        cold_target_(params.real("cold_target") * static_cast<double>(context.capacity_bytes)) {
    nodes_.reserve(context.block_count);
  }

  std::string_view name() const override { return "clock_pro"; }
  void prefetch(BlockIndex block) const override {
    if (block < nodes_.size()) __builtin_prefetch(&nodes_[block], 1);
  }

  void on_hit(const PolicyAccess& a) override { nodes_[a.block].referenced = true; }

  void on_insert(const PolicyAccess& a) override {
    const BlockIndex b = a.block;
    grow_to_hold(nodes_, b);
    ClockProNode& n = nodes_[b];
    if (n.kind == kHot || n.kind == kCold) {
      on_hit(a);
      return;
    }
    if (n.kind == kTest) {  // re-accessed in its test period: hot
      unlink(b);
      test_bytes_ -= n.bytes;
      grow_cold_target(a.bytes);
      n.bytes = a.bytes;
      n.kind = kHot;
      n.referenced = false;
      n.in_test = false;
      link_at_head(b);
      hot_bytes_ += a.bytes;
      ++hot_count_;
      balance_hot();
      return;
    }
    n.bytes = a.bytes;
    n.kind = kCold;
    n.referenced = false;
    n.in_test = true;
    link_at_head(b);
    cold_bytes_ += a.bytes;
    ++cold_count_;
  }

  std::optional<BlockIndex> evict(Nanoseconds, const EvictionFilter& filter) override {
    std::size_t refused = 0;  // consecutive resident cold pages the filter refused
    while (true) {
      if (cold_count_ == 0 || refused >= cold_count_) {
        // No cold page to take (or none allowed): turn a hot page cold.
        if (hot_count_ == 0) return std::nullopt;
        run_hand_hot();
        refused = 0;
        continue;
      }
      const BlockIndex p = hand_cold_;
      ClockProNode& n = nodes_[p];
      if (n.kind != kCold) {
        hand_cold_ = n.next;
        continue;
      }
      if (!filter.allows(p)) {
        ++refused;
        hand_cold_ = n.next;
        continue;
      }
      refused = 0;
      if (n.referenced) {
        n.referenced = false;
        hand_cold_ = n.next;
        move_to_head(p);
        if (n.in_test) {
          n.kind = kHot;
          n.in_test = false;
          cold_bytes_ -= n.bytes;
          --cold_count_;
          hot_bytes_ += n.bytes;
          ++hot_count_;
          grow_cold_target(n.bytes);
          balance_hot();
        } else {
          n.in_test = true;
        }
        continue;
      }
      // The victim.
      cold_bytes_ -= n.bytes;
      --cold_count_;
      hand_cold_ = n.next;
      if (n.in_test) {
        n.kind = kTest;
        test_bytes_ += n.bytes;
        while (static_cast<double>(test_bytes_) > test_limit_bytes_) run_hand_test();
      } else {
        unlink(p);
        n = ClockProNode{};
      }
      return p;
    }
  }

  void remove(BlockIndex block) override {
    if (block >= nodes_.size()) return;
    ClockProNode& n = nodes_[block];
    if (n.kind == kHot) {
      hot_bytes_ -= n.bytes;
      --hot_count_;
    } else if (n.kind == kCold) {
      cold_bytes_ -= n.bytes;
      --cold_count_;
    } else {
      return;
    }
    unlink(block);
    n = ClockProNode{};
  }

  std::size_t size() const override { return hot_count_ + cold_count_; }

 private:
  /// Places `b` at the list head: just behind hand_hot.
  void link_at_head(BlockIndex b) {
    if (hand_hot_ == kNoBlock) {
      nodes_[b].prev = nodes_[b].next = b;
      hand_hot_ = hand_cold_ = hand_test_ = b;
      return;
    }
    const BlockIndex after = hand_hot_, before = nodes_[after].prev;
    nodes_[b].prev = before;
    nodes_[b].next = after;
    nodes_[before].next = b;
    nodes_[after].prev = b;
  }

  /// Takes `b` out of the circle; a hand on it moves to its successor.
  void unlink(BlockIndex b) {
    const BlockIndex prev = nodes_[b].prev, next = nodes_[b].next;
    if (next == b) {
      hand_hot_ = hand_cold_ = hand_test_ = kNoBlock;
    } else {
      nodes_[prev].next = next;
      nodes_[next].prev = prev;
      if (hand_hot_ == b) hand_hot_ = next;
      if (hand_cold_ == b) hand_cold_ = next;
      if (hand_test_ == b) hand_test_ = next;
    }
    nodes_[b].prev = nodes_[b].next = kNoBlock;
  }

  void move_to_head(BlockIndex b) {
    if (nodes_[b].next == b) return;  // alone: already at the head
    unlink(b);
    link_at_head(b);
  }

  void grow_cold_target(ByteCount bytes) {
    cold_target_ = std::min(static_cast<double>(c_), cold_target_ + static_cast<double>(bytes));
  }
  void shrink_cold_target(ByteCount bytes) { cold_target_ = std::max(0.0, cold_target_ - static_cast<double>(bytes)); }

  /// Ends the test period of cold page `p` (m_c shrinks); a test entry
  /// leaves the list.
  void end_test(BlockIndex p) {
    ClockProNode& n = nodes_[p];
    shrink_cold_target(n.bytes);
    if (n.kind == kTest) {
      test_bytes_ -= n.bytes;
      unlink(p);
      n = ClockProNode{};
    } else {
      n.in_test = false;
    }
  }

  /// Runs hand_hot while hot pages hold more than c - m_c bytes.
  void balance_hot() {
    while (hot_count_ > 0 && static_cast<double>(hot_bytes_) > static_cast<double>(c_) - cold_target_)
      run_hand_hot();
  }

  /// Moves hand_hot until it has turned one hot page cold (hot_count_ > 0).
  void run_hand_hot() {
    while (true) {
      const BlockIndex p = hand_hot_;
      ClockProNode& n = nodes_[p];
      const BlockIndex next = n.next;
      if (n.kind == kHot) {
        if (n.referenced) {
          n.referenced = false;
          hand_hot_ = next;
          continue;
        }
        n.kind = kCold;
        n.in_test = false;
        hot_bytes_ -= n.bytes;
        --hot_count_;
        cold_bytes_ += n.bytes;
        ++cold_count_;
        hand_hot_ = next;
        return;
      }
      if (n.kind == kTest || n.in_test) {
        end_test(p);  // moves hand_hot_ on if p left the list
        if (hand_hot_ == p) hand_hot_ = next;
      } else {
        hand_hot_ = next;
      }
    }
  }

  /// Moves hand_test to the next cold page in test and ends its test
  /// period (test_bytes_ > 0 guarantees one exists).
  void run_hand_test() {
    while (true) {
      const BlockIndex p = hand_test_;
      ClockProNode& n = nodes_[p];
      const BlockIndex next = n.next;
      const bool testing = n.kind == kTest || (n.kind == kCold && n.in_test);
      if (testing) end_test(p);
      if (hand_test_ == p) hand_test_ = next;
      if (testing) return;
    }
  }

  ByteCount c_;
  double test_limit_bytes_;
  double cold_target_;  ///< m_c in bytes
  std::vector<ClockProNode> nodes_;
  BlockIndex hand_hot_ = kNoBlock, hand_cold_ = kNoBlock, hand_test_ = kNoBlock;
  ByteCount hot_bytes_ = 0, cold_bytes_ = 0, test_bytes_ = 0;
  std::size_t hot_count_ = 0, cold_count_ = 0;
};

}  // namespace

FLASHSIM_REGISTER_POLICY({"clock_pro",
                          "CLOCK-Pro: hot, cold and test pages on one clock with hand_hot, hand_cold, hand_test; "
                          "adaptive cold target (Jiang, Chen & Zhang, USENIX ATC 2005)",
                          {{"cold_target", ParamType::real, "1",
                            "initial cold target m_c as a share of capacity (libCacheSim ClockPro init-ratio-cold: 1)",
                            0.0, 1.0, {}},
                           {"test_max", ParamType::real, "1",
                            "bound on the bytes of non-resident test entries, as a multiple of capacity (paper: m)",
                            0.0, 1000.0, {}}},
                          [](const ParamValues& p, const PolicyContext& c) -> std::unique_ptr<IEvictionPolicy> {
                            return std::make_unique<ClockProPolicy>(p, c);
                          }});

}  // namespace flashsim
