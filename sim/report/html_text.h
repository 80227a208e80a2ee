// Text for the HTML report: escaping and the number formats of its tables.
#pragma once
#include <optional>
#include <string>
#include <string_view>

namespace flashsim::report {

/// `text` with & < > " ' replaced by character references: safe as element
/// content and inside quoted attribute values.
std::string html_escape(std::string_view text);

/// A table value: whole numbers of magnitude >= 1000 (ns, bytes) rounded to
/// an integer without exponent ("1250000"), others with 6 significant
/// digits ("0.512346", "42"); "—" for nullopt; "nan"/"inf" as such.
std::string format_value(std::optional<double> value);

/// A fraction as a percentage with `decimals` digits: 0.0412 -> "4.12%"; "—" for nullopt.
std::string format_percent(std::optional<double> fraction, int decimals = 2);

/// A number with a fixed count of decimals: (0.99529, 4) -> "0.9953"; "—" for nullopt.
std::string format_fixed(std::optional<double> value, int decimals);

}  // namespace flashsim::report
