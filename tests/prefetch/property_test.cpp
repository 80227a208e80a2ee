// Properties every registered prefetcher keeps on random models and traces
// (several streams, in-flight prefetches, a tier that fills up):
//  * it asks only for catalog blocks that are absent at the time of asking;
//  * it evicts only resident blocks, and never calls actions inside
//    for_each_resident (the fake tier throws);
//  * the same input gives the same calls (determinism);
//  * lookahead and the controller never prefetch routed (MoE) blocks;
//  * the controller evicts only blocks idle longer than `idle`;
//  * it reports counters.
#include <gtest/gtest.h>

#include <random>
#include <set>

#include "tests/prefetch/fake_tier.h"

namespace flashsim::test {
namespace {

struct RandomModel {
  TraceMeta meta;
  std::set<BlockId> routed;
  std::vector<std::vector<BlockId>> experts_of_op;  ///< routed blocks per operator
};

/// `layers` layers of attention (2 blocks), MoE (1 gate + 4 experts x 2
/// blocks, routed) and a vision concept block with a random 4-D embedding.
RandomModel random_model(std::mt19937_64& rng, int layers) {
  RandomModel m;
  std::normal_distribution<float> g(0.0f, 1.0f);
  std::uniform_int_distribution<ByteCount> size(50, 400);
  BlockId next = 0;
  const auto add = [&](std::string name, std::string kind, int layer) {
    BlockCatalogEntry e = block(next, std::move(name), size(rng), std::move(kind), layer);
    m.meta.catalog.push_back(e);
    return next++;
  };
  for (int l = 0; l < layers; ++l) {
    const std::string p = "layers." + std::to_string(l);
    OperatorEntry attn;
    attn.name = p + ".attn";
    attn.layer = l;
    attn.blocks = {add(p + ".attn.qkv", "weight", l), add(p + ".attn.o", "weight", l)};
    OperatorEntry moe;
    moe.name = p + ".moe";
    moe.layer = l;
    moe.blocks = {add(p + ".moe.gate", "weight", l)};
    for (int e = 0; e < 4; ++e)
      for (const char* w : {".w1", ".w2"}) {
        const BlockId b = add(p + ".moe.experts." + std::to_string(e) + w, "expert", l);
        moe.routed_blocks.push_back(b);
        m.routed.insert(b);
      }
    OperatorEntry vis;
    vis.name = p + ".vision";
    vis.layer = l;
    const BlockId v = add(p + ".vision.concept", "embedding", l);
    m.meta.catalog.back().concept_id = l;
    m.meta.catalog.back().embedding = {g(rng), g(rng), g(rng), g(rng)};
    vis.blocks = {v};
    m.meta.operators.push_back(attn);
    m.experts_of_op.push_back({});
    m.meta.operators.push_back(moe);
    m.experts_of_op.push_back(moe.routed_blocks);
    m.meta.operators.push_back(vis);
    m.experts_of_op.push_back({});
  }
  return m;
}

/// Delegates to a FakeTier and records violations of the contract.
class CheckingTier final : public IFastTierView, public IPrefetchActions {
 public:
  CheckingTier(FakeTier& t, const RandomModel& m, bool routed_forbidden, Nanoseconds idle_floor_ns)
      : t_(t), m_(m), routed_forbidden_(routed_forbidden), idle_floor_ns_(idle_floor_ns) {}
  BlockState state(BlockId b) const override { return t_.state(b); }
  ByteCount capacity_bytes() const override { return t_.capacity_bytes(); }
  ByteCount reserved_bytes() const override { return t_.reserved_bytes(); }
  Nanoseconds last_access_ns(BlockId b) const override { return t_.last_access_ns(b); }
  void for_each_resident(const std::function<void(BlockId)>& v) const override { t_.for_each_resident(v); }
  bool in_next_tier(BlockId b) const override { return t_.in_next_tier(b); }
  bool prefetch(BlockId b) override {
    if (t_.state(b) != BlockState::absent) violations.push_back("prefetch of a present block " + std::to_string(b));
    if (routed_forbidden_ && m_.routed.count(b)) violations.push_back("prefetch of routed block " + std::to_string(b));
    log.push_back(b);
    return t_.prefetch(b);
  }
  bool evict(BlockId b) override {
    if (t_.state(b) != BlockState::resident) violations.push_back("evict of a non-resident block " + std::to_string(b));
    const Nanoseconds last = t_.last_access_ns(b);
    if (idle_floor_ns_ > 0 && last != kNeverNs && t_.now_ns - last <= idle_floor_ns_)
      violations.push_back("evict of block " + std::to_string(b) + " idle only " + std::to_string(t_.now_ns - last));
    log.push_back(~b);
    return t_.evict(b);
  }
  std::vector<std::string> violations;
  std::vector<BlockId> log;  ///< prefetches as ids, evictions as ~id

 private:
  FakeTier& t_;
  const RandomModel& m_;
  bool routed_forbidden_;
  Nanoseconds idle_floor_ns_;
};

struct Case {
  std::string name;
  std::map<std::string, std::string> params;
  bool routed_forbidden;
  Nanoseconds idle_floor_ns;
  bool strip_operators;
};

/// One run: 3 streams decode tokens in lockstep-ish random interleaving;
/// returns the call log.
std::vector<BlockId> run_case(const Case& c, std::uint64_t seed, std::vector<std::string>& violations) {
  std::mt19937_64 rng(seed);
  const RandomModel ops = random_model(rng, 3);  // drives the trace
  RandomModel m = ops;                            // what the prefetcher sees
  if (c.strip_operators) m.meta.operators.clear();
  ByteCount total = 0;
  for (const auto& e : m.meta.catalog) total += e.bytes;
  FakeTier tier(m.meta, total / 2, PrefetchLands::in_flight);
  for (const auto& e : m.meta.catalog)
    if (rng() % 3 == 0) tier.next_tier.insert(e.id);
  CheckingTier check(tier, m, c.routed_forbidden, c.idle_floor_ns);
  auto p = PrefetcherRegistry::instance().create(c.name, c.params, PrefetcherContext{&m.meta, total / 2, seed});
  std::vector<std::uint32_t> op_of_stream(3, 0);
  std::uint64_t index = 0;
  for (int step = 0; step < 3000; ++step) {
    const std::uint32_t s = static_cast<std::uint32_t>(rng() % 3);
    const std::uint32_t o = op_of_stream[s];
    op_of_stream[s] = (o + 1) % static_cast<std::uint32_t>(ops.meta.operators.size());
    std::vector<BlockId> reads = ops.meta.operators[o].blocks;
    const auto& ex = ops.experts_of_op[o];
    if (!ex.empty()) {  // route to one expert (2 blocks), skewed to expert 0
      const std::size_t e = (rng() % 4 == 0) ? (rng() % 4) : 0;
      reads.push_back(ex[2 * e]);
      reads.push_back(ex[2 * e + 1]);
    }
    for (BlockId b : reads) {
      tier.now_ns += static_cast<Nanoseconds>(rng() % 20'000'000);  // up to 20 ms between accesses
      if (rng() % 4 == 0) tier.land_all();
      const AccessOutcome out = tier.demand(b);
      PrefetchAccess a = access_of(b, c.strip_operators ? kNoOperator : o, index++, tier.now_ns, out, s);
      p->on_access(a, check, check);
    }
  }
  PrefetcherStats stats;
  if (!report_prefetcher_stats(*p, stats)) violations.push_back("does not report");
  if (stats.counters.empty()) violations.push_back("reports no counters");
  violations.insert(violations.end(), check.violations.begin(), check.violations.end());
  return check.log;
}

TEST(PrefetcherProperties, ContractDeterminismAndRoutedBlocks) {
  const std::vector<Case> cases = {
      {"lookahead", {{"depth", "3"}}, true, 0, false},
      {"lookahead", {{"depth", "2"}, {"byte_budget", "500B"}}, true, 0, false},
      {"lookahead", {{"cycle_depth", "5"}}, false, 0, true},
      {"markov", {{"state", "expert"}, {"refresh", "50"}}, false, 0, false},
      {"markov", {{"state", "block"}, {"refresh", "10"}, {"window", "100"}}, false, 0, false},
      {"markov", {{"state", "operator"}, {"refresh", "7"}}, true, 0, false},
      {"hit_ratio_controller", {{"window", "20"}}, true, 300'000'000, false},
      {"hit_ratio_controller", {{"window", "20"}, {"low", "0.5"}, {"high", "0.55"}, {"idle", "50ms"}}, true,
       50'000'000, false},
      {"hit_ratio_controller", {{"window_time", "200ms"}, {"recheck", "0"}}, false, 300'000'000, true},
      {"semantic", {{"top_k", "2"}, {"sweep_interval", "5"}, {"evict_pressure", "0.3"}}, false, 0, false},
  };
  for (const Case& c : cases) {
    for (std::uint64_t seed = 1; seed <= 3; ++seed) {
      std::vector<std::string> v1, v2;
      const auto log1 = run_case(c, seed, v1);
      const auto log2 = run_case(c, seed, v2);
      EXPECT_TRUE(v1.empty()) << c.name << " seed " << seed << ": " << (v1.empty() ? "" : v1.front()) << " (+"
                              << v1.size() << ")";
      EXPECT_EQ(log1, log2) << c.name << " seed " << seed << ": not deterministic";
      EXPECT_FALSE(log1.empty()) << c.name << " seed " << seed << ": never acted (the case tests nothing)";
    }
  }
}

TEST(PrefetcherProperties, AllFourAreRegistered) {
  for (const char* n : {"lookahead", "markov", "hit_ratio_controller", "semantic"}) {
    const auto& e = PrefetcherRegistry::instance().find(n);
    EXPECT_FALSE(e.summary.empty()) << n;
    for (const ParamSpec& s : e.params) EXPECT_FALSE(s.doc.empty()) << n << "." << s.name;
    TraceMeta empty;
    auto p = PrefetcherRegistry::instance().create(n, {}, PrefetcherContext{&empty, 1000, 1});
    EXPECT_EQ(p->name(), n);
  }
}

}  // namespace
}  // namespace flashsim::test
