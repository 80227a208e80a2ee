// The `synthetic` generator (sim/workload/synthetic_pattern.h): exact
// records of a tiny scan, totals, determinism, Zipf and hot_scan statistics
// against their analytic values, parameter errors, and engine cross-checks
// (LRU and Belady on a cyclic scan; lookahead along the operator order).
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "sim/core/errors.h"
#include "sim/engine/engine.h"
#include "sim/prefetch/operator_order.h"
#include "sim/workload/synthetic_pattern.h"
#include "sim/workload/workload_io.h"

namespace flashsim {
namespace {

std::vector<AccessRecord> records_of(const IWorkloadGenerator& g, std::size_t chunk = 4096) {
  std::unique_ptr<ITraceSource> s = g.open();
  std::vector<AccessRecord> out, buffer(chunk);
  while (const std::size_t n = s->read(buffer)) out.insert(out.end(), buffer.begin(), buffer.begin() + n);
  return out;
}

bool same(const AccessRecord& a, const AccessRecord& b) {
  return a.time_ns == b.time_ns && a.block_id == b.block_id && a.bytes == b.bytes && a.op == b.op &&
         a.stream_id == b.stream_id && a.request_id == b.request_id && a.token_index == b.token_index &&
         a.phase == b.phase && a.operator_id == b.operator_id && a.compute_ns == b.compute_ns;
}

bool same(const std::vector<AccessRecord>& a, const std::vector<AccessRecord>& b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (!same(a[i], b[i])) return false;
  return true;
}

std::unique_ptr<IWorkloadGenerator> make(std::map<std::string, std::string> params, std::uint64_t context_seed = 1) {
  WorkloadContext c;
  c.seed = context_seed;
  return make_workload("synthetic", params, c);
}

// Analytic Zipf: p_k = k^-s / H(n, s), k = 1..n (index k−1).
std::vector<double> zipf_p(std::size_t n, double s) {
  std::vector<double> p(n);
  double h = 0;
  for (std::size_t k = 1; k <= n; ++k) h += std::pow(static_cast<double>(k), -s);
  for (std::size_t k = 1; k <= n; ++k) p[k - 1] = std::pow(static_cast<double>(k), -s) / h;
  return p;
}

// The statistical bound used throughout: each empirical frequency f_k of N
// iid draws is within 5 standard deviations, 5·sqrt(p_k(1−p_k)/N), of p_k.
// With the seeds fixed the tests are deterministic; for a fresh seed a
// false failure has probability < n · 5.7e-7 (normal tail beyond 5σ,
// union bound over n ranks).
void expect_frequencies(const std::vector<std::uint64_t>& counts, std::uint64_t draws, const std::vector<double>& p,
                        const std::string& what) {
  ASSERT_EQ(counts.size(), p.size());
  const double n = static_cast<double>(draws);
  for (std::size_t k = 0; k < p.size(); ++k) {
    const double f = static_cast<double>(counts[k]) / n;
    const double bound = 5.0 * std::sqrt(p[k] * (1.0 - p[k]) / n);
    EXPECT_NEAR(f, p[k], bound) << what << ": rank " << k + 1;
  }
}

// ----------------------------------------------------------- records ----

TEST(Synthetic, IsRegisteredWithItsParameters) {
  const auto& entry = WorkloadRegistry::instance().find("synthetic");
  std::vector<std::string> names;
  for (const ParamSpec& s : entry.params) names.push_back(s.name);
  for (const char* key : {"block_bytes", "blocks", "tokens", "accesses_per_token", "pattern", "zipf", "hot_share",
                          "hot_blocks", "operator_blocks", "compute", "kind", "seed"}) {
    EXPECT_NE(std::find(names.begin(), names.end(), key), names.end()) << key;
  }
}

TEST(Synthetic, TinyScanIsTheExactRecordSequence) {
  const auto g = make({{"blocks", "3"}, {"tokens", "2"}, {"block_bytes", "256B"}, {"compute", "10ns"}});
  const TraceMeta& meta = g->meta();
  ASSERT_EQ(meta.catalog.size(), 3u);
  for (BlockId b = 0; b < 3; ++b) {
    EXPECT_EQ(meta.catalog[b].id, b);
    EXPECT_EQ(meta.catalog[b].bytes, 256u);
    EXPECT_EQ(meta.catalog[b].kind, "weight");
    EXPECT_EQ(meta.catalog[b].name, "block." + std::to_string(b));
  }
  ASSERT_EQ(meta.operators.size(), 3u);  // one block per operator
  for (std::uint32_t k = 0; k < 3; ++k) {
    EXPECT_EQ(meta.operators[k].blocks, std::vector<BlockId>{k});
    EXPECT_TRUE(meta.operators[k].routed_blocks.empty());
    EXPECT_EQ(meta.operators[k].compute_ns, 10);
  }
  const std::vector<AccessRecord> r = records_of(*g);
  ASSERT_EQ(r.size(), 6u);
  const BlockId blocks[] = {0, 1, 2, 0, 1, 2};
  const std::int32_t tokens[] = {0, 0, 0, 1, 1, 1};
  for (std::size_t j = 0; j < 6; ++j) {
    EXPECT_EQ(r[j].block_id, blocks[j]) << j;
    EXPECT_EQ(r[j].token_index, tokens[j]) << j;
    EXPECT_EQ(r[j].operator_id, blocks[j]) << j;
    EXPECT_EQ(r[j].time_ns, static_cast<Nanoseconds>(10 * j)) << j;
    EXPECT_EQ(r[j].compute_ns, 10);
    EXPECT_EQ(r[j].bytes, 256u);
    EXPECT_EQ(r[j].op, AccessOp::read);
    EXPECT_EQ(r[j].request_id, 0u);
    EXPECT_EQ(r[j].stream_id, 0u);
    EXPECT_EQ(r[j].phase, Phase::decode);
  }
}

TEST(Synthetic, ScanRunsOnAcrossTokensWhenAccessesPerTokenDiffer) {
  // 5 blocks, 3 accesses per token, 4 tokens: 12 accesses, positions j mod 5.
  const auto g = make({{"blocks", "5"}, {"tokens", "4"}, {"accesses_per_token", "3"}, {"operator_blocks", "2"},
                       {"kind", "expert"}, {"block_bytes", "1KiB"}});
  ASSERT_EQ(g->meta().operators.size(), 3u);  // {0,1} {2,3} {4}
  EXPECT_EQ(g->meta().operators[0].blocks, (std::vector<BlockId>{0, 1}));
  EXPECT_EQ(g->meta().operators[2].blocks, (std::vector<BlockId>{4}));
  EXPECT_EQ(g->meta().catalog[3].layer, 1);
  EXPECT_EQ(g->meta().catalog[3].kind, "expert");
  const std::vector<AccessRecord> r = records_of(*g);
  ASSERT_EQ(r.size(), 12u);
  for (std::size_t j = 0; j < r.size(); ++j) {
    EXPECT_EQ(r[j].block_id, j % 5) << j;
    EXPECT_EQ(r[j].token_index, static_cast<std::int32_t>(j / 3)) << j;
    EXPECT_EQ(r[j].operator_id, (j % 5) / 2) << j;
    EXPECT_EQ(r[j].time_ns, 0);  // compute 0: the closed-loop gap applies
  }
}

TEST(Synthetic, ByteAndCatalogTotals) {
  for (const char* pattern : {"scan", "zipf", "hot_scan"}) {
    const auto g = make({{"blocks", "100"}, {"tokens", "7"}, {"accesses_per_token", "33"}, {"block_bytes", "3KiB"},
                         {"pattern", pattern}});
    ByteCount catalog = 0;
    for (const auto& e : g->meta().catalog) catalog += e.bytes;
    EXPECT_EQ(catalog, 100u * 3072u) << pattern;
    const std::vector<AccessRecord> r = records_of(*g);
    ASSERT_EQ(r.size(), 7u * 33u) << pattern;
    ByteCount accessed = 0;
    for (const auto& a : r) {
      accessed += a.bytes;
      EXPECT_LT(a.block_id, 100u);
    }
    EXPECT_EQ(accessed, 7u * 33u * 3072u) << pattern;
    EXPECT_EQ(g->meta().operators.empty(), std::string(pattern) == "zipf") << pattern;
  }
}

TEST(Synthetic, LargeBlocksAndCountsAtTheBounds) {
  const auto g = make({{"blocks", "2"}, {"tokens", "1"}, {"block_bytes", "4GiB"}});
  EXPECT_EQ(g->meta().catalog[1].bytes, ByteCount{4} << 30);
  const auto many = make({{"blocks", "200000"}, {"tokens", "1"}, {"block_bytes", "256B"}});
  EXPECT_EQ(many->meta().operators.size(), 200000u / 4);  // auto: ceil(200000/65536) = 4 blocks per operator
  EXPECT_EQ(many->meta().operators.back().blocks.size(), 4u);
}

// ------------------------------------------------------- determinism ----

TEST(Synthetic, EveryOpenAndRewindGivesTheSameRecordsWhateverTheChunk) {
  for (const char* pattern : {"scan", "zipf", "hot_scan"}) {
    const auto g = make({{"blocks", "300"}, {"tokens", "5"}, {"pattern", pattern}, {"seed", "42"}});
    const std::vector<AccessRecord> a = records_of(*g, 4096);
    const std::vector<AccessRecord> b = records_of(*g, 7);  // chunk boundaries anywhere
    EXPECT_TRUE(same(a, b)) << pattern;
    std::unique_ptr<ITraceSource> s = g->open();
    std::vector<AccessRecord> first(100), again(100);
    ASSERT_EQ(s->read(first), 100u);
    s->rewind();
    ASSERT_EQ(s->read(again), 100u);
    EXPECT_TRUE(same(first, again)) << pattern;
    // A second generator with the same parameters: the same trace.
    const auto h = make({{"blocks", "300"}, {"tokens", "5"}, {"pattern", pattern}, {"seed", "42"}});
    EXPECT_TRUE(same(a, records_of(*h))) << pattern;
  }
}

TEST(Synthetic, SeedsDifferAndMinusOneIsTheContextSeed) {
  const auto a = make({{"blocks", "300"}, {"pattern", "zipf"}, {"seed", "1"}});
  const auto b = make({{"blocks", "300"}, {"pattern", "zipf"}, {"seed", "2"}});
  const auto c = make({{"blocks", "300"}, {"pattern", "zipf"}}, /*context_seed=*/2);
  const std::vector<AccessRecord> ra = records_of(*a), rb = records_of(*b), rc = records_of(*c);
  EXPECT_FALSE(same(ra, rb));
  EXPECT_TRUE(same(rb, rc));
  std::size_t differ = 0;
  for (std::size_t i = 0; i < ra.size(); ++i) differ += ra[i].block_id != rb[i].block_id;
  EXPECT_GT(differ, ra.size() / 2);  // independent draws, not a shifted copy
  const auto hs1 = make({{"blocks", "300"}, {"pattern", "hot_scan"}, {"seed", "1"}});
  const auto hs2 = make({{"blocks", "300"}, {"pattern", "hot_scan"}, {"seed", "2"}});
  EXPECT_FALSE(same(records_of(*hs1), records_of(*hs2)));
  // scan has no randomness: the seed does not matter.
  EXPECT_TRUE(same(records_of(*make({{"blocks", "30"}, {"seed", "1"}})), records_of(*make({{"blocks", "30"}, {"seed", "9"}}))));
}

// -------------------------------------------------------- statistics ----

TEST(Synthetic, ZipfSamplerMatchesTheAnalyticFrequencies) {
  // s = 1 takes the series branch of helper1/helper2 exactly; s = 0 is uniform.
  for (double s : {0.0, 0.5, 0.9, 1.0, 1.2, 2.0}) {
    const std::size_t n = 100;
    const std::uint64_t draws = 1'000'000;
    ZipfSampler z(n, s);
    Rng rng(12345);
    std::vector<std::uint64_t> counts(n, 0);
    for (std::uint64_t i = 0; i < draws; ++i) {
      const std::uint64_t k = z.draw(rng);
      ASSERT_LT(k, n);
      ++counts[k];
    }
    expect_frequencies(counts, draws, zipf_p(n, s), "s=" + std::to_string(s));
  }
  ZipfSampler one(1, 0.9);
  Rng rng(1);
  EXPECT_EQ(one.draw(rng), 0u);
  EXPECT_THROW(ZipfSampler(0, 1.0), Error);
}

TEST(Synthetic, ZipfPatternFollowsPermutedRanks) {
  const std::size_t n = 200;
  const auto base = make({{"blocks", std::to_string(n)}, {"tokens", "2500"}, {"pattern", "zipf"}, {"seed", "7"}});
  const auto& g = dynamic_cast<const SyntheticWorkload&>(*base);
  // The ranks are a permutation of the blocks, and not the identity.
  std::vector<bool> seen(n, false);
  std::size_t fixed = 0;
  for (std::size_t k = 0; k < n; ++k) {
    const BlockId b = g.block_of_rank(k);
    ASSERT_LT(b, n);
    EXPECT_FALSE(seen[b]);
    seen[b] = true;
    fixed += b == k;
  }
  EXPECT_LT(fixed, 10u);  // a random permutation has 1 fixed point on average
  EXPECT_NE(g.block_of_rank(0), 0u);
  std::vector<std::uint64_t> by_block(n, 0);
  const std::vector<AccessRecord> r = records_of(g);
  ASSERT_EQ(r.size(), n * 2500);
  for (const auto& a : r) {
    ++by_block[a.block_id];
    EXPECT_EQ(a.operator_id, kNoOperator);
  }
  std::vector<std::uint64_t> by_rank(n);
  for (std::size_t k = 0; k < n; ++k) by_rank[k] = by_block[g.block_of_rank(k)];
  expect_frequencies(by_rank, r.size(), zipf_p(n, 0.9), "zipf pattern");
}

TEST(Synthetic, HotScanReplacesTheShareOfAccessesWithHotZipfDraws) {
  // 512 blocks, hot set 0..63, hot_share 0.3, 200 tokens. At scan positions
  // p >= 64 a record naming another block than p is a hot draw (a draw
  // lands in 0..63), so among those M = 200·448 accesses the replaced
  // share is Binomial(M, 0.3)/M: within 5·sqrt(0.3·0.7/M) = 0.0077 of 0.3.
  const std::size_t n = 512, hot = 64, tokens = 200;
  const auto g = make({{"blocks", std::to_string(n)}, {"tokens", std::to_string(tokens)}, {"pattern", "hot_scan"},
                       {"hot_blocks", std::to_string(hot)}, {"hot_share", "0.3"}, {"zipf", "0.9"}, {"seed", "3"}});
  const std::vector<AccessRecord> r = records_of(*g);
  ASSERT_EQ(r.size(), n * tokens);
  std::uint64_t cold_positions = 0, replaced = 0;
  std::vector<std::uint64_t> hot_counts(hot, 0);
  for (std::size_t j = 0; j < r.size(); ++j) {
    const BlockId p = j % n;
    EXPECT_EQ(r[j].operator_id, p) << j;  // the scan position's operator, even when replaced
    if (p < hot) continue;
    ++cold_positions;
    if (r[j].block_id != p) {
      ASSERT_LT(r[j].block_id, hot) << j;
      ++replaced;
      ++hot_counts[r[j].block_id];
    }
  }
  const double m = static_cast<double>(cold_positions);
  EXPECT_NEAR(static_cast<double>(replaced) / m, 0.3, 5.0 * std::sqrt(0.3 * 0.7 / m));
  expect_frequencies(hot_counts, replaced, zipf_p(hot, 0.9), "hot draws");

  // hot_share 0: the plain scan; 1: every access in the hot set.
  const auto none = make({{"blocks", "64"}, {"tokens", "3"}, {"pattern", "hot_scan"}, {"hot_share", "0"}});
  EXPECT_TRUE(same(records_of(*none), records_of(*make({{"blocks", "64"}, {"tokens", "3"}}))));
  const auto all = make({{"blocks", "64"}, {"tokens", "3"}, {"pattern", "hot_scan"}, {"hot_share", "1"}});
  for (const auto& a : records_of(*all)) EXPECT_LT(a.block_id, 8u);  // default hot_blocks = 64/8
}

// ------------------------------------------------------------ errors ----

void expect_error_naming(const std::map<std::string, std::string>& params, const std::string& key) {
  try {
    make(params);
    ADD_FAILURE() << "no error for " << key;
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("'" + key + "'"), std::string::npos) << e.what();
  }
}

TEST(Synthetic, ParameterErrorsNameTheKey) {
  expect_error_naming({{"blocks", "0"}}, "blocks");
  expect_error_naming({{"blocks", "16777217"}}, "blocks");
  expect_error_naming({{"block_bytes", "0B"}}, "block_bytes");
  expect_error_naming({{"block_bytes", "5GiB"}}, "block_bytes");
  expect_error_naming({{"block_bytes", "lots"}}, "block_bytes");
  expect_error_naming({{"tokens", "0"}}, "tokens");
  expect_error_naming({{"pattern", "random"}}, "pattern");
  expect_error_naming({{"zipf", "-1"}}, "zipf");
  expect_error_naming({{"hot_share", "1.5"}}, "hot_share");
  expect_error_naming({{"blocks", "16"}, {"hot_blocks", "17"}, {"pattern", "hot_scan"}}, "hot_blocks");
  expect_error_naming({{"blocks", "16"}, {"operator_blocks", "17"}}, "operator_blocks");
  expect_error_naming({{"compute", "-5ns"}}, "compute");
  expect_error_naming({{"colour", "red"}}, "colour");
  // The class checks too (for callers that build options directly).
  SyntheticOptions o;
  o.blocks = 0;
  try {
    SyntheticWorkload w(o);
    ADD_FAILURE();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("'blocks'"), std::string::npos) << e.what();
  }
  o.blocks = kMaxSyntheticBlocks + 1;
  EXPECT_THROW(SyntheticWorkload{o}, InputError);
}

// ------------------------------------------------------------ engine ----

CacheConfig cache(const std::string& policy, ByteCount capacity) {
  CacheConfig c;
  c.capacity_bytes = capacity;
  c.eviction = {policy, {}};
  return c;
}

// Belady (must admit, evict the resident block whose next use is furthest)
// by brute force on the cyclic scan j -> j mod n, N accesses: block b's next
// use after access t is the first τ > t with τ ≡ b (mod n).
std::uint64_t opt_hits_on_scan(std::uint64_t n, std::uint64_t c, std::uint64_t total) {
  std::vector<bool> held(n, false);
  std::uint64_t size = 0, hits = 0;
  for (std::uint64_t t = 0; t < total; ++t) {
    const std::uint64_t b = t % n;
    if (held[b]) {
      ++hits;
      continue;
    }
    if (size == c) {
      std::uint64_t victim = n, furthest = 0;
      for (std::uint64_t x = 0; x < n; ++x) {
        if (!held[x]) continue;
        const std::uint64_t next = t + 1 + (x + n - (t + 1) % n) % n;  // >= total: never again
        if (victim == n || next > furthest) victim = x, furthest = next;
      }
      held[victim] = false;
      --size;
    }
    held[b] = true;
    ++size;
  }
  return hits;
}

TEST(Synthetic, LruMissesEveryAccessOfAScanLargerThanTheTier) {
  // n blocks cycled T times; LRU at capacity < footprint evicts each block
  // just before its reuse: 0 hits. At capacity = footprint: n·(T−1) hits.
  const std::uint64_t n = 64, t = 10;
  const ByteCount block = 4096;
  const auto g = make({{"blocks", std::to_string(n)}, {"tokens", std::to_string(t)}, {"block_bytes", "4KiB"}});
  for (std::uint64_t c : {1u, 16u, 63u}) {
    auto src = g->open();
    const RunMetrics m = run_cache_only(*src, cache("lru", c * block));
    EXPECT_EQ(m.total.accesses, n * t);
    EXPECT_EQ(m.total.hits, 0u) << c;
    EXPECT_EQ(m.total.misses, n * t) << c;
    EXPECT_EQ(m.total.bytes_fetched, n * t * block) << c;
  }
  auto src = g->open();
  const RunMetrics full = run_cache_only(*src, cache("lru", n * block));
  EXPECT_EQ(full.total.hits, n * (t - 1));
}

TEST(Synthetic, BeladyOnAScanKeepsAboutCapacityOverFootprintPerPass) {
  // Cross-check 1: the engine's belady equals a brute-force OPT exactly.
  // Cross-check 2: the closed form. After the cold first pass OPT hits
  // (c−1)/(n−1) of accesses in steady state (c−1 blocks stay, one slot
  // rotates), so the byte hit ratio is ≈ (C/F)·(T−1)/T; here n = 1000,
  // c = 250, T = 8: (C/F)(T−1)/T = 0.21875, (c−1)/(n−1)·(T−1)/T = 0.2181.
  for (auto [n, c, t] : {std::array<std::uint64_t, 3>{64, 16, 10}, std::array<std::uint64_t, 3>{1000, 250, 8}}) {
    const ByteCount block = 256;
    const auto g = make({{"blocks", std::to_string(n)}, {"tokens", std::to_string(t)}, {"block_bytes", "256B"}});
    auto src = g->open();
    const RunMetrics m = run_cache_only(*src, cache("belady", c * block));
    const std::uint64_t expected = opt_hits_on_scan(n, c, n * t);
    EXPECT_EQ(m.total.hits, expected) << n << " " << c;
    const double closed = static_cast<double>(c) / static_cast<double>(n) * static_cast<double>(t - 1) /
                          static_cast<double>(t);
    // Within the one-pass transient and the (c−1)/(n−1) vs c/n difference.
    EXPECT_NEAR(m.total.hit_ratio_by_byte(), closed, 0.02) << n << " " << c;
    if (n == 1000) {
      EXPECT_NEAR(m.total.hit_ratio_by_byte(), closed, 0.002);
    }
  }
}

TEST(Synthetic, OperatorsLetLookaheadPrefetchTheNextBlocks) {
  // The operator order names the next blocks of the scan...
  const auto g4 = make({{"blocks", "10"}, {"tokens", "1"}, {"operator_blocks", "1"}});
  std::vector<BlockId> ahead;
  for_each_block_ahead(g4->meta().operators, 9, 2, [&](BlockId b, std::uint32_t) {
    ahead.push_back(b);
    return true;
  });
  EXPECT_EQ(ahead, (std::vector<BlockId>{0, 1}));  // wraps to the next token's first blocks

  // ...so the registered lookahead hides every transfer but the first
  // (the closed form of tests/engine/prefetch_engine_test.cpp: compute
  // c = 5000 ns >= transfer t = 4000 B at 1 B/ns, depth 2).
  const auto g = make({{"blocks", "10"}, {"tokens", "1"}, {"block_bytes", "4000B"}, {"compute", "5000ns"}});
  EngineConfig config;
  config.hardware.name = "test";
  TierSpec hbm, dram;
  hbm.name = "hbm";
  dram.name = "dram";
  hbm.link_to_faster.bandwidth = dram.link_to_faster.bandwidth = 1e9;
  config.hardware.tiers = {hbm, dram};
  config.cache = cache("lru", 1'000'000);
  config.prefetchers.push_back({"lookahead", {{"depth", "2"}}});
  auto src = g->open();
  const EngineResult r = run_engine(*src, config);
  const AccessCounters& m = r.metrics.total;
  EXPECT_EQ(m.misses, 1u);
  EXPECT_EQ(m.hits, 9u);
  EXPECT_EQ(m.stall_ns, 4000);
  EXPECT_EQ(m.prefetch_used_timely, 9u);
  EXPECT_EQ(r.metrics.simulated_ns, 4000 + 9 * 5000);
}

}  // namespace
}  // namespace flashsim
