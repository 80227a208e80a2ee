#include "sim/workload/random.h"

#include <algorithm>

#include "sim/core/errors.h"

namespace flashsim {

DiscreteSampler::DiscreteSampler(std::span<const double> weights) {
  double sum = 0.0;
  for (double w : weights) {
    if (!(w >= 0.0)) throw Error("DiscreteSampler: negative or NaN weight");
    sum += w;
  }
  if (!(sum > 0.0)) throw Error("DiscreteSampler: weights sum to zero");
  cumulative_.reserve(weights.size());
  probability_.reserve(weights.size());
  double running = 0.0;
  for (double w : weights) {
    running += w / sum;
    cumulative_.push_back(running);
    probability_.push_back(w / sum);
  }
  cumulative_.back() = 1.0;
}

std::uint32_t DiscreteSampler::draw(Rng& rng) const {
  const double u = rng.uniform();
  const auto it = std::upper_bound(cumulative_.begin(), cumulative_.end(), u);
  const auto i = static_cast<std::size_t>(it - cumulative_.begin());
  return static_cast<std::uint32_t>(std::min(i, cumulative_.size() - 1));
}

std::vector<double> zipf_probabilities(std::size_t n, double exponent) {
  std::vector<double> p(n);
  double sum = 0.0;
  for (std::size_t i = 0; i < n; ++i) {
    p[i] = 1.0 / std::pow(static_cast<double>(i + 1), exponent);
    sum += p[i];
  }
  for (double& x : p) x /= sum;
  return p;
}

}  // namespace flashsim
