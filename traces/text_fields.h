// Exact parsing of numbers and CSV cells for the text importers (CSV,
// Kineto). Timestamps are parsed from their decimal text, not through a
// double, so "5147351246982.786" µs is exactly 5147351246982786 ns.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace flashsim::trace_text {

/// Result of a number parse: ok, or why not.
enum class ParseStatus { ok, not_a_number, out_of_range };

/// Parses a decimal ("12", "-3", "1.5", "2.5e-3", surrounding blanks allowed)
/// and returns value × 10^pow10, rounded to the nearest integer (halves away
/// from zero), in `out`. pow10 = 3 turns µs into ns. At most 36 significant
/// digits are used (later digits only round).
ParseStatus parse_scaled_decimal(std::string_view text, int pow10, std::int64_t& out);

/// Unsigned / signed base-10 integers; surrounding blanks allowed, no fraction.
ParseStatus parse_u64(std::string_view text, std::uint64_t& out);
ParseStatus parse_i64(std::string_view text, std::int64_t& out);

/// True if `text` is a number parse_scaled_decimal accepts.
bool looks_numeric(std::string_view text);

/// Splits one CSV line into `cells` (reused; grows as needed, returns the
/// count). RFC 4180 quoting: "a,b" is one cell, "" inside quotes is one
/// quote. A trailing '\r' is dropped. Returns -1 on an unterminated quote.
int split_csv_line(std::string_view line, char delimiter, std::vector<std::string>& cells);

/// Quotes `cell` for CSV output when it holds the delimiter, a quote or a newline.
std::string csv_quote(std::string_view cell, char delimiter = ',');

/// ASCII lower-case copy.
std::string to_lower(std::string_view text);

}  // namespace flashsim::trace_text
