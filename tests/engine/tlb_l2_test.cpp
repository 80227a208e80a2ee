// TLB and L2 models against hand-worked sequences.
#include <gtest/gtest.h>

#include <random>

#include "sim/core/errors.h"
#include "sim/engine/event/l2_line_walk.h"
#include "sim/engine/event/l2_model.h"
#include "sim/engine/event/l2_range_walk.h"
#include "sim/engine/event/tlb.h"

namespace flashsim {
namespace {

TEST(Tlb, LruPagePatternHasKnownMisses) {
  TlbSpec spec;
  spec.entries = 2;
  spec.page_bytes = 4096;
  spec.miss_penalty_ns = 30;
  Tlb tlb(spec);
  // Pages 0 1 0 2 1 0 with 2 LRU entries:
  //   0 miss [0]; 1 miss [1 0]; 0 hit [0 1]; 2 miss, evicts 1 [2 0];
  //   1 miss, evicts 0 [1 2]; 0 miss, evicts 2 [0 1]  -> 5 misses, 1 hit.
  const std::uint64_t pages[] = {0, 1, 0, 2, 1, 0};
  Nanoseconds added = 0;
  for (std::uint64_t p : pages) added += tlb.access(p * 4096 + 100);
  EXPECT_EQ(tlb.misses(), 5u);
  EXPECT_EQ(tlb.hits(), 1u);
  EXPECT_EQ(added, 5 * 30);
}

TEST(Tlb, DisabledWhenNoEntries) {
  Tlb tlb(TlbSpec{});
  EXPECT_FALSE(tlb.enabled());
  EXPECT_EQ(tlb.access(12345), 0);
  EXPECT_EQ(tlb.misses(), 0u);
}

// 2 sets x 2 ways x 128-B lines (4 sectors of 32 B): 512 B.
L2Spec small_l2() {
  L2Spec s;
  s.capacity_bytes = 512;
  s.line_bytes = 128;
  s.sector_bytes = 32;
  s.associativity = 2;
  s.hit_latency_ns = 150;
  s.miss_latency_ns = 330;
  return s;
}

TEST(L2Model, HandWorkedSetConflicts) {
  L2Model l2(small_l2());
  // Line n -> set n mod 2. Set 0 sees lines 0, 2, 4.
  EXPECT_EQ(l2.access(0, 32, false), 330);    // line 0 sector 0: line miss            set0 {0}
  EXPECT_EQ(l2.access(256, 32, false), 330);  // line 2: line miss                     set0 {0,2}
  EXPECT_EQ(l2.access(32, 32, false), 330);   // line 0 sector 1: sector miss
  EXPECT_EQ(l2.access(0, 32, false), 150);    // line 0 sector 0: hit (0 now MRU)
  EXPECT_EQ(l2.access(512, 32, false), 330);  // line 4: miss, evicts LRU 2          set0 {0,4}
  EXPECT_EQ(l2.access(256, 32, false), 330);  // line 2: miss, evicts LRU 0          set0 {2,4}
  EXPECT_EQ(l2.access(128, 32, false), 330);  // line 1 (set 1): miss
  EXPECT_EQ(l2.access(0, 32, false), 330);    // line 0: miss, evicts LRU 4          set0 {2,0}
  // Bytes [16, 80) of line 0: sectors 0 (valid), 1 and 2 (not).
  EXPECT_EQ(l2.access(16, 64, false), 330);
  const L2Stats s = l2.stats();
  EXPECT_EQ(s.sets, 2u);
  EXPECT_EQ(s.sampled_line_misses, 6u);
  EXPECT_EQ(s.sampled_sector_misses, 3u);
  EXPECT_EQ(s.sampled_sector_hits, 2u);
  EXPECT_EQ(s.sampled_line_miss_sectors, 6u);
  EXPECT_DOUBLE_EQ(s.line_misses, 6.0);  // no sampling: scale 1
  EXPECT_EQ(s.accesses, 9u);
}

TEST(L2Model, PersistingCarveOutProtectsPersistingLines) {
  // persisting = 256 B = one way of every set (sets x line = 256 B).
  // Set 0: persisting line 0, then normal lines 2 and 4, then 0 and 2 again.
  auto run = [](ByteCount persisting) {
    L2Spec spec = small_l2();
    spec.persisting_bytes = persisting;
    L2Model l2(spec);
    l2.access(0, 32, true);
    l2.access(256, 32, false);
    l2.access(512, 32, false);
    l2.access(0, 32, true);
    l2.access(256, 32, false);
    return l2.stats();
  };
  // Carve-out: line 0 owns way 0; 2 and 4 fight over way 1:
  //   0 miss, 2 miss, 4 miss (evicts 2), 0 hit, 2 miss  -> 4 line misses, 1 hit.
  const L2Stats with = run(256);
  EXPECT_EQ(with.persisting_ways, 1u);
  EXPECT_EQ(with.sampled_line_misses, 4u);
  EXPECT_EQ(with.sampled_sector_hits, 1u);
  // No carve-out, plain LRU: 0, 2, 4 (evicts 0), 0 (evicts 2), 2 (evicts 4) -> 5 misses.
  const L2Stats without = run(0);
  EXPECT_EQ(without.sampled_line_misses, 5u);
  EXPECT_EQ(without.sampled_sector_hits, 0u);
}

TEST(L2Model, SetSamplingScalesAnEvenSweep) {
  // 64 sets x 2 ways x 128 B; simulate 16 sets (scale 4). Two sweeps of one
  // sector in each of 128 lines (2 per set, they fit): 128 line misses,
  // then 128 hits, estimated exactly from 32 + 32 sampled.
  L2Spec spec = small_l2();
  spec.capacity_bytes = 64 * 2 * 128;
  spec.sampled_sets = 16;
  L2Model l2(spec);
  for (int pass = 0; pass < 2; ++pass) {
    for (std::uint64_t line = 0; line < 128; ++line) l2.access(line * 128, 32, false);
  }
  const L2Stats s = l2.stats();
  EXPECT_EQ(s.simulated_sets, 16u);
  EXPECT_DOUBLE_EQ(s.scale, 4.0);
  EXPECT_EQ(s.sampled_line_misses, 32u);
  EXPECT_EQ(s.sampled_sector_hits, 32u);
  EXPECT_DOUBLE_EQ(s.line_misses, 128.0);
  EXPECT_DOUBLE_EQ(s.sector_hits, 128.0);
}

TEST(L2Model, LongRangePathEqualsLineByLine) {
  // One 16-KiB access (128 lines > 16 simulated sets: per-set walk) versus
  // the same bytes as 128 line-sized accesses (per-line walk).
  L2Spec spec = small_l2();
  spec.capacity_bytes = 64 * 2 * 128;
  spec.sampled_sets = 16;
  L2Model whole(spec), pieces(spec);
  for (int pass = 0; pass < 2; ++pass) {
    whole.access(64, 128 * 128, false);
    for (std::uint64_t line = 0; line < 128; ++line) {
      const std::uint64_t begin = line == 0 ? 64 : line * 128;
      pieces.access(begin, (line + 1) * 128 - begin, false);
    }
    pieces.access(128 * 128, 64, false);  // the tail of [64, 64 + 16384)
  }
  EXPECT_EQ(whole.stats().sampled_line_misses, pieces.stats().sampled_line_misses);
  EXPECT_EQ(whole.stats().sampled_sector_hits, pieces.stats().sampled_sector_hits);
  EXPECT_EQ(whole.stats().sampled_sector_misses, pieces.stats().sampled_sector_misses);
  EXPECT_GT(whole.stats().sampled_sector_hits, 0u);
}

TEST(L2Model, BadGeometryIsAnInputError) {
  L2Spec spec = small_l2();
  spec.sector_bytes = 48;
  EXPECT_THROW(L2Model{spec}, InputError);
  spec = small_l2();
  spec.capacity_bytes = 100;
  EXPECT_THROW(L2Model{spec}, InputError);
}

}  // namespace
}  // namespace flashsim

namespace flashsim {
namespace {

// The H200's L2 geometry (60 MiB, 128 B lines, 16 ways: 30,720 sets) under
// the default sampled_sets (auto): 256 sets simulated, and a cold 11 MiB
// copy -- a whole tensor, as captured traces record them -- is estimated
// without walking its 90,112 lines: every sector misses, within the
// estimate's spread.
TEST(L2Sampling, AutoSamplesLargeGeometriesAndEstimatesACopy) {
  L2Spec spec;
  spec.capacity_bytes = 60 * kMiB;
  spec.hit_latency_ns = 200;
  spec.miss_latency_ns = 500;
  L2Model l2(spec);
  EXPECT_EQ(l2.access(1ull << 32, 11 * kMiB, false), 500);
  const L2Stats s = l2.stats();
  EXPECT_EQ(s.sets, 30720u);
  EXPECT_EQ(s.simulated_sets, 256u);
  const double sectors = 11.0 * kMiB / 32.0;
  EXPECT_NEAR(s.line_misses * 4.0, sectors, sectors * 0.05);  // 4 sectors a line, all touched
  EXPECT_EQ(s.sector_hits, 0.0);
}

}  // namespace
}  // namespace flashsim

namespace flashsim {
namespace {

// The range walk against the per-line reference, after every access of
// random sequences: same counts, same Touch. Geometries with and without
// set sampling and a persisting carve-out; accesses from one byte to
// several times the capacity, unaligned heads and tails, overlapping and
// repeated ranges in a small address window (so sets hold range lines when
// a long copy arrives, and the per-line fallback is taken too).
TEST(L2Walks, RangeWalkEqualsLineWalkOnRandomSequences) {
  std::mt19937_64 rng(20261206);
  int long_ranges = 0;
  for (int trial = 0; trial < 200; ++trial) {
    L2Spec spec;
    spec.line_bytes = 128;
    spec.sector_bytes = 32;
    spec.associativity = 2u + static_cast<std::uint32_t>(rng() % 7);  // 2..8 ways
    const std::uint64_t sets = 1ull << (rng() % 7);                    // 1..64 sets
    spec.capacity_bytes = sets * spec.associativity * spec.line_bytes;
    spec.sampled_sets = (rng() % 2 == 0 || sets < 4) ? 0 : static_cast<std::uint32_t>(sets / 4);
    const std::uint64_t carve = rng() % spec.associativity;  // 0..ways-1 ways
    spec.persisting_bytes = carve * sets * spec.line_bytes;
    const L2Geometry geometry(spec);
    L2LineWalk line_walk(geometry);
    L2RangeWalk range_walk(geometry);
    L2Counts by_line, by_range;
    const std::uint64_t window = spec.capacity_bytes * 4;
    for (int i = 0; i < 300; ++i) {
      const std::uint64_t address = rng() % window;
      std::uint64_t bytes = 0;
      switch (rng() % 4) {
        case 0: bytes = 1 + rng() % 64; break;
        case 1: bytes = 1 + rng() % (spec.line_bytes * 4); break;
        case 2: bytes = 1 + rng() % spec.capacity_bytes; break;
        default: bytes = 1 + rng() % (spec.capacity_bytes * 3); break;
      }
      if ((address + bytes - 1) / spec.line_bytes - address / spec.line_bytes + 1 > geometry.sampled.size()) ++long_ranges;
      const bool persisting = rng() % 3 == 0;
      const L2Walk::Touch a = line_walk.access(address, address + bytes, persisting, by_line);
      const L2Walk::Touch b = range_walk.access(address, address + bytes, persisting, by_range);
      ASSERT_EQ(a.touched, b.touched) << "trial " << trial << " access " << i;
      ASSERT_EQ(a.missed, b.missed) << "trial " << trial << " access " << i;
      ASSERT_EQ(by_line.sector_hits, by_range.sector_hits) << "trial " << trial << " access " << i;
      ASSERT_EQ(by_line.sector_misses, by_range.sector_misses) << "trial " << trial << " access " << i;
      ASSERT_EQ(by_line.line_misses, by_range.line_misses) << "trial " << trial << " access " << i;
      ASSERT_EQ(by_line.line_miss_sectors, by_range.line_miss_sectors) << "trial " << trial << " access " << i;
    }
  }
  EXPECT_GT(long_ranges, 10000);  // the range path ran, not only the short one
}

}  // namespace
}  // namespace flashsim
