// Sweeps: the cartesian product of dotted-path axes, its order and labels,
// and how --set interacts with it.
#include <gtest/gtest.h>

#include "sim/scenario/scenario_document.h"
#include "tests/app/app_test_util.h"
#include "tests/support/temp_dir.h"

namespace flashsim {
namespace {

using test::error_of;

class SweepTest : public ::testing::Test {
 protected:
  void SetUp() override { test::write_file(dir_ / "trace.csv", test::cyclic_csv(3, 2, 1024)); }
  ScenarioDocument load(const std::string& text, const std::vector<Override>& overrides = {}) {
    test::write_file(dir_ / "s.yaml", text);
    return ScenarioDocument::from_file(dir_ / "s.yaml", overrides);
  }
  test::TempDir dir_;
};

constexpr const char* kSwept =
    "workload: {trace: trace.csv}\n"
    "cache: {capacity: 1MiB}\n"
    "policies: [{impl: mlru}]\n"
    "sweep:\n"
    "  cache.capacity: [25%, 50%]\n"
    "  policies.0.age_window: [10ms, 100ms, 1s]\n";

TEST_F(SweepTest, RunWideKeysCannotBeSwept) {
  for (const char* key : {"name", "outputs.dir"}) {
    const std::string message = error_of<InputError>([&] {
      load(std::string("workload: {trace: trace.csv}\ncache: {capacity: 1MiB}\npolicies: [lru]\nsweep:\n  ") + key +
           ": [a, b]\n");
    });
    EXPECT_NE(message.find("cannot be swept"), std::string::npos) << message;
    EXPECT_NE(message.find(":5:"), std::string::npos) << message;  // the axis's line
  }
}

TEST_F(SweepTest, CartesianProductInNestedLoopOrder) {
  const ScenarioDocument doc = load(kSwept);
  const auto points = doc.points();
  ASSERT_EQ(points.size(), 6u);
  const std::vector<std::string> expected = {
      "cache.capacity=25% policies.0.age_window=10ms", "cache.capacity=25% policies.0.age_window=100ms",
      "cache.capacity=25% policies.0.age_window=1s",   "cache.capacity=50% policies.0.age_window=10ms",
      "cache.capacity=50% policies.0.age_window=100ms", "cache.capacity=50% policies.0.age_window=1s"};
  for (std::size_t i = 0; i < points.size(); ++i) {
    EXPECT_EQ(points[i].index, i);
    EXPECT_EQ(points[i].label(), expected[i]);
  }
  const Scenario s4 = doc.resolve(points[4]);
  EXPECT_DOUBLE_EQ(s4.cache.capacity.fraction, 0.5);
  EXPECT_EQ(s4.policies[0].choice.params.at("age_window"), "100ms");
}

TEST_F(SweepTest, NoSweepIsOnePoint) {
  const auto points = load("workload: {trace: trace.csv}\ncache: {capacity: 1MiB}\npolicies: [lru]\n").points();
  ASSERT_EQ(points.size(), 1u);
  EXPECT_TRUE(points[0].assignments.empty());
  EXPECT_EQ(points[0].label(), "");
}

TEST_F(SweepTest, ExpandSweepCounts) {
  std::vector<SweepAxis> axes(3);
  axes[0].path = "a";
  axes[1].path = "b";
  axes[2].path = "c";
  for (int i = 0; i < 2; ++i) axes[0].values.push_back(ConfigNode::make_scalar(std::to_string(i)));
  for (int i = 0; i < 3; ++i) axes[1].values.push_back(ConfigNode::make_scalar(std::to_string(i)));
  for (int i = 0; i < 4; ++i) axes[2].values.push_back(ConfigNode::make_scalar(std::to_string(i)));
  const auto points = expand_sweep(axes);
  ASSERT_EQ(points.size(), 24u);
  // Point index = a*12 + b*4 + c.
  for (const auto& p : points) {
    const std::size_t a = std::stoul(p.assignments[0].second.scalar);
    const std::size_t b = std::stoul(p.assignments[1].second.scalar);
    const std::size_t c = std::stoul(p.assignments[2].second.scalar);
    EXPECT_EQ(p.index, a * 12 + b * 4 + c);
  }
}

TEST_F(SweepTest, SweepValuesKeepTheirPositionsForErrors) {
  const ScenarioDocument doc = load(
      "workload: {trace: trace.csv}\n"
      "cache: {capacity: 1MiB}\n"
      "policies: [lru]\n"
      "sweep:\n"
      "  cache.capacity: [1MiB, 3 bananas]\n");
  const auto points = doc.points();
  EXPECT_NO_THROW(doc.resolve(points[0]));
  const std::string msg = error_of<UnitError>([&] { doc.resolve(points[1]); });
  EXPECT_NE(msg.find((dir_ / "s.yaml").string() + ":5:26: key 'cache.capacity'"), std::string::npos) << msg;
}

TEST_F(SweepTest, BadSweepSections) {
  std::string msg = error_of<InputError>([&] {
    load("workload: {trace: trace.csv}\ncache: {capacity: 1MiB}\npolicies: [lru]\nsweep:\n  cache.capacity: 50%\n");
  });
  EXPECT_NE(msg.find(":5:19: key 'sweep.cache.capacity': wrong type: expected a list"), std::string::npos) << msg;
  msg = error_of<InputError>([&] {
    load("workload: {trace: trace.csv}\ncache: {capacity: 1MiB}\npolicies: [lru]\nsweep:\n  cache.capacity: []\n");
  });
  EXPECT_NE(msg.find("empty list"), std::string::npos) << msg;
  msg = error_of<InputError>([&] { load("policies: [lru]\nsweep: [1, 2]\n"); });
  EXPECT_NE(msg.find(":2:8: key 'sweep': wrong type: expected a map"), std::string::npos) << msg;
}

TEST_F(SweepTest, SetReplacesASweptKeyAndCanAddAxes) {
  ScenarioDocument doc = load(kSwept, {parse_override("cache.capacity=2MiB")});
  ASSERT_EQ(doc.points().size(), 3u);  // the capacity axis is gone
  EXPECT_EQ(doc.resolve(doc.points()[0]).cache.capacity.bytes, 2 * kMiB);

  doc = load(kSwept, {parse_override("sweep.policies.0.impl=[mlru]"), parse_override("sweep.seed=[1, 2]")});
  const auto points = doc.points();
  ASSERT_EQ(points.size(), 2u * 3u * 1u * 2u);
  EXPECT_EQ(points.back().label(), "cache.capacity=50% policies.0.age_window=1s policies.0.impl=mlru seed=2");
}

TEST_F(SweepTest, InputTextKeepsTheSweep) {
  const ScenarioDocument doc = load(kSwept, {parse_override("seed=9")});
  const std::string text = doc.input_text();
  EXPECT_NE(text.find("seed: 9"), std::string::npos) << text;
  EXPECT_NE(text.find("cache.capacity:"), std::string::npos) << text;
  EXPECT_NE(text.find("policies.0.age_window:"), std::string::npos) << text;
}

}  // namespace
}  // namespace flashsim
