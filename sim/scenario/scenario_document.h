// A scenario file as loaded, before resolution: the YAML tree with the
// command line's --set overrides applied, and its sweep axes. Each sweep
// point resolves to one Scenario (sim/scenario/scenario.h).
#pragma once
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "sim/scenario/config_tree.h"
#include "sim/scenario/scenario.h"

namespace flashsim {

/// One `--set key=value`: a dotted path and a value parsed as YAML
/// (so `--set 'policies=[{impl: arc}]'` gives a list).
struct Override {
  std::string path;
  ConfigNode value;
};

/// Parses "key=value". Throws InputError when there is no '=' or the key is empty.
Override parse_override(std::string_view text);

/// "engine={impl: IMPL, KEY: "VALUE", ...}": what a command's options for
/// one engine become, as the text of one `--set` (flashsim replay hands it
/// to `flashsim run`; the validation suite's GPU runs parse it). Values are
/// quoted YAML scalars, so they stay text; the engine's parameters check them.
std::string engine_set_text(const std::string& impl, const std::vector<std::pair<std::string, std::string>>& params);

/// One `sweep:` entry: a dotted path and the values it takes.
struct SweepAxis {
  std::string path;
  SourcePos pos;                    ///< of the key in the file
  std::vector<ConfigNode> values;   ///< at least one
};

/// One point of the cartesian product: a value for every axis.
struct SweepPoint {
  std::size_t index = 0;            ///< position in expansion order, from 0
  std::vector<std::pair<std::string, ConfigNode>> assignments;  ///< (path, value), in axis order
  /// "cache.capacity=50% policies.0.age_window=100ms"; empty without a sweep.
  std::string label() const;
};

/// Default bound on the points of one sweep (each point is resolved and kept
/// in memory before any run); `flashsim run --max-points N` raises it.
inline constexpr std::uint64_t kDefaultMaxSweepPoints = 1'000'000;

/// Cartesian product of `axes`, in nested-loop order: the first axis varies
/// slowest, the last fastest. No axes give one point with no assignments.
/// Throws InputError, naming the axes' sizes, when the product exceeds
/// `max_points` (checked before anything is allocated).
std::vector<SweepPoint> expand_sweep(const std::vector<SweepAxis>& axes,
                                     std::uint64_t max_points = kDefaultMaxSweepPoints);

class ScenarioDocument {
 public:
  /// Reads a scenario file. Relative paths inside it (trace, hardware
  /// profile) resolve against its folder. `--set` overrides are applied in
  /// order; one whose path is a sweep axis replaces that axis.
  /// Throws InputError (naming file:line:column) on bad YAML or a bad sweep section.
  static ScenarioDocument from_file(const std::filesystem::path& file, const std::vector<Override>& overrides = {});

  /// The same from text; `display_name` names it in errors, `base_dir`
  /// anchors its relative paths.
  static ScenarioDocument from_text(std::string_view text, const std::string& display_name,
                                    const std::filesystem::path& base_dir,
                                    const std::vector<Override>& overrides = {});

  /// The embedded default scenario (scenarios/default.yaml compiled in).
  /// Throws Error if the binary carries none.
  static ScenarioDocument builtin_default(const std::vector<Override>& overrides = {});

  const ConfigNode& tree() const { return tree_; }  ///< without the sweep section
  const std::vector<SweepAxis>& sweep() const { return sweep_; }
  const std::filesystem::path& base_dir() const { return base_dir_; }
  const std::string& display_name() const { return display_name_; }

  /// expand_sweep(sweep(), max_points()).
  std::vector<SweepPoint> points() const { return expand_sweep(sweep_, max_points_); }
  std::uint64_t max_points() const { return max_points_; }
  void set_max_points(std::uint64_t n) { max_points_ = n; }

  /// The scenario at `point`: the point's values set into the tree, then
  /// every key validated and every default filled in. Throws InputError
  /// (or UnitError, UnknownNameError) naming file:line:column and the key.
  Scenario resolve(const SweepPoint& point) const;

  /// The document as given (overrides applied, sweep section included), as YAML.
  std::string input_text() const;

 private:
  ConfigNode tree_;
  std::vector<SweepAxis> sweep_;
  std::filesystem::path base_dir_;
  std::string display_name_;
  std::uint64_t max_points_ = kDefaultMaxSweepPoints;
};

/// Resolves a whole scenario tree (no sweep section); what
/// ScenarioDocument::resolve calls. `default_name` is used when the tree has
/// no `name:`.
Scenario resolve_scenario_tree(const ConfigNode& tree, const std::filesystem::path& base_dir,
                               const std::string& default_name, const std::string& source);

}  // namespace flashsim
