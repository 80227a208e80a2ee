// UTF-8 validity, so text that will be written to JSON or HDF5 (scenario
// names, labels) is refused up front with its position, not after a run;
// and the repair the HDF5 writers apply to text from inputs (file names,
// catalog names) that need not be UTF-8, so h5py can decode every string.
#pragma once
#include <cstddef>
#include <string>
#include <string_view>

namespace flashsim {

/// True when `text` is well-formed UTF-8 (RFC 3629: no overlong forms, no
/// surrogates, at most U+10FFFF). Otherwise false, with *bad_offset (when
/// not null) the offset of the first byte of the first bad sequence.
inline bool valid_utf8(std::string_view text, std::size_t* bad_offset = nullptr) {
  const auto* s = reinterpret_cast<const unsigned char*>(text.data());
  const std::size_t n = text.size();
  for (std::size_t i = 0; i < n;) {
    const unsigned char c = s[i];
    std::size_t len = 0;
    unsigned min = 0, cp = 0;
    if (c < 0x80) { ++i; continue; }
    if ((c & 0xE0) == 0xC0) { len = 2; cp = c & 0x1F; min = 0x80; }
    else if ((c & 0xF0) == 0xE0) { len = 3; cp = c & 0x0F; min = 0x800; }
    else if ((c & 0xF8) == 0xF0) { len = 4; cp = c & 0x07; min = 0x10000; }
    bool ok = len != 0 && i + len <= n;
    for (std::size_t k = 1; ok && k < len; ++k) {
      ok = (s[i + k] & 0xC0) == 0x80;
      cp = (cp << 6) | (s[i + k] & 0x3F);
    }
    if (!ok || cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) {
      if (bad_offset) *bad_offset = i;
      return false;
    }
    i += len;
  }
  return true;
}

/// `text` with each byte that starts no well-formed sequence (valid_utf8's
/// rule) replaced by U+FFFD, the replacement character (the Unicode
/// Standard §3.9, U+FFFD substitution); valid text comes back unchanged.
inline std::string to_valid_utf8(std::string_view text) {
  std::string out;
  std::size_t bad = 0;
  while (!valid_utf8(text, &bad)) {
    out.append(text.substr(0, bad));
    out.append("\xEF\xBF\xBD");
    text.remove_prefix(bad + 1);
  }
  out.append(text);
  return out;
}

}  // namespace flashsim
