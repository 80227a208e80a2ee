// Step regimes of a program: stretches of steps that run at one speed (a
// warm-up repeat slower than the rest, an allocator that grows during the
// first call), so that a prediction says which one it is about
// (`flashsim predict --regime`).
//  * With repeat marks (NVTX "flashsim.repeat", Program::repeat_marks_ns):
//    one regime per marked repeat; a step belongs to the last mark at or
//    before its start; steps before the first mark form a regime of their own.
//  * Without: change points over the recorded step times by binary
//    segmentation — a stretch splits where the squared deviation of the log
//    step times about the two sides' means falls most, if each side has >= kMinRegimeSteps steps, their
//    medians differ by >= kMinRegimeShift (relative to the smaller), and a
//    Mann-Whitney rank test between them gives |z| >= kMinRegimeZ (normal
//    approximation, Mann & Whitney 1947); the sides are split again.
#pragma once
#include <cstddef>
#include <string>
#include <vector>

#include "sim/core/units.h"

namespace flashsim {

inline constexpr std::size_t kMinRegimeSteps = 3;
inline constexpr double kMinRegimeShift = 0.10;
inline constexpr double kMinRegimeZ = 3.0;

struct StepRegime {
  std::size_t first = 0, end = 0;  ///< step indices [first, end) of the durations given
};

struct RegimeSplit {
  std::vector<StepRegime> regimes;  ///< in step order, covering every step; empty with no step
  std::string rule;                 ///< "repeat marks", "change points" or "one regime"
};

/// Splits the steps whose durations are `durations_ns` (step i from
/// `starts_ns[i]` to `starts_ns[i + 1]`, so starts_ns has one more entry)
/// by the rules above. Throws std::invalid_argument when the sizes disagree.
RegimeSplit find_regimes(const std::vector<Nanoseconds>& durations_ns, const std::vector<Nanoseconds>& starts_ns,
                         const std::vector<Nanoseconds>& repeat_marks_ns);

/// Median of durations_ns[first, end) (0 when empty).
double regime_median_ns(const std::vector<Nanoseconds>& durations_ns, const StepRegime& regime);

/// `--regime` text: "steady" (the last regime), "first", "all" (every step as
/// one) or a regime index; returns the chosen steps. Throws InputError naming
/// `option` for other text or an index out of range.
StepRegime choose_regime(const RegimeSplit& split, std::size_t steps, const std::string& choice,
                         const std::string& option);

}  // namespace flashsim
