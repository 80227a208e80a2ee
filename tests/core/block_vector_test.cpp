// BlockVector (sim/core/block_vector.h): large tables on 2 MiB-aligned
// storage, small ones from std::allocator, values kept across growth.
#include <gtest/gtest.h>

#include <cstdint>

#include "sim/core/block_vector.h"

namespace flashsim {
namespace {

constexpr std::size_t kHuge = HugePageAllocator<std::uint32_t>::kHugePageBytes;

TEST(BlockVector, ALargeTableIsHugePageAlignedASmallOneNeedNotBe) {
  BlockVector<std::uint64_t> large(kHuge / sizeof(std::uint64_t) + 1, 7);
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(large.data()) % kHuge, 0u);
  BlockVector<std::uint64_t> small(16, 3);
  EXPECT_EQ(small[15], 3u);
  small.shrink_to_fit();
  EXPECT_EQ(small.size(), 16u);
}

TEST(BlockVector, ValuesSurviveGrowthAcrossTheHugePageThreshold) {
  BlockVector<std::uint32_t> v;
  const std::uint32_t n = static_cast<std::uint32_t>(3 * kHuge / sizeof(std::uint32_t));
  for (std::uint32_t i = 0; i < n; ++i) v.push_back(i * 2654435761u);
  ASSERT_EQ(v.size(), n);
  for (std::uint32_t i = 0; i < n; i += 4093) EXPECT_EQ(v[i], i * 2654435761u) << i;
  EXPECT_EQ(v.back(), (n - 1) * 2654435761u);
  v.resize(10);  // back below the threshold on shrink_to_fit: freed by the matching path
  v.shrink_to_fit();
  EXPECT_EQ(v[9], 9u * 2654435761u);
}

TEST(BlockVector, AnImpossibleSizeThrowsBadAlloc) {
  HugePageAllocator<std::uint64_t> a;
  EXPECT_THROW(static_cast<void>(a.allocate(std::size_t(-1) / 4)), std::bad_alloc);
  // Within SIZE_MAX bytes, but rounding up to a whole huge page would wrap.
  EXPECT_THROW(static_cast<void>(a.allocate(std::size_t(-1) / 8)), std::bad_alloc);
  EXPECT_THROW(static_cast<void>(HugePageAllocator<char>().allocate(std::size_t(-1) - 10)), std::bad_alloc);
}

}  // namespace
}  // namespace flashsim
