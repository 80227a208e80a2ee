// hit_ratio_controller: switches exactly at the stated hit ratios (scripted
// hit/miss sequences), evicts only blocks idle longer than `idle`, and
// pre-warms the next tokens' non-routed blocks bounded by capacity.
#include <gtest/gtest.h>

#include "sim/core/errors.h"
#include "tests/prefetch/fake_tier.h"

namespace flashsim::test {
namespace {

using Blocks = std::vector<BlockId>;
constexpr Nanoseconds kMs = 1'000'000;

/// 4 operators of 2 blocks each (100 B): op k reads blocks 2k, 2k+1; op 2 also
/// has routed blocks 20, 21.
TraceMeta model() {
  TraceMeta m;
  for (BlockId b = 0; b < 8; ++b) m.catalog.push_back(block(b, "w" + std::to_string(b)));
  m.catalog.push_back(block(20, "experts.0", 100, "expert"));
  m.catalog.push_back(block(21, "experts.1", 100, "expert"));
  for (std::uint32_t k = 0; k < 4; ++k) {
    OperatorEntry o;
    o.name = "op" + std::to_string(k);
    o.blocks = {2 * k, 2 * k + 1};
    if (k == 2) o.routed_blocks = {20, 21};
    m.operators.push_back(o);
  }
  return m;
}

std::unique_ptr<IPrefetcher> make(const TraceMeta& m, std::map<std::string, std::string> params,
                                  ByteCount capacity = 1 << 20) {
  return PrefetcherRegistry::instance().create("hit_ratio_controller", params, PrefetcherContext{&m, capacity, 1});
}

/// Feeds `outcomes` (true = hit) as accesses of block 0 / operator 0 at 1 ms
/// intervals from index `first`; returns the stats afterwards.
PrefetcherStats feed(IPrefetcher& p, FakeTier& tier, const std::vector<bool>& outcomes, std::uint64_t first = 0) {
  for (std::size_t i = 0; i < outcomes.size(); ++i) {
    const std::uint64_t index = first + i;
    tier.now_ns = static_cast<Nanoseconds>(index) * kMs;
    p.on_access(access_of(0, 0, index, tier.now_ns, outcomes[i] ? AccessOutcome::hit : AccessOutcome::miss), tier,
                tier);
  }
  PrefetcherStats s;
  report_prefetcher_stats(p, s);
  return s;
}

std::vector<bool> run(std::size_t hits, std::size_t misses, bool hits_first) {
  std::vector<bool> v;
  for (std::size_t i = 0; i < (hits_first ? hits : misses); ++i) v.push_back(hits_first);
  for (std::size_t i = 0; i < (hits_first ? misses : hits); ++i) v.push_back(!hits_first);
  return v;
}

TEST(HitRatioController, PrewarmsAtTheFirstAccessWhoseWindowedRatioIsBelowLow) {
  // W = 100: 80 hits then misses. Ratio at index 99 + k is (80 - k)/100:
  // 0.75 at index 104 (not below 0.75), 0.74 at index 105 -> first pre-warm.
  const TraceMeta m = model();
  FakeTier tier(m, 1 << 20, PrefetchLands::record_only);
  auto p = make(m, {{"window", "100"}});
  PrefetcherStats s = feed(*p, tier, run(80, 26, true));  // indices 0 .. 105
  EXPECT_EQ(s.get("first_prewarm_access"), 105.0);
  EXPECT_EQ(s.get("switches_to_prewarm"), 1.0);
  EXPECT_EQ(s.get("first_evict_idle_access"), -1.0);
  EXPECT_EQ(s.get("accesses_judged"), 7.0);  // indices 99 .. 105
}

TEST(HitRatioController, DoesNotJudgeBeforeTheWindowIsFull) {
  // 99 misses: the window is not full, no switch although the ratio is 0.
  const TraceMeta m = model();
  FakeTier tier(m, 1 << 20, PrefetchLands::record_only);
  auto p = make(m, {{"window", "100"}});
  PrefetcherStats s = feed(*p, tier, run(0, 99, true));
  EXPECT_EQ(s.get("accesses_judged"), 0.0);
  EXPECT_EQ(s.get("first_prewarm_access"), -1.0);
  s = feed(*p, tier, {false}, 99);
  EXPECT_EQ(s.get("first_prewarm_access"), 99.0);
}

TEST(HitRatioController, EvictsIdleAtTheFirstAccessWhoseWindowedRatioIsAboveHigh) {
  // W = 100: 12 misses then hits. Index 99: 88/100 = 0.88, not above 0.88;
  // index 100: the first miss leaves, 89/100 -> first evict_idle.
  const TraceMeta m = model();
  FakeTier tier(m, 1 << 20, PrefetchLands::record_only);
  auto p = make(m, {{"window", "100"}});
  PrefetcherStats s = feed(*p, tier, run(90, 12, false));
  EXPECT_EQ(s.get("first_evict_idle_access"), 100.0);
  EXPECT_EQ(s.get("first_prewarm_access"), -1.0);
  ASSERT_EQ(s.events.size(), 1u);
  EXPECT_EQ(s.events[0].what, "evict_idle");
  EXPECT_EQ(s.events[0].access_index, 100u);
  EXPECT_DOUBLE_EQ(s.events[0].value, 0.89);
}

TEST(HitRatioController, DelayedHitsCountAsMisses) {
  const TraceMeta m = model();
  FakeTier tier(m, 1 << 20, PrefetchLands::record_only);
  auto p = make(m, {{"window", "4"}});
  for (std::uint64_t i = 0; i < 4; ++i)
    p->on_access(access_of(0, 0, i, 0, i == 3 ? AccessOutcome::hit : AccessOutcome::delayed_hit), tier, tier);
  PrefetcherStats s;
  report_prefetcher_stats(*p, s);
  EXPECT_EQ(s.get("windowed_hit_ratio"), 0.25);
  EXPECT_EQ(s.get("first_prewarm_access"), 3.0);
}

TEST(HitRatioController, ThresholdsAreSettableAndSwitchesAreLogged) {
  // low 0.5, high 0.6, W = 10: hits, then misses, then hits again.
  const TraceMeta m = model();
  FakeTier tier(m, 1 << 20, PrefetchLands::record_only);
  auto p = make(m, {{"window", "10"}, {"low", "0.5"}, {"high", "0.6"}});
  // index 9: 10/10 -> evict_idle; index 9+k after k misses: (10-k)/10:
  // k = 4 -> 0.6 normal (index 13); k = 6 -> 0.4 prewarm (index 15).
  PrefetcherStats s = feed(*p, tier, run(10, 6, true));
  ASSERT_EQ(s.events.size(), 3u);
  EXPECT_EQ(s.events[0].what, "evict_idle");
  EXPECT_EQ(s.events[0].access_index, 9u);
  EXPECT_EQ(s.events[1].what, "normal");
  EXPECT_EQ(s.events[1].access_index, 13u);
  EXPECT_EQ(s.events[2].what, "prewarm");
  EXPECT_EQ(s.events[2].access_index, 15u);
  EXPECT_THROW(make(m, {{"low", "0.9"}, {"high", "0.8"}}), InputError);
  EXPECT_THROW(make(m, {{"low", "1.5"}}), InputError);
}

TEST(HitRatioController, TimeWindowJudgesOnceTheWindowHasElapsed) {
  // window_time 10 ms, one access per ms: the window holds the accesses of
  // (now - 10 ms, now], 10 of them; it is full from t = 10 ms (index 10).
  const TraceMeta m = model();
  FakeTier tier(m, 1 << 20, PrefetchLands::record_only);
  auto p = make(m, {{"window_time", "10ms"}});
  PrefetcherStats s = feed(*p, tier, run(0, 10, true));
  EXPECT_EQ(s.get("accesses_judged"), 0.0);
  // index 10: window = indices 1..10, all misses -> prewarm.
  s = feed(*p, tier, {false}, 10);
  EXPECT_EQ(s.get("first_prewarm_access"), 10.0);
}

TEST(HitRatioController, EvictsOnlyBlocksIdleLongerThanIdle) {
  const TraceMeta m = model();
  FakeTier tier(m, 1 << 20, PrefetchLands::record_only);
  auto p = make(m, {{"window", "1"}});
  const Nanoseconds now = 1000 * kMs;
  tier.put(1, now - 300 * kMs);       // idle exactly 300 ms: kept
  tier.put(2, now - 300 * kMs - 1);   // 1 ns longer: evicted
  tier.put(3, now - 10 * kMs);        // recent: kept
  tier.put(4, 0);                     // long idle: evicted
  tier.put(5, 0, BlockState::in_use);  // not resident (in use): never a candidate
  tier.now_ns = now;
  p->on_access(access_of(1, 0, 0, now, AccessOutcome::hit), tier, tier);  // ratio 1 > 0.88
  std::vector<BlockId> evicted = tier.evict_calls;
  std::sort(evicted.begin(), evicted.end());
  EXPECT_EQ(evicted, (Blocks{2, 4}));
  PrefetcherStats s;
  report_prefetcher_stats(*p, s);
  EXPECT_EQ(s.get("idle_blocks_evicted"), 2.0);
}

TEST(HitRatioController, ActsAgainOnlyAfterRecheckWhileInAMode) {
  const TraceMeta m = model();
  FakeTier tier(m, 1 << 20, PrefetchLands::record_only);
  auto p = make(m, {{"window", "1"}, {"recheck", "100ms"}});
  for (std::uint64_t i = 0; i < 251; ++i) {  // all hits at 1 ms steps: evict rounds at 0, 100, 200 ms
    tier.now_ns = static_cast<Nanoseconds>(i) * kMs;
    p->on_access(access_of(0, 0, i, tier.now_ns, AccessOutcome::hit), tier, tier);
  }
  PrefetcherStats s;
  report_prefetcher_stats(*p, s);
  EXPECT_EQ(s.get("evict_rounds"), 3.0);
  EXPECT_EQ(s.get("switches_to_evict_idle"), 1.0);
}

TEST(HitRatioController, PrewarmTakesTheNextOperatorsBlocksNearestFirstBoundedByCapacity) {
  const TraceMeta m = model();
  // Capacity 500 B: 5 blocks. In op 1, the walk is op2 (4, 5; routed 20, 21
  // skipped), op3 (6, 7), op0 (0; 1 would be the 6th block). Block 6 is
  // resident: it counts toward the bound but is not asked for.
  FakeTier tier(m, 500, PrefetchLands::record_only);
  tier.put(6, 0);
  auto p = make(m, {{"window", "1"}}, 500);
  p->on_access(access_of(2, 1, 0, 0, AccessOutcome::miss), tier, tier);
  EXPECT_EQ(tier.take_prefetches(), (Blocks{4, 5, 7, 0}));
}

TEST(HitRatioController, PrewarmCoversEveryNonRoutedBlockOnceWhenItFits) {
  const TraceMeta m = model();
  FakeTier tier(m, 1 << 20, PrefetchLands::record_only);
  auto p = make(m, {{"window", "1"}});
  p->on_access(access_of(7, 3, 0, 0, AccessOutcome::miss), tier, tier);
  EXPECT_EQ(tier.take_prefetches(), (Blocks{0, 1, 2, 3, 4, 5, 6, 7}));
  auto none = make(m, {{"window", "1"}, {"prewarm_tokens", "0"}});
  none->on_access(access_of(7, 3, 0, 0, AccessOutcome::miss), tier, tier);
  EXPECT_TRUE(tier.prefetch_calls.empty());
}

TEST(HitRatioController, PrewarmFromTheLearnedCycleWithoutOperators) {
  TraceMeta m;
  for (BlockId b = 0; b < 5; ++b) m.catalog.push_back(block(b, "b" + std::to_string(b)));
  FakeTier tier(m, 300, PrefetchLands::record_only);
  auto p = make(m, {{"window", "1"}, {"recheck", "0"}}, 300);
  const Blocks trace = {0, 1, 2, 3, 4, 0, 1};  // all hits: nothing; then one miss at block 1
  for (std::size_t i = 0; i < trace.size(); ++i)
    p->on_access(access_of(trace[i], kNoOperator, i, 0, AccessOutcome::hit), tier, tier);
  EXPECT_TRUE(tier.prefetch_calls.empty());
  p->on_access(access_of(2, kNoOperator, 7, 0, AccessOutcome::miss), tier, tier);
  EXPECT_EQ(tier.take_prefetches(), (Blocks{3, 4, 0}));  // 300 B of capacity: 3 blocks after block 2
}

}  // namespace
}  // namespace flashsim::test
