// A policy entry's own keys beside `impl`: `admission:` (resolved against
// the admission registry, labelled, reaching the engine config), the
// program engine's `as_recorded` refusing extras, and the model-aware
// policies and speculative prefetch on the command line: their refusals
// named, and model-aware policies as an intermediate tier's policy.
#include <gtest/gtest.h>

#include "sim/scenario/scenario_document.h"
#include "tests/app/app_test_util.h"
#include "tests/support/shared_data.h"
#include "tests/support/temp_dir.h"

namespace flashsim {
namespace {

using test::error_of;
using test::write_file;

class PolicyEntryTest : public ::testing::Test {
 protected:
  void SetUp() override { write_file(dir_ / "trace.csv", test::cyclic_csv(3, 2, 1024)); }
  Scenario resolve(const std::string& policies, const std::string& engine = "event") {
    write_file(dir_ / "s.yaml", "name: t\nengine: {impl: " + engine +
                                    "}\nhardware: {profile: seed-defaults}\nworkload: {trace: trace.csv}\n"
                                    "cache: {capacity: 2MiB}\npolicies: " + policies + "\n");
    const ScenarioDocument doc = ScenarioDocument::from_file(dir_ / "s.yaml");
    return doc.resolve(doc.points().front());
  }
  test::TempDir dir_;
};

TEST_F(PolicyEntryTest, AdmissionIsResolvedLabelledAndReachesTheEngine) {
  const Scenario s = resolve("[lru, {impl: arc, admission: {impl: adaptsize, c: 1MiB}}, {impl: lru, admission: doorkeeper}]");
  ASSERT_EQ(s.policies.size(), 3u);
  EXPECT_EQ(s.policies[0].label(), "lru");
  EXPECT_EQ(s.policies[1].label(), "arc+admit:adaptsize(c=1MiB)");
  EXPECT_EQ(s.policies[2].label(), "lru+admit:doorkeeper");
  EXPECT_EQ(s.engine_config(0, 1024).cache.admission.impl, "always");
  const EngineConfig c = s.engine_config(1, 1024);
  EXPECT_EQ(c.cache.admission.impl, "adaptsize");
  EXPECT_EQ(c.cache.admission.params.at("c"), "1MiB");     // as written; the factory parses it
  EXPECT_EQ(c.cache.admission.params.at("seed"), "1");     // defaults filled in
  EXPECT_EQ(s.engine_config(2, 1024).cache.admission.params.at("window"), "100000");
}

TEST_F(PolicyEntryTest, BadAdmissionIsNamed) {
  EXPECT_NE(error_of<InputError>([&] { resolve("[{impl: lru, admission: {impl: nope}}]"); })
                .find("unknown admission policy 'nope'"),
            std::string::npos);
  EXPECT_NE(error_of<InputError>([&] { resolve("[{impl: lru, admission: {impl: adaptsize, cc: 1}}]"); })
                .find("policies.0.admission"),
            std::string::npos);
  EXPECT_NE(error_of<InputError>([&] { resolve("[{impl: lru, admission: [always]}]"); })
                .find("or an admission policy name"),
            std::string::npos);
  EXPECT_NE(error_of<InputError>([&] { resolve("[{impl: as_recorded, admission: always}]", "program"); })
                .find("it takes no parameters, prefetch or admission"),
            std::string::npos);
}

TEST(PolicyEntryCli, ModelAwareRefusalsAndIntermediateTiers) {
  test::TempDir dir;
  const std::string mini = std::string(FLASHSIM_SOURCE_DIR) + "/scenarios/examples/mixtral-mini-experts.yaml";
  const std::string sample = std::string(FLASHSIM_SOURCE_DIR) + "/scenarios/examples/libcachesim-cloudphysics.yaml";
  int n = 0;  // a results folder per run
  auto run = [&](const std::string& args) {
    return test::run_flashsim(dir.path(), "run --no-progress --out r" + std::to_string(n++) + " " + args);
  };
  // A next layer beyond the model's 8.
  auto o = run(mini + " --set 'policies=[{impl: lru, prefetch: [{impl: expert_speculative, layers_ahead: 8}]}]'");
  EXPECT_EQ(o.code, 2);
  EXPECT_NE(o.err.find("layers_ahead 8 reaches past the model's 8 expert layers"), std::string::npos) << o.err;
  // A per-layer share of a trace without weights (the libCacheSim sample).
  if (!test::shared_path("traces/libcachesim/cloudPhysicsIO.oracleGeneral.bin").empty()) {
    o = run(sample + " --set 'policies=[{impl: static_fraction, weight_fraction: 0.5}]' --set 'sweep={}'");
    EXPECT_EQ(o.code, 2);
    EXPECT_NE(o.err.find("static_fraction: the trace's catalog names no weight block"), std::string::npos) << o.err;
  }
  // activation_aware as the DRAM tier's policy of a three-tier profile.
  o = run(mini + " --set hardware.profile=h200-dram-nvme --set hardware.tiers.1.policy=activation_aware "
                 "--set 'policies=[lru]'");
  EXPECT_EQ(o.code, 0) << o.err;
  // A middle tier's refusal names the tier, not the run's policy.
  o = run(mini + " --set hardware.profile=h200-dram-nvme --set 'hardware.tiers.1.policy={impl: resident_first, layers: 8}' "
                 "--set hardware.tiers.1.capacity=1MB --set 'policies=[lru]'");
  EXPECT_EQ(o.code, 2);
  EXPECT_NE(o.err.find("hardware.tiers.1.policy 'resident_first'"), std::string::npos) << o.err;
}

}  // namespace
}  // namespace flashsim
