// The scenario runner: footprint-relative capacities, run order and
// determinism whatever the thread count, error propagation, and end-to-end
// runs of the real engines against closed forms.
#include <gtest/gtest.h>

#include <chrono>
#include <nlohmann/json.hpp>
#include <sstream>
#include <thread>

#include "sim/results/results_writer.h"
#include "sim/run/scenario_runner.h"
#include "sim/run/trace_provider.h"
#include "traces/trace_formats.h"
#include "tests/app/app_test_util.h"
#include "tests/support/shared_data.h"
#include "tests/support/temp_dir.h"

namespace flashsim {
namespace {

using test::error_of;

class RunnerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    // 3 blocks of 1000 B, 4 cycles: 12 accesses, footprint 3000 B.
    test::write_file(dir_ / "trace.csv", test::cyclic_csv(3, 4, 1000));
  }
  ScenarioDocument load(const std::string& text, const std::vector<Override>& overrides = {}) {
    test::write_file(dir_ / "s.yaml", text);
    return ScenarioDocument::from_file(dir_ / "s.yaml", overrides);
  }
  test::TempDir dir_;
};

// miss: 100 ns penalty + 1000 ns link latency + 1000 B at 1 GB/s (1000 ns) = 2100 ns
// to arrival, + 50 ns hit latency; hit: 50 ns.
constexpr const char* kClosedForm =
    "name: closed-form\n"
    "hardware:\n"
    "  miss_penalty: 100ns\n"
    "  tiers:\n"
    "    - {name: hbm, hit_latency: 50ns}\n"
    "    - {name: host, link: {latency: 1us, bandwidth: 1GB/s}}\n"
    "workload: {trace: trace.csv}\n"
    "cache: {capacity: 3000B}\n"
    "policies: [lru, belady]\n"
    "outputs: {window: 0ns}\n";

TEST_F(RunnerTest, FootprintIsTheSumOfDistinctBlockSizes) {
  WorkloadSpec w;
  w.path = dir_ / "trace.csv";
  w.trace = w.path.string();
  w.format = "csv";
  TraceProvider provider(w);
  EXPECT_TRUE(provider.in_memory());
  const TraceFootprint f = provider.footprint();
  EXPECT_EQ(f.bytes, 3000u);
  EXPECT_EQ(f.blocks, 3u);
  EXPECT_EQ(f.records, 12u);
  // A streamed provider (memory limit below the trace) gives the same.
  TraceProvider streamed(w, 5);
  EXPECT_FALSE(streamed.in_memory());
  EXPECT_EQ(streamed.footprint().bytes, 3000u);
}

// An HDF5 trace within the limit is read once into memory (its record count
// is in the file, so a longer one is not read at all); the cache hands every
// caller the same provider, so several scenarios read it once.
TEST_F(RunnerTest, HdfTracesWithinTheLimitAreSharedAndTheCacheKeepsThem) {
  WorkloadSpec w;
  w.path = std::string(FLASHSIM_SOURCE_DIR) + "/validate/baselines/h200/programs/double_buffer_prefetch.h5";
  w.trace = w.path.string();
  w.format = "hdf5";
  const TraceProvider shared(w);
  EXPECT_TRUE(shared.in_memory());
  const TraceProvider streamed(w, 100);  // 308 records
  EXPECT_FALSE(streamed.in_memory());
  EXPECT_EQ(shared.footprint().bytes, streamed.footprint().bytes);
  EXPECT_EQ(shared.footprint().records, 308u);
  // Both readers give the program and the same records.
  const auto a = shared.open(), b = streamed.open();
  ASSERT_TRUE(a->meta().program && b->meta().program);
  EXPECT_EQ(a->meta().program->ops.size(), b->meta().program->ops.size());
  const std::vector<AccessRecord> ra = read_all_records(*a), rb = read_all_records(*b);
  ASSERT_EQ(ra.size(), rb.size());
  for (std::size_t i = 0; i < ra.size(); ++i) EXPECT_EQ(ra[i].block_id, rb[i].block_id) << i;
  TraceProviderCache cache;
  const auto first = cache.get(w, 1'000'000);
  EXPECT_EQ(cache.get(w, 1'000'000).get(), first.get());
  EXPECT_NE(cache.get(w, 100).get(), first.get());  // read another way: a provider of its own
}

TEST_F(RunnerTest, GranularitySplitsBlocksIntoPieces) {
  // Blocks A, B of 3000 B, accessed A A B B; capacity 4096 B.
  // whole: A miss, A hit, B miss (evicts A), B hit -> 2 hits of 4.
  // 2 KiB pieces A0 A1 A0 A1 B0 B1 B0 B1 (2048 + 952 B each): A0, A1 miss, both
  // hit, B0 miss (evicts A0, the LRU piece), B1 miss (fits beside A1), both hit
  // -> 4 hits of 8, same bytes accessed.
  test::write_file(dir_ / "ab.csv", "time_ns,block_id,bytes,stream_id\n0,1,3000,0\n1,1,3000,0\n2,2,3000,0\n3,2,3000,0\n");
  const std::string scenario =
      "workload: {trace: ab.csv}\ncache: {capacity: 4096B}\npolicies: [lru]\nengine: {impl: cache_only}\n"
      "sweep: {cache.granularity: [whole, 2KiB]}\n";
  const ScenarioResults r = run_scenario(load(scenario), RunnerOptions{});
  ASSERT_EQ(r.runs.size(), 2u);
  EXPECT_EQ(r.runs[0].result.metrics.total.accesses, 4u);
  EXPECT_EQ(r.runs[0].result.metrics.total.hits, 2u);
  EXPECT_EQ(r.runs[1].result.metrics.total.accesses, 8u);
  EXPECT_EQ(r.runs[1].result.metrics.total.hits, 4u);
  EXPECT_EQ(r.runs[1].result.metrics.total.bytes_accessed, 12000u);
  const ScenarioDocument bad = load("workload: {trace: ab.csv}\ncache: {capacity: 1KiB, granularity: 2 furlongs}\npolicies: [lru]\n");
  EXPECT_NE(error_of<UnitError>([&] { bad.resolve(bad.points()[0]); }).find("cache.granularity"), std::string::npos);
}

TEST_F(RunnerTest, EngineClockNeedsTheEventEngine) {
  const ScenarioDocument doc =
      load("workload: {trace: trace.csv}\ncache: {capacity: 1KiB}\npolicies: [lru]\nengine: {impl: cache_only}\n"
           "decision_clock: engine\n");
  const std::string message = error_of<InputError>([&] { doc.resolve(doc.points()[0]); });
  EXPECT_NE(message.find(":5:"), std::string::npos) << message;  // the line of decision_clock
  EXPECT_NE(message.find("decision_clock"), std::string::npos) << message;
}

TEST_F(RunnerTest, EventEngineMatchesClosedForms) {
  const ScenarioResults r = run_scenario(load(kClosedForm), RunnerOptions{});
  ASSERT_EQ(r.runs.size(), 2u);
  const RunMetrics& lru = r.runs[0].result.metrics;
  // Everything fits: 3 cold misses, then 9 hits.
  EXPECT_EQ(lru.total.accesses, 12u);
  EXPECT_EQ(lru.total.hits, 9u);
  EXPECT_EQ(lru.total.misses, 3u);
  EXPECT_EQ(lru.total.bytes_fetched, 3000u);
  EXPECT_EQ(lru.total.stall_ns, 3 * 2150);  // a miss's whole latency
  EXPECT_EQ(lru.simulated_ns, 3 * 2150 + 9 * 50);  // closed loop, no gap
  EXPECT_EQ(lru.latency.max_ns(), 2150);
  EXPECT_EQ(r.runs[0].capacity_bytes, 3000u);
  EXPECT_EQ(r.runs[0].decision_clock, "trace");
}

TEST_F(RunnerTest, CyclicScanAtTwoThirdsOfTheFootprint) {
  // Capacity for 2 of the 3 blocks: LRU never hits a cyclic scan; Belady
  // (furthest next use) hits 5 of 12 (hand-worked: misses at 0,1,2,4,6,8,10).
  const ScenarioResults r =
      run_scenario(load(kClosedForm, {parse_override("cache.capacity=66.7%")}), RunnerOptions{});
  ASSERT_EQ(r.runs.size(), 2u);
  EXPECT_EQ(r.runs[0].capacity_bytes, 2001u);  // floor(0.667 × 3000)
  EXPECT_EQ(r.runs[0].footprint_bytes, 3000u);
  EXPECT_EQ(r.runs[0].result.metrics.total.hits, 0u);
  EXPECT_EQ(r.runs[0].result.metrics.simulated_ns, 12 * 2150);
  EXPECT_EQ(r.runs[1].policy, "belady");
  EXPECT_EQ(r.runs[1].result.metrics.total.hits, 5u);
  EXPECT_EQ(r.runs[1].result.metrics.total.misses, 7u);
}

TEST_F(RunnerTest, CacheOnlyEngineCountsTheSame) {
  // The event scenario's hardware and window are not read by cache_only: refused, not ignored.
  const ScenarioDocument event = load(kClosedForm, {parse_override("engine=cache_only")});
  EXPECT_THROW(event.resolve(event.points().front()), InputError);
  const ScenarioResults r = run_scenario(load("name: closed-form\nengine: {impl: cache_only}\nworkload: {trace: trace.csv}\n"
                                              "cache: {capacity: 2000B}\npolicies: [lru, belady]\n"),
                                         RunnerOptions{});
  ASSERT_EQ(r.runs.size(), 2u);
  EXPECT_EQ(r.runs[0].engine, "cache_only");
  EXPECT_EQ(r.runs[0].result.metrics.total.hits, 0u);
  EXPECT_EQ(r.runs[1].result.metrics.total.hits, 5u);
  EXPECT_EQ(r.runs[1].result.metrics.simulated_ns, 0);
}

TEST_F(RunnerTest, ResultsAreIndependentOfThreadCount) {
  const ScenarioDocument doc = load(
      "workload: {trace: trace.csv}\n"
      "cache: {capacity: 1000B}\n"
      "policies: [lru, fifo, {impl: mlru, history: 3}]\n"
      "sweep:\n"
      "  cache.capacity: [10%, 50%, 100%]\n"
      "  seed: [1, 2]\n");
  // A stand-in engine whose runs finish in scrambled order.
  auto engine = [](ITraceSource& trace, const EngineConfig& c, const ComponentChoice&, const EngineContext&) {
    EngineResult r;
    std::vector<AccessRecord> buffer(64);
    while (const std::size_t n = trace.read(buffer)) r.metrics.total.accesses += n;
    r.metrics.total.hits = c.cache.capacity_bytes / 100 + c.cache.eviction.impl.size();
    std::this_thread::sleep_for(std::chrono::microseconds((c.cache.capacity_bytes * 7919) % 3000));
    return r;
  };
  RunnerOptions one;
  one.jobs = 1;
  one.engine = engine;
  RunnerOptions many = one;
  many.jobs = 4;
  std::ostringstream progress;
  many.progress = &progress;
  const ScenarioResults a = run_scenario(doc, one);
  const ScenarioResults b = run_scenario(doc, many);
  ASSERT_EQ(a.runs.size(), 18u);  // 3 capacities × 2 seeds × 3 policies
  const auto ja = nlohmann::json::parse(summary_json_text(a));
  const auto jb = nlohmann::json::parse(summary_json_text(b));
  EXPECT_EQ(ja["runs"], jb["runs"]);
  // Run order: point-major, then policy.
  EXPECT_EQ(a.runs[4].point_label, "cache.capacity=10% seed=2");
  EXPECT_EQ(a.runs[4].policy, "fifo");
  EXPECT_EQ(a.runs[4].seed, 2u);
  EXPECT_EQ(a.runs[17].capacity_bytes, 3000u);
  EXPECT_EQ(a.runs[17].result.metrics.total.hits, 30u + 4u);
  EXPECT_EQ(a.runs[17].result.metrics.total.accesses, 12u);
  // The terminal line is rewritten at most every 100 ms: the first run and
  // the last are always shown, those between as time allows.
  const std::string p = progress.str();
  std::size_t lines = 0;
  for (std::size_t at = p.find("\r\x1b[K["); at != std::string::npos; at = p.find("\r\x1b[K[", at + 1)) ++lines;
  EXPECT_GE(lines, 2u);
  EXPECT_LE(lines, 18u);
  EXPECT_EQ(p.find("running 18 runs (6 sweep points) on 4 threads\n\r\x1b[K[1/18] "), 0u);  // the first line at once
  EXPECT_NE(p.find("[18/18] "), std::string::npos);
}

TEST_F(RunnerTest, TheFirstFailingRunsErrorIsThrown) {
  const ScenarioDocument doc =
      load("workload: {trace: trace.csv}\ncache: {capacity: 1000B}\npolicies: [lru, fifo, arc]\n");
  RunnerOptions options;
  options.jobs = 3;
  options.engine = [](ITraceSource&, const EngineConfig& c, const ComponentChoice&, const EngineContext&) -> EngineResult {
    if (c.cache.eviction.impl != "lru") throw InputError("bad run " + c.cache.eviction.impl);
    return {};
  };
  // The first failing run's error, naming the scenario file and the run.
  const std::string e = error_of<InputError>([&] { run_scenario(doc, options); });
  EXPECT_TRUE(e.ends_with("s.yaml, policy fifo: bad run fifo")) << e;
}

TEST_F(RunnerTest, EveryPointIsValidatedBeforeAnyRun) {
  const ScenarioDocument doc = load(
      "workload: {trace: trace.csv}\ncache: {capacity: 1000B}\npolicies: [lru]\n"
      "sweep: {policies.0.impl: [lru, nosuch]}\n");
  int runs = 0;
  RunnerOptions options;
  options.engine = [&](ITraceSource&, const EngineConfig&, const ComponentChoice&, const EngineContext&) {
    ++runs;
    return EngineResult{};
  };
  EXPECT_THROW(run_scenario(doc, options), UnknownNameError);
  EXPECT_EQ(runs, 0);
}

TEST_F(RunnerTest, ZeroByteShareIsAnError) {
  const std::string msg = error_of<InputError>(
      [&] { run_scenario(load(kClosedForm, {parse_override("cache.capacity=0.01%")}), RunnerOptions{}); });
  EXPECT_NE(msg.find("is 0 bytes"), std::string::npos) << msg;
}

TEST_F(RunnerTest, Hdf5TracesStreamInConcurrentRuns) {
  // The same trace as canonical HDF5, read by four runs at once.
  {
    std::unique_ptr<ITraceSource> csv = open_trace(dir_ / "trace.csv");
    std::unique_ptr<ITraceSink> sink = create_trace_sink(dir_ / "trace.h5", csv->meta());
    EXPECT_EQ(copy_trace(*csv, *sink), 12u);
  }
  RunnerOptions options;
  options.jobs = 4;
  const ScenarioResults r = run_scenario(
      load(kClosedForm, {parse_override("workload.trace=trace.h5"), parse_override("policies=[lru, belady, lru, belady]"),
                         parse_override("cache.capacity=2000B")}),
      options);
  ASSERT_EQ(r.runs.size(), 4u);
  for (std::size_t i = 0; i < 4; ++i) {
    EXPECT_EQ(r.runs[i].result.metrics.total.accesses, 12u);
    EXPECT_EQ(r.runs[i].result.metrics.total.hits, i % 2 == 0 ? 0u : 5u) << i;
  }
}

TEST_F(RunnerTest, TimeSeriesWindowsReachTheResults) {
  const ScenarioResults r =
      run_scenario(load(kClosedForm, {parse_override("outputs.window=5us")}), RunnerOptions{});
  const RunMetrics& m = r.runs[0].result.metrics;
  EXPECT_EQ(m.window_ns, 5000);
  ASSERT_EQ(m.windows.size(), 2u);  // 6900 ns of simulated time
  std::uint64_t accesses = 0;
  for (const auto& w : m.windows) accesses += w.counters.accesses;
  EXPECT_EQ(accesses, 12u);
}

}  // namespace
}  // namespace flashsim
