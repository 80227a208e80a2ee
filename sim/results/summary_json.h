// Reading a results folder's summary.json (sim/results/results_writer.h):
// one rule, for the commands that read results (export, compare, timeline).
#pragma once
#include <filesystem>
#include <nlohmann/json.hpp>

namespace flashsim {

struct SummaryJson {
  std::filesystem::path file;  ///< the summary.json read
  nlohmann::ordered_json doc;  ///< its document, keys in file order
};

/// `path` is a results folder (its summary.json is read) or the file itself.
/// Throws InputError "cannot read '<file>' (a results folder of flashsim
/// run, sweep merge or replay, or its summary.json)", "'<file>' is not
/// JSON: ...", or "'<file>' is not a
/// flashsim summary.json (no 'runs' list)" when the document is not an
/// object with a "runs" array.
SummaryJson read_summary_json(const std::filesystem::path& path);

}  // namespace flashsim
