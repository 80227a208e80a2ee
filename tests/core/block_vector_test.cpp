// BlockVector (sim/core/block_vector.h): large tables on 2 MiB-aligned
// mappings, small ones on the malloc heap, values kept across growth.
#include <gtest/gtest.h>

#include <cstdint>
#include <utility>
#include <vector>

#include "sim/core/block_vector.h"

namespace flashsim {
namespace {

constexpr std::size_t kHuge = kHugePageBytes;

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

TEST(BlockVector, AGrownTableStaysAlignedAndZeroesNothingItKeeps) {
  // Grown by remapping, several times, with other mappings made between
  // the growths (in place is then not always possible).
  BlockVector<std::uint64_t> v(kHuge / sizeof(std::uint64_t), 5);
  std::vector<BlockVector<std::uint64_t>> others;
  for (int round = 1; round <= 4; ++round) {
    others.emplace_back(kHuge / sizeof(std::uint64_t), 1);
    const std::size_t old_size = v.size();
    v.resize(old_size * 2, static_cast<std::uint64_t>(round));
    ASSERT_EQ(reinterpret_cast<std::uintptr_t>(v.data()) % kHuge, 0u) << round;
    EXPECT_EQ(v[0], 5u);
    EXPECT_EQ(v[old_size - 1], round == 1 ? 5u : static_cast<std::uint64_t>(round - 1));
    EXPECT_EQ(v[old_size], static_cast<std::uint64_t>(round));
    EXPECT_EQ(v.back(), static_cast<std::uint64_t>(round));
  }
  for (const auto& o : others) EXPECT_EQ(o.back(), 1u);  // untouched by v's moves
}

TEST(BlockVector, CopiesAndMovesKeepTheValues) {
  BlockVector<std::uint32_t> a(kHuge / sizeof(std::uint32_t) + 7, 9);
  a[3] = 4;
  BlockVector<std::uint32_t> b = a;
  b[3] = 5;
  EXPECT_EQ(a[3], 4u);
  EXPECT_EQ(b.size(), a.size());
  BlockVector<std::uint32_t> c = std::move(b);
  EXPECT_EQ(c[3], 5u);
  EXPECT_EQ(c.back(), 9u);
  EXPECT_TRUE(b.empty());
  c.assign(3, 2);
  EXPECT_EQ(c.size(), 3u);
  EXPECT_EQ(c[0] + c[1] + c[2], 6u);
}

TEST(BlockVector, AnImpossibleSizeThrowsBadAlloc) {
  BlockVector<std::uint64_t> a;
  EXPECT_THROW(a.reserve(std::size_t(-1) / 4), std::bad_alloc);
  // Within SIZE_MAX bytes, but rounding up to a whole huge page would wrap.
  EXPECT_THROW(a.reserve(std::size_t(-1) / 8), std::bad_alloc);
  BlockVector<char> c;
  EXPECT_THROW(c.reserve(std::size_t(-1) - 10), std::bad_alloc);
  EXPECT_TRUE(a.empty());
}

}  // namespace
}  // namespace flashsim
