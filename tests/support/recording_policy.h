// A policy wrapper recording what a driver asks of it, access by access, so
// two drivers (the event engine, the replay) are compared decision by
// decision: 'h' = on_hit, 'm' = on_miss of a demand access, '.' = no call (a
// delayed hit). One record per policy instance, in creation order, with the
// capacity the driver told it. Tests register wrapped policies by name:
//   FLASHSIM_REGISTER_POLICY({"test_x_lru", "...", {}, [](const ParamValues&,
//       const PolicyContext& c) { return test::recording("lru", c); }});
#pragma once
#include <gtest/gtest.h>

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "sim/metrics/metrics.h"
#include "sim/policy/i_eviction_policy.h"

namespace flashsim::test {

struct Recorded {
  std::vector<char> seq;          ///< per access index
  ByteCount capacity_bytes = 0;   ///< PolicyContext::capacity_bytes it was built with
};

/// Every recording policy built so far in this process.
inline std::vector<Recorded>& recorded() {
  static std::vector<Recorded> r;
  return r;
}

class RecordingPolicy final : public IEvictionPolicy {
 public:
  RecordingPolicy(std::unique_ptr<IEvictionPolicy> inner, ByteCount capacity)
      : inner_(std::move(inner)), index_(recorded().size()) {
    recorded().push_back(Recorded{{}, capacity});
  }
  std::string_view name() const override { return inner_->name(); }
  bool needs_next_use() const override { return inner_->needs_next_use(); }
  void on_hit(const PolicyAccess& a) override {
    mark(a.access_index, 'h');
    inner_->on_hit(a);
  }
  void on_miss(const PolicyAccess& a) override {
    if (!a.is_prefetch) mark(a.access_index, 'm');
    inner_->on_miss(a);
  }
  void on_insert(const PolicyAccess& a) override { inner_->on_insert(a); }
  std::optional<BlockIndex> evict(Nanoseconds now_ns, const EvictionFilter& filter) override {
    return inner_->evict(now_ns, filter);
  }
  void remove(BlockIndex block) override { inner_->remove(block); }
  std::size_t size() const override { return inner_->size(); }

 private:
  void mark(std::uint64_t index, char c) {
    std::vector<char>& s = recorded()[index_].seq;
    if (s.size() <= index) s.resize(index + 1, '.');
    s[index] = c;
  }
  std::unique_ptr<IEvictionPolicy> inner_;
  std::size_t index_;
};

/// `inner` (a registered policy, default parameters) wrapped in a recorder.
inline std::unique_ptr<IEvictionPolicy> recording(const char* inner, const PolicyContext& c) {
  return std::make_unique<RecordingPolicy>(PolicyRegistry::instance().create(inner, {}, c), c.capacity_bytes);
}

/// Accesses where two recorded sequences differ (only in whether they
/// missed, with `miss_only`); the first five are reported as failures.
inline std::size_t mismatches(const std::vector<char>& engine, const std::vector<char>& replay, bool miss_only) {
  std::size_t bad = 0;
  for (std::size_t i = 0; i < engine.size() && i < replay.size(); ++i) {
    const bool differ = miss_only ? (engine[i] == 'm') != (replay[i] == 'm') : engine[i] != replay[i];
    if (differ && ++bad <= 5) {
      ADD_FAILURE() << "access " << i << ": engine '" << engine[i] << "', replay '" << replay[i] << "'";
    }
  }
  return bad;
}

/// A demand-only run: the replay's counters `h` equal the engine's `s`, and
/// neither saw a delayed hit.
inline void expect_same_demand_counters(const AccessCounters& h, const AccessCounters& s) {
  EXPECT_EQ(h.accesses, s.accesses);
  EXPECT_EQ(h.hits, s.hits);
  EXPECT_EQ(h.delayed_hits, 0u);
  EXPECT_EQ(s.delayed_hits, 0u);
  EXPECT_EQ(h.misses, s.misses);
  EXPECT_EQ(h.bytes_fetched, s.bytes_fetched);
  EXPECT_EQ(h.write_allocations, s.write_allocations);
  EXPECT_EQ(h.bytes_written_back, s.bytes_written_back);
  EXPECT_EQ(h.evictions, s.evictions);
  EXPECT_EQ(h.bypasses, s.bypasses);
}

/// The decode workload both equivalence tests run (tests/gpu/data: a 2-layer
/// Llama, KV pages written and read, concurrency 4): a scenario with
/// `capacity` and a `policies:` list body.
inline std::string kv_decode_scenario(const std::string& capacity, const std::string& policies) {
  return "name: eq\n"
         "hardware:\n  profile: h200\n"
         "workload:\n  generator: decode\n  model: tiny-llama.json\n  granularity: tensor\n  concurrency: 4\n"
         "  requests: 8\n  prompt_tokens: 20\n  output_tokens: 6\n  page_tokens: 4\n"
         "cache:\n  capacity: " + capacity + "\n  allocator: first_fit\n"
         "policies:\n" + policies +
         "seed: 3\n";
}

}  // namespace flashsim::test
