// The link model against closed forms.
#include "sim/engine/event/link.h"

#include <gtest/gtest.h>

#include <utility>

#include "sim/core/errors.h"

namespace flashsim {
namespace {

LinkSpec spec(Nanoseconds latency, BytesPerSecond bw, LinkSharing sharing) {
  LinkSpec s;
  s.latency_ns = latency;
  s.bandwidth = bw;
  s.sharing = sharing;
  return s;
}

// Runs a fair link until idle; returns (tag, completion ns) in completion order.
std::vector<std::pair<std::uint64_t, Nanoseconds>> drain(Link& link) {
  std::vector<std::pair<std::uint64_t, Nanoseconds>> out;
  std::vector<std::uint64_t> done;
  for (Nanoseconds t; (t = link.next_event_ns()) != kNeverNs;) {
    done.clear();
    link.advance(t, &done);
    for (auto tag : done) out.emplace_back(tag, t);
  }
  return out;
}

TEST(FifoLink, BackToBackTransfersCompleteAtMultiplesOfLatencyPlusTransfer) {
  // latency 1000 ns, 1 B/ns, b = 4000 B: the k-th of n transfers submitted
  // together ends at k·(1000 + 4000) ns.
  Link link(spec(1000, 1e9, LinkSharing::fifo), 0);
  for (int k = 1; k <= 5; ++k) EXPECT_EQ(link.submit(0, 4000, k), k * 5000);
  EXPECT_EQ(link.busy().total_ns(), 5 * 4000);  // data flowing, latency excluded
  EXPECT_EQ(link.transfers(), 5u);
  EXPECT_EQ(link.bytes(), 20000u);
  // A transfer requested after the link went idle starts at once.
  EXPECT_EQ(link.submit(100000, 4000, 9), 105000);
}

TEST(FifoLink, TransferTimeRoundsUp) {
  Link link(spec(0, 3e9, LinkSharing::fifo), 0);  // 3 B/ns: 1000 B take 333.3 ns -> 334
  EXPECT_EQ(link.submit(0, 1000, 1), 334);
}

TEST(FairLink, TwoEqualConcurrentTransfersEachFinishAtLatencyPlusTwiceTheirTime) {
  // latency 1000, 1 B/ns, b = 4000 each: both flow from 1000 at 0.5 B/ns,
  // both finish at 1000 + 2·4000 = 9000, in submit order.
  Link link(spec(1000, 1e9, LinkSharing::fair), 0);
  EXPECT_EQ(link.submit(0, 4000, 1), kNeverNs);
  link.submit(0, 4000, 2);
  EXPECT_EQ(link.next_event_ns(), 1000);
  auto done = drain(link);
  ASSERT_EQ(done.size(), 2u);
  EXPECT_EQ(done[0], std::make_pair(std::uint64_t{1}, Nanoseconds{9000}));
  EXPECT_EQ(done[1], std::make_pair(std::uint64_t{2}, Nanoseconds{9000}));
  EXPECT_EQ(link.busy().total_ns(), 8000);
}

TEST(FairLink, UnequalSizes) {
  // 2000 B and 6000 B from 1000 ns at 1 B/ns: the small one gets 0.5 B/ns,
  // ends at 1000 + 2·2000 = 5000; the large one has 4000 B left alone:
  // 5000 + 4000 = 9000 = latency + (2000 + 6000)/bw.
  Link link(spec(1000, 1e9, LinkSharing::fair), 0);
  link.submit(0, 6000, 1);
  link.submit(0, 2000, 2);
  auto done = drain(link);
  ASSERT_EQ(done.size(), 2u);
  EXPECT_EQ(done[0], std::make_pair(std::uint64_t{2}, Nanoseconds{5000}));
  EXPECT_EQ(done[1], std::make_pair(std::uint64_t{1}, Nanoseconds{9000}));
}

TEST(FairLink, LateJoinerSharesFromItsStart) {
  // A: 4000 B at 0 (no latency). Alone until 3000 (3000 B sent). B: 4000 B
  // joins at 3000; both at 0.5 B/ns: A's last 1000 B end at 5000; B has
  // 1000 B sent, 3000 left alone: ends 8000.
  Link link(spec(0, 1e9, LinkSharing::fair), 0);
  link.submit(0, 4000, 1);
  std::vector<std::uint64_t> done;
  link.advance(0, &done);
  EXPECT_EQ(link.next_event_ns(), 4000);
  link.advance(3000, &done);
  EXPECT_TRUE(done.empty());
  const std::uint64_t before = link.generation();
  link.submit(3000, 4000, 2);
  EXPECT_NE(link.generation(), before);  // stale checks are recognisable
  auto rest = drain(link);
  ASSERT_EQ(rest.size(), 2u);
  EXPECT_EQ(rest[0], std::make_pair(std::uint64_t{1}, Nanoseconds{5000}));
  EXPECT_EQ(rest[1], std::make_pair(std::uint64_t{2}, Nanoseconds{8000}));
  EXPECT_EQ(link.busy().total_ns(), 8000);
}

TEST(FairLink, FractionalCompletionRoundsUp) {
  // Two transfers of 1000 B at 3 B/ns: each 2000/3 = 666.7 ns -> 667.
  Link link(spec(0, 3e9, LinkSharing::fair), 0);
  link.submit(0, 1000, 1);
  link.submit(0, 1000, 2);
  auto done = drain(link);
  ASSERT_EQ(done.size(), 2u);
  EXPECT_EQ(done[1].second, 667);
}

TEST(BusyWindows, SplitsIntervalsAtWindowEdges) {
  // One fifo transfer: latency 500, 2000 B at 1 B/ns -> data flows [500, 2500).
  Link link(spec(500, 1e9, LinkSharing::fifo), 1000);
  link.submit(0, 2000, 1);
  EXPECT_EQ(link.busy().window(0), 500);
  EXPECT_EQ(link.busy().window(1), 1000);
  EXPECT_EQ(link.busy().window(2), 500);
  EXPECT_EQ(link.busy().window(3), 0);
  EXPECT_EQ(link.busy().total_ns(), 2000);
}

TEST(Link, RejectsZeroBandwidth) { EXPECT_THROW(Link(spec(0, 0, LinkSharing::fifo), 0), InputError); }

}  // namespace
}  // namespace flashsim

namespace flashsim {
namespace {

TEST(WeightedLink, MinimumSharesGiveTheClosedFormCompletionTimes) {
  // 1 B/ns, class 1 weight 0.35 (cross-attention), class 0 weight 0.65.
  // 1000 B each from t = 0: class 0 at 0.65 B/ns ends at 1538.46 -> 1539 ns;
  // class 1 has then 461.54 B left at the full 1 B/ns: ends at 2000 ns.
  Link link(spec(0, 1e9, LinkSharing::fifo), 0, {0.65, 0.35});
  EXPECT_TRUE(link.fair());  // weights make any link weighted-fair
  link.submit(0, 1000, 10, 1);
  link.submit(0, 1000, 20, 0);
  const auto done = drain(link);
  ASSERT_EQ(done.size(), 2u);
  EXPECT_EQ(done[0], (std::pair<std::uint64_t, Nanoseconds>{20, 1539}));
  EXPECT_EQ(done[1], (std::pair<std::uint64_t, Nanoseconds>{10, 2000}));
  EXPECT_EQ(link.busy().total_ns(), 2000);
}

TEST(WeightedLink, TransfersOfOneClassShareItsWeightEqually) {
  // Class 1 (0.5) holds two 1000-B transfers, class 0 (0.5) one of 1000 B:
  // class 0 runs at 0.5 B/ns and ends at 2000; each class-1 transfer runs
  // at 0.25 B/ns and has 500 B by then, then 0.5 B/ns each: both end at 3000.
  Link link(spec(0, 1e9, LinkSharing::fair), 0, {0.5, 0.5});
  link.submit(0, 1000, 1, 1);
  link.submit(0, 1000, 2, 1);
  link.submit(0, 1000, 3, 0);
  const auto done = drain(link);
  ASSERT_EQ(done.size(), 3u);
  EXPECT_EQ(done[0], (std::pair<std::uint64_t, Nanoseconds>{3, 2000}));
  EXPECT_EQ(done[1].second, 3000);
  EXPECT_EQ(done[2].second, 3000);
}

TEST(WeightedLink, AnIdleClassLeavesItsShareToTheOthers) {
  // Only class 1 (weight 0.35) is busy: it gets the whole link.
  Link link(spec(0, 1e9, LinkSharing::fair), 0, {0.65, 0.35});
  link.submit(0, 1000, 7, 1);
  const auto done = drain(link);
  ASSERT_EQ(done.size(), 1u);
  EXPECT_EQ(done[0].second, 1000);
}

TEST(WeightedLink, NonPositiveWeightIsAnInputError) {
  EXPECT_THROW(Link(spec(0, 1e9, LinkSharing::fair), 0, {0.5, 0.0}), InputError);
}

}  // namespace
}  // namespace flashsim
