// Units of the whole project: time is integer nanoseconds, sizes integer
// bytes, bandwidth bytes per second (DESIGN.md, principle 2).
#pragma once
#include <cstdint>
#include <limits>

namespace flashsim {

using Nanoseconds = std::int64_t;     ///< a point in time or a duration, ns
using ByteCount = std::uint64_t;      ///< a size, bytes
using BytesPerSecond = double;        ///< a bandwidth, bytes/s

/// Original block identifier as recorded in a trace (tensor, expert, page, LBA).
using BlockId = std::uint64_t;
/// Dense index a driver assigns to each distinct BlockId (0 .. n-1), so that
/// policies keep per-block metadata in vectors instead of hash maps.
using BlockIndex = std::uint32_t;

inline constexpr Nanoseconds kNsPerUs = 1'000;
inline constexpr Nanoseconds kNsPerMs = 1'000'000;
inline constexpr Nanoseconds kNsPerS = 1'000'000'000;
inline constexpr ByteCount kKiB = 1024;
inline constexpr ByteCount kMiB = 1024 * kKiB;
inline constexpr ByteCount kGiB = 1024 * kMiB;

/// Access index value meaning "this block is never accessed again".
inline constexpr std::uint64_t kNeverAccessedAgain = std::numeric_limits<std::uint64_t>::max();

/// A time that never comes (no event scheduled, block never accessed).
inline constexpr Nanoseconds kNeverNs = std::numeric_limits<Nanoseconds>::max();

/// Time to move `bytes` at `bandwidth` in integer ns, rounded up so that a
/// non-empty transfer never takes zero time. Throws nothing; bandwidth must be > 0.
constexpr Nanoseconds transfer_time_ns(ByteCount bytes, BytesPerSecond bandwidth) {
  const double ns = static_cast<double>(bytes) * 1e9 / bandwidth;
  const auto whole = static_cast<Nanoseconds>(ns);
  return (static_cast<double>(whole) < ns) ? whole + 1 : whole;
}

}  // namespace flashsim
