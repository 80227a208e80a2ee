// Properties every policy must have (filter, remove, size), and LRU's
// inclusion property and stack-distance equivalence.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>

#include "tests/policy/policy_test_util.h"

namespace flashsim::test {
namespace {

// LRU is a stack algorithm (Mattson et al. 1970): misses never increase
// with capacity.
TEST(LruProperty, InclusionMissesNonIncreasingWithCapacity) {
  for (std::uint32_t seed = 1; seed <= 10; ++seed) {
    const std::vector<Step> steps = random_steps(seed, 2000, 80);
    std::uint64_t previous = steps.size() + 1;
    for (ByteCount capacity = 1; capacity <= 85; ++capacity) {
      const std::uint64_t misses = drive("lru", capacity, steps).counters.misses;
      EXPECT_LE(misses, previous) << "seed " << seed << " capacity " << capacity;
      previous = misses;
    }
    std::vector<BlockIndex> distinct;
    for (const Step& s : steps) distinct.push_back(s.block);
    std::sort(distinct.begin(), distinct.end());
    distinct.erase(std::unique(distinct.begin(), distinct.end()), distinct.end());
    EXPECT_EQ(previous, distinct.size());  // capacity above the footprint: compulsory misses only
  }
}

// LRU at capacity k hits exactly the accesses whose stack (reuse) distance
// is <= k; the distance is computed here naively from a recency stack.
TEST(LruProperty, MissesEqualStackDistanceCount) {
  const std::vector<Step> steps = random_steps(42, 3000, 120);
  std::vector<BlockIndex> stack;  // front = most recent
  std::vector<std::size_t> distance;  // 0 = first access (infinite)
  for (const Step& s : steps) {
    auto it = std::find(stack.begin(), stack.end(), s.block);
    if (it == stack.end()) {
      distance.push_back(0);
    } else {
      distance.push_back(static_cast<std::size_t>(it - stack.begin()) + 1);
      stack.erase(it);
    }
    stack.insert(stack.begin(), s.block);
  }
  for (ByteCount k : {1u, 2u, 7u, 30u, 64u, 119u, 120u}) {
    const std::uint64_t expected =
        std::count_if(distance.begin(), distance.end(), [k](std::size_t d) { return d == 0 || d > k; });
    EXPECT_EQ(drive("lru", k, steps).counters.misses, expected) << "capacity " << k;
  }
}

void insert_blocks(IEvictionPolicy& p, BlockIndex n) {
  for (BlockIndex b = 0; b < n; ++b) {
    PolicyAccess a;
    a.block = b;
    a.bytes = 1;
    a.now_ns = b;
    a.access_index = b;
    a.next_use_index = 100 + b;
    p.on_miss(a);
    p.on_insert(a);
  }
}

bool only_block_2(const void*, BlockIndex b) { return b == 2; }
bool refuse_all(const void*, BlockIndex) { return false; }

// The driver's filter (blocks in use) is obeyed by every policy.
TEST(PolicyProperty, FilterIsObeyedByEveryPolicy) {
  for (const std::string& name : all_policy_names()) {
    auto p = make_policy(name, 5);
    insert_blocks(*p, 5);
    ASSERT_EQ(p->size(), 5u) << name;
    EXPECT_FALSE(p->evict(10, EvictionFilter{refuse_all, nullptr}).has_value()) << name;
    EXPECT_EQ(p->size(), 5u) << name;
    const auto v = p->evict(10, EvictionFilter{only_block_2, nullptr});
    ASSERT_TRUE(v.has_value()) << name;
    EXPECT_EQ(*v, 2u) << name;
    EXPECT_EQ(p->size(), 4u) << name;
    // Then everything else drains, each block once.
    std::vector<BlockIndex> rest;
    while (auto w = p->evict(20, EvictionFilter{})) rest.push_back(*w);
    std::sort(rest.begin(), rest.end());
    EXPECT_EQ(rest, (std::vector<BlockIndex>{0, 1, 3, 4})) << name;
    EXPECT_EQ(p->size(), 0u) << name;
  }
}

// remove() forgets a held block (never returned by evict afterwards) and
// is a no-op for blocks the policy does not hold.
TEST(PolicyProperty, RemoveForgets) {
  for (const std::string& name : all_policy_names()) {
    auto p = make_policy(name, 4);
    insert_blocks(*p, 4);
    p->remove(1);
    p->remove(1);
    p->remove(999);
    EXPECT_EQ(p->size(), 3u) << name;
    std::vector<BlockIndex> rest;
    while (auto w = p->evict(20, EvictionFilter{})) rest.push_back(*w);
    std::sort(rest.begin(), rest.end());
    EXPECT_EQ(rest, (std::vector<BlockIndex>{0, 2, 3})) << name;
  }
}

// Over a long random trace with variable sizes, every policy's size()
// equals the number of blocks the driver holds, and victims are held
// (drive() throws otherwise).
TEST(PolicyProperty, SizeTracksResidentBlocksUnderVariableSizes) {
  for (const std::string& name : all_policy_names()) {
    for (std::uint32_t seed = 1; seed <= 3; ++seed) {
      const std::vector<Step> steps = random_steps(seed, 4000, 300, 40);
      auto p = make_policy(name, 400);
      const HandRun run = drive(*p, 400, steps);
      EXPECT_EQ(run.counters.hits + run.counters.misses, steps.size()) << name;
      EXPECT_LE(p->size(), 400u) << name;
      // A static placement never evicts its placed blocks (here the test
      // catalog's first layers hold all 300 blocks): a full tier bypasses.
      if (name == "resident_first") {
        EXPECT_GT(run.counters.bypasses, 0u) << name;
        continue;
      }
      EXPECT_GT(run.counters.evictions, 0u) << name;
      // Evict everything: the number drained equals size().
      const std::size_t held = p->size();
      std::size_t drained = 0;
      while (p->evict(1'000'000'000, EvictionFilter{})) ++drained;
      EXPECT_EQ(drained, held) << name;
    }
  }
}

}  // namespace
}  // namespace flashsim::test
