#include "sim/cli/engine_warnings.h"

#include <set>
#include <sstream>
#include <string>

namespace flashsim::cli {

void print_engine_warnings(std::ostream& err, std::string_view command, const ScenarioResults& results) {
  std::set<std::string> said;
  for (const RunResult& r : results.runs) {
    for (const ComponentText& t : r.result.components.texts) {
      if (t.name != "warnings") continue;
      std::istringstream lines(t.text);
      for (std::string line; std::getline(lines, line);) {
        if (!line.empty() && said.insert(line).second) err << command << ": warning: " << line << "\n";
      }
    }
  }
}

}  // namespace flashsim::cli
