// FastTier: block states, space, pinning and fragmentation evictions.
#include "sim/cache/fast_tier.h"

#include <gtest/gtest.h>

#include "sim/core/errors.h"
#include "tests/engine/test_policies.h"

namespace flashsim {
namespace {

std::unique_ptr<FastTier> make_tier(ByteCount capacity, const std::string& allocator = "bytes",
                                    std::map<std::string, std::string> params = {}) {
  FastTierSpec spec;
  spec.capacity_bytes = capacity;
  spec.policy = test::kTestFifo;
  spec.allocator = allocator;
  spec.allocator_params = std::move(params);
  return FastTier::create(spec);
}

PolicyAccess acc(BlockIndex b, ByteCount bytes) {
  PolicyAccess a;
  a.block = b;
  a.bytes = bytes;
  return a;
}

// Fetches and lands a block; expects it admitted.
void load(FastTier& t, BlockIndex b, ByteCount bytes) {
  std::vector<BlockIndex> evicted;
  ASSERT_EQ(t.begin_fetch(acc(b, bytes), &evicted), FetchAdmission::admitted);
  t.on_arrival(acc(b, bytes));
}

TEST(FastTier, BeginFetchReservesAndCancelFrees) {
  auto t = make_tier(1000);
  EXPECT_EQ(t->lookup(0), BlockState::absent);
  std::vector<BlockIndex> evicted;
  ASSERT_EQ(t->begin_fetch(acc(0, 400), &evicted), FetchAdmission::admitted);
  EXPECT_EQ(t->state(0), BlockState::in_flight);
  EXPECT_EQ(t->reserved_bytes(), 400u);
  EXPECT_EQ(t->policy().size(), 0u);  // in flight: not in the policy
  t->cancel(0);
  EXPECT_EQ(t->state(0), BlockState::absent);
  EXPECT_EQ(t->reserved_bytes(), 0u);
  EXPECT_EQ(t->peak_reserved_bytes(), 400u);
  EXPECT_EQ(t->counters().evictions, 0u);
}

TEST(FastTier, ArrivalMakesResidentAndHitsNeedResidency) {
  auto t = make_tier(1000);
  EXPECT_THROW(t->on_access_hit(acc(0, 100)), Error);
  EXPECT_THROW(t->on_arrival(acc(0, 100)), Error);
  load(*t, 0, 100);
  EXPECT_EQ(t->state(0), BlockState::resident);
  EXPECT_EQ(t->policy().size(), 1u);
  t->on_access_hit(acc(0, 100));
  std::vector<BlockIndex> evicted;
  EXPECT_THROW(t->begin_fetch(acc(0, 100), &evicted), Error);  // not absent
  EXPECT_THROW(t->cancel(0), Error);                            // not in flight
}

TEST(FastTier, InUseBlockIsNeverEvicted) {
  auto t = make_tier(1000);
  load(*t, 0, 400);  // FIFO order: 0, 1
  load(*t, 1, 400);
  t->acquire(0);
  t->acquire(0);
  EXPECT_EQ(t->state(0), BlockState::in_use);
  EXPECT_EQ(t->use_count(0), 2u);
  std::vector<BlockIndex> evicted;
  // Needs 400 more: FIFO would take 0 first, but 0 is in use.
  ASSERT_EQ(t->begin_fetch(acc(2, 400), &evicted), FetchAdmission::admitted);
  EXPECT_EQ(evicted, std::vector<BlockIndex>{1});
  EXPECT_EQ(t->state(0), BlockState::in_use);
  EXPECT_THROW(t->evict_explicit(0), Error);
  t->release(0);
  EXPECT_EQ(t->state(0), BlockState::in_use);
  t->release(0);
  EXPECT_EQ(t->state(0), BlockState::resident);
  EXPECT_THROW(t->release(0), Error);
  // Everything left in use or in flight: nothing evictable -> bypass.
  t->acquire(0);
  EXPECT_EQ(t->begin_fetch(acc(3, 400), &evicted), FetchAdmission::bypass);
  EXPECT_EQ(t->state(3), BlockState::absent);
  EXPECT_EQ(t->counters().bypasses, 1u);
}

TEST(FastTier, PinnedBlockIsNeverEvicted) {
  auto t = make_tier(1000);
  t->pin(5);  // before arrival
  load(*t, 5, 300);
  EXPECT_EQ(t->policy().size(), 0u);  // pinned blocks never enter the policy
  EXPECT_EQ(t->pinned_bytes(), 300u);
  load(*t, 6, 300);
  load(*t, 7, 300);
  t->pin(7);  // after arrival: taken out of the policy
  EXPECT_EQ(t->policy().size(), 1u);
  EXPECT_EQ(t->pinned_bytes(), 600u);
  std::vector<BlockIndex> evicted;
  ASSERT_EQ(t->begin_fetch(acc(8, 400), &evicted), FetchAdmission::admitted);
  EXPECT_EQ(evicted, std::vector<BlockIndex>{6});
  t->on_arrival(acc(8, 400));
  // 500 bytes cannot fit beside 600 pinned bytes: bypass at once, no eviction.
  EXPECT_EQ(t->begin_fetch(acc(9, 500), &evicted), FetchAdmission::bypass);
  EXPECT_TRUE(evicted.empty());
  EXPECT_EQ(t->state(8), BlockState::resident);
  EXPECT_THROW(t->evict_explicit(5), Error);
  EXPECT_EQ(t->state(5), BlockState::resident);
  EXPECT_EQ(t->state(7), BlockState::resident);
}

TEST(FastTier, ExplicitEvictionAndInvalidate) {
  auto t = make_tier(1000);
  load(*t, 0, 100);
  load(*t, 1, 200);
  t->evict_explicit(0);
  EXPECT_EQ(t->state(0), BlockState::absent);
  EXPECT_EQ(t->counters().evictions, 1u);
  EXPECT_EQ(t->counters().bytes_evicted, 100u);
  t->invalidate(1);
  EXPECT_EQ(t->state(1), BlockState::absent);
  EXPECT_EQ(t->counters().evictions, 1u);  // invalidation is not an eviction
  EXPECT_EQ(t->reserved_bytes(), 0u);
  EXPECT_EQ(t->policy().size(), 0u);
}

TEST(FastTier, TooLargeBlockBypassesWithoutEvicting) {
  auto t = make_tier(1000);
  load(*t, 0, 600);
  std::vector<BlockIndex> evicted;
  EXPECT_EQ(t->begin_fetch(acc(1, 1001), &evicted), FetchAdmission::bypass);
  EXPECT_EQ(t->counters().evictions, 0u);
  EXPECT_EQ(t->state(0), BlockState::resident);
}

TEST(FastTier, SlotsAreKeptForAPlacingAllocatorAndDerivedForBytes) {
  // first_fit places: slots (rounded to its alignment) survive the table's
  // growth past a huge page of records and stay readable after eviction.
  auto placed = make_tier(1 << 20, "first_fit", {{"alignment", "256B"}});
  load(*placed, 0, 100);
  load(*placed, 1, 300);
  const BlockIndex far = 300000;  // grows the tables past kHugePageBytes
  load(*placed, far, 10);
  EXPECT_EQ(placed->slot(0).offset_bytes, 0u);
  EXPECT_EQ(placed->slot(0).reserved_bytes, 256u);
  EXPECT_EQ(placed->slot(1).offset_bytes, 256u);
  EXPECT_EQ(placed->slot(1).reserved_bytes, 512u);
  EXPECT_EQ(placed->slot(far).offset_bytes, 768u);
  placed->evict_explicit(1);
  EXPECT_EQ(placed->slot(1).reserved_bytes, 0u);  // absent: no slot
  EXPECT_EQ(placed->last_slot(1).offset_bytes, 256u);
  EXPECT_EQ(placed->last_slot(1).reserved_bytes, 512u);
  EXPECT_EQ(placed->last_bytes(1), 300u);
  EXPECT_EQ(placed->reserved_bytes(), 256u + 256u);

  // bytes places nothing: every slot is {0, bytes}, kept as the block's bytes.
  auto ideal = make_tier(1 << 20);
  load(*ideal, 0, 100);
  load(*ideal, far, 300);
  EXPECT_EQ(ideal->slot(far).offset_bytes, 0u);
  EXPECT_EQ(ideal->slot(far).reserved_bytes, 300u);
  ideal->evict_explicit(far);
  EXPECT_EQ(ideal->last_slot(far).reserved_bytes, 300u);
  EXPECT_EQ(ideal->slot(far).reserved_bytes, 0u);
  EXPECT_EQ(ideal->reserved_bytes(), 100u);
  EXPECT_EQ(ideal->slot(7).reserved_bytes, 0u);  // never seen
}

TEST(FastTier, FragmentationEvictionCountedWithFirstFit) {
  // 1024 B, four 256-B blocks at 0, 256, 512, 768; FIFO order 0,1,2,3.
  auto t = make_tier(1024, "first_fit", {{"alignment", "256B"}});
  for (BlockIndex b = 0; b < 4; ++b) load(*t, b, 256);
  EXPECT_EQ(t->slot(1).offset_bytes, 256u);
  t->evict_explicit(1);  // holes at 256 and 768: 512 B free, 256 B contiguous
  t->evict_explicit(3);
  std::vector<BlockIndex> evicted;
  // A 512-B block: the free bytes suffice but are split, so FIFO's victim 0
  // is a fragmentation eviction; freeing [0,256) joins [256,512).
  ASSERT_EQ(t->begin_fetch(acc(4, 512), &evicted), FetchAdmission::admitted);
  EXPECT_EQ(evicted, std::vector<BlockIndex>{0});
  EXPECT_EQ(t->counters().fragmentation_evictions, 1u);
  EXPECT_EQ(t->counters().evictions, 3u);
  EXPECT_EQ(t->slot(4).offset_bytes, 0u);
  EXPECT_EQ(t->slot(4).reserved_bytes, 512u);

  // The same sequence with the idealised `bytes` pool evicts nothing more.
  auto ideal = make_tier(1024);
  for (BlockIndex b = 0; b < 4; ++b) load(*ideal, b, 256);
  ideal->evict_explicit(1);
  ideal->evict_explicit(3);
  ASSERT_EQ(ideal->begin_fetch(acc(4, 512), &evicted), FetchAdmission::admitted);
  EXPECT_TRUE(evicted.empty());
  EXPECT_EQ(ideal->counters().fragmentation_evictions, 0u);
}

TEST(FastTier, CreateRejectsZeroCapacityAndUnknownNames) {
  FastTierSpec spec;
  spec.policy = test::kTestFifo;
  EXPECT_THROW(FastTier::create(spec), InputError);
  spec.capacity_bytes = 100;
  spec.allocator = "no_such_allocator";
  EXPECT_THROW(FastTier::create(spec), UnknownNameError);
}

}  // namespace
}  // namespace flashsim
