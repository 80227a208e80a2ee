#include <gtest/gtest.h>

#include "traces/record_validator.h"

namespace flashsim {
namespace {

AccessRecord record(Nanoseconds t, ByteCount bytes, std::uint64_t next_use = kNeverAccessedAgain) {
  AccessRecord r;
  r.time_ns = t;
  r.bytes = bytes;
  r.next_use_index = next_use;
  return r;
}

TEST(RecordValidator, SizesMustBePositiveAndSane) {
  RecordValidator v;
  EXPECT_EQ(v.check(record(0, 1)), "");
  EXPECT_EQ(v.check(record(1, kMaxRecordBytes)), "");
  EXPECT_NE(v.check(record(2, 0)).find("bytes == 0"), std::string::npos);
  EXPECT_NE(v.check(record(3, kMaxRecordBytes + 1)).find("2^48"), std::string::npos);
}

// compute_ns is a duration: 0 and positive pass, a negative one names itself.
TEST(RecordValidator, ComputeTimeMayNotBeNegative) {
  RecordValidator v;
  AccessRecord r = record(0, 1);
  r.compute_ns = 5;
  EXPECT_EQ(v.check(r), "");
  r.compute_ns = -7;
  EXPECT_EQ(v.check(r), "compute_ns = -7 is negative (it is a duration)");
}

TEST(RecordValidator, NextUseMustLieAhead) {
  RecordValidator v;
  EXPECT_EQ(v.check(record(0, 8, 2)), "");   // record 0 -> 2
  EXPECT_EQ(v.check(record(1, 8)), "");      // record 1: never again
  const std::string self = v.check(record(2, 8, 2));  // record 2 -> itself
  EXPECT_NE(self.find("next_use_index = 2"), std::string::npos) << self;
  EXPECT_NE(v.check(record(3, 8, 0)).find("not after"), std::string::npos);
  v.reset();
  EXPECT_EQ(v.check(record(0, 8, 1)), "");  // counting restarts
}

TEST(RecordValidator, TimeMayNotRunBackwardsWithinAStream) {
  RecordValidator v;
  EXPECT_EQ(v.check(record(100, 8)), "");
  AccessRecord other = record(50, 8);
  other.stream_id = 1;
  EXPECT_EQ(v.check(other), "");  // another stream may be behind
  EXPECT_NE(v.check(record(99, 8)).find("backwards in stream 0"), std::string::npos);
}

}  // namespace
}  // namespace flashsim
