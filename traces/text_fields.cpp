#include "traces/text_fields.h"

#include <cctype>
#include <charconv>
#include <istream>
#include <limits>
#include <vector>

#include "sim/core/errors.h"

namespace flashsim::trace_text {
namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.remove_suffix(1);
  return s;
}

__extension__ typedef __int128 Wide;  // exact scaling of up to 36 digits
constexpr int kMaxDigits = 36;

}  // namespace

ParseStatus parse_scaled_decimal(std::string_view text, int pow10, std::int64_t& out) {
  std::string_view s = trim(text);
  bool negative = false;
  if (!s.empty() && (s.front() == '+' || s.front() == '-')) {
    negative = s.front() == '-';
    s.remove_prefix(1);
  }
  Wide mantissa = 0;
  int exponent = 0;  // value = mantissa * 10^exponent
  int significant = 0;
  bool any_digit = false;
  bool dropped_nonzero = false;  // digits beyond kMaxDigits
  int dropped_first = -1;        // first dropped digit, for rounding
  std::size_t i = 0;
  auto take_digit = [&](int d, bool fraction) {
    any_digit = true;
    if (significant == 0 && d == 0) {
      if (fraction) --exponent;
      return;
    }
    if (significant < kMaxDigits) {
      mantissa = mantissa * 10 + d;
      ++significant;
      if (fraction) --exponent;
    } else {
      if (dropped_first < 0) dropped_first = d;
      else if (d != 0) dropped_nonzero = true;
      if (!fraction) ++exponent;
    }
  };
  for (; i < s.size() && std::isdigit(static_cast<unsigned char>(s[i])); ++i) take_digit(s[i] - '0', false);
  if (i < s.size() && s[i] == '.') {
    ++i;
    for (; i < s.size() && std::isdigit(static_cast<unsigned char>(s[i])); ++i) take_digit(s[i] - '0', true);
  }
  if (!any_digit) return ParseStatus::not_a_number;
  if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
    ++i;
    int exp_value = 0;
    const auto [end, ec] = std::from_chars(s.data() + i + (i < s.size() && s[i] == '+' ? 1 : 0),
                                           s.data() + s.size(), exp_value);
    if (ec == std::errc::result_out_of_range) return ParseStatus::out_of_range;
    if (ec != std::errc() || end != s.data() + s.size()) return ParseStatus::not_a_number;
    if (exp_value > 1000 || exp_value < -1000) return ParseStatus::out_of_range;
    exponent += exp_value;
    i = s.size();
  }
  if (i != s.size()) return ParseStatus::not_a_number;
  (void)dropped_nonzero;
  // Rounding of digits beyond kMaxDigits (only reachable with absurdly long input).
  if (dropped_first >= 5) mantissa += 1;
  int scale = exponent + pow10;
  const Wide limit = static_cast<Wide>(std::numeric_limits<std::int64_t>::max());
  if (mantissa == 0) {
    out = 0;
    return ParseStatus::ok;
  }
  if (scale >= 0) {
    for (; scale > 0; --scale) {
      mantissa *= 10;
      if (mantissa > limit) return ParseStatus::out_of_range;
    }
  } else {
    if (scale < -40) {
      mantissa = 0;
    } else {
      Wide divisor = 1;
      for (; scale < 0; ++scale) divisor *= 10;
      const Wide quotient = mantissa / divisor;
      const Wide remainder = mantissa % divisor;
      mantissa = quotient + (remainder * 2 >= divisor ? 1 : 0);
    }
  }
  if (mantissa > limit) return ParseStatus::out_of_range;
  out = static_cast<std::int64_t>(negative ? -mantissa : mantissa);
  return ParseStatus::ok;
}

namespace {

// A whole decimal number of type T, an optional leading '+' allowed.
template <class T>
ParseStatus parse_whole(std::string_view text, T& out) {
  const std::string_view s = trim(text);
  if (s.empty()) return ParseStatus::not_a_number;
  const char* begin = s.data() + (s.front() == '+' ? 1 : 0);
  const auto [end, ec] = std::from_chars(begin, s.data() + s.size(), out);
  if (ec == std::errc::result_out_of_range) return ParseStatus::out_of_range;
  if (ec != std::errc() || end != s.data() + s.size()) return ParseStatus::not_a_number;
  return ParseStatus::ok;
}

}  // namespace

ParseStatus parse_u64(std::string_view text, std::uint64_t& out) { return parse_whole(text, out); }

ParseStatus parse_i64(std::string_view text, std::int64_t& out) { return parse_whole(text, out); }

bool looks_numeric(std::string_view text) {
  std::int64_t ignored = 0;
  return parse_scaled_decimal(text, 0, ignored) != ParseStatus::not_a_number;
}

int split_csv_line(std::string_view line, char delimiter, std::vector<std::string>& cells) {
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  std::size_t count = 0;
  std::size_t i = 0;
  while (true) {
    if (cells.size() <= count) cells.emplace_back();
    std::string& cell = cells[count++];
    cell.clear();
    if (i < line.size() && line[i] == '"') {
      ++i;
      bool closed = false;
      while (i < line.size()) {
        if (line[i] == '"') {
          if (i + 1 < line.size() && line[i + 1] == '"') {
            cell.push_back('"');
            i += 2;
          } else {
            ++i;
            closed = true;
            break;
          }
        } else {
          cell.push_back(line[i++]);
        }
      }
      if (!closed) return -1;
      // Anything between the closing quote and the delimiter is kept verbatim.
      while (i < line.size() && line[i] != delimiter) cell.push_back(line[i++]);
    } else {
      const std::size_t end = line.find(delimiter, i);
      const std::size_t stop = (end == std::string_view::npos) ? line.size() : end;
      cell.assign(line.data() + i, stop - i);
      i = stop;
    }
    if (i >= line.size()) break;
    ++i;  // the delimiter
  }
  return static_cast<int>(count);
}

std::string csv_quote(std::string_view cell, char delimiter) {
  if (cell.find_first_of(std::string{delimiter, '"', '\n', '\r'}) == std::string_view::npos) {
    return std::string(cell);
  }
  std::string out = "\"";
  for (char c : cell) {
    if (c == '"') out += "\"\"";
    else out.push_back(c);
  }
  out.push_back('"');
  return out;
}

namespace {

// One physical line, appended to `out` (without its '\n'), at most `room`
// bytes; false at the end of input before any byte. Sets *too_long (and
// stops reading) when the line does not fit: a 2 GB file without a newline
// is not read into memory.
bool append_line(std::istream& in, std::string& out, std::size_t room, bool* too_long) {
  *too_long = false;
  std::streambuf* buffer = in.rdbuf();
  bool any = false;
  while (true) {
    const int c = buffer->sbumpc();
    if (c == std::char_traits<char>::eof()) {
      in.setstate(std::ios::eofbit);
      return any;
    }
    any = true;
    if (c == '\n') return true;
    if (out.size() >= room) {
      *too_long = true;
      return true;
    }
    out.push_back(static_cast<char>(c));
  }
}

}  // namespace

bool read_csv_record(std::istream& in, char delimiter, std::string& record, std::uint64_t& line_no,
                     const std::string& where) {
  record.clear();
  bool too_long = false;
  if (!append_line(in, record, kMaxCsvRecordBytes, &too_long)) return false;
  const std::uint64_t first = ++line_no;
  // A comment is one line whatever quotes it holds.
  const std::size_t lead = record.find_first_not_of(" \t");
  const bool comment = lead != std::string::npos && record[lead] == '#';
  std::vector<std::string> cells;
  while (!too_long && !comment && split_csv_line(record, delimiter, cells) < 0) {
    if (!in.good()) {
      throw InputError(where + ":" + std::to_string(first) + ": unterminated quote (the record runs to the end of the file)");
    }
    record.push_back('\n');
    if (!append_line(in, record, kMaxCsvRecordBytes, &too_long)) {
      throw InputError(where + ":" + std::to_string(first) + ": unterminated quote (the record runs to the end of the file)");
    }
    ++line_no;
  }
  if (too_long) {
    throw InputError(where + ":" + std::to_string(first) + ": a record longer than " +
                     std::to_string(kMaxCsvRecordBytes) + " bytes (an unterminated quote, or not a trace?)");
  }
  refuse_nul(record, where, first);
  return true;
}

void refuse_nul(std::string_view line, const std::string& where, std::uint64_t line_no) {
  const std::size_t at = line.find('\0');
  if (at == std::string_view::npos) return;
  throw InputError(where + ":" + std::to_string(line_no) + ": a NUL byte at byte " + std::to_string(at) +
                   " of the line: not text (binary data, a damaged file, or UTF-16 without a byte-order mark)");
}

std::string excerpt(std::string_view cell, std::size_t shown) {
  const bool cut = cell.size() > shown + 20;
  const std::string_view head = cut ? cell.substr(0, shown) : cell;
  std::string out;
  out.reserve(head.size() + 24);
  for (const char c : head) {
    const auto byte = static_cast<unsigned char>(c);
    if (byte < 0x20 || byte == 0x7f) {  // a NUL would end the message on a terminal, a newline split it
      static constexpr char kHex[] = "0123456789abcdef";
      out += "\\x";
      out += kHex[byte >> 4];
      out += kHex[byte & 15];
    } else {
      out += c;
    }
  }
  if (cut) out += "... (" + std::to_string(cell.size()) + " bytes)";
  return out;
}

std::string to_lower(std::string_view text) {
  std::string out(text);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

}  // namespace flashsim::trace_text
