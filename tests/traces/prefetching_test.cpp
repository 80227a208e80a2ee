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
