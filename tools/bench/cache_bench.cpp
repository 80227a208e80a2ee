// flashsim-bench: measures one replay of a trace, for BENCHMARKS.md.
//
// TRACE is any format `flashsim trace formats` lists, by its name (.h5,
// .csv, .oracleGeneral.bin, ...), so libCacheSim and flashsim read the same file.
//
//   flashsim-bench cache  TRACE.h5 POLICY CAPACITY_BYTES   cache-only path (run_cache_only)
//   flashsim-bench engine TRACE.h5 POLICY CAPACITY_BYTES   full event engine (run_engine)
//   flashsim-bench cache-mem TRACE.h5 POLICY CAPACITY_BYTES   cache-only, trace loaded into memory
//                                                          first and not timed (the replay alone)
//
// Prints one JSON line: accesses, hits, wall seconds of the replay (trace
// reading included, as libCacheSim's cachesim includes it), accesses/s,
// engine events/s, and the process's peak RSS. Run one replay per process
// so that peak RSS belongs to that replay.
#include <sys/resource.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <memory>
#include <string>
#include <vector>

#include "sim/core/unit_parse.h"
#include "sim/engine/engine.h"
#include "traces/hdf5_trace.h"
#include "traces/prefetching_trace_source.h"
#include "traces/trace_formats.h"

namespace {

long peak_rss_kib() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return usage.ru_maxrss;  // KiB on Linux
}

flashsim::HardwareProfile bench_profile() {
  // A two-tier profile with round numbers; the speed of the engine, not its
  // answers, is what this measures.
  flashsim::HardwareProfile hw;
  hw.name = "bench";
  hw.tiers.resize(2);
  hw.tiers[0].name = "hbm";
  hw.tiers[0].hit_latency_ns = 300;
  hw.tiers[1].name = "host_dram";
  hw.tiers[1].hit_latency_ns = 100;
  hw.tiers[1].link_to_faster.latency_ns = 4500;
  hw.tiers[1].link_to_faster.bandwidth = 55e9;
  hw.miss_penalty_ns = 142;
  return hw;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 5) {
    std::fprintf(stderr, "usage: flashsim-bench cache|cache-mem|engine TRACE.h5 POLICY CAPACITY_BYTES\n");
    return 2;
  }
  try {
    const std::string mode = argv[1];
    flashsim::CacheConfig cache;
    cache.eviction.impl = argv[3];
    cache.capacity_bytes = flashsim::parse_bytes(argv[4]);
    std::unique_ptr<flashsim::ITraceSource> trace_owner;
    if (mode == "cache-mem") {
      const std::unique_ptr<flashsim::ITraceSource> opened = flashsim::open_trace(argv[2]);
      flashsim::ITraceSource& file = *opened;
      std::vector<flashsim::AccessRecord> records(file.meta().record_count);
      std::size_t n = 0;
      while (n < records.size()) {
        const std::size_t got = file.read(std::span(records).subspan(n));
        if (got == 0) break;
        n += got;
      }
      records.resize(n);
      trace_owner = std::make_unique<flashsim::MemoryTraceSource>(file.meta(), std::move(records));
    }
    const auto start = std::chrono::steady_clock::now();
    if (!trace_owner) {
      // Decoding overlaps the replay on a second thread, as in `flashsim run`.
      trace_owner = std::make_unique<flashsim::PrefetchingTraceSource>(flashsim::open_trace(argv[2]));
    }
    flashsim::ITraceSource& trace = *trace_owner;
    std::uint64_t accesses = 0, hits = 0, events = 0;
    if (mode == "cache" || mode == "cache-mem") {
      const auto m = flashsim::run_cache_only(trace, cache);
      accesses = m.total.accesses;
      hits = m.total.hits;
    } else if (mode == "engine") {
      flashsim::EngineConfig config;
      config.hardware = bench_profile();
      config.cache = cache;
      const auto r = flashsim::run_engine(trace, config);
      accesses = r.metrics.total.accesses;
      hits = r.metrics.total.hits;
      events = r.events_processed;
    } else {
      std::fprintf(stderr, "flashsim-bench: unknown mode '%s'\n", mode.c_str());
      return 2;
    }
    const double wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    std::printf(
        "{\"mode\":\"%s\",\"policy\":\"%s\",\"capacity_bytes\":%llu,\"accesses\":%llu,\"hits\":%llu,"
        "\"hit_ratio\":%.6f,\"wall_s\":%.3f,\"accesses_per_s\":%.0f,\"events\":%llu,\"events_per_s\":%.0f,"
        "\"peak_rss_mib\":%.1f}\n",
        mode.c_str(), argv[3], static_cast<unsigned long long>(cache.capacity_bytes),
        static_cast<unsigned long long>(accesses), static_cast<unsigned long long>(hits),
        accesses ? double(hits) / double(accesses) : 0.0, wall_s, double(accesses) / wall_s,
        static_cast<unsigned long long>(events), double(events) / wall_s, double(peak_rss_kib()) / 1024.0);
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "flashsim-bench: %s\n", e.what());
    return 1;
  }
}
