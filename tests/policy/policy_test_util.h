// Helpers for the policy tests: build a policy by registry name, drive it by
// hand over a short sequence (block index = block id), and record hits,
// misses and the order of victims. The driver follows IEvictionPolicy's
// contract and run_cache_only's definitions (bypass when a block exceeds the
// capacity), so the two can be cross-checked.
#pragma once
#include <cstdint>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "sim/engine/engine.h"
#include "sim/policy/i_eviction_policy.h"
#include "traces/trace_source.h"

namespace flashsim::test {

struct Step {
  BlockIndex block = 0;
  ByteCount bytes = 1;
  Nanoseconds now_ns = 0;
};

struct HandRun {
  std::string outcome;               ///< one letter per access: H hit, M miss (inserted), B bypass
  std::vector<BlockIndex> victims;   ///< in eviction order
  AccessCounters counters;
};

/// A model catalog for the generic policy tests, so that the model-aware
/// policies (activation_aware, resident_first, static_fraction) run in
/// every one of them: block k (< 4096, 1 byte) is expert (k / 8) % 8 of
/// layer k / 64. Block index = block id, as in drive().
inline const TraceMeta& test_model_meta() {
  static const TraceMeta meta = [] {
    TraceMeta m;
    m.source = "test-model";
    for (BlockId k = 0; k < 4096; ++k) {
      BlockCatalogEntry e;
      e.id = k;
      e.bytes = 1;
      e.layer = static_cast<std::int32_t>(k / 64);
      e.kind = "expert";
      e.name = "layers." + std::to_string(k / 64) + ".experts." + std::to_string(k / 8 % 8) + ".w#" + std::to_string(k);
      m.catalog.push_back(e);
    }
    return m;
  }();
  return meta;
}

/// test_model_meta()'s catalog by block index = block id.
class TestModelView final : public IBlockCatalogView {
 public:
  const BlockCatalogEntry* entry(BlockIndex b) const override {
    const auto& c = test_model_meta().catalog;
    return b < c.size() ? &c[b] : nullptr;
  }
};

inline std::unique_ptr<IEvictionPolicy> make_policy(const std::string& name, ByteCount capacity_bytes,
                                                    const std::map<std::string, std::string>& params = {},
                                                    std::size_t block_count = 0) {
  static const TestModelView view;
  PolicyContext context;
  context.capacity_bytes = capacity_bytes;
  context.block_count = block_count;
  context.meta = &test_model_meta();
  context.catalog = &view;
  return PolicyRegistry::instance().create(name, params, context);
}

/// Steps from a string of letters, 'A' = block 0, unit size, now_ns = position.
inline std::vector<Step> letters(const std::string& seq) {
  std::vector<Step> out;
  for (std::size_t i = 0; i < seq.size(); ++i)
    out.push_back(Step{static_cast<BlockIndex>(seq[i] - 'A'), 1, static_cast<Nanoseconds>(i)});
  return out;
}

/// next_use[i] for each step (kNeverAccessedAgain if none).
inline std::vector<std::uint64_t> next_uses(const std::vector<Step>& steps) {
  std::vector<std::uint64_t> next(steps.size(), kNeverAccessedAgain);
  std::map<BlockIndex, std::uint64_t> last;
  for (std::uint64_t i = 0; i < steps.size(); ++i) {
    auto it = last.find(steps[i].block);
    if (it != last.end()) next[it->second] = i;
    last[steps[i].block] = i;
  }
  return next;
}

/// Drives `policy` over `steps` with a byte capacity, as a driver would.
inline HandRun drive(IEvictionPolicy& policy, ByteCount capacity_bytes, const std::vector<Step>& steps) {
  HandRun run;
  const std::vector<std::uint64_t> next = next_uses(steps);
  std::map<BlockIndex, ByteCount> resident;
  ByteCount used = 0;
  for (std::uint64_t i = 0; i < steps.size(); ++i) {
    const Step& s = steps[i];
    PolicyAccess a;
    a.now_ns = s.now_ns;
    a.block = s.block;
    a.bytes = s.bytes;
    a.access_index = i;
    a.next_use_index = next[i];
    AccessCounters& c = run.counters;
    ++c.accesses;
    c.bytes_accessed += s.bytes;
    auto it = resident.find(s.block);
    if (it != resident.end() && it->second == s.bytes) {
      ++c.hits;
      c.bytes_hit += s.bytes;
      policy.on_hit(a);
      run.outcome += 'H';
      continue;
    }
    if (it != resident.end()) {
      policy.remove(s.block);
      used -= it->second;
      resident.erase(it);
    }
    ++c.misses;
    c.bytes_fetched += s.bytes;
    policy.on_miss(a);
    if (s.bytes > capacity_bytes) {
      ++c.bypasses;
      policy.on_bypass(a);
      run.outcome += 'B';
      continue;
    }
    bool fits = true;
    while (used + s.bytes > capacity_bytes) {
      const std::optional<BlockIndex> v = policy.evict(a.now_ns, EvictionFilter{});
      if (!v) {
        fits = false;
        break;
      }
      auto r = resident.find(*v);
      if (r == resident.end()) throw std::logic_error("policy evicted a block it does not hold");
      used -= r->second;
      ++c.evictions;
      c.bytes_evicted += r->second;
      resident.erase(r);
      run.victims.push_back(*v);
    }
    if (!fits) {
      ++c.bypasses;
      policy.on_bypass(a);
      run.outcome += 'B';
      continue;
    }
    resident[s.block] = s.bytes;
    used += s.bytes;
    policy.on_insert(a);
    run.outcome += 'M';
  }
  return run;
}

inline HandRun drive(const std::string& name, ByteCount capacity_bytes, const std::vector<Step>& steps,
                     const std::map<std::string, std::string>& params = {}) {
  auto policy = make_policy(name, capacity_bytes, params);
  return drive(*policy, capacity_bytes, steps);
}

/// A random trace: `n` accesses over `blocks` blocks, skewed (a block is
/// drawn as the minimum of two uniform draws), size 1 or random in [1, max_bytes].
inline std::vector<Step> random_steps(std::uint32_t seed, std::size_t n, BlockIndex blocks, ByteCount max_bytes = 1) {
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<BlockIndex> pick(0, blocks - 1);
  std::vector<ByteCount> size(blocks, 1);
  if (max_bytes > 1) {
    std::uniform_int_distribution<ByteCount> sz(1, max_bytes);
    for (auto& x : size) x = sz(rng);
  }
  std::vector<Step> out;
  for (std::size_t i = 0; i < n; ++i) {
    const BlockIndex b = std::min(pick(rng), pick(rng));
    out.push_back(Step{b, size[b], static_cast<Nanoseconds>(i) * 1000});
  }
  return out;
}

/// The steps with blocks renumbered 0, 1, 2, ... in order of first
/// appearance: the numbering run_cache_only gives BlockIndex, so that
/// index-based tie-breaks (Belady) agree with the hand driver.
inline std::vector<Step> first_appearance_order(std::vector<Step> steps) {
  std::map<BlockIndex, BlockIndex> renumber;
  for (Step& s : steps) {
    auto it = renumber.try_emplace(s.block, static_cast<BlockIndex>(renumber.size())).first;
    s.block = it->second;
  }
  return steps;
}

/// The same steps as a MemoryTraceSource (block id = block index).
inline MemoryTraceSource as_trace(const std::vector<Step>& steps, bool with_next_use = false) {
  std::vector<AccessRecord> records;
  const std::vector<std::uint64_t> next = next_uses(steps);
  for (std::size_t i = 0; i < steps.size(); ++i) {
    AccessRecord r;
    r.time_ns = steps[i].now_ns;
    r.block_id = steps[i].block;
    r.bytes = steps[i].bytes;
    if (with_next_use) r.next_use_index = next[i];
    records.push_back(r);
  }
  TraceMeta meta;
  meta.source = "test";
  meta.has_next_use = with_next_use;
  return MemoryTraceSource(meta, std::move(records));
}

/// as_trace() with test_model_meta()'s catalog (sizes from the steps'
/// records; the catalog's 1-byte sizes only place blocks), for tests that run
/// every policy through the access protocol. Blocks must be < 4096.
inline MemoryTraceSource as_model_trace(const std::vector<Step>& steps, bool with_next_use = false) {
  MemoryTraceSource t = as_trace(steps, with_next_use);
  TraceMeta meta = t.meta();
  meta.catalog = test_model_meta().catalog;
  return MemoryTraceSource(meta, std::vector<AccessRecord>(t.records()));
}

inline CacheConfig cache_config(const std::string& policy, ByteCount capacity_bytes,
                                const std::map<std::string, std::string>& params = {}) {
  CacheConfig c;
  c.capacity_bytes = capacity_bytes;
  c.eviction = ComponentChoice{policy, params};
  return c;
}

/// Names of every registered policy.
inline std::vector<std::string> all_policy_names() {
  std::vector<std::string> out;
  for (const auto* e : PolicyRegistry::instance().entries()) out.push_back(e->name);
  return out;
}

}  // namespace flashsim::test

namespace flashsim::test {

/// Victims as letters ('A' = block 0), for readable expectations.
inline std::string victim_letters(const HandRun& run) {
  std::string out;
  for (BlockIndex b : run.victims) out += static_cast<char>('A' + b);
  return out;
}

}  // namespace flashsim::test
