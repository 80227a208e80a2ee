// calibrate --fit recovers known parameters: a "hardware" baseline made by
// the simulator itself under a profile with known link latency, bandwidth
// and per-access cost; the fit, started from different values, must find
// them and bring the held-out error to ~0.
#include <gtest/gtest.h>

#include <fstream>

#include "sim/scenario/hardware_loader.h"
#include "sim/validate/profile_fit.h"
#include "tests/support/temp_dir.h"

namespace flashsim {
namespace {

void write(const std::filesystem::path& p, const std::string& text) { std::ofstream(p) << text; }

const char* kProfile = R"(name: start
tiers:
  - name: hbm
    capacity: 80GiB
    hit_latency: 500ns
  - name: host
    capacity: 0B
    link:
      latency: 3us
      bandwidth: 60GB/s
)";

const char* kScenario = R"(name: fit-tiny
workload:
  generator: synthetic
  pattern: zipf
  block_bytes: 64KiB
  blocks: 128
  tokens: 3
  compute: 5us
cache:
  capacity: 50%
policies:
  - impl: lru
)";

TEST(ProfileFit, RecoversKnownParametersAndReportsHeldOutError) {
  test::TempDir dir;
  write(dir / "start.yaml", kProfile);
  write(dir / "tiny.yaml", kScenario);
  write(dir / "s.yaml", R"(name: fit-suite
profile: start.yaml
baseline: base.json
metrics:
  time_per_token_ns: {kind: relative, tolerance: 5%, floor: 1us}
  stall_ns: {kind: relative, tolerance: 5%, floor: 1us}
entries:
  - {name: a, role: fit, scenario: tiny.yaml, set: {workload.block_bytes: 4KiB}}
  - {name: b, role: fit, scenario: tiny.yaml, set: {workload.block_bytes: 1MiB}}
  - {name: c, role: fit, scenario: tiny.yaml, set: {workload.block_bytes: 16MiB, workload.blocks: 32}}
  - {name: d, role: fit, scenario: tiny.yaml, set: {cache.capacity: 20%}}
  - {name: e, scenario: tiny.yaml, set: {workload.block_bytes: 256KiB, cache.capacity: 70%}}
  - {name: f, scenario: tiny.yaml, set: {workload.pattern: scan, workload.block_bytes: 2MiB}}
)");
  const ValidationSuite suite = load_validation_suite(dir / "s.yaml");
  // The "hardware": latency 4.7 us, 53.6 GB/s, 2 us per access.
  const std::vector<Override> truth = {
      {"hardware.tiers.1.link.latency", ConfigNode::make_scalar("4700ns")},
      {"hardware.tiers.1.link.bandwidth", ConfigNode::make_scalar("53.6GB/s")},
      {"hardware.tiers.0.hit_latency", ConfigNode::make_scalar("2000ns")}};
  Baseline b;
  b.suite = suite.name;
  b.provenance.commit = std::string(40, 'b');
  b.provenance.date_utc = "2026-11-30T09:00:00Z";
  b.provenance.device = {"NVIDIA H200", "GPU-00000000-0000-0000-0000-000000000000", "570.1", 13000, "", 1980, 3201, 0, 0, 0, "nvml"};
  b.provenance.profile_name = "start";
  b.provenance.profile_text = kProfile;
  b.provenance.profile_fingerprint = content_fingerprint(kProfile);
  b.provenance.repeats = 5;
  for (const SuiteEntry& e : suite.entries) {
    const SimulatedEntry s = simulate_entry(suite, e, truth);
    BaselineEntry be;
    be.name = e.name;
    be.scenario_fingerprint = suite_entry_fingerprint(suite, e);
    for (const auto& [name, v] : metrics_of(s.run, s.tokens)) be.metrics.emplace(name, summarize_repeats({v, v, v, v, v}));
    b.entries.push_back(be);
  }
  write_baseline(dir / "base.json", b);

  FitOptions o;
  o.parameters = {"link_latency", "link_bandwidth", "hit_latency"};
  o.jobs = 2;
  const FitResult r = fit_profile(suite, o, nullptr);
  ASSERT_EQ(r.parameters.size(), 3u);
  EXPECT_NEAR(r.parameters[0].fitted, 4700.0, 4700.0 * 0.02) << r.status;
  EXPECT_NEAR(r.parameters[1].fitted, 53.6e9, 53.6e9 * 0.02) << r.status;
  EXPECT_NEAR(r.parameters[2].fitted, 2000.0, 2000.0 * 0.02) << r.status;
  EXPECT_LT(r.rms_after, 0.01);
  EXPECT_GT(r.rms_before, 0.05);
  ASSERT_EQ(r.fit_entries.size(), 4u);
  ASSERT_EQ(r.holdout_entries.size(), 2u);
  for (const FitError& e : r.errors) {
    EXPECT_GT(e.mae_pct_before, 1.0) << e.metric << " " << e.role;
    EXPECT_LT(e.mae_pct_after, 1.0) << e.metric << " " << e.role;
  }
  // The profile written inherits the suite's and reads back.
  const std::string y = fitted_profile_yaml(suite, r, "fitted", dir / "out" / "fitted.yaml");
  EXPECT_NE(y.find("profile: ../start.yaml\n"), std::string::npos) << y;  // the file fitted from, not any "start"
  std::filesystem::create_directories(dir / "out");
  write(dir / "out" / "fitted.yaml", y);
  const HardwareProfile loaded = load_hardware_profile((dir / "out" / "fitted.yaml").string());
  EXPECT_NEAR(static_cast<double>(loaded.tiers.at(0).hit_latency_ns), 2000.0, 40.0);
  // Writing over the suite, the start profile or a file calibrate did not write is refused.
  EXPECT_THROW(check_fit_output(suite, dir / "s.yaml"), InputError);
  EXPECT_THROW(check_fit_output(suite, dir / "start.yaml"), InputError);
  EXPECT_THROW(check_fit_output(suite, dir / "tiny.yaml"), InputError);
  EXPECT_NO_THROW(check_fit_output(suite, dir / "out" / "fitted.yaml"));
  EXPECT_THROW(check_profile_name("my: profile"), InputError);
  // A second fit starting from the first may not write over the first (its parent): no cycle.
  ValidationSuite second = suite;
  set_suite_profile(second, dir / "out" / "fitted.yaml");
  write(dir / "out" / "g.yaml", fitted_profile_yaml(second, r, "g", dir / "out" / "g.yaml"));
  ValidationSuite third = suite;
  set_suite_profile(third, dir / "out" / "g.yaml");
  EXPECT_THROW(check_fit_output(third, dir / "out" / "fitted.yaml"), InputError);
  EXPECT_THROW(check_fit_output(third, dir / "start.yaml"), InputError);
  EXPECT_NE(y.find("holdout (2)"), std::string::npos) << y;

  // Refusals: unknown parameter; a suite without fit entries.
  o.parameters = {"warp_speed"};
  EXPECT_THROW(fit_profile(suite, o, nullptr), InputError);
}

}  // namespace
}  // namespace flashsim
