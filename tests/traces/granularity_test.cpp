#include <gtest/gtest.h>

#include "sim/core/errors.h"
#include "traces/granularity.h"

namespace flashsim {
namespace {

std::unique_ptr<MemoryTraceSource> two_blocks() {
  TraceMeta meta;
  meta.source = "test";
  meta.has_next_use = true;
  meta.catalog = {{7, "mlp.up", 5000, 1 << 20, (1 << 20) + 5000, 3, "weight"}, {9, "norm", 100, kNoAddress, kNoAddress, 3, "weight"}};
  AccessRecord a;
  a.time_ns = 10;
  a.block_id = 7;
  a.bytes = 5000;
  a.address = 1 << 20;
  a.compute_ns = 77;
  a.next_use_index = 2;
  AccessRecord b = a;
  b.time_ns = 20;
  b.block_id = 9;
  b.bytes = 100;
  b.address = kNoAddress;
  b.compute_ns = 5;
  AccessRecord c = a;
  c.time_ns = 30;
  return std::make_unique<MemoryTraceSource>(meta, std::vector<AccessRecord>{a, b, c});
}

TEST(GranularityTraceSource, SplitsBytesAddressesAndCompute) {
  GranularityTraceSource g(two_blocks(), 2048);
  std::vector<AccessRecord> out(3);  // smaller than the 7 pieces: split across reads
  std::vector<AccessRecord> all;
  while (std::size_t n = g.read(out)) all.insert(all.end(), out.begin(), out.begin() + static_cast<std::ptrdiff_t>(n));
  // 5000 B -> 2048 + 2048 + 904; 100 B -> 100; then 5000 B again.
  ASSERT_EQ(all.size(), 7u);
  const ByteCount bytes[] = {2048, 2048, 904, 100, 2048, 2048, 904};
  const BlockId ids[] = {piece_id(7, 0), piece_id(7, 1), piece_id(7, 2), piece_id(9, 0),
                         piece_id(7, 0), piece_id(7, 1), piece_id(7, 2)};
  for (std::size_t i = 0; i < all.size(); ++i) {
    EXPECT_EQ(all[i].bytes, bytes[i]) << i;
    EXPECT_EQ(all[i].block_id, ids[i]) << i;
    EXPECT_EQ(all[i].next_use_index, kNeverAccessedAgain);
  }
  EXPECT_EQ(all[1].address, (1u << 20) + 2048);
  EXPECT_EQ(all[2].offset, 4096u);
  EXPECT_EQ(all[3].address, kNoAddress);
  EXPECT_EQ(all[0].compute_ns, 0);   // compute waits for the whole block
  EXPECT_EQ(all[2].compute_ns, 77);
  EXPECT_EQ(all[3].compute_ns, 5);
  EXPECT_EQ(all[5].time_ns, 30);
  EXPECT_FALSE(g.meta().has_next_use);
  ASSERT_EQ(g.meta().catalog.size(), 4u);
  EXPECT_EQ(g.meta().catalog[2].name, "mlp.up#2");
  EXPECT_EQ(g.meta().catalog[2].bytes, 904u);
  EXPECT_EQ(g.meta().catalog[2].address_begin, (1u << 20) + 4096);
  EXPECT_EQ(g.meta().catalog[3].layer, 3);
  g.rewind();
  ASSERT_EQ(g.read(out), 3u);
  EXPECT_EQ(out[0].block_id, piece_id(7, 0));
}

TEST(GranularityTraceSource, RejectsIdsBeyondTheEncoding) {
  std::vector<AccessRecord> r(1);
  r[0].block_id = BlockId{1} << 50;
  r[0].bytes = 10;
  GranularityTraceSource g(std::make_unique<MemoryTraceSource>(TraceMeta{}, r), 4);
  std::vector<AccessRecord> out(4);
  try {
    g.read(out);
    FAIL();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("record 0"), std::string::npos);
  }
  EXPECT_THROW(GranularityTraceSource(std::make_unique<MemoryTraceSource>(TraceMeta{}, r), 0), InputError);
}

}  // namespace
}  // namespace flashsim
