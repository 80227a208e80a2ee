#include "traces/block_ids.h"

#include <charconv>

#include "sim/core/errors.h"
#include "traces/text_fields.h"

#if FLASHSIM_HAVE_XXHASH
#include <xxhash.h>
#endif

namespace flashsim {

namespace {

bool parse_hex(std::string_view s, std::uint64_t& out) {
  if (s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) s.remove_prefix(2);
  if (s.empty() || s.size() > 16) return false;
  const char* end = s.data() + s.size();
  const auto [ptr, ec] = std::from_chars(s.data(), end, out, 16);
  return ec == std::errc{} && ptr == end;
}

}  // namespace

ParamSpec ids_param_spec() {
  return {"ids", ParamType::choice, "numeric",
          "numeric: unsigned integers, decimal or 0x-hex; hex: hexadecimal, 0x optional; text: each distinct text "
          "an id, numbered by first appearance; hash: XXH64 of the text (constant memory)",
          -1e300, 1e300, {"numeric", "hex", "text", "hash"}};
}

IdSyntax id_syntax_from(const std::string& value) {
  if (value == "numeric") return IdSyntax::numeric;
  if (value == "hex") return IdSyntax::hex;
  if (value == "text") return IdSyntax::text;
  if (value == "hash") {
#if FLASHSIM_HAVE_XXHASH
    return IdSyntax::hash;
#else
    throw InputError("ids=hash needs xxHash, which this build lacks (Debian libxxhash-dev, tools/install-deps.sh); "
                     "ids=text numbers distinct ids exactly instead");
#endif
  }
  throw InputError("ids '" + value + "': expected numeric, hex, text or hash");
}

bool BlockIdReader::read(std::string_view text, std::uint64_t& out) {
  switch (syntax_) {
    case IdSyntax::numeric:
      if (text.size() > 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X')) return parse_hex(text, out);
      return trace_text::parse_u64(text, out) == trace_text::ParseStatus::ok;
    case IdSyntax::hex: return parse_hex(text, out);
    case IdSyntax::text: {
      const auto [it, added] = numbers_.try_emplace(std::string(text), numbers_.size() + 1);
      out = it->second;
      return true;
    }
    case IdSyntax::hash:
#if FLASHSIM_HAVE_XXHASH
      out = XXH64(text.data(), text.size(), 0);
      return true;
#else
      throw InputError("ids=hash needs xxHash, which this build lacks (Debian libxxhash-dev)");  // id_syntax_from refuses it first
#endif
  }
  return false;
}

std::string BlockIdReader::why_not(std::string_view text) const {
  std::uint64_t ignored = 0;
  const bool hex = syntax_ == IdSyntax::numeric && parse_hex(text, ignored);
  return std::string(syntax_ == IdSyntax::hex ? "is not a hexadecimal id (1 to 16 digits, 0x optional); "
                                               : "is not an unsigned integer id (decimal or 0x-hex, below 2^64); ") +
         (hex ? "ids=hex reads it as hexadecimal; " : "") +
         "ids=text (exact numbering) or ids=hash (XXH64, constant memory) read any text as an id (the format "
         "option: -o ids=text with flashsim trace, workload.import.ids in a scenario or --set "
         "workload.import.ids=text)";
}

}  // namespace flashsim
