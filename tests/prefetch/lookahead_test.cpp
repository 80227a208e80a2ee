// lookahead: next-N operators along a hand-written 2-layer operator list,
// wrap at the token boundary, routed blocks skipped, byte budget, and the
// learned-cycle mode on traces without operators.
#include <gtest/gtest.h>

#include "sim/core/errors.h"
#include "tests/prefetch/fake_tier.h"

namespace flashsim::test {
namespace {

using Blocks = std::vector<BlockId>;

OperatorEntry op(std::string name, Blocks blocks, Blocks routed = {}) {
  OperatorEntry o;
  o.name = std::move(name);
  o.blocks = std::move(blocks);
  o.routed_blocks = std::move(routed);
  return o;
}

/// 2-layer MoE model: embed | L0 attn | L0 moe (2 routed experts) | L1 attn | L1 moe | lm_head.
/// Blocks of 100 B: 0 embed, 1-2 L0 attn (q/kv, o), 3 L0 router, 4 L1 attn, 5 L1 router,
/// 6 lm_head; experts 10, 11 (L0) and 12, 13 (L1).
TraceMeta two_layer_model() {
  TraceMeta m;
  const char* names[] = {"embed", "layers.0.attn.qkv", "layers.0.attn.o", "layers.0.moe.gate", "layers.1.attn",
                         "layers.1.moe.gate", "lm_head"};
  for (BlockId b = 0; b < 7; ++b) m.catalog.push_back(block(b, names[b]));
  for (BlockId b = 10; b < 14; ++b)
    m.catalog.push_back(block(b, "layers." + std::to_string((b - 10) / 2) + ".moe.experts." + std::to_string(b % 2),
                              100, "expert", static_cast<std::int32_t>((b - 10) / 2)));
  m.operators = {op("embed", {0}),           op("layers.0.attn", {1, 2}), op("layers.0.moe", {3}, {10, 11}),
                 op("layers.1.attn", {4}),    op("layers.1.moe", {5}, {12, 13}), op("lm_head", {6})};
  return m;
}

std::unique_ptr<IPrefetcher> make(const TraceMeta& m, std::map<std::string, std::string> params,
                                  ByteCount capacity = 1 << 20) {
  return PrefetcherRegistry::instance().create("lookahead", params, PrefetcherContext{&m, capacity, 1});
}

TEST(Lookahead, IssuesExactlyTheNextDepthOperatorsBlocks) {
  const TraceMeta m = two_layer_model();
  FakeTier tier(m, 1 << 20, PrefetchLands::record_only);
  auto p = make(m, {{"depth", "2"}});
  p->on_access(access_of(1, 1), tier, tier);  // in L0 attn: next are L0 moe (3; experts skipped), L1 attn (4)
  EXPECT_EQ(tier.take_prefetches(), (Blocks{3, 4}));
  p->on_access(access_of(2, 1), tier, tier);  // same operator again: nothing new
  EXPECT_EQ(tier.take_prefetches(), Blocks{});
  p->on_access(access_of(3, 2), tier, tier);  // L0 moe: L1 attn, L1 moe (5)
  EXPECT_EQ(tier.take_prefetches(), (Blocks{4, 5}));
  p->on_access(access_of(10, 2), tier, tier);  // a routed expert of the same operator: nothing
  EXPECT_EQ(tier.take_prefetches(), Blocks{});
}

TEST(Lookahead, WrapsToOperatorZeroOfTheNextToken) {
  const TraceMeta m = two_layer_model();
  FakeTier tier(m, 1 << 20, PrefetchLands::record_only);
  auto p = make(m, {{"depth", "3"}});
  p->on_access(access_of(5, 4), tier, tier);  // L1 moe: lm_head, then embed and L0 attn of the next token
  EXPECT_EQ(tier.take_prefetches(), (Blocks{6, 0, 1, 2}));
  p->on_access(access_of(6, 5), tier, tier);  // lm_head: embed, L0 attn, L0 moe
  EXPECT_EQ(tier.take_prefetches(), (Blocks{0, 1, 2, 3}));
}

TEST(Lookahead, NeverPrefetchesRoutedBlocksEvenOverAWholeToken) {
  const TraceMeta m = two_layer_model();
  FakeTier tier(m, 1 << 20, PrefetchLands::record_only);
  auto p = make(m, {{"depth", "6"}});
  p->on_access(access_of(0, 0), tier, tier);  // all six operators: the next token's embed last
  EXPECT_EQ(tier.take_prefetches(), (Blocks{1, 2, 3, 4, 5, 6, 0}));
}

TEST(Lookahead, AsksOnlyForAbsentBlocks) {
  const TraceMeta m = two_layer_model();
  FakeTier tier(m, 1 << 20, PrefetchLands::record_only);
  tier.put(3, 0);                                  // resident
  tier.put(4, 0, BlockState::in_flight);           // already coming
  auto p = make(m, {{"depth", "3"}});
  p->on_access(access_of(1, 1), tier, tier);
  EXPECT_EQ(tier.take_prefetches(), (Blocks{5}));
}

TEST(Lookahead, ByteBudgetStopsTheWindowResidentBytesIncluded) {
  const TraceMeta m = two_layer_model();
  FakeTier tier(m, 1 << 20, PrefetchLands::record_only);
  tier.put(6, 0);  // lm_head resident: its 100 B still count
  auto p = make(m, {{"depth", "4"}, {"byte_budget", "250B"}});
  p->on_access(access_of(5, 4), tier, tier);  // window 6 (100, resident), 0 (200); 1 would make 300 > 250
  EXPECT_EQ(tier.take_prefetches(), (Blocks{0}));
}

TEST(Lookahead, AccessesWithoutOperatorDoNothing) {
  const TraceMeta m = two_layer_model();
  FakeTier tier(m, 1 << 20, PrefetchLands::record_only);
  auto p = make(m, {});
  p->on_access(access_of(1, kNoOperator), tier, tier);
  p->on_access(access_of(1, 99), tier, tier);  // out of range
  EXPECT_TRUE(tier.prefetch_calls.empty());
}

TEST(Lookahead, StreamsAreFollowedSeparately) {
  const TraceMeta m = two_layer_model();
  FakeTier tier(m, 1 << 20, PrefetchLands::record_only);
  auto p = make(m, {{"depth", "1"}});
  p->on_access(access_of(1, 1, 0, 0, AccessOutcome::miss, 0), tier, tier);
  EXPECT_EQ(tier.take_prefetches(), (Blocks{3}));
  p->on_access(access_of(1, 1, 1, 0, AccessOutcome::miss, 7), tier, tier);  // stream 7 enters operator 1 too
  EXPECT_EQ(tier.take_prefetches(), (Blocks{3}));
  p->on_access(access_of(2, 1, 2, 0, AccessOutcome::miss, 0), tier, tier);  // stream 0 still in operator 1
  EXPECT_EQ(tier.take_prefetches(), Blocks{});
}

TEST(Lookahead, DefaultsAreDeclared) {
  const auto& e = PrefetcherRegistry::instance().find("lookahead");
  ASSERT_EQ(e.params.size(), 3u);
  EXPECT_EQ(e.params[0].name, "depth");
  EXPECT_EQ(e.params[0].default_value, "2");
  EXPECT_THROW(make(two_layer_model(), {{"dept", "2"}}), InputError);
}

// --- learned cycle (no operators) ---

TraceMeta six_blocks() {
  TraceMeta m;
  for (BlockId b = 0; b < 6; ++b) m.catalog.push_back(block(b, "b" + std::to_string(b)));
  return m;
}

TEST(LookaheadLearnedCycle, PredictsNothingUntilTheNextPassBeginsThenLooksAheadAndWraps) {
  const TraceMeta m = six_blocks();
  FakeTier tier(m, 1 << 20, PrefetchLands::record_only);
  auto p = make(m, {{"cycle_depth", "2"}});
  std::uint64_t i = 0;
  for (BlockId b = 0; b < 6; ++b) p->on_access(access_of(b, kNoOperator, i++), tier, tier);  // first pass
  p->on_access(access_of(0, kNoOperator, i++), tier, tier);  // back at block 0: not yet known to be a new pass
  EXPECT_TRUE(tier.prefetch_calls.empty());
  p->on_access(access_of(1, kNoOperator, i++), tier, tier);  // 0 then 1: the cycle closes (length 6)
  EXPECT_EQ(tier.take_prefetches(), (Blocks{2, 3}));
  const std::vector<Blocks> expected = {{3, 4}, {4, 5}, {5, 0}, {0, 1}, {1, 2}, {2, 3}};
  for (BlockId b = 2; b < 8; ++b) {
    p->on_access(access_of(b % 6, kNoOperator, i++), tier, tier);
    EXPECT_EQ(tier.take_prefetches(), expected[b - 2]) << "access of block " << b % 6;
  }
  PrefetcherStats stats;
  ASSERT_TRUE(report_prefetcher_stats(*p, stats));
  EXPECT_EQ(stats.get("learned_cycle_blocks"), 6.0);
  EXPECT_EQ(stats.get("learned_cycle_complete"), 1.0);
}

TEST(LookaheadLearnedCycle, TiedEmbeddingReadTwicePerPassDoesNotCloseTheCycleEarly) {
  // Pass: E(0) L0(1) L1(2) E(0, tied lm_head). The cycle is [0, 1, 2].
  const TraceMeta m = six_blocks();
  FakeTier tier(m, 1 << 20, PrefetchLands::record_only);
  auto p = make(m, {{"cycle_depth", "2"}});
  const Blocks trace = {0, 1, 2, 0, 0, 1, 2, 0};
  for (std::size_t i = 0; i < trace.size(); ++i) {
    p->on_access(access_of(trace[i], kNoOperator, i), tier, tier);
    const Blocks got = tier.take_prefetches();
    if (i < 5) {
      EXPECT_TRUE(got.empty()) << "access " << i;
    }
    if (i == 5) {
      EXPECT_EQ(got, (Blocks{2, 0})) << "closed at the second 0 -> 1";
    }
    if (i == 6) {
      EXPECT_EQ(got, (Blocks{0, 1}));
    }
    if (i == 7) {
      EXPECT_EQ(got, (Blocks{1, 2}));
    }
  }
}

TEST(LookaheadLearnedCycle, OnACyclicTraceWithALandingTierEveryAccessAfterWarmUpHits) {
  // Property: with depth >= 1 and prefetches landing at once, every access
  // after the cycle closes is a hit (the tier holds all 6 blocks).
  const TraceMeta m = six_blocks();
  FakeTier tier(m, 600, PrefetchLands::resident);
  auto p = make(m, {{"cycle_depth", "1"}});
  std::uint64_t misses_after_warmup = 0;
  for (std::uint64_t i = 0; i < 60; ++i) {
    const BlockId b = i % 6;
    tier.now_ns = static_cast<Nanoseconds>(i);
    const AccessOutcome o = tier.demand(b);
    if (i >= 8 && o != AccessOutcome::hit) ++misses_after_warmup;
    p->on_access(access_of(b, kNoOperator, i, tier.now_ns, o), tier, tier);
    tier.remove((b + 3) % 6);  // something else keeps evicting the block 3 ahead
  }
  EXPECT_EQ(misses_after_warmup, 0u);
}

}  // namespace
}  // namespace flashsim::test
