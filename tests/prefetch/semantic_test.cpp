// semantic: hand-built 2-D embeddings where the nearest neighbours are
// obvious. Concepts sit on the unit circle at the angles below; cosine
// similarity is cos(angle difference).
#include <gtest/gtest.h>

#include <cmath>
#include <numbers>

#include "sim/core/errors.h"
#include "sim/prefetch/concept_index.h"
#include "tests/prefetch/fake_tier.h"

namespace flashsim::test {
namespace {

using Blocks = std::vector<BlockId>;

// Concept c has blocks 10c and 10c + 1 (100 B each, concept_id = c).
// From concept 0 (0 deg): 1 (10), 7 (-15), 2 (25), 3 (45), then 4 and 6
// (both 90 deg: the tie goes to the lower index, 4), then 5 (180).
constexpr double kAngleDeg[] = {0, 10, 25, 45, 90, 180, 270, 345};

TraceMeta circle() {
  TraceMeta m;
  for (int c = 0; c < 8; ++c) {
    const double a = kAngleDeg[c] * std::numbers::pi / 180.0;
    for (int k = 0; k < 2; ++k) {
      BlockCatalogEntry e = block(10 * c + k, "concept" + std::to_string(c) + "." + std::to_string(k), 100, "embedding");
      e.concept_id = 100 + c;
      // Rounded so that equal angles give exactly equal similarities (ties).
      const auto snap = [](double x) { return static_cast<float>(std::round(x * 1e6) / 1e6); };
      if (k == 0) e.embedding = {snap(3 * std::cos(a)), snap(3 * std::sin(a))};
      m.catalog.push_back(e);
    }
  }
  m.catalog.push_back(block(500, "no_concept"));
  return m;
}

std::unique_ptr<IPrefetcher> make(const TraceMeta& m, std::map<std::string, std::string> params,
                                  ByteCount capacity = 1 << 20) {
  return PrefetcherRegistry::instance().create("semantic", params, PrefetcherContext{&m, capacity, 1});
}

Blocks blocks_of(std::initializer_list<int> concepts) {
  Blocks out;
  for (int c : concepts) {
    out.push_back(10 * c);
    out.push_back(10 * c + 1);
  }
  return out;
}

TEST(ConceptIndex, NearestByCosineWithTiesToTheLowerIndex) {
  const TraceMeta m = circle();
  CatalogIndex cat(&m.catalog);
  ConceptIndex idx(cat, 7);
  EXPECT_EQ(idx.concept_count(), 8u);
  EXPECT_EQ(idx.concept_id(3), 103);
  EXPECT_EQ(idx.nearest(0), (std::vector<std::uint32_t>{1, 7, 2, 3, 4, 6, 5}));
  EXPECT_NEAR(idx.similarity(0, 3), std::cos(std::numbers::pi / 4), 1e-6);
  EXPECT_EQ(idx.concept_of(cat.find(500)), ConceptIndex::kNoConcept);
}

TEST(Semantic, PrefetchesTheTopKMostSimilarConceptsBlocks) {
  const TraceMeta m = circle();
  FakeTier tier(m, 1 << 20, PrefetchLands::record_only);
  auto p = make(m, {{"top_k", "2"}});
  p->on_access(access_of(0), tier, tier);
  EXPECT_EQ(tier.take_prefetches(), blocks_of({1, 7}));
  p->on_access(access_of(1), tier, tier);  // the same concept: nothing new
  EXPECT_TRUE(tier.prefetch_calls.empty());
  p->on_access(access_of(50), tier, tier);  // concept 5 (180 deg): 4 and 6 (90 deg away), tie -> 4 first
  EXPECT_EQ(tier.take_prefetches(), blocks_of({4, 6}));
  p->on_access(access_of(500), tier, tier);  // no concept
  EXPECT_TRUE(tier.prefetch_calls.empty());
}

TEST(Semantic, MinSimilarityCutsTheList) {
  const TraceMeta m = circle();
  FakeTier tier(m, 1 << 20, PrefetchLands::record_only);
  auto p = make(m, {{"top_k", "5"}, {"min_similarity", "0.95"}});  // cos 10 = .985, cos 15 = .966, cos 25 = .906
  p->on_access(access_of(0), tier, tier);
  EXPECT_EQ(tier.take_prefetches(), blocks_of({1, 7}));
}

/// Evicts with pressure 0 (every candidate) at every access.
Blocks evicted_with_next_tier(std::initializer_list<int> below, std::map<std::string, std::string> extra = {}) {
  const TraceMeta m = circle();
  FakeTier tier(m, 1 << 20, PrefetchLands::record_only);
  std::map<std::string, std::string> params = {{"top_k", "0"}, {"evict_pressure", "0"}, {"sweep_interval", "1"}};
  params.insert(extra.begin(), extra.end());
  auto p = make(m, params);
  tier.put(0, 5);
  tier.put(1, 6);
  for (int c : below)
    for (BlockId b : blocks_of({c})) tier.next_tier.insert(b);
  p->on_access(access_of(500), tier, tier);
  return tier.evict_calls;
}

TEST(Semantic, EvictsWhenThreeOfTheFiveNearestAreInTheNextTier) {
  // Concept 0's five nearest: 1, 7, 2, 3, 4.
  EXPECT_EQ(evicted_with_next_tier({1, 7, 2}), (Blocks{0, 1}));  // least recently accessed first
  EXPECT_EQ(evicted_with_next_tier({1, 7}), Blocks{});
  EXPECT_EQ(evicted_with_next_tier({1, 7, 5}), Blocks{}) << "5 is not among the 5 nearest";
  EXPECT_EQ(evicted_with_next_tier({1, 7, 6}), Blocks{}) << "6 ties with 4 at 90 deg and loses the tie";
  EXPECT_EQ(evicted_with_next_tier({1, 7, 4}), (Blocks{0, 1}));
  EXPECT_EQ(evicted_with_next_tier({1, 7}, {{"neighbours_in_next_tier", "2"}}), (Blocks{0, 1}));
  EXPECT_EQ(evicted_with_next_tier({3, 4, 6}, {{"neighbours", "3"}}), Blocks{}) << "nearest 3: 1, 7, 2";
}

TEST(Semantic, AConceptIsInTheNextTierOnlyWhenAllItsBlocksAre) {
  const TraceMeta m = circle();
  FakeTier tier(m, 1 << 20, PrefetchLands::record_only);
  auto p = make(m, {{"top_k", "0"}, {"evict_pressure", "0"}, {"sweep_interval", "1"}});
  tier.put(0, 5);
  tier.next_tier = {10, 11, 70, 71, 20};  // concepts 1 and 7 whole, concept 2 half
  p->on_access(access_of(500), tier, tier);
  EXPECT_TRUE(tier.evict_calls.empty());
}

TEST(Semantic, EvictionWaitsForPressureAndStopsBelowIt) {
  const TraceMeta m = circle();
  // Capacity 1000 B, pressure 0.5: sweeps only at >= 500 B reserved, and
  // evicts the candidates least recently accessed first until below 500 B.
  FakeTier tier(m, 1000, PrefetchLands::record_only);
  auto p = make(m, {{"top_k", "0"}, {"evict_pressure", "0.5"}, {"sweep_interval", "1"}}, 1000);
  for (int c : {1, 7, 2})
    for (BlockId b : blocks_of({c})) tier.next_tier.insert(b);
  tier.put(0, 30);
  tier.put(1, 10);
  tier.put(40, 20);  // concept 4: nearest 3 (45), 2 (65), 1 (80), 0 and 5 (90) -> 1, 2 below: 2 of 5
  tier.put(500, 0);  // no concept
  p->on_access(access_of(500), tier, tier);  // 400 B reserved < 500: no sweep
  EXPECT_TRUE(tier.evict_calls.empty());
  tier.put(41, 40);
  tier.put(30, 50);  // concept 3: nearest 2, 1, 0, 4 (0 and 4 tie at 45 deg), 7 -> 2, 1, 7 below: a candidate
  p->on_access(access_of(500), tier, tier);  // 600 B: evict 1 (t 10), then 0 (t 30): 400 B < 500, stop
  EXPECT_EQ(tier.evict_calls, (Blocks{1, 0}));
}

TEST(Semantic, RejectsEmbeddingsOfDifferentDimensions) {
  TraceMeta m = circle();
  m.catalog[2].embedding = {1.0f, 2.0f, 3.0f};
  EXPECT_THROW(make(m, {}), InputError);
  TraceMeta z = circle();
  z.catalog[0].embedding = {0.0f, 0.0f};
  EXPECT_THROW(make(z, {}), InputError);
}

}  // namespace
}  // namespace flashsim::test
