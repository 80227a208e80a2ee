// Shared helpers of the prefetchers against brute-force references.
#include <gtest/gtest.h>

#include <random>

#include "sim/core/errors.h"
#include "sim/prefetch/catalog_index.h"
#include "sim/prefetch/learned_cycle.h"
#include "sim/prefetch/windowed_hit_ratio.h"
#include "tests/prefetch/fake_tier.h"

namespace flashsim::test {
namespace {

struct Sample {
  Nanoseconds t;
  bool hit;
};

TEST(WindowedHitRatio, CountWindowMatchesBruteForce) {
  std::mt19937_64 rng(3);
  for (std::uint64_t w : {1u, 2u, 7u, 100u}) {
    WindowedHitRatio r(w, 0);
    std::vector<Sample> all;
    for (int i = 0; i < 1000; ++i) {
      const bool hit = rng() % 3 != 0;
      all.push_back({i, hit});
      r.add(i, hit);
      std::uint64_t hits = 0, n = 0;
      for (std::size_t k = all.size() > w ? all.size() - w : 0; k < all.size(); ++k, ++n) hits += all[k].hit;
      ASSERT_EQ(r.accesses(), n) << "w " << w << " i " << i;
      ASSERT_EQ(r.hits(), hits) << "w " << w << " i " << i;
      ASSERT_EQ(r.full(), all.size() >= w);
    }
  }
}

TEST(WindowedHitRatio, TimeWindowMatchesBruteForce) {
  std::mt19937_64 rng(4);
  const Nanoseconds window = 1000;
  WindowedHitRatio r(0, window);
  std::vector<Sample> all;
  Nanoseconds t = 500;
  for (int i = 0; i < 3000; ++i) {
    t += static_cast<Nanoseconds>(rng() % 60);  // bursts (0 gaps) and pauses; the ring must grow
    const bool hit = rng() % 2 == 0;
    all.push_back({t, hit});
    r.add(t, hit);
    std::uint64_t hits = 0, n = 0;
    for (const Sample& s : all)
      if (t - s.t < window) {
        ++n;
        hits += s.hit;
      }
    ASSERT_EQ(r.accesses(), n) << i;
    ASSERT_EQ(r.hits(), hits) << i;
    ASSERT_EQ(r.full(), t - all.front().t >= window) << i;
  }
  EXPECT_THROW(WindowedHitRatio(0, 0), InputError);
}

TEST(LearnedCycle, OrderOfFirstAccessClosedByTheFirstTwoBlocks) {
  LearnedCycle c;
  EXPECT_EQ(c.observe(7), 0u);
  EXPECT_EQ(c.observe(9), 1u);
  EXPECT_EQ(c.observe(7), 0u);  // 7 again, not followed by 9 yet
  EXPECT_EQ(c.observe(4), 2u);
  EXPECT_FALSE(c.complete());
  EXPECT_EQ(c.observe(7), 0u);
  EXPECT_EQ(c.observe(9), 1u);
  EXPECT_TRUE(c.complete());
  EXPECT_EQ(c.observe(5), LearnedCycle::kNoPosition);  // new after closing: not in the cycle
  EXPECT_EQ(c.size(), 3u);
  EXPECT_EQ(c.at(4), 9u);  // position 4 mod 3 = 1
  LearnedCycle one;
  one.observe(3);
  one.observe(3);
  EXPECT_TRUE(one.complete());
}

TEST(CatalogIndex, DenseAndSparseIds) {
  std::vector<BlockCatalogEntry> dense = {block(0, "a"), block(1, "b")};
  CatalogIndex d(&dense);
  EXPECT_EQ(d.find(1), 1u);
  EXPECT_EQ(d.find(2), CatalogIndex::kNotInCatalog);
  std::vector<BlockCatalogEntry> sparse = {block(40, "a", 7), block(9, "b")};
  CatalogIndex s(&sparse);
  EXPECT_EQ(s.find(40), 0u);
  EXPECT_EQ(s.bytes_of(40), 7u);
  EXPECT_EQ(s.find(0), CatalogIndex::kNotInCatalog);
  std::vector<BlockCatalogEntry> dup = {block(5, "a"), block(5, "b")};
  EXPECT_THROW(CatalogIndex{&dup}, InputError);
  CatalogIndex none(nullptr);
  EXPECT_EQ(none.find(0), CatalogIndex::kNotInCatalog);
}

}  // namespace
}  // namespace flashsim::test
