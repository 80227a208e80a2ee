// scenarios/experiments/: every file resolves at every sweep point; a
// reduced run of each architecture (2 requests, 4 output tokens, the short
// preset's 32-token prompt) completes with serving metrics that obey the
// link bound; and the Mixtral-8x7B capacity sweep draws a miss-ratio curve
// with LRU's inclusion property, Belady at or below LRU, and the cache-only
// engine agreeing with the event engine. The full-size runs and their
// timings are in docs/experiments.md.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <set>
#include <string>
#include <vector>

#include "sim/run/scenario_runner.h"
#include "sim/scenario/scenario_document.h"

namespace flashsim {
namespace {

namespace fs = std::filesystem;

const fs::path kDir = fs::path(FLASHSIM_SOURCE_DIR) / "scenarios" / "experiments";

const std::vector<std::string> kArchitectures = {"llama-2-7b",    "qwen2-7b", "phi-3-mini",
                                                 "mixtral-8x7b", "t5-base",  "llava-1.5-7b"};

Override set(const std::string& path, const std::string& yaml) {
  return parse_override(path + "=" + yaml);
}

TEST(ExperimentsTest, EveryScenarioResolvesAtEverySweepPoint) {
  std::set<std::string> found;
  for (const auto& entry : fs::directory_iterator(kDir)) {
    if (entry.path().extension() != ".yaml") continue;
    found.insert(entry.path().stem().string());
    SCOPED_TRACE(entry.path().string());
    const ScenarioDocument doc = ScenarioDocument::from_file(entry.path());
    const std::vector<Scenario> points = resolve_points(doc);  // throws on any bad point
    ASSERT_FALSE(points.empty());
    for (const Scenario& s : points) {
      EXPECT_TRUE(s.workload.generated);
      EXPECT_EQ(s.workload.generator, "serving");
      // The expert table caches whole experts (tensor blocks).
      EXPECT_EQ(s.workload.generator_params.at("granularity"),
                entry.path().stem() == "mixtral-8x7b-experts" ? "tensor" : "2MiB");
      EXPECT_EQ(s.hardware.name, "h200");
    }
  }
  for (const auto& arch : kArchitectures) {
    EXPECT_TRUE(found.count(arch)) << arch;
    const ScenarioDocument doc = ScenarioDocument::from_file(kDir / (arch + ".yaml"));
    const std::vector<Scenario> points = resolve_points(doc);
    ASSERT_EQ(points.size(), 3u) << arch;
    const std::vector<std::string> presets = {"short", "medium", "long"};
    for (std::size_t i = 0; i < 3; ++i) {
      const Scenario& s = points[i];
      EXPECT_EQ(s.workload.generator_params.at("model"), arch);
      EXPECT_EQ(s.workload.generator_params.at("preset"), presets[i]);
      EXPECT_TRUE(s.cache.capacity.is_fraction);
      EXPECT_DOUBLE_EQ(s.cache.capacity.fraction, 0.5);
      ASSERT_EQ(s.policies.size(), 3u);
      EXPECT_EQ(s.policies[0].label(), "lru");
      EXPECT_EQ(s.policies[1].label(), "mlru");
      EXPECT_EQ(s.policies[2].label(), "lru+hit_ratio_controller");
    }
  }
  EXPECT_TRUE(found.count("mixtral-8x7b-mrc"));
  EXPECT_TRUE(found.count("mixtral-8x7b-experts"));
  EXPECT_EQ(found.size(), kArchitectures.size() + 2) << "a new experiment: add it to kArchitectures or here";
}

// The MoE table's scenario (docs/experiments.md): every expert-cache policy
// and placement the issue names, labelled apart.
TEST(ExperimentsTest, MixtralExpertTableNamesEveryPolicy) {
  const std::vector<Scenario> points =
      resolve_points(ScenarioDocument::from_file(kDir / "mixtral-8x7b-experts.yaml"));
  ASSERT_EQ(points.size(), 1u);
  std::vector<std::string> labels;
  for (const PolicyChoice& p : points[0].policies) labels.push_back(p.label());
  EXPECT_EQ(labels, (std::vector<std::string>{"lru", "lfru", "activation_aware",
                                              "lru+expert_speculative(accuracy=0.9)",
                                              "lru+expert_speculative(accuracy=0.6)",
                                              "activation_aware+expert_speculative(accuracy=0.9)", "resident_first",
                                              "static_fraction(weight_fraction=0.4656)", "belady"}));
}

// The architectures' scenarios with fewer requests and tokens. The link bound
// is a real check: a fetch moves its bytes over the one FIFO PCIe link
// (h200: 55.23 GB/s), so the simulated run is at least bytes_fetched /
// bandwidth long, and the first token of a cold start waits for at least the
// weights read before it.
TEST(ExperimentsTest, ReducedRunOfEveryArchitectureGivesServingMetrics) {
  constexpr double kLinkBytesPerNs = 55.23;  // scenarios/hardware/h200.yaml
  for (const auto& arch : kArchitectures) {
    SCOPED_TRACE(arch);
    const bool dense = arch != "mixtral-8x7b" && arch != "t5-base";
    const ScenarioDocument doc =
        ScenarioDocument::from_file(kDir / (arch + ".yaml"), {set("workload.preset", "short"),
                                                              set("workload.concurrency", "2"),
                                                              set("workload.output_tokens", "4")});
    RunnerOptions options;
    options.jobs = 2;
    const ScenarioResults results = run_scenario(doc, options);
    ASSERT_EQ(results.runs.size(), 3u);
    for (const RunResult& r : results.runs) {
      SCOPED_TRACE(r.policy_label);
      const RunMetrics& m = r.result.metrics;
      EXPECT_EQ(r.capacity_bytes, r.footprint_bytes / 2);
      ASSERT_EQ(m.serving.requests.size(), 2u);
      EXPECT_EQ(m.serving.output_tokens, 8u);
      EXPECT_GT(m.serving.ttft_mean_ns, 0.0);
      EXPECT_GT(m.serving.tpot_mean_ns, 0.0);
      EXPECT_GT(m.total.accesses, 0u);
      EXPECT_GE(m.total.hit_ratio_by_access(), 0.0);
      EXPECT_LE(m.total.hit_ratio_by_access(), 1.0);
      EXPECT_GE(m.total.hit_ratio_by_byte(), 0.0);
      EXPECT_LE(m.total.hit_ratio_by_byte(), 1.0);
      EXPECT_GE(double(m.simulated_ns), double(m.total.bytes_fetched) / kLinkBytesPerNs);
      // Cold start, lazy loading: the first token needs (nearly) every
      // weight, and the weights are well over half the footprint here; so at
      // least a quarter of the footprint (half the tier) crosses the link first.
      EXPECT_GE(double(m.serving.ttft_p50_ns), double(r.capacity_bytes) / 2.0 / kLinkBytesPerNs);
      if (arch == "t5-base") {
        // TTFT starts at the admission copy of the prompt, before the
        // encoder pass: the first token waits for every weight (encoder,
        // decoder, tied embedding; 0.89 GB fp32), over 98% of this
        // footprint (the rest: 2 requests' KV pages, logits, inputs).
        EXPECT_GE(double(m.serving.ttft_p50_ns), 0.98 * double(r.footprint_bytes) / kLinkBytesPerNs);
      }
      if (dense && r.policy_index == 0) {
        // LRU on a dense decoder: each step reads every weight in the same
        // order, a cyclic scan longer than the tier, so every weight misses
        // every step and a token waits for more than the tier's bytes.
        EXPECT_GE(m.serving.tpot_mean_ns, double(r.capacity_bytes) / kLinkBytesPerNs);
      }
    }
  }
}

// The miss-ratio curve at reduced size (2 requests, 8 output tokens): every
// capacity of the file's sweep, every policy.
TEST(ExperimentsTest, MixtralMissRatioCurveHasInclusionAndBeladyBelowLru) {
  const ScenarioDocument doc =
      ScenarioDocument::from_file(kDir / "mixtral-8x7b-mrc.yaml",
                                  {set("workload.concurrency", "2"), set("workload.output_tokens", "8")});
  const std::vector<Scenario> points = resolve_points(doc);
  ASSERT_GE(points.size(), 8u);
  ASSERT_EQ(points[0].policies.size(), 3u);
  ASSERT_EQ(points[0].policies[0].label(), "lru");
  ASSERT_EQ(points[0].policies[2].label(), "belady");
  EXPECT_EQ(points[0].engine.impl, "cache_only");
  RunnerOptions options;
  options.jobs = 2;
  const ScenarioResults results = run_scenario(doc, options);
  ASSERT_EQ(results.runs.size(), points.size() * 3);
  const auto run = [&](std::size_t point, std::size_t policy) -> const RunResult& {
    return results.runs[point * 3 + policy];
  };
  for (std::size_t p = 0; p < points.size(); ++p) {
    SCOPED_TRACE(run(p, 0).point_label);
    const AccessCounters& lru = run(p, 0).result.metrics.total;
    const AccessCounters& belady = run(p, 2).result.metrics.total;
    EXPECT_EQ(lru.accesses, belady.accesses);
    EXPECT_LE(belady.misses, lru.misses);
    if (p > 0) {
      ASSERT_GT(run(p, 0).capacity_bytes, run(p - 1, 0).capacity_bytes);
      // LRU's contents at capacity C are the longest prefix of the recency
      // stack that fits in C (also for blocks of different sizes, evicting
      // until the new block fits), so a hit at C is a hit at every C' > C:
      // misses never grow with capacity.
      EXPECT_LE(lru.misses, run(p - 1, 0).result.metrics.total.misses);
    }
  }
  // The curve is not flat: at the full footprint only first touches miss, at
  // the smallest capacity LRU misses on most accesses (cyclic expert reads).
  const AccessCounters& full = run(points.size() - 1, 0).result.metrics.total;
  const AccessCounters& smallest = run(0, 0).result.metrics.total;
  EXPECT_LT(full.misses, smallest.misses);
  EXPECT_EQ(full.misses, run(points.size() - 1, 2).result.metrics.total.misses);
}

// The MRC file uses the cache-only engine for speed; on this workload (one
// closed-loop stream, no prefetch, so nothing is ever in flight when it is
// accessed) the event engine gives the same hits and misses.
TEST(ExperimentsTest, CacheOnlyEngineAgreesWithEventEngineOnTheMrcWorkload) {
  const std::vector<Override> reduced = {set("workload.concurrency", "2"), set("workload.output_tokens", "4"),
                                         set("cache.capacity", "30%")};
  std::vector<Override> event = reduced;
  event.push_back(set("engine", "event"));
  RunnerOptions options;
  options.jobs = 2;
  const ScenarioResults a = run_scenario(ScenarioDocument::from_file(kDir / "mixtral-8x7b-mrc.yaml", reduced), options);
  const ScenarioResults b = run_scenario(ScenarioDocument::from_file(kDir / "mixtral-8x7b-mrc.yaml", event), options);
  ASSERT_EQ(a.runs.size(), 3u);
  ASSERT_EQ(b.runs.size(), 3u);
  for (std::size_t i = 0; i < 3; ++i) {
    SCOPED_TRACE(a.runs[i].policy_label);
    EXPECT_EQ(a.runs[i].engine, "cache_only");
    EXPECT_EQ(b.runs[i].engine, "event");
    EXPECT_EQ(a.runs[i].result.metrics.total.accesses, b.runs[i].result.metrics.total.accesses);
    EXPECT_EQ(a.runs[i].result.metrics.total.hits, b.runs[i].result.metrics.total.hits);
    EXPECT_EQ(a.runs[i].result.metrics.total.misses, b.runs[i].result.metrics.total.misses);
  }
}

}  // namespace
}  // namespace flashsim
