// Deterministic random numbers for workload generators. The standard
// library's distributions are implementation-defined (libstdc++ and libc++
// draw different values from the same engine), so a generated trace would
// depend on the compiler; these are defined here, bit for bit.
#pragma once
#include <cmath>
#include <cstdint>
#include <span>
#include <vector>

namespace flashsim {

__extension__ using Uint128 = unsigned __int128;  // GCC/Clang; __extension__ keeps -Wpedantic quiet

/// SplitMix64 step (Steele, Lea, Flood, "Fast splittable pseudorandom number
/// generators", OOPSLA 2014): seeds the main generator and derives seeds.
constexpr std::uint64_t splitmix64(std::uint64_t& state) {
  std::uint64_t z = (state += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

/// A seed for sub-stream `tag` of `seed` (routing, arrivals, concepts ...),
/// so that changing one part of a workload does not shift the others.
constexpr std::uint64_t derive_seed(std::uint64_t seed, std::uint64_t tag) {
  std::uint64_t s = seed ^ (tag * 0xd1342543de82ef95ull);
  splitmix64(s);
  return splitmix64(s);
}

/// xoshiro256** 1.0 (Blackman and Vigna, 2018): small, fast, and the same
/// sequence on every platform.
class Rng {
 public:
  explicit Rng(std::uint64_t seed = 1) {
    for (auto& word : s_) word = splitmix64(seed);
  }
  std::uint64_t next() {
    const std::uint64_t result = rotl(s_[1] * 5, 7) * 9;
    const std::uint64_t t = s_[1] << 17;
    s_[2] ^= s_[0];
    s_[3] ^= s_[1];
    s_[1] ^= s_[2];
    s_[0] ^= s_[3];
    s_[2] ^= t;
    s_[3] = rotl(s_[3], 45);
    return result;
  }
  /// Uniform in [0, 1), 53 bits.
  double uniform() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }
  /// Uniform integer in [0, n); n > 0 (Lemire's multiply-shift, with rejection: unbiased).
  std::uint64_t below(std::uint64_t n) {
    Uint128 m = static_cast<Uint128>(next()) * n;
    auto low = static_cast<std::uint64_t>(m);
    if (low < n) {
      const std::uint64_t threshold = (0 - n) % n;
      while (low < threshold) {
        m = static_cast<Uint128>(next()) * n;
        low = static_cast<std::uint64_t>(m);
      }
    }
    return static_cast<std::uint64_t>(m >> 64);
  }
  /// Standard normal (Box–Muller; one of the pair is dropped to keep no state).
  double normal() {
    double u = uniform();
    while (u <= 0.0) u = uniform();
    return std::sqrt(-2.0 * std::log(u)) * std::cos(6.283185307179586 * uniform());
  }

 private:
  static constexpr std::uint64_t rotl(std::uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
  std::uint64_t s_[4];
};

/// Index i in [0, weights.size()) drawn with probability weights[i] / sum,
/// from a cumulative table (built once, then O(log n) per draw).
class DiscreteSampler {
 public:
  DiscreteSampler() = default;
  /// `weights` >= 0 with a positive sum.
  explicit DiscreteSampler(std::span<const double> weights);
  std::uint32_t draw(Rng& rng) const;
  /// Normalised probabilities (sum 1).
  const std::vector<double>& probabilities() const { return probability_; }
  std::size_t size() const { return probability_.size(); }

 private:
  std::vector<double> cumulative_;
  std::vector<double> probability_;
};

/// Zipf weights 1/(rank+1)^exponent for ranks 0..n-1 (exponent 0 = uniform), normalised.
std::vector<double> zipf_probabilities(std::size_t n, double exponent);

}  // namespace flashsim
