// BlockNumbering (sim/cache/block_numbering.h): numbers in order of first
// sight, cross-checked against std::unordered_map over ids that take every
// path -- dense ids in the plain table, sparse 64-bit ids in the IdTable
// across its growths, ids the plain table comes to cover later, and ids
// whose hash bits collide with others' (the IdTable confirms against the
// id list).
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <unordered_map>
#include <vector>

#include "sim/cache/block_numbering.h"

namespace flashsim {
namespace {

// MurmurHash3's finaliser and its inverse: ids built from chosen hashes.
std::uint64_t fmix(std::uint64_t k) {
  k ^= k >> 33;
  k *= 0xff51afd7ed558ccdULL;
  k ^= k >> 33;
  k *= 0xc4ceb9fe1a85ec53ULL;
  k ^= k >> 33;
  return k;
}
std::uint64_t unshift33(std::uint64_t h) { return h ^ (h >> 33); }  // x ^= x >> 33 is its own inverse for shifts >= 32
std::uint64_t fmix_inverse(std::uint64_t h) {
  h = unshift33(h);
  h *= 0x9cb4b2f8129337dbULL;  // inverse of 0xc4ceb9fe1a85ec53 mod 2^64
  h = unshift33(h);
  h *= 0x4f74430c22a54005ULL;  // inverse of 0xff51afd7ed558ccd mod 2^64
  return unshift33(h);
}

TEST(BlockNumbering, TheHashInverseUsedBelowIsOne) {
  for (std::uint64_t x : {0ULL, 1ULL, 0xdeadbeefULL, ~0ULL}) EXPECT_EQ(fmix_inverse(fmix(x)), x);
}

TEST(BlockNumbering, AgreesWithAHashMapOnEveryPath) {
  std::mt19937_64 rng(7);
  std::vector<BlockId> ids;
  for (int i = 0; i < 300000; ++i) {
    const int path = static_cast<int>(rng() % 4);
    if (path == 0) ids.push_back(rng() % 5000);                 // dense
    else if (path == 1) ids.push_back(rng());                   // sparse
    else if (path == 2) ids.push_back(5000 + rng() % 400000);   // covered by the plain table later
    else if (!ids.empty()) ids.push_back(ids[rng() % ids.size()]);  // seen before
  }
  // Sparse ids equal in the hash's high 32 bits and home slot, but not in id:
  // every lookup of one must be confirmed against the id list.
  const std::uint64_t base = 0x123456789abcdef0ULL;
  for (std::uint64_t k = 1; k <= 64; ++k) ids.push_back(fmix_inverse(base ^ (k << 24)));
  for (std::uint64_t k = 1; k <= 64; ++k) ids.push_back(fmix_inverse(base ^ (k << 24)));

  BlockNumbering numbering;
  std::unordered_map<BlockId, BlockIndex> expected;
  for (std::size_t i = 0; i < ids.size(); ++i) {
    const BlockId id = ids[i];
    auto [it, fresh] = expected.emplace(id, static_cast<BlockIndex>(expected.size()));
    bool added = false;
    ASSERT_EQ(numbering.index(id, &added), it->second) << "record " << i << ", id " << id;
    ASSERT_EQ(added, fresh) << "record " << i;
  }
  ASSERT_EQ(numbering.size(), expected.size());
  for (const auto& [id, index] : expected) {
    ASSERT_EQ(numbering.find(id), index) << id;
    ASSERT_EQ(numbering.id_of(index), id) << index;
  }
  for (int i = 0; i < 1000; ++i) {
    const BlockId id = rng() | (1ULL << 63);
    if (!expected.count(id)) {
      EXPECT_EQ(numbering.find(id), BlockNumbering::kNone) << id;
    }
  }
  EXPECT_EQ(numbering.find(fmix_inverse(base ^ (65ULL << 24))), BlockNumbering::kNone);  // same bits, never numbered
}

}  // namespace
}  // namespace flashsim
