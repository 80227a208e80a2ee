// Files of the repository's scenarios/ folder compiled into the binary, so
// that `flashsim run` works on a machine without the source tree: the
// default scenario (scenarios/default.yaml), the hardware profiles
// (scenarios/hardware/*.yaml) and the committed input data
// (scenarios/data/*). The table is generated at build time by
// sim/scenario/embed_files.cmake (see sim/CMakeLists.txt).
#pragma once
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace flashsim {

struct EmbeddedFile {
  std::string_view path;  ///< relative to scenarios/: "default.yaml", "hardware/h200.yaml", "data/x.csv"
  std::string_view data;  ///< the file's bytes
};

/// Every embedded file, sorted by path.
std::span<const EmbeddedFile> embedded_files();

/// The file at `relative_path` (as in EmbeddedFile::path); nullptr if absent.
const EmbeddedFile* find_embedded_file(std::string_view relative_path);

/// The data file a scenario names as `builtin:NAME`: data/NAME, or the
/// data/NAME.* whose name before the first dot is NAME (so NAME may omit
/// the extension); nullptr if none.
const EmbeddedFile* find_embedded_data(std::string_view name);

/// Names usable as `builtin:NAME` (data file names without extension).
std::vector<std::string> embedded_data_names();

/// The hardware profile "hardware/NAME" or "hardware/NAME.yaml"; nullptr if absent.
const EmbeddedFile* find_embedded_hardware(std::string_view name);

/// Names of the embedded hardware profiles (without .yaml).
std::vector<std::string> embedded_hardware_names();

}  // namespace flashsim
