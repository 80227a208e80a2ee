#include "sim/workload/serving_presets.h"

#include "sim/core/errors.h"

namespace flashsim {

const std::vector<ServingPreset>& serving_presets() {
  static const std::vector<ServingPreset> presets = {
      {"short", 10, 32, 128, "seed 002 §4: 10 concurrent, prompt 32, output 128"},
      {"medium", 5, 512, 512, "seed 002 §4: 5 concurrent, prompt 512, output 512"},
      {"long", 2, 2048, 1024, "seed 002 §4: 2 concurrent, prompt 2048, output 1024"},
      {"longrun", 1, 1000, 100000, "seed 002 §6: one request, 1,000-token prompt, 100,000 tokens generated", 1024, true},
  };
  return presets;
}

const ServingPreset& find_serving_preset(std::string_view name) {
  for (const auto& p : serving_presets()) {
    if (p.name == name) return p;
  }
  std::string known;
  for (const auto& p : serving_presets()) known += (known.empty() ? "" : ", ") + p.name;
  throw InputError("unknown serving preset '" + std::string(name) + "' (known: " + known + ")");
}

std::vector<std::string> serving_preset_names() {
  std::vector<std::string> out;
  for (const auto& p : serving_presets()) out.push_back(p.name);
  return out;
}

}  // namespace flashsim
