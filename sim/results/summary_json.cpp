#include "sim/results/summary_json.h"

#include <fstream>

#include "sim/core/errors.h"

namespace flashsim {

SummaryJson read_summary_json(const std::filesystem::path& path) {
  std::error_code ec;
  SummaryJson out;
  out.file = std::filesystem::is_directory(path, ec) ? path / "summary.json" : path;
  std::ifstream in(out.file, std::ios::binary);
  if (!in) {
    throw InputError("cannot read '" + out.file.string() +
                     "' (a results folder of flashsim run, sweep merge or replay, or its summary.json)");
  }
  try {
    out.doc = nlohmann::ordered_json::parse(in);
  } catch (const nlohmann::json::exception& e) {
    throw InputError("'" + out.file.string() + "' is not JSON: " + e.what());
  }
  if (!out.doc.is_object() || !out.doc.contains("runs") || !out.doc["runs"].is_array()) {
    throw InputError("'" + out.file.string() + "' is not a flashsim summary.json (no 'runs' list)");
  }
  return out;
}

}  // namespace flashsim
