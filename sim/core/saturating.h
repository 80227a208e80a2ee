// Arithmetic that stops at the largest value instead of wrapping: for
// estimates (pieces, bytes a run would need) compared against a limit, where
// a wrapped product would pass the check it should fail, and for sums of
// durations over a run (a stall total of 10^9 accesses of 10 s each is
// past 2^63 ns), where a wrapped sum would turn negative.
#pragma once
#include <cstdint>

namespace flashsim {

/// a + b, or UINT64_MAX when the sum does not fit.
constexpr std::uint64_t saturating_add(std::uint64_t a, std::uint64_t b) {
  return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

/// a · b, or UINT64_MAX when the product does not fit.
constexpr std::uint64_t saturating_mul(std::uint64_t a, std::uint64_t b) {
  return b != 0 && a > UINT64_MAX / b ? UINT64_MAX : a * b;
}

/// a + b for durations and counts that are >= 0 (ns), or INT64_MAX when
/// the sum does not fit. Negative operands are outside the contract.
constexpr std::int64_t saturating_add_nonnegative(std::int64_t a, std::int64_t b) {
  return a > INT64_MAX - b ? INT64_MAX : a + b;
}

}  // namespace flashsim
