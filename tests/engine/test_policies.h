// Tiny policies for the engine's tests, so they do not depend on the
// policy library: a FIFO, and a FIFO that records the clock it is shown.
#pragma once
#include <vector>

#include "sim/core/units.h"

namespace flashsim::test {

/// Registered names (PolicyRegistry).
inline constexpr const char* kTestFifo = "engine_test_fifo";
inline constexpr const char* kClockProbe = "engine_test_clock_probe";

/// What the clock probe saw: one entry per on_miss, in call order.
struct ClockObservation {
  BlockIndex block;
  std::uint64_t access_index;
  Nanoseconds now_ns;
};
std::vector<ClockObservation>& clock_probe_log();

}  // namespace flashsim::test
