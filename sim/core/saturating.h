// Unsigned arithmetic that stops at the largest value instead of wrapping:
// for estimates (pieces, bytes a run would need) compared against a limit,
// where a wrapped product would pass the check it should fail.
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

}  // namespace flashsim
