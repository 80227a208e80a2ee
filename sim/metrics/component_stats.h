// Statistics a component of the simulator declares about itself (as SST
// components declare theirs): the L2 model, the TLB, each link, each tier,
// each prefetcher. Each component appends its own rows through a report()
// next to its definition; the engine collects them into EngineResult and
// the results carry them per run (results.h5 /runs/run_N/components,
// summary.json runs[].components).
#pragma once
#include <string>
#include <vector>

namespace flashsim {

struct ComponentStat {
  std::string component;  ///< "l2", "tlb", "link.host_dram->hbm", "tier.hbm", "prefetcher.lookahead"
  std::string name;       ///< snake_case: "sector_hits", "busy_ns"
  std::string unit;       ///< "count", "bytes", "ns", "1" (a ratio), "" (other)
  double value = 0.0;
};

struct ComponentStats {
  std::vector<ComponentStat> rows;
  void add(std::string component, std::string name, std::string unit, double value) {
    rows.push_back(ComponentStat{std::move(component), std::move(name), std::move(unit), value});
  }
};

}  // namespace flashsim
