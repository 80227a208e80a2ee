// What a run will need, checked before it starts (issue 14): memory for the
// blocks a granularity splits a trace into, and time-series windows for the
// span of a timestamped trace. Each check names the key, the number and the
// limit, and how to raise it — instead of std::bad_alloc or an error after
// hours of simulation.
#pragma once
#include <cstdint>

#include "sim/core/memory_limit.h"
#include "sim/core/units.h"
#include "sim/run/trace_provider.h"
#include "sim/scenario/scenario.h"
#include "sim/scenario/scenario_document.h"

namespace flashsim {

/// Memory one run holds per distinct block (numbering, tier entry, policy
/// node, statistics) and per access (next use, chunk buffers). Measured, not
/// derived: peak RSS of `flashsim run` on builtin:llama-2048x22 under LRU at
/// cache.granularity 4KiB / 1KiB / 256B (537 K / 2.15 M / 8.6 M pieces:
/// 223 MB / 797 MB / 3.31 GB, so 356 B per piece) and Belady at 4KiB
/// (+62 MB for 4.3 M accesses, 14 B per access); rounded up.
inline constexpr ByteCount kRunBytesPerBlock = 400;
inline constexpr ByteCount kRunBytesPerAccess = 16;

/// Memory a sweep point holds from resolution to the end of the run (its
/// resolved scenario, texts and results): measured by issue 14's attack, a
/// 20,000-point cache-only sweep peaked at 932 MB (46.6 KB a point);
/// rounded up.
inline constexpr ByteCount kRunBytesPerSweepPoint = 48 * 1024;

/// Throws InputError naming the sweep's file when its points (the product
/// of the axes' lengths, before any is expanded) would need more than
/// `limit_bytes` at kRunBytesPerSweepPoint each. Nothing with limit 0.
void check_sweep_memory(const ScenarioDocument& document, ByteCount limit_bytes);

/// Throws InputError naming `scenario.source` and cache.granularity when the
/// runs of a split trace would need more than `limit_bytes` together
/// (`concurrent_runs` at once, each kRunBytesPerBlock per piece plus
/// kRunBytesPerAccess per access). Does nothing without a granularity or
/// with limit_bytes 0. One pass over the trace (measure_footprint with pieces).
void check_granularity_memory(const Scenario& scenario, const TraceProvider& trace, unsigned concurrent_runs,
                              ByteCount limit_bytes);

/// Throws InputError naming outputs.window when a timestamped (issue:
/// timestamp) event-engine run over the trace's span would need more
/// time-series windows than a run may have (kMaxTimeSeriesWindows). Uses
/// the footprint pass's first and last time.
void check_window_count(const Scenario& scenario, const TraceProvider& trace);

/// Throws InputError naming cache.pin.blocks when a pinned id is never
/// accessed in the trace (with cache.granularity, piece ids of the split
/// trace): a pin of nothing is a typo, not a choice. One pass over the
/// trace, only when ids are pinned.
void check_pinned_blocks(const Scenario& scenario, const TraceProvider& trace);

}  // namespace flashsim
