// Exact parsing of numbers and CSV cells for the text importers (CSV,
// Kineto). Timestamps are parsed from their decimal text, not through a
// double, so "5147351246982.786" µs is exactly 5147351246982786 ns.
#pragma once
#include <cstdint>
#include <istream>
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

/// The longest CSV record read_csv_record accepts: a trace's rows are tens
/// of bytes; a longer one is an unterminated quote or not a trace.
inline constexpr std::size_t kMaxCsvRecordBytes = 1u << 20;

/// Reads one CSV record into `record` (without its final newline): a line,
/// and while a field's opening quote is not closed (split_csv_line returns
/// -1) the following lines, joined by '\n' (RFC 4180: newlines inside
/// quotes). Adds the physical lines read to `line_no`. Returns false at the
/// end of input before any byte. Throws InputError "WHERE:LINE: ..." for a
/// record over kMaxCsvRecordBytes, for a quote still open at the end of
/// the input (naming the line the record began on) and for a NUL byte.
bool read_csv_record(std::istream& in, char delimiter, std::string& record, std::uint64_t& line_no,
                     const std::string& where);

/// Throws InputError "WHERE:LINE: a NUL byte at byte K of the line: not
/// text (...)" when `line` holds a NUL: no text trace has one, and an id or
/// number with one would be misread. read_csv_record checks every record.
void refuse_nul(std::string_view line, const std::string& where, std::uint64_t line_no);

/// `cell` as errors quote it: whole when short, else its first `shown`
/// bytes, "..." and its length (a 10 MB cell is not echoed); control bytes
/// (NUL, newline ...) written as \xNN.
std::string excerpt(std::string_view cell, std::size_t shown = 60);

/// ASCII lower-case copy.
std::string to_lower(std::string_view text);

}  // namespace flashsim::trace_text
