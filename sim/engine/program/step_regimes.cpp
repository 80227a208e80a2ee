#include "sim/engine/program/step_regimes.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "sim/core/errors.h"
#include "sim/core/unit_parse.h"

namespace flashsim {

namespace {

double median_of(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 == 1 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/// Mann-Whitney z of [lo, k) against [k, hi), ties given their mean rank:
/// O(n log n) by ranking the stretch once.
double rank_z(const std::vector<double>& x, std::size_t lo, std::size_t k, std::size_t hi) {
  std::vector<std::size_t> order(hi - lo);
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = lo + i;
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return x[a] < x[b]; });
  double rank_sum = 0;  // of the left side
  for (std::size_t i = 0; i < order.size();) {
    std::size_t j = i;
    while (j < order.size() && x[order[j]] == x[order[i]]) ++j;
    const double mean_rank = 0.5 * static_cast<double>(i + 1 + j);
    for (std::size_t t = i; t < j; ++t) rank_sum += order[t] < k ? mean_rank : 0;
    i = j;
  }
  const double n1 = static_cast<double>(k - lo), n2 = static_cast<double>(hi - k);
  const double u = rank_sum - n1 * (n1 + 1) / 2;  // pairs where the left side is larger
  const double mean = n1 * n2 / 2, sd = std::sqrt(n1 * n2 * (n1 + n2 + 1) / 12);
  return sd > 0 ? (u - mean) / sd : 0;
}

/// Splits [lo, hi) of the log step times where the squared deviation about
/// the two sides' means falls most (prefix sums: O(n) a stretch), if the
/// sides' medians and rank test say the shift is real; then each side again.
void split(const std::vector<double>& logs, const std::vector<double>& x, const std::vector<double>& sum,
           const std::vector<double>& sum2, std::size_t lo, std::size_t hi, std::vector<std::size_t>& cuts) {
  if (hi - lo < 2 * kMinRegimeSteps) return;
  auto cost = [&](std::size_t a, std::size_t b) {
    const double n = static_cast<double>(b - a), s1 = sum[b] - sum[a];
    return (sum2[b] - sum2[a]) - s1 * s1 / n;
  };
  const double whole = cost(lo, hi);
  double best_gain = 0;
  std::size_t best = 0;
  for (std::size_t k = lo + kMinRegimeSteps; k + kMinRegimeSteps <= hi; ++k) {
    const double gain = whole - cost(lo, k) - cost(k, hi);
    if (gain > best_gain) best_gain = gain, best = k;
  }
  if (best == 0) return;
  const double a = median_of(std::vector<double>(x.begin() + lo, x.begin() + best));
  const double b = median_of(std::vector<double>(x.begin() + best, x.begin() + hi));
  if (std::abs(a - b) < kMinRegimeShift * std::min(a, b) || std::abs(rank_z(logs, lo, best, hi)) < kMinRegimeZ) return;
  split(logs, x, sum, sum2, lo, best, cuts);
  cuts.push_back(best);
  split(logs, x, sum, sum2, best, hi, cuts);
}

}  // namespace

RegimeSplit find_regimes(const std::vector<Nanoseconds>& durations_ns, const std::vector<Nanoseconds>& starts_ns,
                         const std::vector<Nanoseconds>& repeat_marks_ns) {
  if (!durations_ns.empty() && starts_ns.size() != durations_ns.size() + 1) {
    throw std::invalid_argument("find_regimes: starts_ns needs one entry more than durations_ns");
  }
  RegimeSplit out;
  const std::size_t n = durations_ns.size();
  if (n == 0) return out;
  std::vector<std::size_t> cuts;
  if (!repeat_marks_ns.empty()) {
    out.rule = "repeat marks";
    std::size_t previous = 0;
    bool any = false;
    for (std::size_t i = 0; i < n; ++i) {
      const std::size_t repeat = static_cast<std::size_t>(
          std::upper_bound(repeat_marks_ns.begin(), repeat_marks_ns.end(), starts_ns[i]) - repeat_marks_ns.begin());
      if (any && repeat != previous) cuts.push_back(i);
      previous = repeat, any = true;
    }
  } else {
    std::vector<double> x(durations_ns.begin(), durations_ns.end()), logs(n), sum(n + 1, 0), sum2(n + 1, 0);
    for (std::size_t i = 0; i < n; ++i) {
      logs[i] = std::log(std::max(1.0, x[i]));
      sum[i + 1] = sum[i] + logs[i];
      sum2[i + 1] = sum2[i] + logs[i] * logs[i];
    }
    split(logs, x, sum, sum2, 0, n, cuts);
    out.rule = cuts.empty() ? "one regime" : "change points";
  }
  std::size_t first = 0;
  for (const std::size_t c : cuts) {
    out.regimes.push_back(StepRegime{first, c});
    first = c;
  }
  out.regimes.push_back(StepRegime{first, n});
  return out;
}

double regime_median_ns(const std::vector<Nanoseconds>& durations_ns, const StepRegime& r) {
  if (r.end > durations_ns.size() || r.first >= r.end) return 0;
  return median_of(std::vector<double>(durations_ns.begin() + static_cast<std::ptrdiff_t>(r.first),
                                       durations_ns.begin() + static_cast<std::ptrdiff_t>(r.end)));
}

StepRegime choose_regime(const RegimeSplit& split, std::size_t steps, const std::string& choice,
                         const std::string& option) {
  if (split.regimes.empty()) throw InputError(option + ": no step to choose from");
  if (choice == "steady") return split.regimes.back();
  if (choice == "first") return split.regimes.front();
  if (choice == "all") return StepRegime{0, steps};
  std::int64_t k = -1;
  try {
    k = parse_integer(choice);
  } catch (const std::exception&) {
    k = -1;
  }
  if (k < 0) throw InputError(option + " '" + choice + "': expected steady, first, all or a regime number");
  if (static_cast<std::size_t>(k) >= split.regimes.size()) {
    throw InputError(option + " " + choice + ": the program has " + std::to_string(split.regimes.size()) +
                     " regime(s), numbered from 0");
  }
  return split.regimes[static_cast<std::size_t>(k)];
}

}  // namespace flashsim
