// The event engine's one-pass replay of a trace that lists its streams
// (TraceMeta::streams, sim/engine/event/trace_scan.h): the same result as
// the two-pass replay, and a summary that disagrees with the records is
// named at the record where it does.
#include <gtest/gtest.h>

#include <map>

#include "sim/core/errors.h"
#include "sim/engine/engine.h"
#include "sim/engine/event/trace_scan.h"
#include "tests/engine/test_policies.h"
#include "tests/traces/trace_test_util.h"

namespace flashsim {
namespace {

// Records with a meta of one's choosing (MemoryTraceSource drops a summary).
class ListedSource final : public ITraceSource {
 public:
  ListedSource(TraceMeta meta, std::vector<AccessRecord> records) : meta_(std::move(meta)), records_(std::move(records)) {
    meta_.record_count = records_.size();
  }
  const TraceMeta& meta() const override { return meta_; }
  std::size_t read(std::span<AccessRecord> out) override {
    const std::size_t n = std::min(out.size(), records_.size() - position_);
    std::copy_n(records_.begin() + static_cast<std::ptrdiff_t>(position_), n, out.begin());
    position_ += n;
    records_read_ += n;
    return n;
  }
  void rewind() override { position_ = 0; }
  std::size_t records_read() const { return records_read_; }

 private:
  TraceMeta meta_;
  std::vector<AccessRecord> records_;
  std::size_t position_ = 0;
  std::size_t records_read_ = 0;
};

// Three streams whose records interleave; times rise within each.
std::vector<AccessRecord> three_streams() {
  std::vector<AccessRecord> v = test::random_trace(3000, 200, 7);
  Nanoseconds t[3] = {500, 0, 20};
  for (std::size_t i = 0; i < v.size(); ++i) {
    const std::uint32_t s = static_cast<std::uint32_t>((i * 7 + i / 5) % 3);
    v[i].stream_id = 10 + s;
    v[i].time_ns = t[s];
    t[s] += static_cast<Nanoseconds>(1 + i % 4) * 100;
  }
  return v;
}

// The summary computed by hand: streams in order of first appearance.
TraceMeta summary_of(const std::vector<AccessRecord>& records) {
  TraceMeta m;
  m.source = "listed";
  std::map<std::uint32_t, std::size_t> slot;
  for (const AccessRecord& r : records) {
    auto [it, added] = slot.emplace(r.stream_id, m.streams.size());
    if (added) m.streams.push_back(StreamSummary{r.stream_id, r.time_ns, 0});
    ++m.streams[it->second].records;
  }
  m.streams_known = true;
  m.record_count = records.size();
  return m;
}

EngineConfig config(ByteCount capacity) {
  EngineConfig c;
  c.hardware.name = "test";
  TierSpec hbm, dram;
  hbm.name = "hbm";
  hbm.hit_latency_ns = 100;
  dram.name = "dram";
  dram.hit_latency_ns = 50;
  dram.link_to_faster.latency_ns = 1000;
  dram.link_to_faster.bandwidth = 1e9;
  c.hardware.tiers = {hbm, dram};
  c.hardware.miss_penalty_ns = 142;
  c.cache.capacity_bytes = capacity;
  c.cache.eviction = {"lru", {}};
  return c;
}

TEST(TraceSummary, OnePassGivesTheTwoPassResultAndReadsTheTraceOnce) {
  const std::vector<AccessRecord> records = three_streams();
  for (const IssueMode issue : {IssueMode::closed, IssueMode::timestamp}) {
    EngineConfig c = config(20000);
    c.issue = issue;
    TraceMeta plain;
    plain.source = "listed";
    ListedSource two_pass(plain, records);
    ListedSource one_pass(summary_of(records), records);
    const EngineResult a = run_engine(two_pass, c);
    const EngineResult b = run_engine(one_pass, c);
    EXPECT_EQ(a.metrics.total.hits, b.metrics.total.hits);
    EXPECT_EQ(a.metrics.total.misses, b.metrics.total.misses);
    EXPECT_EQ(a.metrics.total.stall_ns, b.metrics.total.stall_ns);
    EXPECT_EQ(a.metrics.simulated_ns, b.metrics.simulated_ns);
    EXPECT_EQ(a.events_processed, b.events_processed);
    EXPECT_GT(a.metrics.total.hits, 0u);
    EXPECT_GT(a.metrics.total.misses, 0u);
    EXPECT_EQ(two_pass.records_read(), 6000u);
    EXPECT_EQ(one_pass.records_read(), 3000u);
  }
}

TEST(TraceSummary, ASummaryWithRequestsIsNotUsed) {
  std::vector<AccessRecord> records = three_streams();
  TraceMeta m = summary_of(records);
  m.has_requests = true;  // the requests' facts need the pass
  EXPECT_FALSE(scan_from_summary(m).has_value());
  m.has_requests = false;
  const std::optional<TraceScan> scan = scan_from_summary(m);
  ASSERT_TRUE(scan.has_value());
  ASSERT_EQ(scan->streams.size(), 3u);
  EXPECT_EQ(scan->earliest_time_ns, 0);  // stream 11 starts at 0
  EXPECT_EQ(scan->records, 3000u);
}

// Each way a summary can disagree with the records, named at the record.
TEST(TraceSummary, ASummaryThatDisagreesIsNamedAtTheRecord) {
  const std::vector<AccessRecord> records = three_streams();
  const auto fails = [&](TraceMeta m, const std::vector<AccessRecord>& rs, const std::string& what) {
    ListedSource src(std::move(m), rs);
    EXPECT_INPUT_ERROR(run_engine(src, config(20000)), "trace 'listed'", what, "/streams");
  };
  {
    TraceMeta m = summary_of(records);
    m.streams[1].first_time_ns += 1;
    fails(m, records, "the first record of stream " + std::to_string(m.streams[1].stream_id));
  }
  {
    TraceMeta m = summary_of(records);
    m.streams[0].records -= 1;
    m.streams[2].records += 1;
    fails(m, records, "has more than its " + std::to_string(m.streams[0].records) + " records");
  }
  {
    TraceMeta m = summary_of(records);
    m.streams[2].stream_id = 99;
    fails(m, records, "is not listed");
  }
  {
    // Listed out of the order of first appearance: the order is the streams'
    // dense index, which breaks ties between events.
    TraceMeta m = summary_of(records);
    std::swap(m.streams[0], m.streams[1]);
    fails(m, records, "starts here, but is listed as stream");
  }
  {
    std::vector<AccessRecord> with_request = records;
    with_request[1234].request_id = 5;
    fails(summary_of(records), with_request, "record 1234: has request 5");
  }
}

// Ids from 65536 up are numbered beside the small-id table, also after it
// has grown (it once grew past 65536 and hid them).
TEST(TraceSummary, LargeStreamIdsReplayOnBothPaths) {
  std::vector<AccessRecord> records = three_streams();
  const std::uint32_t ids[3] = {70000, 40000, 65535};
  for (AccessRecord& r : records) r.stream_id = ids[r.stream_id - 10];
  TraceMeta plain;
  plain.source = "listed";
  ListedSource two_pass(plain, records);
  ListedSource one_pass(summary_of(records), records);
  const EngineResult a = run_engine(two_pass, config(20000));
  const EngineResult b = run_engine(one_pass, config(20000));
  EXPECT_EQ(a.metrics.total.accesses, 3000u);
  EXPECT_EQ(a.metrics.total.hits, b.metrics.total.hits);
  EXPECT_EQ(a.metrics.simulated_ns, b.metrics.simulated_ns);
}

TEST(TraceSummary, TheOnePassChecksTheRecordsAsTheFirstPassDoes) {
  std::vector<AccessRecord> records = three_streams();
  std::size_t i = 2000;
  while (records[i].stream_id != records[2000].stream_id || i == 2000) --i;  // the stream's previous record
  std::vector<AccessRecord> backwards = records;
  backwards[2000].time_ns = records[i].time_ns - 1;
  std::vector<AccessRecord> zero = records;
  zero[17].bytes = 0;
  for (const bool listed : {false, true}) {
    TraceMeta plain;
    plain.source = "listed";
    ListedSource a(listed ? summary_of(backwards) : plain, backwards);
    EXPECT_INPUT_ERROR(run_engine(a, config(20000)), "record 2000", "time goes backwards in stream");
    ListedSource b(listed ? summary_of(zero) : plain, zero);
    EXPECT_INPUT_ERROR(run_engine(b, config(20000)), "record 17", "bytes == 0");
  }
}

}  // namespace
}  // namespace flashsim
