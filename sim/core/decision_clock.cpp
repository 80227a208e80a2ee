#include "sim/core/decision_clock.h"

#include <string>

#include "sim/core/errors.h"

namespace flashsim {

DecisionClock parse_decision_clock(std::string_view text) {
  if (text == "trace") return DecisionClock::trace;
  if (text == "engine") return DecisionClock::engine;
  throw InputError("decision_clock '" + std::string(text) + "' is not one of: trace, engine");
}

std::string_view to_string(DecisionClock clock) {
  return clock == DecisionClock::trace ? "trace" : "engine";
}

}  // namespace flashsim
