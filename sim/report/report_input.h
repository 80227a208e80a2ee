// What `flashsim report` reads: a validation.json (flashsim validate) or a
// `flashsim run` summary.json, given as the file or as the folder holding it.
#pragma once
#include <filesystem>
#include <string>

#include "sim/report/run_summary_document.h"
#include "sim/report/validation_document.h"

namespace flashsim::report {

struct ReportInput {
  enum class Kind { validation, run_summary };
  Kind kind = Kind::validation;
  std::filesystem::path file;  ///< the JSON file read
  ValidationDocument validation;  ///< kind == validation
  RunSummaryDocument run_summary;  ///< kind == run_summary
};

/// The file a RESULTS argument names: the path itself when a file; for a
/// folder, its validation.json, else its summary.json. Throws InputError
/// naming the path when it does not exist or is a folder with neither.
std::filesystem::path resolve_report_input(const std::filesystem::path& argument);

/// Resolves and reads one RESULTS argument. A file whose "schema" key is
/// set must be flashsim-validation/1; a file without one must be a run
/// summary (results_schema_version and runs). Throws InputError naming the
/// file (and the key) otherwise, or when the document is malformed.
ReportInput load_report_input(const std::filesystem::path& argument);

}  // namespace flashsim::report
