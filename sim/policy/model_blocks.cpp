#include "sim/policy/model_blocks.h"

#include <algorithm>
#include <string>

#include "sim/core/errors.h"

namespace flashsim {

std::int32_t expert_of_name(std::string_view name) {
  constexpr std::string_view kPart = "experts.";
  for (std::size_t at = name.find(kPart); at != std::string_view::npos; at = name.find(kPart, at + 1)) {
    if (at > 0 && name[at - 1] != '.') continue;  // "num_experts." is not a part named experts
    std::size_t i = at + kPart.size();
    std::int64_t n = 0;
    const std::size_t digits_from = i;
    while (i < name.size() && name[i] >= '0' && name[i] <= '9' && n < (1 << 20)) n = n * 10 + (name[i++] - '0');
    if (i > digits_from && (i == name.size() || name[i] == '.' || name[i] == '#')) return static_cast<std::int32_t>(n);
  }
  return -1;
}

std::int32_t expert_of(const BlockCatalogEntry& entry) { return expert_of_name(entry.name); }

ExpertGrid expert_grid(const std::vector<BlockCatalogEntry>& catalog, std::string_view who) {
  ExpertGrid g;
  for (const auto& e : catalog) {
    const std::int32_t x = expert_of(e);
    if (x < 0 || e.layer < 0) continue;
    g.layers = std::max(g.layers, e.layer + 1);
    g.experts = std::max(g.experts, x + 1);
  }
  if (g.experts == 0) {
    throw InputError(std::string(who) + ": the trace's catalog names no expert (a weight named '...experts.N...' "
                                        "with a layer)");
  }
  return g;
}

bool is_weight_kind(std::string_view kind) {
  return !(kind.empty() || kind == "kv_page" || kind == "io" || kind == "activation");
}

}  // namespace flashsim
