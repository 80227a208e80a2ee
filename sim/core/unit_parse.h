// Parsing of values with units, as written in scenarios and on command lines.
#pragma once
#include <string_view>

#include "sim/core/units.h"

namespace flashsim {

/// "142ns", "1.5us", "2µs", "500ms", "3s", or a bare integer (ns).
/// Throws UnitError naming the text and the accepted units.
Nanoseconds parse_duration_ns(std::string_view text);

/// "4096", "4KiB", "2MiB", "1.5GB" (SI: 1000ⁿ; IEC: 1024ⁿ), "512B".
/// Must resolve to a whole number of bytes. Throws UnitError.
ByteCount parse_bytes(std::string_view text);

/// "55GB/s", "10GiB/s", "800MB/s", "1e9" (bytes/s). Must be > 0. Throws UnitError.
BytesPerSecond parse_bandwidth(std::string_view text);

/// A plain real number ("0.05", "1e-3"). Throws UnitError on trailing junk.
double parse_real(std::string_view text);

/// A plain signed integer. Throws UnitError on junk or overflow.
std::int64_t parse_integer(std::string_view text);

}  // namespace flashsim
