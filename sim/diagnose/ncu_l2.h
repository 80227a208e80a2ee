// The L2 hit rate of a program's kernels from Nsight Compute (`ncu --csv`).
// The rate is hits / (hits + misses) of the L2 sector lookups that came from
// the SMs (srcunit_tex), summed over the kernels before dividing:
//   lts__t_sectors_srcunit_tex_lookup_hit.sum
//   lts__t_sectors_srcunit_tex_lookup_miss.sum
// Both counters count the same lookups, so the rate can never pass 100%.
// lts__t_sector_hit_rate.pct (what docs/hardware.md read as 434–756%) also
// counts sectors from other source units (copy engines writing into L2
// while the kernel runs) in its numerator and divides by a different
// total; it is read only to be shown beside the fixed one.
#pragma once
#include <istream>
#include <regex>
#include <string>
#include <vector>

namespace flashsim::diagnose {

/// The ncu metrics to ask for, comma-separated (`ncu --metrics`).
inline constexpr const char* kNcuL2Metrics =
    "lts__t_sectors_srcunit_tex_lookup_hit.sum,lts__t_sectors_srcunit_tex_lookup_miss.sum,"
    "lts__t_sector_hit_rate.pct";

struct KernelL2 {
  std::string kernel;          ///< demangled name as ncu prints it
  double hits = 0, misses = 0;  ///< SM sector lookups
  double ncu_pct = -1;          ///< lts__t_sector_hit_rate.pct as printed (-1: absent)
};

struct NcuL2 {
  std::vector<KernelL2> kernels;  ///< every profiled kernel launch, in ncu's order
  /// Summed over the launches whose name matches `weight_kernels`:
  double hits = 0, misses = 0;
  std::size_t matched = 0;
  double hit_rate() const { return hits + misses > 0 ? hits / (hits + misses) : 0; }
  double max_ncu_pct = -1;  ///< the largest lts__t_sector_hit_rate.pct seen (-1: absent)
};

/// Reads ncu's CSV (`ncu --csv --metrics kNcuL2Metrics ...`: one row per
/// kernel launch and metric; "==PROF==" lines and anything before the
/// header are skipped; values may carry thousands separators). `where`
/// names the input in errors. Throws InputError when there is no header
/// with "ID", "Kernel Name", "Metric Name" and "Metric Value", or a value of
/// our metrics is not a number (naming the line).
NcuL2 read_ncu_l2(std::istream& in, const std::string& where, const std::regex& weight_kernels);

}  // namespace flashsim::diagnose
