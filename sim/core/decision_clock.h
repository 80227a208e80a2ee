// Interface (a) of the core: which clock policies see.
//
// By default both engines hand a policy the access's timestamp from the
// trace (ns, as recorded or generated), not the simulated or measured
// completion time, so a clock-reading policy (MLRU, idle eviction) decides
// the same way in the simulator and on the GPU. A scenario may choose the
// engine's own clock instead (`decision_clock: engine`); results record which.
#pragma once
#include <string_view>

namespace flashsim {

enum class DecisionClock {
  trace,   ///< the access's recorded/generated timestamp (default)
  engine,  ///< the driving engine's clock: simulated time in sim/, GPU time in hw/
};

/// "trace" | "engine"; throws InputError otherwise.
DecisionClock parse_decision_clock(std::string_view text);
std::string_view to_string(DecisionClock clock);

}  // namespace flashsim
