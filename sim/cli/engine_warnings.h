// What the engines warn of in their runs (a component text named
// "warnings", one warning a line: the program engine's profile without an
// execution: section), as every command prints it.
#pragma once
#include <ostream>
#include <string_view>

#include "sim/results/run_result.h"

namespace flashsim::cli {

/// Prints each distinct line of the runs' "warnings" texts once, in run
/// order, as "COMMAND: warning: LINE" on `err`.
void print_engine_warnings(std::ostream& err, std::string_view command, const ScenarioResults& results);

}  // namespace flashsim::cli
