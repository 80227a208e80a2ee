#include "sim/results/run_result.h"

#include <unistd.h>

#include <array>
#include <chrono>
#include <ctime>

#include "flashsim_version.h"  // FLASHSIM_VERSION_STRING, from git at build time (cmake/write_version.cmake)

namespace flashsim {

double RunResult::accesses_per_second() const {
  if (wall_seconds <= 0.0) return 0.0;
  return static_cast<double>(result.metrics.total.accesses) / wall_seconds;
}

HostInfo HostInfo::current() {
  HostInfo h;
  std::array<char, 256> name{};
  if (gethostname(name.data(), name.size() - 1) == 0) h.hostname = name.data();
  const std::time_t now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm utc{};
  gmtime_r(&now, &utc);
  std::array<char, 32> text{};
  std::strftime(text.data(), text.size(), "%Y-%m-%dT%H:%M:%SZ", &utc);
  h.date_utc = text.data();
  return h;
}

namespace {

template <class Get>
std::string common(const std::vector<RunResult>& runs, Get get) {
  if (runs.empty()) return "";
  const std::string first = get(runs.front());
  for (const auto& r : runs) {
    if (get(r) != first) return "mixed";
  }
  return first;
}

}  // namespace

std::string ScenarioResults::common_decision_clock() const {
  return common(runs, [](const RunResult& r) { return r.decision_clock; });
}

std::string ScenarioResults::common_engine() const {
  return common(runs, [](const RunResult& r) { return r.engine; });
}

const char* tool_version_string() { return FLASHSIM_VERSION_STRING; }

std::string params_text(const std::map<std::string, std::string>& params) {
  std::string out;
  for (const auto& [k, v] : params) out += (out.empty() ? "" : " ") + k + "=" + v;
  return out;
}

}  // namespace flashsim
