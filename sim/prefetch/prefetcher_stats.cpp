#include "sim/prefetch/prefetcher_stats.h"

#include "sim/core/errors.h"
#include "sim/prefetch/i_prefetcher.h"

namespace flashsim {

double PrefetcherStats::get(const std::string& name) const {
  for (const Counter& c : counters)
    if (c.name == name) return c.value;
  std::string known;
  for (const Counter& c : counters) known += (known.empty() ? "" : ", ") + c.name;
  throw InputError("prefetcher counter '" + name + "' not reported (known: " + known + ")");
}

bool report_prefetcher_stats(const IPrefetcher& prefetcher, PrefetcherStats& out) {
  const auto* reporter = dynamic_cast<const IPrefetcherReport*>(&prefetcher);
  if (reporter == nullptr) return false;
  reporter->report(out);
  return true;
}

}  // namespace flashsim
