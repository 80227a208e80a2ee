// Cross-check of two implementations: the closed-loop event engine is the
// execution model's special case of one stream with blocking issue. A v1
// trace becomes a program (per access: a blocking pinned H2D copy of its
// block, then a kernel of its compute_ns, on one stream, no host time), and
// the program engine must give the event engine's time, access for access,
// as the recorded copies (as_recorded = a fast tier that never holds
// anything) and under LRU (hits remove the copy; a hit costs nothing in
// either model here: hit latency, miss penalty, TLB, L2 all zero).
#include <gtest/gtest.h>

#include <memory>
#include <random>

#include "sim/engine/engine.h"
#include "sim/engine/program/program_executor.h"
#include "traces/trace_source.h"

namespace flashsim {
namespace {

struct Case {
  TraceMeta meta;
  std::vector<AccessRecord> records;
};

// Random reuse over 12 blocks of 1..8 KiB with 0..5 µs of compute each.
Case make_case(std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  Case c;
  c.meta.source = "cross-check";
  std::vector<ByteCount> size(12);
  for (ByteCount& b : size) b = 1024 * (1 + rng() % 8);
  Program p;
  p.thread_count = 1;
  p.stream_count = 1;
  Nanoseconds t = 0;
  for (std::uint64_t i = 0; i < 400; ++i) {
    AccessRecord r;
    r.block_id = rng() % 12;
    r.bytes = size[r.block_id];
    r.compute_ns = static_cast<Nanoseconds>(rng() % 5000);
    r.time_ns = static_cast<Nanoseconds>(i);
    c.records.push_back(r);
    ProgramOp copy;
    copy.kind = ProgramOpKind::copy;
    copy.stream = 0;
    copy.host_start_ns = copy.host_end_ns = t;
    copy.bytes = r.bytes;
    copy.direction = CopyDirection::h2d;
    copy.host_memory = HostMemory::pinned;
    copy.blocking = true;
    copy.first_access = i;
    copy.access_count = 1;
    p.ops.push_back(copy);
    ProgramOp kernel;
    kernel.kind = ProgramOpKind::kernel;
    kernel.stream = 0;
    kernel.host_start_ns = kernel.host_end_ns = t;
    kernel.gpu_ns = r.compute_ns;
    p.ops.push_back(kernel);
  }
  // The host waits for the last kernel, so the program ends when the engine does.
  ProgramOp sync;
  sync.kind = ProgramOpKind::stream_sync;
  sync.stream = 0;
  sync.host_start_ns = sync.host_end_ns = t;
  p.ops.push_back(sync);
  c.meta.program = std::make_shared<const Program>(std::move(p));
  c.meta.schema_version = 2;
  c.meta.record_count = c.records.size();
  return c;
}

HardwareProfile profile() {
  HardwareProfile h;
  h.name = "cross-check";
  TierSpec fast;
  fast.name = "hbm";
  TierSpec back;
  back.name = "dram";
  back.link_to_faster.latency_ns = 1000;
  back.link_to_faster.bandwidth = 1e9;  // 1 B/ns
  h.tiers = {fast, back};
  return h;
}

Nanoseconds engine_time(const Case& c, const std::string& policy, ByteCount capacity) {
  EngineConfig config;
  config.hardware = profile();
  config.cache.capacity_bytes = capacity;
  config.cache.eviction = {policy, {}};
  MemoryTraceSource trace(c.meta, c.records);
  return run_engine(trace, config).metrics.simulated_ns;
}

TEST(ProgramVsEngine, TheClosedLoopIsOneStreamWithBlockingIssue) {
  for (std::uint64_t seed : {1u, 2u, 3u}) {
    SCOPED_TRACE(seed);
    const Case c = make_case(seed);
    ExecutorOptions o;  // calibrated host time with zero API costs: no host time at all
    const ProgramPrediction recorded = run_program(c.meta, c.records, profile(), o);
    // The engine's simulated_ns ends when the last access's data is there;
    // the program also runs that access's kernel.
    const Nanoseconds last_kernel = c.records.back().compute_ns;
    // Every access misses when the tier holds 1 byte: the program as recorded.
    EXPECT_EQ(recorded.end_ns, engine_time(c, "lru", 1) + last_kernel);
    o.as_recorded = false;
    o.cache.capacity_bytes = 24 * 1024;
    o.cache.eviction = {"lru", {}};
    const ProgramPrediction lru = run_program(c.meta, c.records, profile(), o);
    EXPECT_GT(lru.copies_removed, 0u);
    EXPECT_EQ(lru.end_ns, engine_time(c, "lru", 24 * 1024) + last_kernel);
    EXPECT_LT(lru.end_ns, recorded.end_ns);
  }
}

}  // namespace
}  // namespace flashsim
