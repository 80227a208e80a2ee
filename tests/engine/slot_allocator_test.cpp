// Slot allocators against hand-worked placements.
#include <gtest/gtest.h>

#include "sim/cache/i_slot_allocator.h"
#include "sim/core/errors.h"

namespace flashsim {
namespace {

std::unique_ptr<ISlotAllocator> make(const std::string& name, ByteCount capacity,
                                     std::map<std::string, std::string> params = {}) {
  return SlotAllocatorRegistry::instance().create(name, params, SlotAllocatorContext{capacity});
}

TEST(BytesAllocator, CountsBytesOnlyNoFragmentation) {
  auto a = make("bytes", 1000);
  auto r1 = a->allocate(600);
  ASSERT_TRUE(r1);
  EXPECT_EQ(r1->reserved_bytes, 600u);
  EXPECT_FALSE(a->allocate(401));  // 400 free
  auto r2 = a->allocate(400);
  ASSERT_TRUE(r2);
  EXPECT_EQ(a->reserved_bytes(), 1000u);
  EXPECT_EQ(a->largest_free_bytes(), 0u);
  a->release(*r1);
  // Any 600 free bytes serve a 600-byte request: no external fragmentation.
  EXPECT_TRUE(a->allocate(600));
  EXPECT_TRUE(a->could_ever_fit(1000));
  EXPECT_FALSE(a->could_ever_fit(1001));
}

TEST(FirstFitAllocator, RoundsToAlignmentAndCoalescesBothSides) {
  auto a = make("first_fit", 4096, {{"alignment", "256B"}});
  auto x = a->allocate(1000);  // -> 1024 bytes at 0
  auto y = a->allocate(1024);  // -> [1024, 2048)
  auto z = a->allocate(512);   // -> [2048, 2560)
  ASSERT_TRUE(x && y && z);
  EXPECT_EQ(x->offset_bytes, 0u);
  EXPECT_EQ(x->reserved_bytes, 1024u);
  EXPECT_EQ(y->offset_bytes, 1024u);
  EXPECT_EQ(z->offset_bytes, 2048u);
  EXPECT_EQ(a->reserved_bytes(), 2560u);
  EXPECT_EQ(a->largest_free_bytes(), 1536u);  // [2560, 4096)

  a->release(*y);  // free: [1024,2048) and [2560,4096)
  EXPECT_EQ(a->largest_free_bytes(), 1536u);
  EXPECT_FALSE(a->allocate(2048));  // 2560 bytes free, none contiguous enough: external fragmentation
  a->release(*x);                   // coalesces with [1024,2048) -> [0,2048)
  EXPECT_EQ(a->largest_free_bytes(), 2048u);
  auto w = a->allocate(2048);
  ASSERT_TRUE(w);
  EXPECT_EQ(w->offset_bytes, 0u);  // lowest address first
  a->release(*w);
  a->release(*z);  // merges [0,2048) + [2048,2560) + [2560,4096)
  EXPECT_EQ(a->reserved_bytes(), 0u);
  EXPECT_EQ(a->largest_free_bytes(), 4096u);
}

TEST(FirstFitAllocator, FirstFitTakesLowestHole) {
  auto a = make("first_fit", 1024, {{"alignment", "256B"}});
  auto r0 = a->allocate(256), r1 = a->allocate(256), r2 = a->allocate(256), r3 = a->allocate(256);
  ASSERT_TRUE(r0 && r1 && r2 && r3);
  EXPECT_FALSE(a->allocate(1));
  a->release(*r3);
  a->release(*r1);
  auto n = a->allocate(200);
  ASSERT_TRUE(n);
  EXPECT_EQ(n->offset_bytes, 256u);  // hole at 256 comes before the one at 768
}

TEST(FirstFitAllocator, ReleaseOfForeignRangeThrows) {
  auto a = make("first_fit", 1024);
  auto r = a->allocate(256);
  ASSERT_TRUE(r);
  EXPECT_THROW(a->release(SlotRange{512, 256}), Error);
  EXPECT_THROW(a->release(SlotRange{0, 512}), Error);  // wrong size
  a->release(*r);
  EXPECT_THROW(a->release(*r), Error);  // double release
}

TEST(SizeClassAllocator, PowerOfTwoInternalFragmentationExactBytes) {
  auto a = make("size_class", kMiB, {{"min_class", "256B"}});
  auto r1 = a->allocate(300);   // class 512
  auto r2 = a->allocate(5000);  // class 8192
  auto r3 = a->allocate(256);   // class 256
  auto r4 = a->allocate(1);     // class 256
  ASSERT_TRUE(r1 && r2 && r3 && r4);
  EXPECT_EQ(r1->reserved_bytes, 512u);
  EXPECT_EQ(r2->reserved_bytes, 8192u);
  EXPECT_EQ(r3->reserved_bytes, 256u);
  EXPECT_EQ(r4->reserved_bytes, 256u);
  // requested 5557 bytes, reserved 9216: 3659 bytes of internal fragmentation
  EXPECT_EQ(a->reserved_bytes(), 9216u);
  EXPECT_EQ(a->reserved_bytes() - (300 + 5000 + 256 + 1), 3659u);
  EXPECT_TRUE(a->could_ever_fit(kMiB));
  EXPECT_FALSE(a->could_ever_fit(kMiB + 1));
}

TEST(SizeClassAllocator, SlabListCalcifiesUntilEverythingIsFree) {
  auto a = make("size_class", 8 * kKiB, {{"classes", "1KiB, 4KiB"}});
  std::vector<SlotRange> small;
  for (int i = 0; i < 8; ++i) {
    auto r = a->allocate(1000);
    ASSERT_TRUE(r);
    EXPECT_EQ(r->reserved_bytes, 1024u);
    small.push_back(*r);
  }
  EXPECT_FALSE(a->allocate(1));
  for (int i = 0; i < 4; ++i) a->release(small[i]);  // 4 KiB free, contiguous, but carved into 1 KiB slots
  EXPECT_EQ(a->reserved_bytes(), 4096u);
  EXPECT_FALSE(a->allocate(4096));  // calcified
  for (int i = 4; i < 8; ++i) a->release(small[i]);
  EXPECT_EQ(a->reserved_bytes(), 0u);
  auto big = a->allocate(4096);  // everything free: region uncarved
  ASSERT_TRUE(big);
  EXPECT_EQ(big->offset_bytes, 0u);
  EXPECT_EQ(big->reserved_bytes, 4096u);
}

TEST(SizeClassAllocator, SegregatedFitBorrowsALargerFreeSlot) {
  auto a = make("size_class", 5 * kKiB, {{"classes", "1KiB,4KiB"}});
  auto big = a->allocate(4000);   // 4 KiB slot at 0
  auto small = a->allocate(1000); // 1 KiB slot at 4096; region now fully carved
  ASSERT_TRUE(big && small);
  EXPECT_EQ(small->offset_bytes, 4096u);
  a->release(*big);
  auto borrowed = a->allocate(1000);  // no free 1 KiB slot, no uncarved space: takes the 4 KiB slot
  ASSERT_TRUE(borrowed);
  EXPECT_EQ(borrowed->offset_bytes, 0u);
  EXPECT_EQ(borrowed->reserved_bytes, 4096u);
  EXPECT_EQ(a->reserved_bytes(), 5120u);
  EXPECT_FALSE(a->could_ever_fit(4097));
}

TEST(SizeClassAllocator, BadSlabListIsAnInputError) {
  EXPECT_THROW(make("size_class", kKiB, {{"classes", "2KiB"}}), InputError);
  EXPECT_THROW(make("size_class", kKiB, {{"classes", "12 parsecs"}}), InputError);
}

}  // namespace
}  // namespace flashsim
