// Scenario files: units, defaults, hardware profiles, and every class of bad
// input naming file:line:column and the dotted key.
#include <gtest/gtest.h>

#include "sim/cache/pinning.h"
#include "sim/core/errors.h"
#include "sim/run/scenario_runner.h"
#include "sim/scenario/embedded_files.h"
#include "sim/scenario/hardware_loader.h"
#include "sim/scenario/scenario_document.h"
#include "tests/app/app_test_util.h"
#include "tests/support/temp_dir.h"

namespace flashsim {
namespace {

using test::error_of;
using test::write_file;

class ScenarioTest : public ::testing::Test {
 protected:
  void SetUp() override { write_file(dir_ / "trace.csv", test::cyclic_csv(3, 2, 1024)); }

  /// Writes `text` as s.yaml and resolves its first sweep point.
  Scenario resolve(const std::string& text, const std::vector<Override>& overrides = {}) {
    write_file(file(), text);
    const ScenarioDocument doc = ScenarioDocument::from_file(file(), overrides);
    return doc.resolve(doc.points().front());
  }
  std::string file() const { return (dir_ / "s.yaml").string(); }

  test::TempDir dir_;
};

constexpr const char* kBase =
    "name: t\n"                    // 1
    "hardware:\n"                  // 2
    "  profile: seed-defaults\n"   // 3
    "workload:\n"                  // 4
    "  trace: trace.csv\n"         // 5
    "cache:\n"                     // 6
    "  capacity: 2MiB\n"           // 7
    "policies:\n"                  // 8
    "  - impl: lru\n";             // 9

TEST_F(ScenarioTest, UnitsAreParsedThroughTheScenario) {
  const Scenario s = resolve(
      "hardware:\n"
      "  miss_penalty: 142ns\n"
      "  tiers:\n"
      "    - {name: hbm, hit_latency: 336ns}\n"
      "    - {name: host, link: {latency: 4.5us, bandwidth: 55GB/s, sharing: fair}}\n"
      "  contention: {ns_per_mib: 4.3, baseline: 1GiB}\n"
      "workload: {trace: trace.csv, gap: 2us}\n"
      "cache: {capacity: 2MiB}\n"
      "policies: [lru]\n");
  EXPECT_EQ(s.hardware.miss_penalty_ns, 142);
  ASSERT_EQ(s.hardware.tiers.size(), 2u);
  EXPECT_EQ(s.hardware.tiers[0].hit_latency_ns, 336);
  EXPECT_EQ(s.hardware.tiers[1].link_to_faster.latency_ns, 4500);
  EXPECT_DOUBLE_EQ(s.hardware.tiers[1].link_to_faster.bandwidth, 55e9);
  EXPECT_EQ(s.hardware.tiers[1].link_to_faster.sharing, LinkSharing::fair);
  EXPECT_DOUBLE_EQ(s.hardware.contention.ns_per_mib, 4.3);
  EXPECT_EQ(s.hardware.contention.baseline_bytes, kGiB);
  EXPECT_EQ(s.workload.gap_ns, 2000);
  EXPECT_FALSE(s.cache.capacity.is_fraction);
  EXPECT_EQ(s.cache.capacity.bytes, 2 * kMiB);
  EXPECT_EQ(s.cache.capacity.resolve(123), 2 * kMiB);
}

TEST_F(ScenarioTest, PercentCapacityIsAShareOfTheFootprint) {
  const Scenario s = resolve(std::string(kBase), {parse_override("cache.capacity=50%")});
  EXPECT_TRUE(s.cache.capacity.is_fraction);
  EXPECT_DOUBLE_EQ(s.cache.capacity.fraction, 0.5);
  EXPECT_EQ(s.cache.capacity.resolve(3000), 1500u);
  EXPECT_EQ(s.cache.capacity.resolve(3001), 1500u);  // floor
  EXPECT_EQ(resolve(kBase, {parse_override("cache.capacity=12.5%")}).cache.capacity.resolve(800), 100u);
}

TEST_F(ScenarioTest, DefaultsAreFilledIn) {
  const Scenario s = resolve(kBase);
  EXPECT_EQ(s.name, "t");
  EXPECT_EQ(s.engine.impl, "event");
  EXPECT_EQ(s.decision_clock, DecisionClock::trace);
  EXPECT_EQ(s.seed, 1u);
  EXPECT_EQ(s.outputs.dir, "flashsim-results/t");
  EXPECT_EQ(s.outputs.window_ns, 10 * kNsPerMs);
  EXPECT_EQ(s.workload.format, "csv");
  EXPECT_EQ(s.workload.issue, IssueMode::closed);
  EXPECT_EQ(s.cache.allocator.impl, "bytes");
  ASSERT_EQ(s.policies.size(), 1u);
  EXPECT_EQ(s.policies[0].choice.impl, "lru");
  EXPECT_EQ(s.policies[0].label(), "lru");
  // The seed's figures come from the built-in profile.
  EXPECT_EQ(s.hardware.name, "seed-defaults");
  EXPECT_EQ(s.hardware.miss_penalty_ns, 142);
  EXPECT_DOUBLE_EQ(s.hardware.contention.ns_per_mib, 4.3);
}

TEST_F(ScenarioTest, PolicyParamsAreResolvedAndLabelled) {
  const Scenario s = resolve(std::string(kBase) + "  - {impl: mlru, age_window: 100ms, reading: literal}\n");
  ASSERT_EQ(s.policies.size(), 2u);
  const PolicyChoice& m = s.policies[1];
  EXPECT_EQ(m.choice.params.at("age_window"), "100ms");
  EXPECT_EQ(m.choice.params.at("history"), "100");  // default filled in
  EXPECT_EQ(m.label(), "mlru(age_window=100ms,reading=literal)");
}

TEST_F(ScenarioTest, ScalarPolicyShorthand) {
  const Scenario s = resolve(
      "workload: {trace: trace.csv}\ncache: {capacity: 1MiB}\npolicies: [lru, arc, belady]\n");
  ASSERT_EQ(s.policies.size(), 3u);
  EXPECT_EQ(s.policies[2].choice.impl, "belady");
}

// --- errors: each names FILE:LINE:COLUMN and the dotted key ---

TEST_F(ScenarioTest, UnknownKeyNamesPositionAndSuggests) {
  std::string text = kBase;
  text.replace(text.find("  capacity: 2MiB"), 16, "  capcity: 2MiB");
  const std::string msg = error_of<InputError>([&] { resolve(text); });
  EXPECT_NE(msg.find(file() + ":7:3: key 'cache.capcity': unknown key (did you mean 'capacity'?)"), std::string::npos)
      << msg;
}

TEST_F(ScenarioTest, UnknownTopLevelKey) {
  const std::string msg = error_of<InputError>([&] { resolve(std::string(kBase) + "polices: []\n"); });
  EXPECT_NE(msg.find(file() + ":10:1: key 'polices': unknown key (did you mean 'policies'?)"), std::string::npos)
      << msg;
}

TEST_F(ScenarioTest, WrongTypeNamesPosition) {
  std::string text = kBase;
  text.replace(text.find("policies:\n  - impl: lru\n"), 24, "policies: lru\n");
  const std::string msg = error_of<InputError>([&] { resolve(text); });
  EXPECT_NE(msg.find(file() + ":8:11: key 'policies': wrong type: expected a list, got a scalar"), std::string::npos)
      << msg;
}

TEST_F(ScenarioTest, WrongTypeForAParameter) {
  const std::string msg =
      error_of<InputError>([&] { resolve(std::string(kBase) + "  - {impl: mlru, age_window: [1, 2]}\n"); });
  EXPECT_NE(msg.find(file() + ":10:30: key 'policies.1.age_window': wrong type: expected a duration"),
            std::string::npos)
      << msg;
}

TEST_F(ScenarioTest, BadUnitIsAUnitErrorNamingPosition) {
  std::string text = kBase;
  text.replace(text.find("2MiB"), 4, "2 parsecs");
  const std::string msg = error_of<UnitError>([&] { resolve(text); });
  EXPECT_NE(msg.find(file() + ":7:13: key 'cache.capacity': "), std::string::npos) << msg;
  EXPECT_NE(msg.find("parsecs"), std::string::npos) << msg;
}

TEST_F(ScenarioTest, BadUnitInHardwareOverride) {
  std::string text = kBase;
  text.replace(text.find("  profile: seed-defaults\n"), 25, "  profile: seed-defaults\n  miss_penalty: 142 furlongs\n");
  const std::string msg = error_of<UnitError>([&] { resolve(text); });
  EXPECT_NE(msg.find(file() + ":4:17: key 'hardware.miss_penalty': "), std::string::npos) << msg;
}

TEST_F(ScenarioTest, BadUnitInALinkBandwidth) {
  const std::string msg = error_of<UnitError>([&] {
    resolve(
        "hardware:\n"
        "  tiers:\n"
        "    - {name: hbm}\n"
        "    - name: host\n"
        "      link: {bandwidth: 55 GB per second}\n"
        "workload: {trace: trace.csv}\ncache: {capacity: 1MiB}\npolicies: [lru]\n");
  });
  EXPECT_NE(msg.find(file() + ":5:25: key 'hardware.tiers.1.link.bandwidth': "), std::string::npos) << msg;
}

TEST_F(ScenarioTest, UnknownPolicyIsAnUnknownNameError) {
  std::string text = kBase;
  text.replace(text.find("impl: lru"), 9, "impl: lur");
  const std::string msg = error_of<UnknownNameError>([&] { resolve(text); });
  EXPECT_NE(msg.find(file() + ":9:11: key 'policies.0.impl': unknown policy 'lur' (did you mean 'lru'?)"),
            std::string::npos)
      << msg;
  EXPECT_NE(msg.find("registered: "), std::string::npos) << msg;
}

TEST_F(ScenarioTest, UnknownPolicyParam) {
  const std::string msg =
      error_of<InputError>([&] { resolve(std::string(kBase) + "  - {impl: mlru, age_windw: 100ms}\n"); });
  EXPECT_NE(msg.find(file() + ":10:18: key 'policies.1.age_windw': unknown key (did you mean 'age_window'?)"),
            std::string::npos)
      << msg;
}

TEST_F(ScenarioTest, OutOfRangeAndBadChoice) {
  std::string msg = error_of<InputError>([&] { resolve(std::string(kBase) + "  - {impl: mlru, history: 0}\n"); });
  EXPECT_NE(msg.find(file() + ":10:27: key 'policies.1.history': value '0' out of range [1, 1000]"),
            std::string::npos)
      << msg;
  msg = error_of<InputError>([&] { resolve(std::string(kBase) + "  - {impl: mlru, reading: intnet}\n"); });
  EXPECT_NE(msg.find("key 'policies.1.reading': 'intnet' is not one of intent, literal (did you mean 'intent'?)"),
            std::string::npos)
      << msg;
}

TEST_F(ScenarioTest, MissingSectionsAreNamed) {
  const std::string msg = error_of<InputError>([&] { resolve("workload: {trace: trace.csv}\npolicies: [lru]\n"); });
  EXPECT_NE(msg.find("missing key 'cache'"), std::string::npos) << msg;
  const std::string msg2 = error_of<InputError>(
      [&] { resolve("workload: {trace: nowhere.csv}\ncache: {capacity: 1MiB}\npolicies: [lru]\n"); });
  EXPECT_NE(msg2.find(file() + ":1:19: key 'workload.trace': trace file not found"), std::string::npos) << msg2;
}

TEST_F(ScenarioTest, YamlSyntaxErrorNamesPosition) {
  const std::string msg = error_of<InputError>([&] { resolve("cache: {capacity: 1MiB\npolicies: [lru]\n"); });
  EXPECT_NE(msg.find(file() + ":"), std::string::npos) << msg;
  EXPECT_NE(msg.find("YAML syntax error"), std::string::npos) << msg;
}

TEST_F(ScenarioTest, RepeatedKeyIsAnError) {
  const std::string msg = error_of<InputError>([&] { resolve(std::string(kBase) + "name: again\n"); });
  EXPECT_NE(msg.find(file() + ":10:1: key 'name': repeated in the same map"), std::string::npos) << msg;
}

TEST_F(ScenarioTest, ImporterOptionsAreChecked) {
  std::string text = kBase;
  text.replace(text.find("  trace: trace.csv\n"), 19, "  trace: trace.csv\n  import: {delimter: ';'}\n");
  const std::string msg = error_of<InputError>([&] { resolve(text); });
  EXPECT_NE(msg.find(file() + ":6:12: key 'workload.import.delimter': unknown key (did you mean 'delimiter'?)"),
            std::string::npos)
      << msg;
}

TEST_F(ScenarioTest, ErrorInAProfileFileNamesThatFile) {
  write_file(dir_ / "mine.yaml",
             "name: mine\n"
             "tiers:\n"
             "  - {name: hbm, hit_latncy: 1ns}\n"
             "  - {name: host}\n");
  std::string text = kBase;
  text.replace(text.find("seed-defaults"), 13, "mine.yaml");
  const std::string msg = error_of<InputError>([&] { resolve(text); });
  EXPECT_NE(msg.find((dir_ / "mine.yaml").string() + ":3:17: key 'hardware.tiers.0.hit_latncy': unknown key"),
            std::string::npos)
      << msg;
}

// --- hardware profiles ---

TEST_F(ScenarioTest, ProfileOverridesMergeKeyByKey) {
  std::string text = kBase;
  text.replace(text.find("  profile: seed-defaults\n"), 25,
               "  profile: h200\n"
               "  tiers:\n"
               "    - {}\n"
               "    - link: {bandwidth: 6.1GB/s}\n");
  const Scenario s = resolve(text);
  EXPECT_EQ(s.hardware.name, "h200");
  EXPECT_DOUBLE_EQ(s.hardware.tiers[1].link_to_faster.bandwidth, 6.1e9);
  EXPECT_EQ(s.hardware.tiers[1].link_to_faster.latency_ns, 4660);  // kept from the profile
  EXPECT_EQ(s.hardware.tiers[0].hit_latency_ns, 336);
}

TEST_F(ScenarioTest, ProfileInheritance) {
  write_file(dir_ / "slow.yaml", "profile: h200\nname: slow\nmiss_penalty: 1us\n");
  std::string text = kBase;
  text.replace(text.find("seed-defaults"), 13, "slow");  // found as slow.yaml beside the scenario
  const Scenario s = resolve(text);
  EXPECT_EQ(s.hardware.name, "slow");
  EXPECT_EQ(s.hardware.miss_penalty_ns, 1000);
  EXPECT_EQ(s.hardware.l2.capacity_bytes, 60 * kMiB);
}

TEST(HardwareProfiles, H200FromSharedHwNotes) {
  const HardwareProfile h = load_hardware_profile("builtin:h200");
  EXPECT_EQ(h.miss_penalty_ns, 0);  // the seed's 142 ns stays in seed-defaults.yaml
  ASSERT_EQ(h.tiers.size(), 2u);
  EXPECT_EQ(h.tiers[0].name, "hbm");
  EXPECT_EQ(h.tiers[0].hit_latency_ns, 336);
  EXPECT_EQ(h.tiers[1].link_to_faster.latency_ns, 4660);
  EXPECT_DOUBLE_EQ(h.tiers[1].link_to_faster.bandwidth, 55.23e9);
  EXPECT_EQ(h.tlb.entries, 32768u);
  EXPECT_EQ(h.tlb.page_bytes, 2 * kMiB);
  EXPECT_EQ(h.tlb.entries * h.tlb.page_bytes, 64 * kGiB);  // the measured reach
  EXPECT_EQ(h.tlb.miss_penalty_ns, 50);
  EXPECT_EQ(h.l2.capacity_bytes, 62'914'560u);
  EXPECT_EQ(h.l2.line_bytes, 128u);
  EXPECT_EQ(h.l2.sector_bytes, 32u);
  EXPECT_EQ(h.l2.hit_latency_ns, 147);
  EXPECT_DOUBLE_EQ(h.contention.ns_per_mib, 0.0);
  // The link fit reproduces the measured pinned copies within 3%.
  const std::vector<std::pair<ByteCount, double>> measured_us = {
      {256, 4.54}, {4096, 4.77}, {65536, 5.98}, {262144, 9.44}, {kMiB, 23.62}, {4 * kMiB, 80.26},
      {16 * kMiB, 307.5}, {256 * kMiB, 4870}};
  for (const auto& [bytes, us] : measured_us) {
    const double model_us =
        (h.tiers[1].link_to_faster.latency_ns + transfer_time_ns(bytes, h.tiers[1].link_to_faster.bandwidth)) / 1e3;
    EXPECT_NEAR(model_us / us, 1.0, 0.03) << bytes << " B";
  }
}

TEST(HardwareProfiles, SeedDefaultsAndPageable) {
  const HardwareProfile seed = load_hardware_profile("seed-defaults");
  EXPECT_EQ(seed.miss_penalty_ns, 142);
  EXPECT_DOUBLE_EQ(seed.contention.ns_per_mib, 4.3);
  EXPECT_EQ(seed.tlb.entries, 0u);
  const HardwareProfile pageable = load_hardware_profile("builtin:h200-pageable");
  EXPECT_EQ(pageable.name, "h200-pageable");
  EXPECT_DOUBLE_EQ(pageable.tiers[1].link_to_faster.bandwidth, 9.4e9);
  EXPECT_EQ(pageable.tiers[0].hit_latency_ns, 336);  // inherited from h200
  const std::string msg = error_of<InputError>([] { load_hardware_profile("h300"); });
  EXPECT_NE(msg.find("hardware profile 'h300' not found"), std::string::npos) << msg;
  EXPECT_NE(msg.find("h200"), std::string::npos) << msg;
}

TEST(HardwareProfiles, AreEmbedded) {
  for (const char* name : {"h200", "seed-defaults", "h200-pageable"}) {
    EXPECT_NE(find_embedded_hardware(name), nullptr) << name;
  }
  EXPECT_NE(find_embedded_file("default.yaml"), nullptr);
}

// --- the resolved scenario as text ---

TEST_F(ScenarioTest, ResolvedTextReloadsToTheSameScenario) {
  const Scenario s = resolve(std::string(kBase) + "  - {impl: mlru, age_window: 100ms}\n");
  const std::string text = to_yaml_text(s.resolved);
  write_file(dir_ / "again.yaml", text);
  const ScenarioDocument again = ScenarioDocument::from_file(dir_ / "again.yaml");
  const Scenario s2 = again.resolve(again.points().front());
  EXPECT_EQ(to_yaml_text(s2.resolved), text);
  EXPECT_EQ(s2.hardware.miss_penalty_ns, 142);
  EXPECT_NE(text.find("miss_penalty: 142ns"), std::string::npos) << text;
  EXPECT_NE(text.find("history: 100"), std::string::npos) << text;
}

// --- command-line overrides ---

TEST_F(ScenarioTest, OverridesByDottedPath) {
  const Scenario s = resolve(kBase, {parse_override("cache.capacity=1GiB"), parse_override("policies.0.impl=arc"),
                                     parse_override("policies.1={impl: mlru, history: 7}"),
                                     parse_override("hardware.tlb.entries=16"), parse_override("seed=42")});
  EXPECT_EQ(s.cache.capacity.bytes, kGiB);
  ASSERT_EQ(s.policies.size(), 2u);
  EXPECT_EQ(s.policies[0].choice.impl, "arc");
  EXPECT_EQ(s.policies[1].choice.params.at("history"), "7");
  EXPECT_EQ(s.hardware.tlb.entries, 16u);
  EXPECT_EQ(s.seed, 42u);
}

TEST_F(ScenarioTest, AnEnginesOptionsAsOneSetTextParseBackToTheSameTexts) {
  // Values with YAML's own characters stay text: a prefetcher's parameter list, quotes, a backslash.
  const std::string text =
      engine_set_text("program", {{"skip_steps", "2"}, {"host_memory", "pinned"}, {"note", "a, b: {c}\\ \"d\""}});
  EXPECT_EQ(text, "engine={impl: program, skip_steps: \"2\", host_memory: \"pinned\", note: \"a, b: {c}\\\\ \\\"d\\\"\"}");
  const Override o = parse_override(text);
  EXPECT_EQ(o.path, "engine");
  ASSERT_TRUE(o.value.is_map());
  EXPECT_EQ(o.value.find("impl")->scalar, "program");
  EXPECT_EQ(o.value.find("skip_steps")->scalar, "2");
  EXPECT_EQ(o.value.find("note")->scalar, "a, b: {c}\\ \"d\"");
  // And the engine reads them as its parameters.
  const Scenario s = resolve(kBase, {parse_override(engine_set_text("program", {{"skip_steps", "3"}}))});
  EXPECT_EQ(s.engine.impl, "program");
  EXPECT_EQ(s.engine.params.at("skip_steps"), "3");
}

TEST_F(ScenarioTest, OverrideReachesIntoAProfilesTierList) {
  std::string text = kBase;
  text.replace(text.find("seed-defaults"), 13, "h200");
  const Scenario s = resolve(text, {parse_override("hardware.tiers.1.link.bandwidth=6.1GB/s")});
  ASSERT_EQ(s.hardware.tiers.size(), 2u);
  EXPECT_DOUBLE_EQ(s.hardware.tiers[1].link_to_faster.bandwidth, 6.1e9);
  EXPECT_EQ(s.hardware.tiers[1].link_to_faster.latency_ns, 4660);  // the rest of the profile stays
  EXPECT_EQ(s.hardware.tiers[0].hit_latency_ns, 336);
}

TEST_F(ScenarioTest, CrossParameterChecksNamePosition) {
  std::string text = kBase;
  text.replace(text.find("  profile: seed-defaults\n"), 25, "  profile: seed-defaults\n  l2: {line_size: 100B}\n");
  const std::string msg = error_of<InputError>([&] { resolve(text); });
  EXPECT_NE(msg.find(file() + ":4:7: key 'hardware.l2': l2: line_size (100 B) must be a multiple"), std::string::npos)
      << msg;
}

TEST_F(ScenarioTest, OverrideErrorsNameTheOption) {
  std::string msg = error_of<UnitError>([&] { resolve(kBase, {parse_override("cache.capacity=2 parsecs")}); });
  EXPECT_NE(msg.find("--set cache.capacity=2 parsecs: key 'cache.capacity'"), std::string::npos) << msg;
  msg = error_of<InputError>([&] { resolve(kBase, {parse_override("name.x=1")}); });
  EXPECT_NE(msg.find("key 'name.x': 'name' is the scalar"), std::string::npos) << msg;
  EXPECT_NE(msg.find("which holds no key 'x'"), std::string::npos) << msg;
  // A component named alone: the message says how to give it keys.
  msg = error_of<InputError>([&] { resolve(std::string(kBase) + "engine: cache_only\n", {parse_override("engine.x=1")}); });
  EXPECT_NE(msg.find("'engine' is the scalar 'cache_only', which holds no key 'x'; if it names a component, write it "
                     "as a map with its keys (in the file: engine: {impl: cache_only}; or --set 'engine={impl: "
                     "cache_only, x: ...}')"),
            std::string::npos)
      << msg;
  msg = error_of<InputError>([&] { resolve(kBase, {parse_override("policies.5.impl=lru")}); });
  EXPECT_NE(msg.find("index 5 is beyond the list's 1 elements"), std::string::npos) << msg;
  msg = error_of<InputError>([] { parse_override("novalue"); });
  EXPECT_NE(msg.find("expected KEY=VALUE"), std::string::npos) << msg;
}

}  // namespace
}  // namespace flashsim

namespace flashsim {
namespace {

using test::resolve_error;

class SizeKeysTest : public ::testing::Test {
 protected:
  /// The error resolving a cache-only scenario whose `cache` map holds `cache`.
  std::string error_for(const std::string& cache) {
    return resolve_error(dir_.path(), "name: t\nengine: {impl: cache_only}\nworkload: {trace: trace.csv}\ncache: {" + cache +
                                          "}\npolicies: [lru]\n");
  }
  test::TempDir dir_;
};

// cache.ignore_sizes: a capacity is a count of blocks or a share; nothing
// that places or splits bytes combines with it; near misses get a hint.
TEST_F(SizeKeysTest, IgnoreSizesRefusesWhatCountsBytes) {
  EXPECT_EQ(error_for("capacity: 4897, ignore_sizes: true"), "");
  EXPECT_EQ(error_for("capacity: 10%, ignore_sizes: true"), "");
  EXPECT_NE(error_for("capacity: 2MiB, ignore_sizes: true").find("s.yaml:4:"), std::string::npos);
  EXPECT_NE(error_for("capacity: 2MiB, ignore_sizes: true").find("a number of blocks"), std::string::npos);
  EXPECT_NE(error_for("capacity: 10, ignore_sizes: true, allocator: first_fit").find("needs cache.allocator bytes"),
            std::string::npos);
  EXPECT_NE(error_for("capacity: 10, ignore_sizes: true, granularity: 1KiB").find("cache.granularity"),
            std::string::npos);
  EXPECT_NE(error_for("capacity: 10, ignore_sizes: True").find("did you mean 'true'"), std::string::npos);
  EXPECT_NE(error_for("capacity: 10, size_change: hitt").find("did you mean 'hit'"), std::string::npos);
  EXPECT_NE(error_for("capacity: 10, size_change: HIT").find("did you mean 'hit'"), std::string::npos);
}

// Pins count blocks when sizes are ignored: two pinned catalog blocks fit a
// capacity of 2 and leave the policy 1 (nothing), whatever their bytes.
TEST(IgnoreSizesPins, PinsCountOneEach) {
  TraceMeta meta;
  meta.source = "pins";
  meta.catalog.resize(3);
  for (std::size_t i = 0; i < 3; ++i) {
    meta.catalog[i].id = i;
    meta.catalog[i].bytes = 1'000'000;
  }
  PinSpec spec;
  spec.blocks = {0, 1};
  EXPECT_EQ(resolve_pins(spec, meta, 2, true).catalog_bytes, 2u);
  EXPECT_THROW(resolve_pins(spec, meta, 2, false), InputError);
  try {
    (void)resolve_pins(spec, meta, 1, true);
    ADD_FAILURE() << "no error";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("2 blocks"), std::string::npos) << e.what();
  }
}


// A name that is not UTF-8 is refused when the scenario is read (summary.json
// could not hold it), naming the key and line; well-formed UTF-8 passes.
TEST(ScenarioText, NameMustBeUtf8) {
  test::TempDir dir;
  auto error = [&](const std::string& name) {
    return resolve_error(dir.path(), "name: " + name + "\nworkload: {trace: trace.csv}\ncache: {capacity: 1MiB}\n"
                                                        "policies: [lru]\n");
  };
  EXPECT_EQ(error("caf\xC3\xA9-\xE6\xB5\x8B"), "");
  const std::string bad = error("ab\xFF\xFE");
  EXPECT_NE(bad.find("s.yaml:1:"), std::string::npos) << bad;
  EXPECT_NE(bad.find("not valid UTF-8 (byte 2"), std::string::npos) << bad;
  EXPECT_NE(error("x\xC0\xAF").find("not valid UTF-8"), std::string::npos);  // overlong '/'
  EXPECT_NE(error("x\xED\xA0\x80").find("not valid UTF-8"), std::string::npos);  // a surrogate
}


// What only the event engine models is refused under engine: cache_only,
// naming the key; pins and the tier's own statistics reach cache-only results.
TEST(CacheOnlyEngine, RefusesEventOnlyKeysAndReportsTheTier) {
  test::TempDir dir;
  auto error = [&](const std::string& extra) {
    return resolve_error(dir.path(), "name: t\nengine: {impl: cache_only}\nworkload: {trace: trace.csv}\n"
                                     "cache: {capacity: 1MiB}\npolicies: [lru]\n" + extra);
  };
  EXPECT_EQ(error(""), "");
  EXPECT_NE(error("prefetch: [{impl: lookahead}]\n").find("s.yaml:6:"), std::string::npos);
  EXPECT_NE(error("prefetch: [{impl: lookahead}]\n").find("key 'prefetch': engine 'cache_only' does not use it (used by: event)"),
            std::string::npos);

  TraceMeta meta;
  meta.source = "pins";
  std::vector<AccessRecord> records;
  for (std::uint64_t k = 0; k < 6; ++k) {
    AccessRecord r;
    r.block_id = k % 3;
    r.bytes = 100;
    records.push_back(r);
  }
  MemoryTraceSource trace(meta, records);
  EngineConfig config;
  config.cache.capacity_bytes = 300;
  config.cache.pinned.blocks = {0};
  const EngineResult r = run_with_engine(trace, config, ComponentChoice{"cache_only", {}}, EngineContext{});
  EXPECT_EQ(r.pinned_bytes, 100u);
  EXPECT_EQ(r.slot_reserved_peak_bytes, 300u);
  EXPECT_EQ(r.metrics.total.hits, 3u);
  ASSERT_FALSE(r.components.rows.empty());
  EXPECT_EQ(r.components.rows.front().component, "tier.fast");
}

}  // namespace
}  // namespace flashsim
