// Serving presets from the second seed article (seed 002 §4, its llmperf
// runs: "short text: 10 concurrent, prompt 32, output 128; medium: 5
// concurrent, 512/512; long: 2 concurrent, 2048/1024") and its long
// stability run (§6: prompt = the first 1,000 characters of a novel, taken
// here as 1,000 tokens; generate 100,000 tokens and record where memory
// runs out).
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace flashsim {

struct ServingPreset {
  std::string name;                ///< "short", "medium", "long", "longrun"
  std::uint32_t concurrency = 1;   ///< requests in flight at once
  std::uint32_t prompt_tokens = 0;
  std::uint32_t output_tokens = 0;
  std::string source;              ///< where the numbers come from
  /// KV paging the preset uses unless the workload says otherwise: 16-token
  /// per-layer pages (vLLM), except longrun: 1,024-token per-request pages,
  /// which keep its 101,000 tokens of KV to ~5 M page reads instead of ~10^10.
  std::uint32_t page_tokens = 16;
  bool per_request_pages = false;
};

/// Every preset, in the order above.
const std::vector<ServingPreset>& serving_presets();

/// The preset called `name`. Throws InputError listing the known names.
const ServingPreset& find_serving_preset(std::string_view name);

/// Names for a ParamSpec's choices.
std::vector<std::string> serving_preset_names();

}  // namespace flashsim
