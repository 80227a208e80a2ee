// What a prefetcher tells the driver about itself: named counters (prefetch
// candidates issued, controller mode switches, ...) and a short log of
// events (a controller switching mode). Optional: a prefetcher that reports
// also derives from IPrefetcherReport; drivers ask through
// report_prefetcher_stats(), so IPrefetcher itself is unchanged.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "sim/core/units.h"

namespace flashsim {

class IPrefetcher;

/// One notable moment (e.g. "prewarm": the controller switched to pre-warm).
struct PrefetcherEvent {
  std::uint64_t access_index = 0;  ///< PrefetchAccess::access_index when it happened
  Nanoseconds now_ns = 0;          ///< decision clock then
  std::string what;                ///< short name: "prewarm", "evict_idle", "normal"
  double value = 0.0;              ///< what triggered it (the controller: windowed hit ratio)
};

/// Counters and events of one prefetcher, appended in a fixed order.
struct PrefetcherStats {
  struct Counter {
    std::string name;  ///< snake_case, unit in the name where there is one
    double value = 0.0;
  };
  std::vector<Counter> counters;
  std::vector<PrefetcherEvent> events;

  void add(std::string name, double value) { counters.push_back({std::move(name), value}); }
  /// The value of counter `name`; throws InputError when absent.
  double get(const std::string& name) const;
};

/// Implemented by prefetchers that report (all of sim/prefetch/impl do).
class IPrefetcherReport {
 public:
  virtual ~IPrefetcherReport() = default;
  /// Appends this prefetcher's counters and events to `out`.
  virtual void report(PrefetcherStats& out) const = 0;
};

/// Appends `prefetcher`'s counters and events to `out` when it reports;
/// returns false (and leaves `out` alone) otherwise.
bool report_prefetcher_stats(const IPrefetcher& prefetcher, PrefetcherStats& out);

}  // namespace flashsim
