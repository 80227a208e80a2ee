#include <gtest/gtest.h>

#include <stdexcept>

#include "sim/core/errors.h"
#include "traces/prefetching_trace_source.h"

namespace flashsim {
namespace {

std::unique_ptr<MemoryTraceSource> numbered(std::size_t n) {
  std::vector<AccessRecord> records(n);
  for (std::size_t i = 0; i < n; ++i) {
    records[i].time_ns = static_cast<Nanoseconds>(i);
    records[i].block_id = i * 7;
    records[i].bytes = 1 + i;
  }
  return std::make_unique<MemoryTraceSource>(TraceMeta{}, std::move(records));
}

std::vector<AccessRecord> drain(ITraceSource& source, std::size_t span) {
  std::vector<AccessRecord> all, buffer(span);
  while (std::size_t n = source.read(buffer)) all.insert(all.end(), buffer.begin(), buffer.begin() + static_cast<std::ptrdiff_t>(n));
  return all;
}

TEST(PrefetchingTraceSource, SameRecordsInOrderForAnyChunkAndSpan) {
  for (std::size_t chunk : {1u, 7u, 1000u, 5000u}) {
    for (std::size_t span : {1u, 13u, 4096u}) {
      PrefetchingTraceSource source(numbered(1000), chunk);
      const auto all = drain(source, span);
      ASSERT_EQ(all.size(), 1000u) << chunk << " " << span;
      for (std::size_t i = 0; i < all.size(); ++i) {
        ASSERT_EQ(all[i].block_id, i * 7);
        ASSERT_EQ(all[i].bytes, 1 + i);
      }
      std::vector<AccessRecord> more(4);
      EXPECT_EQ(source.read(more), 0u);  // stays at the end
    }
  }
}

// Records lent in place (ITraceSource::borrow through next_records), each
// span checked before the next call: the worker must not write a chunk a
// borrower still reads. Mixed with read() and across a rewind.
TEST(PrefetchingTraceSource, LentRecordsAreTheSameInOrderAndStayIntactUntilTheNextCall) {
  for (std::size_t chunk : {1u, 7u, 1000u, 5000u}) {
    for (std::size_t max : {1u, 13u, 4096u}) {
      PrefetchingTraceSource source(numbered(1000), chunk);
      std::vector<AccessRecord> own;
      std::size_t i = 0;
      for (std::span<const AccessRecord> s; !(s = next_records(source, own, max)).empty();) {
        ASSERT_LE(s.size(), max);
        for (const AccessRecord& r : s) {
          ASSERT_EQ(r.block_id, i * 7) << chunk << " " << max;
          ASSERT_EQ(r.bytes, 1 + i);
          ++i;
        }
      }
      EXPECT_EQ(i, 1000u);
      EXPECT_TRUE(own.empty());  // lent, never copied
      EXPECT_TRUE(next_records(source, own, max).empty());  // stays at the end
    }
  }
  PrefetchingTraceSource source(numbered(300), 64);
  std::vector<AccessRecord> some(10), own;
  ASSERT_EQ(source.read(some), 10u);
  const std::span<const AccessRecord> next = next_records(source, own, 5);
  ASSERT_EQ(next.size(), 5u);
  EXPECT_EQ(next.front().block_id, 10u * 7);  // lending goes on where read() stopped
  source.rewind();
  EXPECT_EQ(next_records(source, own, 3).front().block_id, 0u);
}

TEST(MemoryTraceSource, LendsItsRecordsAndASourceThatCannotIsReadIntoTheCallersBuffer) {
  const auto memory = numbered(10);
  std::vector<AccessRecord> own;
  EXPECT_EQ(next_records(*memory, own, 4).data(), memory->records().data());
  EXPECT_EQ(next_records(*memory, own, 100).size(), 6u);
  EXPECT_TRUE(next_records(*memory, own, 4).empty());
  EXPECT_TRUE(own.empty());
  // A source without borrow: copied into `own`.
  class CopyOnly final : public ITraceSource {
   public:
    const TraceMeta& meta() const override { return inner_->meta(); }
    std::size_t read(std::span<AccessRecord> out) override { return inner_->read(out); }
    void rewind() override { inner_->rewind(); }

   private:
    std::unique_ptr<MemoryTraceSource> inner_ = numbered(10);
  } copy_only;
  const std::span<const AccessRecord> s = next_records(copy_only, own, 4);
  ASSERT_EQ(s.size(), 4u);
  EXPECT_EQ(s.data(), own.data());
  EXPECT_EQ(s[3].block_id, 3u * 7);
}

TEST(PrefetchingTraceSource, RewindStartsOver) {
  PrefetchingTraceSource source(numbered(300), 64);
  std::vector<AccessRecord> some(100);
  ASSERT_EQ(source.read(some), 100u);
  source.rewind();
  const auto all = drain(source, 50);
  ASSERT_EQ(all.size(), 300u);
  EXPECT_EQ(all.front().block_id, 0u);
  EXPECT_EQ(all.back().block_id, 299u * 7);
}

// Fails on its second read, as a corrupt file would.
class FailingSource final : public ITraceSource {
 public:
  const TraceMeta& meta() const override { return meta_; }
  std::size_t read(std::span<AccessRecord> out) override {
    if (reads_++ > 0) throw InputError("trace.h5: record 10: bytes is 0");
    return std::min<std::size_t>(out.size(), 10);
  }
  void rewind() override { reads_ = 0; }

 private:
  TraceMeta meta_;
  int reads_ = 0;
};

TEST(PrefetchingTraceSource, ErrorSurfacesAfterTheGoodRecords) {
  PrefetchingTraceSource source(std::make_unique<FailingSource>(), 10);
  std::vector<AccessRecord> buffer(10);
  EXPECT_EQ(source.read(buffer), 10u);
  try {
    source.read(buffer);
    FAIL() << "expected the inner error";
  } catch (const InputError& e) {
    EXPECT_STREQ(e.what(), "trace.h5: record 10: bytes is 0");
  }
}

}  // namespace
}  // namespace flashsim
