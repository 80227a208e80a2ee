#include <gtest/gtest.h>

#include "sim/core/errors.h"
#include "sim/core/params.h"
#include "sim/core/unit_parse.h"
#include "sim/metrics/metrics.h"

namespace flashsim {
namespace {

TEST(UnitParse, Durations) {
  EXPECT_EQ(parse_duration_ns("142ns"), 142);
  EXPECT_EQ(parse_duration_ns("142"), 142);
  EXPECT_EQ(parse_duration_ns("1.5us"), 1500);
  EXPECT_EQ(parse_duration_ns("2\xC2\xB5s"), 2000);
  EXPECT_EQ(parse_duration_ns("500ms"), 500'000'000);
  EXPECT_EQ(parse_duration_ns(" 3 s "), 3'000'000'000);
  EXPECT_THROW(parse_duration_ns("12 parsecs"), UnitError);
  EXPECT_THROW(parse_duration_ns("ms"), UnitError);
  EXPECT_THROW(parse_duration_ns("0.5ns"), UnitError);  // not whole ns
  EXPECT_THROW(parse_duration_ns("-1ms"), UnitError);
}

TEST(UnitParse, Sizes) {
  EXPECT_EQ(parse_bytes("4096"), 4096u);
  EXPECT_EQ(parse_bytes("4KiB"), 4096u);
  EXPECT_EQ(parse_bytes("2MiB"), 2u * 1024 * 1024);
  EXPECT_EQ(parse_bytes("1.5GB"), 1'500'000'000u);
  EXPECT_EQ(parse_bytes("512B"), 512u);
  EXPECT_THROW(parse_bytes("2MIB"), UnitError);
  EXPECT_THROW(parse_bytes("1.3B"), UnitError);
  try {
    parse_bytes("3 furlongs");
    FAIL();
  } catch (const UnitError& e) {
    EXPECT_NE(std::string(e.what()).find("furlongs"), std::string::npos);
    EXPECT_NE(std::string(e.what()).find("MiB"), std::string::npos);  // lists accepted units
  }
}

TEST(UnitParse, Bandwidth) {
  EXPECT_DOUBLE_EQ(parse_bandwidth("55GB/s"), 55e9);
  EXPECT_DOUBLE_EQ(parse_bandwidth("1GiB/s"), 1073741824.0);
  EXPECT_THROW(parse_bandwidth("0GB/s"), UnitError);
  EXPECT_THROW(parse_bandwidth("55GB"), UnitError);
}

TEST(UnitParse, Numbers) {
  EXPECT_DOUBLE_EQ(parse_real("0.05"), 0.05);
  EXPECT_THROW(parse_real("0.05x"), UnitError);
  EXPECT_EQ(parse_integer("-7"), -7);
  EXPECT_THROW(parse_integer("7.5"), UnitError);
  EXPECT_THROW(parse_integer("99999999999999999999"), UnitError);
}

TEST(TransferTime, RoundsUp) {
  EXPECT_EQ(transfer_time_ns(55, 55e9), 1);
  EXPECT_EQ(transfer_time_ns(56, 55e9), 2);  // 1.018 ns -> 2
  EXPECT_EQ(transfer_time_ns(0, 55e9), 0);
  EXPECT_EQ(transfer_time_ns(1'000'000, 1e9), 1'000'000);
}

std::vector<ParamSpec> specs() {
  return {{"window", ParamType::duration, "500ms", "A", 1, 1e18, {}},
          {"history", ParamType::integer, "100", "W", 1, 1e6, {}},
          {"reading", ParamType::choice, "intent", "which", -1e300, 1e300, {"intent", "literal"}}};
}

TEST(Params, DefaultsGoThroughTheParser) {
  const auto v = ParamValues::resolve("policy mlru", specs(), {});
  EXPECT_EQ(v.duration_ns("window"), 500'000'000);
  EXPECT_EQ(v.integer("history"), 100);
  EXPECT_EQ(v.text("reading"), "intent");
  EXPECT_EQ(v.resolved_text().at("window"), "500ms");
}

TEST(Params, UserValuesOverride) {
  const auto v = ParamValues::resolve("p", specs(), {{"window", "2s"}, {"reading", "literal"}});
  EXPECT_EQ(v.duration_ns("window"), 2'000'000'000);
  EXPECT_EQ(v.text("reading"), "literal");
}

TEST(Params, ErrorsNameTheKey) {
  try {
    ParamValues::resolve("policy mlru", specs(), {{"histroy", "5"}});
    FAIL();
  } catch (const InputError& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("histroy"), std::string::npos);
    EXPECT_NE(msg.find("history"), std::string::npos);  // lists known keys
    EXPECT_NE(msg.find("policy mlru"), std::string::npos);
  }
  EXPECT_THROW(ParamValues::resolve("p", specs(), {{"history", "0"}}), InputError);       // below min
  EXPECT_THROW(ParamValues::resolve("p", specs(), {{"reading", "other"}}), InputError);   // not a choice
  EXPECT_THROW(ParamValues::resolve("p", specs(), {{"window", "5 parsecs"}}), InputError);
  const auto v = ParamValues::resolve("p", specs(), {});
  EXPECT_THROW(v.integer("nope"), InputError);
}

TEST(LatencyHistogram, ExactBelow128AndBoundedAbove) {
  LatencyHistogram h;
  for (int i = 1; i <= 100; ++i) h.add(i);
  EXPECT_EQ(h.count(), 100u);
  EXPECT_EQ(h.quantile_ns(0.5), 50);
  EXPECT_EQ(h.quantile_ns(0.99), 99);
  EXPECT_EQ(h.quantile_ns(1.0), 100);
  LatencyHistogram big;
  big.add(1'000'000);
  // Bucket upper edge is within 1/64 of the value, clamped to the exact max.
  EXPECT_EQ(big.quantile_ns(0.5), 1'000'000);
  big.add(2'000'000);
  const Nanoseconds p50 = big.quantile_ns(0.5);
  EXPECT_GE(p50, 1'000'000);
  EXPECT_LE(p50, 1'000'000 + 1'000'000 / 64);
  EXPECT_EQ(big.max_ns(), 2'000'000);
  LatencyHistogram merged;
  merged.merge(h);
  merged.merge(big);
  EXPECT_EQ(merged.count(), 102u);
  EXPECT_EQ(merged.max_ns(), 2'000'000);
}

TEST(LatencyHistogram, EmptyIsZero) {
  LatencyHistogram h;
  EXPECT_EQ(h.quantile_ns(0.99), 0);
}

}  // namespace
}  // namespace flashsim
