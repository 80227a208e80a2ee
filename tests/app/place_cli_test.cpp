// `flashsim place` on the Mixtral-8x7B experiment (fast tier 50% of the
// footprint): the fast tier's weight share is the closed form of its memory
// row, the predicted step is the streamed bytes over the host link, and
// bad input names the scenario key.
#ifdef FLASHSIM_HAVE_GLPK
#include <gtest/gtest.h>

#include <cmath>
#include <nlohmann/json.hpp>
#include <string>

#include "tests/app/app_test_util.h"
#include "tests/support/temp_dir.h"

namespace flashsim {
namespace {

const std::string kMixtral = std::string(FLASHSIM_SOURCE_DIR) + "/scenarios/experiments/mixtral-8x7b.yaml";

TEST(PlaceCli, MixtralShortPresetMatchesTheClosedForm) {
  test::TempDir dir;
  const auto o = test::run_flashsim(dir.path(), "place " + kMixtral + " --set workload.preset=short --json");
  ASSERT_EQ(o.code, 0) << o.err;
  const nlohmann::json j = nlohmann::json::parse(o.out);
  ASSERT_EQ(j["points"].size(), 1u);
  const nlohmann::json& p = j["points"][0];
  // Mixtral-8x7B: 46.7 B parameters in bf16, 93.4 GB (the catalog's sum).
  const double W = p["weight_bytes"], Wmax = p["largest_group_weight_bytes"];
  EXPECT_NEAR(W / 93.4e9, 1.0, 0.005);
  EXPECT_EQ(p["groups"].size(), 33u);  // 32 layers and "other"
  // The fast tier is floor(50% of the footprint).
  const double C = p["fast_capacity_bytes"];
  EXPECT_EQ(p["fast_capacity_bytes"].get<unsigned long long>(), p["footprint_bytes"].get<unsigned long long>() / 2);
  // A KV page (16 tokens × 4 KiB = 64 KiB) pays the link's 4.66 µs per
  // transfer: 0.089 ns a byte against 0.020 for a 2 MiB weight block, so a
  // byte of KV on the fast tier saves 0.6 (mean context 32 + 64 of 160
  // tokens) × 0.089 ns a step, a byte of weights 0.94 × 0.020 ns: the KV
  // takes the fast tier first (c0 = 1, no KV buffer), and the row gives
  //   W·w0 + 2·Wmax·(1 − w0) + KV + reserved = C.
  ASSERT_EQ(p["tiers"].size(), 2u);
  EXPECT_NEAR(p["tiers"][0]["kv_share"].get<double>(), 1.0, 1e-9);
  const double reserved = p["reserved_bytes"], KV = p["kv_bytes"];
  const double w0 = (C - reserved - 2 * Wmax - KV) / (W - 2 * Wmax);
  EXPECT_NEAR(p["tiers"][0]["weight_share"].get<double>(), w0, 1e-7);
  EXPECT_NEAR(p["closed_form_weight_share"].get<double>(), w0, 1e-12);
  EXPECT_GT(w0, 0.45);
  EXPECT_LT(w0, 0.48);
  EXPECT_EQ(p["full_tiers"], nlohmann::json::array({"hbm"}));
  // The host link binds every group: the step is the streamed bytes at
  // 55.23 GB/s plus 4.66 µs per block (expert share 1 − (6/8)^10 of a step).
  EXPECT_EQ(p["binding"], nlohmann::json({{"up:host_dram", 33}}));
  EXPECT_NEAR(p["expert_read_share"].get<double>(), 1 - std::pow(0.75, 10), 1e-12);
  double step_ns = 0;
  for (const auto& g : p["groups"]) {
    const double ns_per_byte = 1e9 / 55.23e9 + 4660.0 / g["weight_block_bytes"].get<double>();
    step_ns += g["weight_read_bytes"].get<double>() * (1 - w0) * ns_per_byte;
  }
  EXPECT_NEAR(p["step_ns"].get<double>() / step_ns, 1.0, 1e-6);
  // The policy entry rounds the share down to 4 decimals.
  const double f = p["weight_fraction"];
  EXPECT_NEAR(f, std::floor(w0 * 1e4) / 1e4, 1e-12);
  char set[128];
  std::snprintf(set, sizeof set, "policies=[{impl: static_fraction, weight_fraction: %.4f}]", f);
  EXPECT_EQ(p["set"], set);
}

TEST(PlaceCli, TextNamesThePolicyEntry) {
  test::TempDir dir;
  const auto o = test::run_flashsim(dir.path(), "place " + kMixtral + " --set workload.preset=short");
  ASSERT_EQ(o.code, 0) << o.err;
  EXPECT_NE(o.out.find("--set 'policies=[{impl: static_fraction, weight_fraction: 0.4"), std::string::npos) << o.out;
  EXPECT_NE(o.out.find("binds: up:host_dram (33 groups)"), std::string::npos) << o.out;
}

TEST(PlaceCli, BadInputNamesTheKey) {
  test::TempDir dir;
  auto err = [&](const std::string& args) {
    const auto o = test::run_flashsim(dir.path(), "place " + args);
    EXPECT_EQ(o.code, 2) << args << ": " << o.err;
    return o.err;
  };
  // A fast tier below the double buffer of one layer (2 × 2.9 GB).
  EXPECT_NE(err(kMixtral + " --set workload.preset=short --set cache.capacity=4GB").find("key 'cache.capacity'"),
            std::string::npos);
  // A recorded trace has no model to place.
  EXPECT_NE(err(std::string(FLASHSIM_SOURCE_DIR) + "/scenarios/default.yaml").find("key 'workload'"), std::string::npos);
  EXPECT_NE(err(kMixtral + " --set cache.capacity=lots").find("cache.capacity"), std::string::npos);
}

}  // namespace
}  // namespace flashsim
#endif  // FLASHSIM_HAVE_GLPK
