// How a text importer (csv, txt) turns an id cell or line into a block_id:
// the `ids` option both formats declare, so string keys (memcached, object
// stores), hex ids (addresses, hashes) and plain integers all import.
//   numeric  an unsigned 64-bit integer, decimal or 0x-hex (the default)
//   hex      hexadecimal digits, 0x optional: "7fa3c0" is 0x7fa3c0
//   text     each distinct text an id, numbered 1, 2, 3 ... in order of first
//            appearance (exact; one table entry per distinct id in memory)
//   hash     XXH64 of the text, seed 0 (xxHash specification; Debian
//            libxxhash-dev): constant memory, and the same id in every run
//            and in Python's `xxhash.xxh64_intdigest(text)`; n distinct ids
//            collide with probability about n² / 2⁶⁵ (1e-3 at 1.9e8 ids)
// Blanks around the text are the caller's to trim.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>

#include "sim/core/hash_map.h"
#include "sim/core/params.h"

namespace flashsim {

enum class IdSyntax { numeric, hex, text, hash };

/// The `ids` parameter (choice numeric|hex|text|hash, default numeric), one
/// declaration for every format that reads ids as text.
ParamSpec ids_param_spec();

/// The syntax named by a resolved `ids` value. Throws InputError for any other text.
IdSyntax id_syntax_from(const std::string& value);

class BlockIdReader {
 public:
  explicit BlockIdReader(IdSyntax syntax) : syntax_(syntax) {}

  /// The block id of `text` in `out`; false when `text` is not an id of the
  /// syntax (numeric: not a decimal or 0x-hex integer below 2⁶⁴; hex: empty,
  /// more than 16 digits or a non-hex character). text and hash take any
  /// text, the empty one included.
  bool read(std::string_view text, std::uint64_t& out);

  /// Forgets the text numbering (a rewind: the next pass numbers alike).
  void clear() { numbers_.clear(); }

  /// Why `text`, which read() refused, is no id, and which `ids` value
  /// would read it: "is not an unsigned integer id (decimal or 0x-hex);
  /// ids=hex reads it as hexadecimal; ids=text (...) or ids=hash (...) read
  /// any text as an id (the format option: -o ids=text with flashsim trace,
  /// workload.import.ids in a scenario ...)". For a message after the
  /// quoted text; it names each command's spelling (an importer does not
  /// know which command opened it).
  std::string why_not(std::string_view text) const;

 private:
  IdSyntax syntax_;
  HashMap<std::string, std::uint64_t> numbers_;  // text: id per distinct text
};

}  // namespace flashsim
