#include "sim/engine/hardware_profile.h"

#include <gtest/gtest.h>

#include "sim/core/errors.h"

namespace flashsim {
namespace {

TEST(HardwareProfileParams, LinkDefaultsAndValues) {
  const LinkSpec d = LinkSpec::from(ParamValues::resolve("link", LinkSpec::param_specs(), {}));
  EXPECT_EQ(d.latency_ns, 0);
  EXPECT_DOUBLE_EQ(d.bandwidth, 55e9);
  EXPECT_EQ(d.sharing, LinkSharing::fifo);
  const LinkSpec s = LinkSpec::from(ParamValues::resolve(
      "link", LinkSpec::param_specs(), {{"latency", "4.5us"}, {"bandwidth", "10GB/s"}, {"sharing", "fair"}}));
  EXPECT_EQ(s.latency_ns, 4500);
  EXPECT_DOUBLE_EQ(s.bandwidth, 10e9);
  EXPECT_EQ(s.sharing, LinkSharing::fair);
  EXPECT_THROW(ParamValues::resolve("link", LinkSpec::param_specs(), {{"sharing", "lottery"}}), InputError);
}

TEST(HardwareProfileParams, TlbL2ContentionDefaultsAreOff) {
  const TlbSpec t = TlbSpec::from(ParamValues::resolve("tlb", TlbSpec::param_specs(), {}));
  EXPECT_EQ(t.entries, 0u);
  EXPECT_EQ(t.page_bytes, 2 * kMiB);
  const L2Spec l = L2Spec::from(ParamValues::resolve("l2", L2Spec::param_specs(), {{"capacity", "60MiB"}}));
  EXPECT_EQ(l.capacity_bytes, 60 * kMiB);
  EXPECT_EQ(l.line_bytes, 128u);
  EXPECT_EQ(l.sector_bytes, 32u);
  EXPECT_EQ(l.associativity, 16u);
  EXPECT_EQ(l.sampled_sets, L2Spec::kAutoSampledSets);  // auto: all sets up to 256, else 256
  EXPECT_EQ(L2Spec::from(ParamValues::resolve("l2", L2Spec::param_specs(), {{"sampled_sets", "0"}})).sampled_sets, 0u);
  EXPECT_EQ(L2Spec::from(ParamValues::resolve("l2", L2Spec::param_specs(), {{"sampled_sets", "64"}})).sampled_sets, 64u);
  EXPECT_THROW(L2Spec::from(ParamValues::resolve("l2", L2Spec::param_specs(), {{"sampled_sets", "many"}})), InputError);
  EXPECT_THROW(L2Spec::from(ParamValues::resolve("l2", L2Spec::param_specs(), {{"sector_size", "48B"}})),
               InputError);
  const ContentionSpec c = ContentionSpec::from(
      ParamValues::resolve("contention", ContentionSpec::param_specs(), {{"ns_per_mib", "4.3"}, {"baseline", "1GiB"}}));
  EXPECT_DOUBLE_EQ(c.ns_per_mib, 4.3);
  EXPECT_EQ(c.baseline_bytes, kGiB);
  // TierSpec declares its scalar keys.
  const ParamValues tier = ParamValues::resolve("tier", TierSpec::param_specs(), {{"hit_latency", "330ns"}});
  EXPECT_EQ(tier.duration_ns("hit_latency"), 330);
  EXPECT_EQ(tier.text("policy"), "lru");
}

}  // namespace
}  // namespace flashsim
