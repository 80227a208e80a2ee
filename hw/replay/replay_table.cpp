#include "hw/replay/replay_table.h"

#include <cstdio>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <string>

#include "sim/core/errors.h"

namespace flashsim::hw {

void print_device_identity(std::ostream& out, const DeviceIdentity& d) {
  out << "device: " << d.name << "  " << d.uuid << "  pci " << d.pci_bus_id << "\n"
      << "        driver " << (d.driver_version.empty() ? "?" : d.driver_version) << ", CUDA driver "
      << d.cuda_driver_version / 1000 << "." << (d.cuda_driver_version % 1000) / 10 << ", SM clock " << d.sm_clock_mhz
      << " MHz (max " << d.sm_clock_max_mhz << ", application " << d.sm_clock_application_mhz << "), memory clock "
      << d.memory_clock_mhz << " MHz (max " << d.memory_clock_max_mhz << ")  [" << d.source << "]\n";
}

void print_replay_table(std::ostream& out, const std::filesystem::path& dir) {
  const std::filesystem::path file = dir / "summary.json";
  std::ifstream in(file);
  if (!in) throw InputError("cannot read '" + file.string() + "'");
  nlohmann::json doc;
  try {
    doc = nlohmann::json::parse(in);
  } catch (const nlohmann::json::exception& e) {
    throw InputError("'" + file.string() + "': " + e.what());
  }
  char line[512];
  std::snprintf(line, sizeof(line), "%-28s %-8s %9s %7s %11s %11s %s\n", "policy", "capacity", "dec ns", "iso ns",
                "token ms", "rec tok ms", "checks");
  out << line;
  for (const auto& run : doc.at("runs")) {
    std::map<std::string, double> replay;
    for (const auto& c : run.value("components", nlohmann::json::array())) {
      if (c.value("component", "") == "replay") replay[c.value("name", "")] = c.value("value", 0.0);
    }
    if (replay.empty()) throw InputError("'" + file.string() + "': run " + std::to_string(run.value("run", 0)) +
                                         " has no replay components (not a gpu_replay result)");
    const std::string policy = run.value("policy_label", "");
    const std::string point = run.value("point_label", "");
    const std::string label = point.empty() ? policy : policy + " @" + point;
    const bool ok = replay["checksum_mismatches"] == 0 && replay["resident_mismatches"] == 0;
    const std::string checks =
        ok ? "ok(" + std::to_string(static_cast<long long>(replay["resident_checked"])) + ")" : "MISMATCH";
    std::snprintf(line, sizeof(line), "%-28s %-8s %9.0f %7.0f %11.3f %11.3f %s\n", label.substr(0, 28).c_str(),
                  run.value("capacity_text", "").c_str(), replay["decision_ns_mean"],
                  replay["decision_isolated_ns_mean"], replay["decode_token_ns"] / 1e6,
                  replay["recorded_decode_token_ns"] / 1e6, checks.c_str());
    out << line;
  }
}

}  // namespace flashsim::hw
