// The optimal-caching bound beside a capacity sweep's policies in `flashsim
// report`: the trace of a `flashsim run` results folder re-opened from the
// resolved scenarios in its results.h5 (/scenario, one per sweep point, as
// diagnose's levers re-run them), read as the cache saw it (cache.granularity
// split, cache.ignore_sizes as one unit a block), and the bounds of
// sim/bound/optimal_bound.h solved at every capacity the runs used.
//
// The solver comes in as a function: sim/bound/ is built only with LEMON,
// and this library builds without it (the caller passes
// optimal_hit_bounds when FLASHSIM_HAVE_LEMON, else nothing, and the report
// says why in one line).
#pragma once
#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "sim/bound/optimal_bound.h"
#include "sim/report/json_fields.h"
#include "sim/report/run_summary_document.h"

namespace flashsim::report {

/// optimal_hit_bounds with its options bound: bounds per capacity (bytes,
/// or blocks under cache.ignore_sizes), in the order given.
using BoundSolver = std::function<std::vector<HitBound>(const std::vector<AccessRecord>& records,
                                                        const std::vector<ByteCount>& capacities)>;

struct MrcBounds {
  /// Parallel to RunSummaryDocument::runs; nullopt where the run has none.
  std::vector<std::optional<HitBound>> per_run;
  /// One line when some or all runs have no bound, saying why ("this
  /// flashsim was built without LEMON ..."); also when prefetching runs may
  /// exceed it. Empty otherwise.
  std::string note;
  bool attempted = false;  ///< false: not a capacity sweep, or --no-bound; nothing to say
};

/// "optimal (FOO bounds)" for the exact solver's method ("FOO"), "PFOO
/// bounds (PFOO-L / segmented FOO-U)" for the practical one: what the plots
/// and the table call the band.
std::string bound_label(const std::string& method);

/// True when the runs hold two capacities or more (a capacity sweep: the
/// report then draws a miss-ratio curve and its bound).
bool is_capacity_sweep(const RunSummaryDocument& doc);

/// The bounds of `doc`'s runs. A document that is not a capacity sweep gives
/// attempted == false. Without a solver, without results.h5 (or its
/// /scenario) beside the summary, or when a point cannot be resolved or its
/// trace opened, every run is left without a bound and `note` says why
/// (nothing is thrown for those). Runs of a captured program (engine:
/// program), with pinned blocks or with cache.size_change: hit get none
/// either (the bound assumes the refetch rule and the whole tier), named in
/// the note. Error from the solver propagates.
MrcBounds compute_mrc_bounds(const RunSummaryDocument& doc, const BoundSolver& solver);

/// Schema of the data `flashsim report` writes beside its page (FILE.html ->
/// FILE-mrc.json) and plots from: {"schema", "sections": [mrc_section_json ...]}.
inline constexpr const char* kReportMrcSchema = "flashsim-report-mrc/1";

/// One run summary's curves: scenario, file, size_unit, bound_note, and per
/// run policy_label, point_label, curve (the point label without its
/// cache.capacity assignment: runs of one curve differ only in capacity),
/// capacity, capacity_bytes, footprint_bytes, hit_ratio_by_access,
/// hit_ratio_by_byte and bound (null, or method, label and the four
/// hit_ratio_by_{byte,access}_{upper,lower} of HitBound).
Json mrc_section_json(const RunSummaryDocument& doc, const MrcBounds& bounds);

}  // namespace flashsim::report
