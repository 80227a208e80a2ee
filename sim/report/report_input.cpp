#include "sim/report/report_input.h"

#include <system_error>

#include "sim/core/errors.h"
#include "sim/report/json_fields.h"

namespace flashsim::report {

std::filesystem::path resolve_report_input(const std::filesystem::path& argument) {
  std::error_code ec;
  const auto status = std::filesystem::status(argument, ec);
  if (!std::filesystem::exists(status)) throw InputError("'" + argument.string() + "': no such file or folder");
  if (!std::filesystem::is_directory(status)) return argument;
  for (const char* name : {"validation.json", "summary.json"}) {
    if (std::filesystem::is_regular_file(argument / name, ec)) return argument / name;
  }
  throw InputError("folder '" + argument.string() + "' holds neither validation.json nor summary.json");
}

ReportInput load_report_input(const std::filesystem::path& argument) {
  ReportInput input;
  input.file = resolve_report_input(argument);
  const JsonFields json(input.file);
  if (json.root().contains("schema") || !is_run_summary(json)) {
    input.kind = ReportInput::Kind::validation;
    input.validation = read_validation_document(json);  // names a wrong or missing schema
  } else {
    input.kind = ReportInput::Kind::run_summary;
    input.run_summary = read_run_summary_document(json);
  }
  return input;
}

}  // namespace flashsim::report
