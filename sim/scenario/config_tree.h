// A YAML document as a plain tree whose every node remembers where it was
// written (file, line, column). Scenarios are assembled from several
// documents (the scenario file, a hardware profile, sweep values, --set
// options), so positions travel with the nodes: an error always names the
// place the offending text came from. yaml-cpp is used only to parse and
// emit; everything else (lookup, dotted paths, merging) works on this tree.
#pragma once
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "sim/core/errors.h"

namespace flashsim {

/// Where a node was written. line/column are 1-based; 0 means "no position"
/// (a value from the command line, or a default filled in by the resolver).
struct SourcePos {
  std::string file;  ///< display name: the path as given, "--set key=value", "<builtin:NAME>"
  int line = 0;
  int column = 0;
  /// "FILE:LINE:COLUMN", or just "FILE" without a position.
  std::string describe() const;
};

struct ConfigEntry;

/// One YAML node. Scalars keep their text; interpreting it (units, numbers)
/// is the resolver's job, so "2MiB" and "42" are both scalars.
struct ConfigNode {
  enum class Kind { null, scalar, sequence, map };

  Kind kind = Kind::null;
  std::string scalar;               ///< Kind::scalar only
  std::vector<ConfigNode> items;    ///< Kind::sequence only
  std::vector<ConfigEntry> entries; ///< Kind::map only, in document order
  SourcePos pos;

  static ConfigNode make_scalar(std::string text, SourcePos pos = {});
  static ConfigNode make_map(SourcePos pos = {});
  static ConfigNode make_sequence(SourcePos pos = {});

  bool is_null() const { return kind == Kind::null; }
  bool is_scalar() const { return kind == Kind::scalar; }
  bool is_sequence() const { return kind == Kind::sequence; }
  bool is_map() const { return kind == Kind::map; }

  /// Map lookup; nullptr when absent (or when this is not a map).
  const ConfigNode* find(std::string_view key) const;
  ConfigNode* find(std::string_view key);
  /// Map lookup of the entry (key position included); nullptr when absent.
  const ConfigEntry* find_entry(std::string_view key) const;
  /// Sets `key` (replacing an existing value, else appending). This must be a map.
  void set(std::string key, ConfigNode value, SourcePos key_pos = {});
  /// Removes `key` if present; returns whether it was.
  bool erase(std::string_view key);

  /// "map", "list", "scalar", "null" — for "wrong type" messages.
  std::string_view kind_name() const;
};

struct ConfigEntry {
  std::string key;
  SourcePos key_pos;
  ConfigNode value;
};

/// Parses YAML text. `display_name` names the source in positions and errors.
/// Throws InputError "NAME:LINE:COLUMN: YAML syntax error: ..." on bad syntax
/// and on a key repeated within one map. An empty document gives a null node.
ConfigNode parse_yaml_text(std::string_view text, const std::string& display_name);

/// The bytes of a file. Throws InputError "NAME: cannot open file" / read error.
std::string read_text_file(const std::filesystem::path& path, const std::string& display_name);

/// Reads and parses a file; `display_name` defaults to the path as given.
/// Throws InputError when the file cannot be read or parsed.
ConfigNode parse_yaml_file(const std::filesystem::path& path, std::string display_name = {});

/// Emits `node` as block-style YAML text (keys in tree order). Scalars that
/// YAML would read differently (empty, "yes", "1:2", ...) are quoted.
std::string to_yaml_text(const ConfigNode& node);

/// Emits a scalar or a small node on one line (flow style), for labels
/// such as "policies.0=[{impl: lru}]".
std::string to_flow_text(const ConfigNode& node);

/// Recursive merge of `overlay` onto `base` (hardware profile overrides):
/// maps merge key by key, sequences element by element (index i onto index
/// i; extra overlay elements are appended), a null overlay changes nothing,
/// anything else is replaced.
void merge_into(ConfigNode& base, const ConfigNode& overlay);

/// Splits "policies.0.age_window" into {"policies", "0", "age_window"}.
/// Throws InputError on an empty path or empty component.
std::vector<std::string> split_dotted_path(std::string_view dotted);

/// Replaces the node at `dotted` in `root` by `value`. Missing levels are
/// created: a list when the next component is a number (padded with nulls
/// up to it), else a map. A number indexing an existing list must be <= its
/// size (== appends). Throws InputError
/// naming `where` and the path when it runs into a scalar or an index out
/// of range.
void set_at_path(ConfigNode& root, std::string_view dotted, ConfigNode value, const SourcePos& where);

/// The closest of `candidates` to `word` by edit distance, if close enough
/// to be a plausible typo (distance <= max(2, |word|/3)); else empty.
std::string closest_match(std::string_view word, const std::vector<std::string>& candidates);

/// Where the values inside `node` came from, for an error about them
/// together (a cross-parameter check of a map): `node`'s position, led by
/// the command-line values (no line: --set) set inside it, at most three
/// ("--set hardware.l2.line_size=7 (over h200.yaml:56:3)"), so the error
/// names the override rather than only the file it changed. A file's map
/// over a profile's has the file's position already.
SourcePos sources_of(const ConfigNode& node);

/// Throws `Exception` with the message "POS: key 'KEY': MESSAGE" (the key
/// part is left out when `key` is empty).
template <class Exception = InputError>
[[noreturn]] void throw_at(const SourcePos& pos, std::string_view key, std::string_view message) {
  std::string text = pos.describe();
  if (!key.empty()) text += ": key '" + std::string(key) + "'";
  text += ": ";
  text += message;
  throw Exception(text);
}

}  // namespace flashsim
