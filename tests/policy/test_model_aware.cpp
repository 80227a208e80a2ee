// Model-aware policies (they read the trace's catalog through the access
// protocol: sim/policy/placed_lru.h, resident_first, static_fraction,
// activation_aware), admission as a component (sim/cache/i_admission_policy.h)
// and speculative expert prefetch, by hand on small catalogs.
#include <gtest/gtest.h>

#include <map>
#include <random>

#include "sim/cache/cache_only.h"
#include "sim/policy/model_blocks.h"
#include "sim/prefetch/i_prefetcher.h"
#include "tests/policy/policy_test_util.h"

namespace flashsim::test {
namespace {

BlockCatalogEntry block(BlockId id, std::int32_t layer, const std::string& name, const std::string& kind = "weight",
                        ByteCount bytes = 1) {
  BlockCatalogEntry e;
  e.id = id;
  e.layer = layer;
  e.name = name;
  e.kind = kind;
  e.bytes = bytes;
  return e;
}

MemoryTraceSource with_catalog(const std::vector<Step>& steps, std::vector<BlockCatalogEntry> catalog) {
  MemoryTraceSource t = as_trace(steps);
  TraceMeta meta = t.meta();
  meta.catalog = std::move(catalog);
  t.rewind();
  std::vector<AccessRecord> chunk(steps.size() + 1);
  const std::size_t n = t.read(chunk);
  chunk.resize(n);
  return MemoryTraceSource(meta, std::move(chunk));
}

// Three layers of two 1-byte blocks: A B | C D | E F (ids 0..5, layer id/2).
std::vector<BlockCatalogEntry> three_layers() {
  std::vector<BlockCatalogEntry> c;
  for (BlockId i = 0; i < 6; ++i) c.push_back(block(i, static_cast<std::int32_t>(i / 2), "layers.x.w#" + std::to_string(i)));
  return c;
}

RunMetrics run(const std::vector<Step>& steps, std::vector<BlockCatalogEntry> catalog, const CacheConfig& c) {
  MemoryTraceSource t = with_catalog(steps, std::move(catalog));
  return run_cache_only(t, c);
}

TEST(ModelBlocks, ExpertOfName) {
  EXPECT_EQ(expert_of_name("model.layers.3.block_sparse_moe.experts.7.w1.weight#12"), 7);
  EXPECT_EQ(expert_of_name("model.layers.3.mlp.experts.12.down_proj.weight"), 12);
  EXPECT_EQ(expert_of_name("experts.0.w2"), 0);
  EXPECT_EQ(expert_of_name("model.layers.3.block_sparse_moe.gate.weight"), -1);
  EXPECT_EQ(expert_of_name("config.num_experts.8"), -1);  // not a part named "experts"
  EXPECT_EQ(expert_of_name("layers.1.experts.x.w1"), -1);
}

// Capacity 4, layers: -1 -> N = 1 (layer 0's 2 bytes + room for the largest
// layer, 2 bytes, to stream; a second layer would need 6). Two passes of
// A..F: pass 1 all miss; C D fill the streaming half, E evicts C, F evicts
// D; pass 2: A B hit (placed), C D E F each miss, evicting the stream's LRU.
// LRU alone misses all 12 (a cyclic scan larger than the tier).
TEST(ResidentFirst, FirstLayersStayTheRestStreamByHand) {
  const std::vector<Step> s = letters("ABCDEFABCDEF");
  const RunMetrics m = run(s, three_layers(), cache_config("resident_first", 4));
  EXPECT_EQ(m.total.hits, 2u);
  EXPECT_EQ(m.total.misses, 10u);
  EXPECT_EQ(m.total.evictions, 6u);  // E, F; C, D, E, F of pass 2 each evict one
  EXPECT_EQ(m.total.bypasses, 0u);
  EXPECT_EQ(run(s, three_layers(), cache_config("lru", 4)).total.hits, 0u);
}

// layers: 2 places 4 bytes = the whole tier: E and F find no victim and are
// served uncached (bypass); pass 2 hits A..D.
TEST(ResidentFirst, NoStreamingRoomBypassesTheRest) {
  const RunMetrics m = run(letters("ABCDEFABCDEF"), three_layers(), cache_config("resident_first", 4, {{"layers", "2"}}));
  EXPECT_EQ(m.total.hits, 4u);
  EXPECT_EQ(m.total.bypasses, 4u);
  EXPECT_EQ(m.total.evictions, 0u);
}

TEST(ResidentFirst, RefusesAPlacementLargerThanTheTierAndATraceWithoutCatalog) {
  EXPECT_THROW(run(letters("AB"), three_layers(), cache_config("resident_first", 4, {{"layers", "3"}})), InputError);
  MemoryTraceSource bare = as_trace(letters("AB"));
  EXPECT_THROW(run_cache_only(bare, cache_config("resident_first", 4)), InputError);
}

// weight_fraction 0.5: the first block of each layer (A, C, E: 3 bytes)
// stays; B, D, F stream through the one byte left. Pass 2 hits A, C, E.
TEST(StaticFraction, SameShareOfEveryLayerByHand) {
  const RunMetrics m =
      run(letters("ABCDEFABCDEF"), three_layers(), cache_config("static_fraction", 4, {{"weight_fraction", "0.5"}}));
  EXPECT_EQ(m.total.hits, 3u);
  EXPECT_EQ(m.total.misses, 9u);
  EXPECT_EQ(m.total.evictions, 5u);  // E evicts B, F D; pass 2: B evicts F, D B, F D
  // weight_fraction 0: nothing placed, the tier is LRU.
  const CacheConfig lru = cache_config("lru", 4);
  EXPECT_EQ(run(letters("ABCDEFABCDEF"), three_layers(), cache_config("static_fraction", 4, {{"weight_fraction", "0"}}))
                .total.hits,
            run(letters("ABCDEFABCDEF"), three_layers(), lru).total.hits);
}

// Experts A=(0,0) B=(0,1) C=(0,2) in layer 0, D=(1,0) in layer 1; capacity 3.
// Passes "A D" x4, then "B D", then C. At C the tier holds A, B, D. Decayed
// frequencies (window 16, EMA weight 1/16) after five passes: A 0.2133
// (used in passes 1-4), B 0.0625 (pass 5), D 0.2759 (all five). Layer 0 is
// current: distance A = 0 + 2·(1−.2133)/.2133 = 7.4, B = 2·.9375/.0625 = 30,
// D = 1 + 2·(1−.2759)/.2759 = 6.2: B goes, and A hits next. LRU evicts A
// (last used in pass 4) and misses it.
TEST(ActivationAware, EvictsTheExpertExpectedFurthestByHand) {
  std::vector<BlockCatalogEntry> cat = {
      block(0, 0, "layers.0.experts.0.w1", "expert"), block(1, 0, "layers.0.experts.1.w1", "expert"),
      block(2, 0, "layers.0.experts.2.w1", "expert"), block(3, 1, "layers.1.experts.0.w1", "expert")};
  const std::vector<Step> s = letters("ADADADADBDCA");
  const RunMetrics aware = run(s, cat, cache_config("activation_aware", 3));
  const RunMetrics lru = run(s, cat, cache_config("lru", 3));
  // The protocol counts expert accesses apart (every access here is one).
  MemoryTraceSource t = with_catalog(s, cat);
  CacheOnlyTier tier;
  run_cache_only(t, cache_config("activation_aware", 3), &tier);
  std::map<std::string, double> stats;
  for (const ComponentStat& row : tier.components.rows) stats[row.name] = row.value;
  EXPECT_EQ(stats["expert_accesses"], 12.0);
  EXPECT_EQ(stats["expert_hits"], 8.0);
  EXPECT_EQ(aware.total.evictions, 1u);
  EXPECT_EQ(aware.total.hits, 8u);  // six in passes 2-4, D in pass 5, A at the end
  EXPECT_EQ(lru.total.hits, 7u);
  EXPECT_EQ(lru.total.evictions, 2u);  // C evicts A, A evicts B
}

TEST(ActivationAware, RefusesACatalogWithoutExperts) {
  EXPECT_THROW(run(letters("AB"), three_layers(), cache_config("activation_aware", 3)), InputError);
}

// ---- admission ----

// Capacity 10: A(8) B(1) C(1) then A again. With size_threshold 4, A is never
// cached (two bypasses) and B, C stay; always: A is cached.
TEST(Admission, SizeThresholdBypassesLargeBlocks) {
  const std::vector<Step> s = {{0, 8, 0}, {1, 1, 1}, {2, 1, 2}, {1, 1, 3}, {0, 8, 4}, {2, 1, 5}};
  CacheConfig c = cache_config("lru", 10);
  c.admission = {"size_threshold", {{"max_bytes", "4"}}};
  MemoryTraceSource t = as_trace(s);
  const RunMetrics m = run_cache_only(t, c);
  EXPECT_EQ(m.total.bypasses, 2u);
  EXPECT_EQ(m.total.hits, 2u);  // B, C
  EXPECT_EQ(m.total.evictions, 0u);
}

// The doorkeeper caches a block on its second miss in the window: A B A B A B
// with capacity 10: the first A and B are only marked (bypassed), the
// second ones cached, the third ones hit.
TEST(Admission, DoorkeeperAdmitsOnTheSecondSighting) {
  CacheConfig c = cache_config("lru", 10);
  c.admission = {"doorkeeper", {{"window", "100"}}};
  MemoryTraceSource t = as_trace(letters("ABABAB"));
  const RunMetrics m = run_cache_only(t, c);
  EXPECT_EQ(m.total.bypasses, 2u);  // first A, first B
  EXPECT_EQ(m.total.misses, 4u);
  EXPECT_EQ(m.total.hits, 2u);
  // A window of 1 resets before every access: nothing is ever seen before.
  c.admission = {"doorkeeper", {{"window", "1"}}};
  MemoryTraceSource t2 = as_trace(letters("ABABAB"));
  EXPECT_EQ(run_cache_only(t2, c).total.bypasses, 6u);
}

// AdaptSize admits s bytes with probability exp(-s/c): over 20,000 one-off
// blocks of 1 byte with c = 1, the admitted share is e^-1 = 0.3679 within
// 4 standard deviations (sqrt(p(1-p)/n) = 0.0034).
TEST(Admission, AdaptSizeAdmitsWithExpMinusSizeOverC) {
  std::vector<Step> s;
  for (BlockIndex i = 0; i < 20000; ++i) s.push_back({i, 1, static_cast<Nanoseconds>(i)});
  CacheConfig c = cache_config("lru", 100);
  c.admission = {"adaptsize", {{"c", "1"}, {"seed", "7"}}};
  MemoryTraceSource t = as_trace(s);
  const RunMetrics m = run_cache_only(t, c);
  const double admitted = 1.0 - static_cast<double>(m.total.bypasses) / 20000.0;
  EXPECT_NEAR(admitted, std::exp(-1.0), 4 * 0.0034);
}

// Admission composes with any policy: "always" is no admission at all.
TEST(Admission, AlwaysEqualsNoAdmission) {
  const std::vector<Step> s = random_steps(3, 3000, 60, 8);
  for (const char* policy : {"lru", "arc", "s3fifo", "gdsf"}) {
    CacheConfig c = cache_config(policy, 50);
    MemoryTraceSource t1 = as_trace(s);
    const RunMetrics plain = run_cache_only(t1, c);
    c.admission = {"always", {}};
    MemoryTraceSource t2 = as_trace(s);
    const RunMetrics always = run_cache_only(t2, c);
    EXPECT_EQ(plain.total.hits, always.total.hits) << policy;
    EXPECT_EQ(plain.total.evictions, always.total.evictions) << policy;
  }
}

// ---- speculative expert prefetch ----

class RecordingActions final : public IPrefetchActions {
 public:
  bool prefetch(BlockId block) override {
    asked.push_back(block);
    return true;
  }
  bool evict(BlockId) override { return false; }
  std::vector<BlockId> asked;
};

class NoView final : public IFastTierView {
 public:
  BlockState state(BlockId) const override { return BlockState::absent; }
  ByteCount capacity_bytes() const override { return 0; }
  ByteCount reserved_bytes() const override { return 0; }
  Nanoseconds last_access_ns(BlockId) const override { return kNeverNs; }
  void for_each_resident(const std::function<void(BlockId)>&) const override {}
  bool in_next_tier(BlockId) const override { return true; }
};

// Two layers of 4 experts, each expert 2 blocks: id = layer*8 + expert*2 + k.
// Each pass reads one random expert of layer 0, then one of layer 1.
struct SpeculativeRun {
  std::uint64_t right = 0, wrong = 0, predictions = 0;
};
SpeculativeRun speculate(double accuracy, std::uint32_t passes) {
  TraceMeta meta;
  for (std::int32_t l = 0; l < 2; ++l) {
    for (std::int32_t e = 0; e < 4; ++e) {
      for (int k = 0; k < 2; ++k) {
        const BlockId id = static_cast<BlockId>(l * 8 + e * 2 + k);
        meta.catalog.push_back(block(id, l, "layers." + std::to_string(l) + ".experts." + std::to_string(e) + ".w", "expert"));
      }
    }
  }
  std::mt19937 rng(5);
  std::vector<AccessRecord> records;
  std::vector<std::int32_t> layer1;  // per pass: the expert layer 1 uses
  for (std::uint32_t p = 0; p < passes; ++p) {
    const std::int32_t e0 = static_cast<std::int32_t>(rng() % 4), e1 = static_cast<std::int32_t>(rng() % 4);
    layer1.push_back(e1);
    for (BlockId id : {BlockId(e0 * 2), BlockId(e0 * 2 + 1), BlockId(8 + e1 * 2), BlockId(8 + e1 * 2 + 1)}) {
      AccessRecord r;
      r.block_id = id;
      r.bytes = 1;
      records.push_back(r);
    }
  }
  PrefetcherContext pc;
  pc.meta = &meta;
  auto p = PrefetcherRegistry::instance().create("expert_speculative", {{"accuracy", std::to_string(accuracy)}}, pc);
  EXPECT_TRUE(p->wants_preview());
  for (std::size_t i = 0; i < records.size(); ++i) p->preview(records[i], i);
  NoView view;
  SpeculativeRun out;
  for (std::size_t i = 0; i < records.size(); ++i) {
    RecordingActions actions;
    PrefetchAccess a;
    a.block_id = records[i].block_id;
    a.access_index = i;
    p->on_access(a, view, actions);
    if (actions.asked.empty()) continue;
    // Only a pass's first layer-0 access predicts: both blocks of one expert of layer 1.
    EXPECT_EQ(i % 4, 0u) << i;
    EXPECT_EQ(actions.asked.size(), 2u);
    ++out.predictions;
    const std::int32_t guessed = static_cast<std::int32_t>(actions.asked[0] - 8) / 2;
    EXPECT_EQ(actions.asked[1], actions.asked[0] + 1);
    (guessed == layer1[i / 4] ? out.right : out.wrong) += 1;
  }
  return out;
}

TEST(ExpertSpeculative, PredictsTheNextLayersExpertsWithTheGivenAccuracy) {
  const SpeculativeRun oracle = speculate(1.0, 500);
  EXPECT_EQ(oracle.predictions, 500u);
  EXPECT_EQ(oracle.wrong, 0u);
  const SpeculativeRun never = speculate(0.0, 500);
  EXPECT_EQ(never.right, 0u);
  // 0.7 over 4000 predictions: within 4 sd (sqrt(.21/4000) = 0.0072).
  const SpeculativeRun seventy = speculate(0.7, 4000);
  EXPECT_NEAR(static_cast<double>(seventy.right) / 4000.0, 0.7, 4 * 0.0072);
}

}  // namespace
}  // namespace flashsim::test
