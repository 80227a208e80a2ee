// The "Flash health" decision table of seed 000 §4.4: three measurements
// (L2 hit rate, PCIe bandwidth use, weight load time per step) against three
// rows of thresholds, each naming the lever to pull. The thresholds are the
// article's and every one is settable (`flashsim diagnose --threshold`):
//   row                    L2 hit rate   PCIe use    weight load / step
//   bandwidth_war          < 80%         > 90%       > 8 ms
//   scheduling_upgrade     80..85%       70..90%     5..8 ms
//   model_restructuring    > 85%         < 70%       < 5 ms
// A row fires when every measured input meets its condition and at least
// two were measured; an input that was not measured (no --counters: no L2
// hit rate) is left out and said so.
// Each input's bands cover every value, but the inputs may point at
// different rows (L2 70% with PCIe 50%): then no row fires and the nearest
// row (most conditions met) is named.
#pragma once
#include <optional>
#include <string>
#include <vector>

namespace flashsim::diagnose {

/// What the table reads. Ratios are in [0, 1] (PCIe use may exceed 1 when
/// a direction beats the calibrated ceiling); times in ms.
struct HealthInputs {
  std::optional<double> l2_hit_rate;        ///< hit rate of the weight-reading kernels' L2 lookups
  std::optional<double> pcie_utilisation;   ///< the busier direction's bytes/s over its calibrated ceiling
  std::optional<double> weight_load_ms;     ///< H2D copy time per step (median)
};

/// The table's thresholds (seed 000 §4.4 defaults).
struct HealthThresholds {
  double l2_low = 0.80, l2_high = 0.85;        ///< hit rate: < low war, [low, high] scheduling, > high restructuring
  double pcie_low = 0.70, pcie_high = 0.90;    ///< use: > high war, [low, high] scheduling, < low restructuring
  double load_low_ms = 5.0, load_high_ms = 8.0;  ///< per step: > high war, [low, high] scheduling, < low restructuring

  /// Sets one threshold from "key=value" (keys: l2_low, l2_high, pcie_low,
  /// pcie_high as rates, 0.8 or 80%, at most 100%; load_low_ms,
  /// load_high_ms in ms). Throws InputError naming the key, the known keys,
  /// or the bad value.
  void set(const std::string& assignment);
  /// Throws InputError when a low threshold is above its high one (call
  /// after every set(): the order of the settings does not matter).
  void check() const;
};

/// One condition of one row, as evaluated.
struct HealthCondition {
  std::string input;      ///< "l2_hit_rate", "pcie_utilisation", "weight_load_ms"
  std::string condition;  ///< "< 80%", "70%..90%", "> 8 ms"
  bool measured = false;  ///< the input was available
  bool met = false;       ///< measured and within the condition
};

struct HealthRow {
  std::string name;    ///< bandwidth_war, scheduling_upgrade, model_restructuring
  std::string lever;   ///< what the article says to do, and what flashsim can simulate of it
  std::vector<HealthCondition> conditions;
  int met = 0, measured = 0;
  /// Every measured condition met, and at least two of the three measured.
  bool fires() const { return measured >= 2 && met == measured; }
};

struct HealthDecision {
  std::vector<HealthRow> rows;  ///< the three rows, in the table's order
  /// The row that fires, or "" when none does.
  std::string fired;
  /// The row with the most conditions met (ties: table order, the others in
  /// `tied`); the fired row when one fires.
  std::string nearest;
  std::vector<std::string> tied;
  /// One paragraph for people: which row fires and why, or why none does.
  std::string explain() const;
};

/// Evaluates the table. Bands are closed: 80% lands in scheduling_upgrade.
HealthDecision evaluate_health(const HealthInputs& inputs, const HealthThresholds& thresholds);

}  // namespace flashsim::diagnose
