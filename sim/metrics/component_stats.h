// Statistics a component of the simulator declares about itself (as SST
// components declare theirs): the L2 model, the TLB, each link, each tier,
// each prefetcher. Each component appends its own rows through a report()
// next to its definition; the engine collects them into EngineResult and
// the results carry them per run (results.h5 /timeseries/run_NNN/components,
// summary.json runs[].components). Beside the numbers: facts that are text
// (a device's name, why NVML was not sampled) and per-run series (the GPU
// replay's token start times, its NVML samples), written only when a run has
// them (summary.json runs[].component_texts and runs[].component_series;
// results.h5 components/texts/{component,name,text} and
// components/series/COMPONENT.NAME with a `unit` attribute).
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

struct ComponentText {
  std::string component;
  std::string name;
  std::string text;
};

struct ComponentSeries {
  std::string component;
  std::string name;
  std::string unit;
  std::vector<double> values;
};

struct ComponentStats {
  std::vector<ComponentStat> rows;
  std::vector<ComponentText> texts;
  std::vector<ComponentSeries> series;
  void add(std::string component, std::string name, std::string unit, double value) {
    rows.push_back(ComponentStat{std::move(component), std::move(name), std::move(unit), value});
  }
  void add_text(std::string component, std::string name, std::string text) {
    texts.push_back(ComponentText{std::move(component), std::move(name), std::move(text)});
  }
  void add_series(std::string component, std::string name, std::string unit, std::vector<double> values) {
    series.push_back(ComponentSeries{std::move(component), std::move(name), std::move(unit), std::move(values)});
  }
  /// The number, or the text, named `component`.`name`; nullptr when absent.
  const ComponentStat* find(const std::string& component, const std::string& name) const {
    for (const ComponentStat& s : rows) {
      if (s.component == component && s.name == name) return &s;
    }
    return nullptr;
  }
  const ComponentText* find_text(const std::string& component, const std::string& name) const {
    for (const ComponentText& t : texts) {
      if (t.component == component && t.name == name) return &t;
    }
    return nullptr;
  }
  const ComponentSeries* find_series(const std::string& component, const std::string& name) const {
    for (const ComponentSeries& s : series) {
      if (s.component == component && s.name == name) return &s;
    }
    return nullptr;
  }
};

}  // namespace flashsim
