#include "sim/report/mrc_bound.h"

#include <map>
#include <set>
#include <tuple>

#include "sim/core/errors.h"
#include "sim/run/scenario_runner.h"
#include "sim/run/trace_provider.h"
#include "sim/scenario/scenario_document.h"
#include "traces/granularity.h"
#include "traces/hdf5_io.h"

namespace flashsim::report {

namespace {

// A run label's "+NAME" parts are its prefetchers, "+admit:NAME" its
// admission (sim/scenario/scenario.h, PolicyChoice::label).
bool label_names_a_prefetcher(const std::string& label) {
  for (std::size_t at = label.find('+'); at != std::string::npos; at = label.find('+', at + 1)) {
    if (label.compare(at + 1, 6, "admit:") != 0) return true;
  }
  return false;
}

// The resolved scenario of each sweep point (results.h5 /scenario). Throws
// InputError saying what is missing.
std::vector<std::string> resolved_scenarios(const std::filesystem::path& h5) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(h5, ec)) {
    throw InputError("no " + h5.string() + " beside the summary to re-open the trace from");
  }
  h5::QuietErrors quiet;  // libhdf5's own stack would print before our message
  auto file = h5::open_file_read(h5.string());
  if (!h5::link_exists(file.get(), "scenario")) {
    throw InputError(h5.string() + " lacks /scenario (the resolved scenarios) to re-open the trace from");
  }
  auto ds = h5::open_dataset(file.get(), "scenario");
  return h5::read_strings(ds.get(), h5::length(ds.get(), h5.string() + ": /scenario"));
}

// What the bound of a point needs of its scenario: the same key means the
// same records, as the cache saw them.
using TraceIdentity = std::tuple<std::string, ByteCount, bool>;  // trace_key, granularity, ignore_sizes

// Why the bound does not apply to a point's runs; "" when it does.
std::string not_applicable(const Scenario& s) {
  if (s.engine_traits().capabilities.needs_program_trace) return "runs of a captured program (engine: " + s.engine.impl + ")";
  if (s.cache.size_change == SizeChange::hit) return "cache.size_change: hit (the bound counts a size change as a miss)";
  if (!s.cache.pinned.empty()) return "pinned blocks (cache.pin: the bound has the whole tier)";
  return "";
}

}  // namespace

std::string bound_label(const std::string& method) {
  return method == "FOO" ? "optimal (FOO bounds)" : "PFOO bounds (" + method + ")";
}

bool is_capacity_sweep(const RunSummaryDocument& doc) {
  std::set<double> capacities;
  for (const RunSummaryRow& r : doc.runs) capacities.insert(r.capacity_bytes);
  return capacities.size() >= 2;
}

MrcBounds compute_mrc_bounds(const RunSummaryDocument& doc, const BoundSolver& solver) {
  MrcBounds out;
  out.per_run.resize(doc.runs.size());
  if (!is_capacity_sweep(doc)) return out;
  out.attempted = true;
  if (!solver) {
    out.note = "No optimal-caching bound: this flashsim was built without LEMON (Debian liblemon-dev).";
    return out;
  }
  std::vector<Scenario> points;  // by sweep point
  try {
    const std::filesystem::path h5 = doc.file.parent_path() / "results.h5";
    const std::vector<std::string> texts = resolved_scenarios(h5);
    // Relative paths of a resolved scenario are few (traces are absolute);
    // anchor the rest where the scenario file was, as diagnose's levers do.
    const std::string& source = doc.scenario_source;
    const std::filesystem::path base = source.empty() || source.front() == '<'
                                           ? std::filesystem::current_path()
                                           : std::filesystem::path(source).parent_path();
    for (std::size_t p = 0; p < texts.size(); ++p) {
      const ScenarioDocument document =
          ScenarioDocument::from_text(texts[p], h5.string() + " point " + std::to_string(p), base);
      points.push_back(std::move(resolve_points(document).at(0)));
    }
  } catch (const InputError& e) {
    out.note = std::string("No optimal-caching bound: cannot re-open the runs' trace: ") + e.what();
    return out;
  }

  // Runs grouped by the records they saw; each group's trace read once and
  // solved once at all its capacities.
  std::map<TraceIdentity, std::vector<std::size_t>> groups;  // -> run indices
  std::map<TraceIdentity, std::size_t> group_point;
  std::set<std::string> skipped;
  bool prefetching = false;
  for (std::size_t i = 0; i < doc.runs.size(); ++i) {
    const RunSummaryRow& r = doc.runs[i];
    if (r.point >= points.size()) {
      skipped.insert("run " + std::to_string(i) + " of point " + std::to_string(r.point) + ", which results.h5 lacks");
      continue;
    }
    const Scenario& s = points[r.point];
    if (const std::string why = not_applicable(s); !why.empty()) {
      skipped.insert(why);
      continue;
    }
    prefetching = prefetching || !s.prefetchers.empty() || label_names_a_prefetcher(r.policy_label);
    const TraceIdentity key{trace_key(s.workload), s.cache.granularity_bytes, s.cache.ignore_sizes};
    groups[key].push_back(i);
    group_point.emplace(key, r.point);
  }
  for (const auto& [key, runs] : groups) {
    const Scenario& s = points[group_point.at(key)];
    std::vector<AccessRecord> records;
    try {
      const TraceProvider provider(s.workload);
      std::unique_ptr<ITraceSource> trace = provider.open();
      if (s.cache.granularity_bytes > 0) {
        trace = std::make_unique<GranularityTraceSource>(std::move(trace), s.cache.granularity_bytes);
      }
      records = read_all_records(*trace);
    } catch (const InputError& e) {
      skipped.insert(std::string("cannot re-open the trace: ") + e.what());
      continue;
    }
    if (records.empty()) {
      skipped.insert("an empty trace");
      continue;
    }
    // A trace replaced since the run (same path, other records) would bound
    // runs it never fed: the access count the runs recorded must match.
    bool same = true;
    for (const std::size_t i : runs) same = same && doc.runs[i].accesses == static_cast<double>(records.size());
    if (!same) {
      skipped.insert("the trace (" + (s.workload.generated ? std::string("generated") : s.workload.trace) + ") now has " +
                     std::to_string(records.size()) +
                     " accesses where the runs recorded " +
                     std::to_string(static_cast<std::uint64_t>(doc.runs[runs.front()].accesses)) +
                     ": it changed since the run");
      continue;
    }
    if (s.cache.ignore_sizes) {
      for (AccessRecord& a : records) a.bytes = 1;  // capacities count blocks then
    }
    std::vector<ByteCount> capacities;
    for (const std::size_t i : runs) {
      const auto c = static_cast<ByteCount>(doc.runs[i].capacity_bytes);
      if (c == 0) continue;
      bool seen = false;
      for (const ByteCount x : capacities) seen = seen || x == c;
      if (!seen) capacities.push_back(c);
    }
    if (capacities.empty()) continue;
    const std::vector<HitBound> bounds = solver(records, capacities);
    for (const std::size_t i : runs) {
      for (const HitBound& b : bounds) {
        if (b.capacity_bytes == static_cast<ByteCount>(doc.runs[i].capacity_bytes)) out.per_run[i] = b;
      }
    }
  }
  std::string why;
  for (const std::string& s : skipped) why += (why.empty() ? "" : "; ") + s;
  bool all = true, none = true;
  for (const auto& b : out.per_run) {
    all = all && b.has_value();
    none = none && !b.has_value();
  }
  if (none) {
    out.note = "No optimal-caching bound: " + (why.empty() ? std::string("no run has a capacity") : why) + ".";
  } else if (!all) {
    out.note = "Some runs have no optimal-caching bound: " + why + ".";
  }
  if (prefetching && !none) {
    out.note += std::string(out.note.empty() ? "" : " ") +
                "The bound is for demand caching: runs with prefetchers can hit more.";
  }
  return out;
}

Json mrc_section_json(const RunSummaryDocument& doc, const MrcBounds& bounds) {
  Json j;
  j["scenario"] = doc.scenario;
  j["file"] = doc.file.string();
  j["size_unit"] = doc.size_unit();
  j["bound_note"] = bounds.note;
  j["runs"] = Json::array();
  for (std::size_t i = 0; i < doc.runs.size(); ++i) {
    const RunSummaryRow& r = doc.runs[i];
    Json run{{"policy_label", r.policy_label},
             {"point_label", r.point_label},
             {"curve", r.point_label_without_capacity()},
             {"capacity", r.capacity},
             {"capacity_bytes", r.capacity_bytes},
             {"footprint_bytes", r.footprint_bytes},
             {"hit_ratio_by_access", r.hit_ratio_by_access},
             {"hit_ratio_by_byte", r.hit_ratio_by_byte},
             {"bound", nullptr}};
    if (i < bounds.per_run.size() && bounds.per_run[i]) {
      const HitBound& b = *bounds.per_run[i];
      run["bound"] = Json{{"method", b.method},
                          {"label", bound_label(b.method)},
                          {"capacity_bytes", b.capacity_bytes},
                          {"hit_ratio_by_byte_upper", b.hit_ratio_by_byte_upper},
                          {"hit_ratio_by_byte_lower", b.hit_ratio_by_byte_lower},
                          {"hit_ratio_by_access_upper", b.hit_ratio_by_access_upper},
                          {"hit_ratio_by_access_lower", b.hit_ratio_by_access_lower}};
    }
    j["runs"].push_back(std::move(run));
  }
  return j;
}

}  // namespace flashsim::report
