// The generator form of a scenario's workload: resolution, errors at the
// YAML position, the trace provider (in memory and streamed), a whole run,
// and `flashsim workload generate`.
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>

#include "sim/core/errors.h"
#include "sim/run/scenario_runner.h"
#include "sim/run/trace_provider.h"
#include "sim/scenario/scenario_document.h"
#include "tests/support/temp_dir.h"
#include "tests/workload/workload_test_util.h"
#include "sim/workload/serving_options.h"
#include "traces/hdf5_trace.h"

namespace flashsim {
namespace {

using test::TempDir;

constexpr const char* kTinyModel = R"({"model_type":"mixtral","hidden_size":64,"intermediate_size":128,
  "num_hidden_layers":2,"num_attention_heads":4,"num_key_value_heads":2,"vocab_size":256,"torch_dtype":"float16",
  "num_local_experts":4,"num_experts_per_tok":2})";

std::string scenario_text(const std::string& workload_extra) {
  return "name: gen\n"
         "hardware:\n  profile: h200\n"
         "workload:\n  generator: serving\n  model: tiny.json\n  granularity: tensor\n  concurrency: 2\n"
         "  prompt_tokens: 3\n  output_tokens: 4\n" +
         workload_extra +
         "cache:\n  capacity: 50%\n"
         "policies:\n  - impl: lru\n"
         "seed: 5\n";
}

struct Fixture {
  TempDir dir;
  Fixture() { std::ofstream(dir / "tiny.json") << kTinyModel; }
  ScenarioDocument document(const std::string& extra = "") const {
    return ScenarioDocument::from_text(scenario_text(extra), "gen.yaml", dir.path());
  }
};

TEST(ScenarioWorkload, GeneratorFormResolvesWithTheScenarioSeedAndAbsolutePaths) {
  Fixture f;
  const ScenarioDocument doc = f.document();
  const Scenario s = doc.resolve(doc.points().front());
  ASSERT_TRUE(s.workload.generated);
  EXPECT_EQ(s.workload.generator, "serving");
  EXPECT_EQ(s.workload.format, "generated");
  EXPECT_EQ(s.workload.generator_params.at("seed"), "5");
  EXPECT_EQ(s.workload.generator_params.at("model"), (f.dir / "tiny.json").lexically_normal().string());
  EXPECT_EQ(s.workload.generator_params.at("preset"), "short");
  EXPECT_GT(s.workload.generator_context.compute.peak_flops, 0.0);
  const std::string yaml = to_yaml_text(s.resolved);
  EXPECT_NE(yaml.find("generator: serving"), std::string::npos) << yaml;
  EXPECT_NE(yaml.find("seed: 5"), std::string::npos);
}

TEST(ScenarioWorkload, BadGeneratorKeysFailAtTheirPosition) {
  Fixture f;
  const ScenarioDocument bad_key = f.document("  colour: red\n");
  EXPECT_THROW(
      {
        try {
          bad_key.resolve(bad_key.points().front());
        } catch (const InputError& e) {
          const std::string m = e.what();
          EXPECT_NE(m.find("gen.yaml:"), std::string::npos) << m;
          EXPECT_NE(m.find("colour"), std::string::npos) << m;
          throw;
        }
      },
      InputError);
  const ScenarioDocument bad_value = f.document("  prefill: sometimes\n");
  EXPECT_THROW(bad_value.resolve(bad_value.points().front()), InputError);
  const ScenarioDocument bad_model =
      ScenarioDocument::from_text("hardware:\n  profile: h200\nworkload:\n  model: nope.json\n"
                                  "cache:\n  capacity: 1GiB\npolicies:\n  - impl: lru\n",
                                  "m.yaml", f.dir.path());
  try {
    bad_model.resolve(bad_model.points().front());
    FAIL();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("m.yaml:4"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("nope.json"), std::string::npos) << e.what();
  }
  std::string text = scenario_text("");
  text.replace(text.find("generator: serving"), 18, "generator: servng");
  const ScenarioDocument unknown = ScenarioDocument::from_text(text, "u.yaml", f.dir.path());
  try {
    unknown.resolve(unknown.points().front());
    FAIL();
  } catch (const UnknownNameError& e) {
    EXPECT_NE(std::string(e.what()).find("did you mean 'serving'"), std::string::npos) << e.what();
  }
}

TEST(ScenarioWorkload, ProviderHandsOutTheGeneratedRecordsInMemoryOrStreamed) {
  Fixture f;
  const ScenarioDocument doc = f.document();
  const Scenario s = doc.resolve(doc.points().front());
  auto direct = make_workload(s.workload.generator, s.workload.generator_params, s.workload.generator_context);
  const auto want = test::all_records(*direct);
  TraceProvider in_memory(s.workload);
  TraceProvider streamed(s.workload, 10);
  EXPECT_TRUE(in_memory.in_memory());
  EXPECT_FALSE(streamed.in_memory());
  for (const TraceProvider* p : {&in_memory, &streamed}) {
    auto source = p->open();
    EXPECT_EQ(source->meta().catalog.size(), direct->meta().catalog.size());
    EXPECT_EQ(source->meta().operators.size(), direct->meta().operators.size());
    std::vector<AccessRecord> got(want.size() + 5);
    std::size_t n = 0;
    while (const std::size_t k = source->read(std::span<AccessRecord>(got.data() + n, got.size() - n))) n += k;
    ASSERT_EQ(n, want.size());
    for (std::size_t i = 0; i < n; ++i) ASSERT_EQ(got[i].block_id, want[i].block_id) << i;
    EXPECT_GT(p->footprint().bytes, 0u);
    EXPECT_EQ(p->footprint().bytes, in_memory.footprint().bytes);
  }
  // A different seed is a different trace.
  Scenario other = s;
  other.workload.generator_params["seed"] = "6";
  EXPECT_NE(trace_key(s.workload), trace_key(other.workload));
}

TEST(ScenarioWorkload, AScenarioRunsOnAGeneratedWorkload) {
  Fixture f;
  const ScenarioDocument doc = f.document();
  RunnerOptions options;
  options.jobs = 1;
  const ScenarioResults results = run_scenario(doc, options);
  ASSERT_EQ(results.runs.size(), 1u);
  const Scenario s = doc.resolve(doc.points().front());
  auto direct = make_workload(s.workload.generator, s.workload.generator_params, s.workload.generator_context);
  const auto records = test::all_records(*direct);
  const RunMetrics& m = results.runs[0].result.metrics;
  EXPECT_EQ(m.total.accesses, records.size());
  EXPECT_EQ(m.total.hits + m.total.delayed_hits + m.total.misses, records.size());
  // The closed loop spends at least the generated compute.
  Nanoseconds compute = 0;
  for (const auto& r : records) compute += r.compute_ns;
  EXPECT_GE(m.simulated_ns, compute);
}

#ifdef FLASHSIM_BINARY
TEST(ScenarioWorkload, CommandWritesAReadableTrace) {
  Fixture f;
  std::ofstream(f.dir / "gen.yaml") << scenario_text("");
  const std::string out = (f.dir / "out.h5").string();
  const std::string command = std::string(FLASHSIM_BINARY) + " workload generate " + (f.dir / "gen.yaml").string() +
                              " --out " + out + " --set workload.output_tokens=2 > /dev/null";
  ASSERT_EQ(std::system(command.c_str()), 0) << command;
  Hdf5TraceSource back(out);
  EXPECT_GT(back.meta().record_count, 0u);
  EXPECT_FALSE(back.meta().operators.empty());

  const std::string by_model = std::string(FLASHSIM_BINARY) + " workload generate " + (f.dir / "tiny.json").string() +
                               " --out " + (f.dir / "m.h5").string() +
                               " -p preset=medium -p granularity=tensor -p output_tokens=3 --seed 2 > /dev/null";
  ASSERT_EQ(std::system(by_model.c_str()), 0) << by_model;
  Hdf5TraceSource m(f.dir / "m.h5");
  EXPECT_NE(m.meta().source.find("preset medium, 5 requests, seed 2"), std::string::npos) << m.meta().source;
  const std::string bad = std::string(FLASHSIM_BINARY) + " workload generate " + (f.dir / "tiny.json").string() +
                          " --out " + (f.dir / "x.h5").string() + " -p colour=red 2> /dev/null";
  EXPECT_EQ(WEXITSTATUS(std::system(bad.c_str())), 2);
  EXPECT_FALSE(std::filesystem::exists(f.dir / "x.h5"));
}
#endif

}  // namespace
}  // namespace flashsim

namespace flashsim {
namespace {

ServingOptions resolved_options(const std::string& generator, const std::map<std::string, std::string>& user) {
  const auto& entry = WorkloadRegistry::instance().find(generator);
  WorkloadContext context;
  context.seed = 11;
  return serving_options_from(ParamValues::resolve(generator, entry.params, user), context);
}

TEST(ScenarioWorkload, PresetsFillWhatTheWorkloadLeavesOpen) {
  const ServingOptions s = resolved_options("serving", {{"model", "x"}});
  EXPECT_EQ(s.preset, "short");
  EXPECT_EQ(s.concurrency, 10u);
  EXPECT_EQ(s.requests, 10u);
  EXPECT_EQ(s.prompt_tokens, 32u);
  EXPECT_EQ(s.output_tokens, 128u);
  EXPECT_EQ(s.page_tokens, 16u);
  EXPECT_EQ(s.kv_layout, KvLayout::per_layer);
  EXPECT_EQ(s.prefill, PrefillMode::full);
  EXPECT_EQ(s.seed, 11u);
  const ServingOptions m = resolved_options("serving", {{"preset", "medium"}, {"output_tokens", "7"}, {"seed", "3"}});
  EXPECT_EQ(m.concurrency, 5u);
  EXPECT_EQ(m.prompt_tokens, 512u);
  EXPECT_EQ(m.output_tokens, 7u);
  EXPECT_EQ(m.seed, 3u);
  const ServingOptions l = resolved_options("serving", {{"preset", "long"}, {"requests", "6"}});
  EXPECT_EQ(l.concurrency, 2u);
  EXPECT_EQ(l.requests, 6u);
  EXPECT_EQ(l.prompt_tokens, 2048u);
  EXPECT_EQ(l.output_tokens, 1024u);
  const ServingOptions r = resolved_options("serving", {{"preset", "longrun"}});
  EXPECT_EQ(r.concurrency, 1u);
  EXPECT_EQ(r.prompt_tokens, 1000u);
  EXPECT_EQ(r.output_tokens, 100000u);
  EXPECT_EQ(r.kv_layout, KvLayout::per_request);
  EXPECT_EQ(r.page_tokens, 1024u);
  const ServingOptions r2 = resolved_options("serving", {{"preset", "longrun"}, {"kv_layout", "per_layer"}, {"page_tokens", "16"}});
  EXPECT_EQ(r2.kv_layout, KvLayout::per_layer);
  EXPECT_EQ(r2.page_tokens, 16u);
  EXPECT_EQ(resolved_options("decode", {}).prefill, PrefillMode::none);
  EXPECT_THROW(resolved_options("serving", {{"routing", "table"}}), InputError);  // needs routing_file
}

}  // namespace
}  // namespace flashsim
