// The access protocol (sim/cache/tier_session.h) called directly: the
// decisions and bookkeeping every driver shares.
#include <gtest/gtest.h>

#include "sim/cache/tier_session.h"
#include "sim/core/errors.h"

namespace flashsim {
namespace {

TraceMeta kv_and_weight() {
  TraceMeta meta;
  meta.source = "session";
  meta.catalog.resize(2);
  meta.catalog[0].id = 10;
  meta.catalog[0].bytes = 100;
  meta.catalog[0].kind = "kv_page";
  meta.catalog[1].id = 11;
  meta.catalog[1].bytes = 100;
  meta.catalog[1].kind = "weight";
  return meta;
}

PolicyAccess access(BlockIndex b, std::uint64_t i, AccessOp op) {
  PolicyAccess a;
  a.now_ns = static_cast<Nanoseconds>(i);
  a.block = b;
  a.bytes = 100;
  a.access_index = i;
  a.op = op;
  return a;
}

// A KV page written, evicted (written back), written again on a miss, evicted
// again: the second write makes it dirty too, so it is written back twice.
TEST(TierSession, AWriteThatMissesOnAPageHeldBeforeMarksItDirty) {
  const TraceMeta meta = kv_and_weight();
  CacheConfig cache;
  cache.capacity_bytes = 100;
  TierSession s(cache, meta);
  const BlockIndex page = s.number(10), weight = s.number(11);
  EXPECT_EQ(s.kind_of(page), BlockKind::kv_page);
  EXPECT_EQ(s.kind_of(weight), BlockKind::weights);
  AccessCounters c;
  EXPECT_EQ(s.access(access(page, 0, AccessOp::write), 0, c), AccessKind::write_allocated);
  EXPECT_TRUE(s.is_dirty(page));
  EXPECT_EQ(s.occupancy_bytes(BlockKind::kv_page), 100u);

  const PolicyAccess w1 = access(weight, 1, AccessOp::read);
  EXPECT_EQ(s.access(w1, TierSession::kNoRequestIndex, c), AccessKind::miss);
  ASSERT_EQ(s.departures().size(), 1u);
  EXPECT_EQ(s.departures()[0].block, page);
  EXPECT_TRUE(s.departures()[0].dirty);
  EXPECT_EQ(c.bytes_written_back, 100u);
  s.arrived(w1);

  const PolicyAccess p2 = access(page, 2, AccessOp::write);
  EXPECT_EQ(s.access(p2, 0, c), AccessKind::miss);  // held before: fetched, not allocated in place
  EXPECT_TRUE(s.is_dirty(page));
  ASSERT_EQ(s.departures().size(), 1u);
  EXPECT_FALSE(s.departures()[0].dirty);  // the weight was only read
  s.arrived(p2);

  EXPECT_EQ(s.access(access(weight, 3, AccessOp::read), TierSession::kNoRequestIndex, c), AccessKind::miss);
  ASSERT_EQ(s.departures().size(), 1u);
  EXPECT_TRUE(s.departures()[0].dirty);
  EXPECT_EQ(c.bytes_written_back, 200u);
  EXPECT_EQ(c.write_allocations, 1u);
  EXPECT_EQ(c.misses, 4u);
  EXPECT_EQ(c.evictions, 3u);
  EXPECT_EQ(c.bytes_fetched, 300u);  // the write allocation moved nothing
}

// A request's pages leave at its end without a write-back, and the KV
// occupancy returns to 0.
TEST(TierSession, RequestEndDropsItsPagesWithoutWriteBack) {
  const TraceMeta meta = kv_and_weight();
  CacheConfig cache;
  cache.capacity_bytes = 1000;
  TierSessionOptions options;
  options.kv_resident = true;
  TierSession s(cache, meta, options);
  const BlockIndex page = s.number(10);
  AccessCounters c;
  EXPECT_EQ(s.access(access(page, 0, AccessOp::write), 7, c), AccessKind::write_allocated);
  EXPECT_EQ(s.tier().state(page), BlockState::in_use);  // held for its running request
  s.end_request(7, c);
  EXPECT_EQ(s.tier().state(page), BlockState::absent);
  ASSERT_EQ(s.departures().size(), 1u);
  EXPECT_FALSE(s.departures()[0].dirty);
  EXPECT_EQ(c.bytes_written_back, 0u);
  EXPECT_EQ(c.evictions, 0u);
  EXPECT_EQ(s.occupancy_bytes(BlockKind::kv_page), 0u);
}

// Sizes ignored is a rule of the cache-only path: a driver that moves bytes
// (the engine, the replay) is refused by the session, whoever builds it.
TEST(TierSession, IgnoreSizesIsRefusedWhereBytesMove) {
  const TraceMeta meta = kv_and_weight();
  CacheConfig cache;
  cache.capacity_bytes = 10;
  cache.ignore_sizes = true;
  EXPECT_NO_THROW(TierSession(cache, meta));
  TierSessionOptions moving;
  moving.moves_bytes = true;
  EXPECT_THROW(TierSession(cache, meta, moving), InputError);
}

TEST(TierSession, PolicyCapacityRule) {
  EXPECT_EQ(policy_capacity_bytes(1000, 300), 700u);
  EXPECT_EQ(policy_capacity_bytes(1000, 1000), 1u);
  EXPECT_EQ(policy_capacity_bytes(1000, 0), 1000u);
}

}  // namespace
}  // namespace flashsim
