// The tables `flashsim run` prints: one per sweep point, one row per policy.
#pragma once
#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include "sim/core/units.h"
#include "sim/results/run_result.h"

namespace flashsim {

/// Prints one table per sweep point of `results` (rows: policies) with hit
/// ratio by access and by byte, misses, bytes H2D, stall, p50/p99/max
/// access latency, simulated time, wall time and accesses/s; on serving
/// traces also TTFT p50/p99, mean TPOT and tokens/s, with prefetchers
/// prefetch accuracy, coverage and late prefetches, and the time of the
/// KV out-of-memory point when a run reached it (columns appear only when
/// some run of the table has them).
void print_results_tables(std::ostream& out, const ScenarioResults& results);

/// Prints `cells` (row 0 the head) as the run tables are: two spaces in,
/// columns one space apart at the width of their widest cell (UTF-8 code
/// points), the first left-aligned and the rest right-aligned, a rule of
/// dashes under the head. Rows may be shorter than the head.
void print_aligned_table(std::ostream& out, const std::vector<std::vector<std::string>>& cells);

/// "17.6 GB" (SI, 3 significant digits; "512 B" below 1 kB).
std::string format_bytes_si(ByteCount bytes);
/// "142 ns", "4.52 µs", "1.83 s".
std::string format_duration(Nanoseconds ns);
/// "48.3%".
std::string format_percent(double ratio);
/// "1.23 M" (counts; SI prefixes k, M, G).
std::string format_count(double value);

}  // namespace flashsim
