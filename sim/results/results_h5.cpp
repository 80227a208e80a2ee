// results.h5 (layout in results_writer.h), through the HDF5 C API.
#include <hdf5.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <string>
#include <vector>

#include "sim/core/errors.h"
#include "sim/results/results_writer.h"
#include "traces/hdf5_io.h"

namespace flashsim {

namespace {

// --- minimal RAII over hid_t ---
class Id {
 public:
  using Closer = herr_t (*)(hid_t);
  Id(hid_t id, Closer closer, const std::string& what) : id_(id), closer_(closer) {
    if (id_ < 0) throw Error("results.h5: cannot " + what);
  }
  ~Id() {
    if (id_ < 0) return;
    // Destroyed by an exception: the temp file is deleted, so its closes must
    // not write (a close that fails half-way corrupts HDF5's id table; see
    // traces/hdf5_io.h, "closing files being written").
    if (std::uncaught_exceptions() > 0) h5::abandon_file_of(id_);
    closer_(id_);
  }
  Id(Id&& other) noexcept : id_(other.id_), closer_(other.closer_) { other.id_ = -1; }
  Id(const Id&) = delete;
  Id& operator=(const Id&) = delete;
  Id& operator=(Id&&) = delete;
  hid_t get() const { return id_; }
  /// Closes now, reporting failure (a close flushes data).
  void close(const std::string& what) {
    const herr_t status = closer_(id_);
    id_ = -1;
    if (status < 0) {
      const std::string detail = h5::last_error();
      throw Error("results.h5: cannot " + what + (detail.empty() ? "" : ": " + detail));
    }
  }

 private:
  hid_t id_;
  Closer closer_;
};

void check(herr_t status, const std::string& what) {
  if (status < 0) throw Error("results.h5: cannot " + what);
}

/// HDF5 prints its error stack by default; we throw our own errors instead.
class QuietHdf5 {
 public:
  QuietHdf5() {
    H5Eget_auto2(H5E_DEFAULT, &func_, &data_);
    H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
  }
  ~QuietHdf5() { H5Eset_auto2(H5E_DEFAULT, func_, data_); }
  QuietHdf5(const QuietHdf5&) = delete;
  QuietHdf5& operator=(const QuietHdf5&) = delete;

 private:
  H5E_auto2_t func_ = nullptr;
  void* data_ = nullptr;
};

Id string_type() {
  Id t(H5Tcopy(H5T_C_S1), H5Tclose, "create a string type");
  check(H5Tset_size(t.get(), H5T_VARIABLE), "size a string type");
  check(H5Tset_cset(t.get(), H5T_CSET_UTF8), "set UTF-8");
  return t;
}

// Object creation property lists with timestamps off (same input -> same bytes).
Id group_props() {
  Id p(H5Pcreate(H5P_GROUP_CREATE), H5Pclose, "create group properties");
  check(H5Pset_obj_track_times(p.get(), false), "turn off object timestamps");
  return p;
}

Id dataset_props() {
  Id p(H5Pcreate(H5P_DATASET_CREATE), H5Pclose, "create dataset properties");
  check(H5Pset_obj_track_times(p.get(), false), "turn off object timestamps");
  return p;
}

Id make_group(hid_t loc, const std::string& name) {
  Id props = group_props();
  return Id(H5Gcreate2(loc, name.c_str(), H5P_DEFAULT, props.get(), H5P_DEFAULT), H5Gclose, "create group " + name);
}

void attr_string(hid_t obj, const char* name, const std::string& value) {
  Id type = string_type();
  Id space(H5Screate(H5S_SCALAR), H5Sclose, "create a scalar space");
  Id attr(H5Acreate2(obj, name, type.get(), space.get(), H5P_DEFAULT, H5P_DEFAULT), H5Aclose,
          std::string("create attribute ") + name);
  const char* ptr = value.c_str();
  check(H5Awrite(attr.get(), type.get(), &ptr), std::string("write attribute ") + name);
}

void attr_i64(hid_t obj, const char* name, std::int64_t value) {
  Id space(H5Screate(H5S_SCALAR), H5Sclose, "create a scalar space");
  Id attr(H5Acreate2(obj, name, H5T_STD_I64LE, space.get(), H5P_DEFAULT, H5P_DEFAULT), H5Aclose,
          std::string("create attribute ") + name);
  check(H5Awrite(attr.get(), H5T_NATIVE_INT64, &value), std::string("write attribute ") + name);
}

void attr_f64(hid_t obj, const char* name, double value) {
  Id space(H5Screate(H5S_SCALAR), H5Sclose, "create a scalar space");
  Id attr(H5Acreate2(obj, name, H5T_IEEE_F64LE, space.get(), H5P_DEFAULT, H5P_DEFAULT), H5Aclose,
          std::string("create attribute ") + name);
  check(H5Awrite(attr.get(), H5T_NATIVE_DOUBLE, &value), std::string("write attribute ") + name);
}

void dataset_1d(hid_t loc, const std::string& name, hid_t file_type, hid_t mem_type, std::size_t n, const void* data) {
  const hsize_t dims[1] = {static_cast<hsize_t>(n)};
  Id space(H5Screate_simple(1, dims, nullptr), H5Sclose, "create a space for " + name);
  Id props = dataset_props();
  // Long numeric columns (time series) are chunked and compressed: a run with
  // fine windows otherwise writes tens of MB of mostly repeated values.
  constexpr std::size_t kCompressFrom = 4096;
  if (n >= kCompressFrom && H5Tget_class(file_type) != H5T_STRING) {
    const hsize_t chunk[1] = {static_cast<hsize_t>(std::min<std::size_t>(n, 65536))};
    check(H5Pset_chunk(props.get(), 1, chunk), "chunk dataset " + name);
    check(H5Pset_shuffle(props.get()), "shuffle dataset " + name);
    check(H5Pset_deflate(props.get(), 4), "compress dataset " + name);
  }
  Id ds(H5Dcreate2(loc, name.c_str(), file_type, space.get(), H5P_DEFAULT, props.get(), H5P_DEFAULT), H5Dclose,
        "create dataset " + name);
  if (n > 0) check(H5Dwrite(ds.get(), mem_type, H5S_ALL, H5S_ALL, H5P_DEFAULT, data), "write dataset " + name);
}

template <class T>
void column(hid_t loc, const std::string& name, const std::vector<T>& values) {
  hid_t file_type;
  hid_t mem_type;
  if constexpr (std::is_same_v<T, double>) {
    file_type = H5T_IEEE_F64LE;
    mem_type = H5T_NATIVE_DOUBLE;
  } else if constexpr (std::is_same_v<T, std::int64_t>) {
    file_type = H5T_STD_I64LE;
    mem_type = H5T_NATIVE_INT64;
  } else {
    static_assert(std::is_same_v<T, std::uint64_t>);
    file_type = H5T_STD_U64LE;
    mem_type = H5T_NATIVE_UINT64;
  }
  dataset_1d(loc, name, file_type, mem_type, values.size(), values.data());
}

// One /summary row in memory. All members are 8 bytes wide, so there is no
// padding; the file type is packed anyway.
struct SummaryRow {
  std::uint64_t run;
  std::uint64_t point;
  const char* point_label;
  std::uint64_t policy_index;
  const char* policy;
  const char* policy_label;
  const char* params;
  const char* engine;
  const char* decision_clock;
  std::uint64_t seed;
  const char* capacity_text;
  std::uint64_t capacity_bytes;
  std::uint64_t footprint_bytes;
  std::uint64_t accesses;
  std::uint64_t hits;
  std::uint64_t delayed_hits;
  std::uint64_t misses;
  std::uint64_t bypasses;
  double hit_ratio_by_access;
  double hit_ratio_by_byte;
  std::uint64_t bytes_accessed;
  std::uint64_t bytes_hit;
  std::uint64_t bytes_fetched;
  std::uint64_t bytes_prefetched;
  std::uint64_t evictions;
  std::uint64_t bytes_evicted;
  std::int64_t stall_ns;
  std::int64_t latency_p50_ns;
  std::int64_t latency_p99_ns;
  std::int64_t latency_max_ns;
  std::int64_t simulated_ns;
  std::uint64_t events;
  std::uint64_t pinned_bytes;
  std::uint64_t slot_reserved_peak_bytes;
  std::uint64_t fragmentation_evictions;
  // prefetch (sim/metrics/metrics.h)
  std::uint64_t prefetches;
  std::uint64_t prefetch_used_timely;
  std::uint64_t prefetch_used_late;
  std::uint64_t prefetch_unused;
  double prefetch_accuracy;
  double prefetch_coverage;
  double prefetch_timeliness;
  std::uint64_t write_allocations;
  std::uint64_t bytes_written_back;
  // serving
  std::uint64_t requests;
  std::uint64_t output_tokens;
  double tokens_per_second;
  std::int64_t ttft_p50_ns;
  std::int64_t ttft_p90_ns;
  std::int64_t ttft_p99_ns;
  double ttft_mean_ns;
  double tpot_mean_ns;
  double tpot_p50_ns;
  double tpot_p99_ns;
  std::int64_t e2e_p50_ns;
  std::int64_t e2e_p90_ns;
  std::int64_t e2e_p99_ns;
  // occupancy by kind, out-of-memory point
  std::uint64_t peak_weights_bytes;
  std::uint64_t peak_kv_bytes;
  std::uint64_t peak_other_bytes;
  std::uint64_t peak_total_bytes;
  std::uint64_t oom_reached;
  std::int64_t oom_time_ns;
  std::uint64_t oom_request_id;
  std::int64_t oom_token_index;
  std::uint64_t oom_kv_bytes;
};

Id summary_type(hid_t str) {
  Id t(H5Tcreate(H5T_COMPOUND, sizeof(SummaryRow)), H5Tclose, "create the summary type");
  auto add = [&](const char* name, std::size_t offset, hid_t type) {
    check(H5Tinsert(t.get(), name, offset, type), std::string("define summary field ") + name);
  };
#define FLASHSIM_FIELD(name, type) add(#name, offsetof(SummaryRow, name), type)
  FLASHSIM_FIELD(run, H5T_NATIVE_UINT64);
  FLASHSIM_FIELD(point, H5T_NATIVE_UINT64);
  FLASHSIM_FIELD(point_label, str);
  FLASHSIM_FIELD(policy_index, H5T_NATIVE_UINT64);
  FLASHSIM_FIELD(policy, str);
  FLASHSIM_FIELD(policy_label, str);
  FLASHSIM_FIELD(params, str);
  FLASHSIM_FIELD(engine, str);
  FLASHSIM_FIELD(decision_clock, str);
  FLASHSIM_FIELD(seed, H5T_NATIVE_UINT64);
  FLASHSIM_FIELD(capacity_text, str);
  FLASHSIM_FIELD(capacity_bytes, H5T_NATIVE_UINT64);
  FLASHSIM_FIELD(footprint_bytes, H5T_NATIVE_UINT64);
  FLASHSIM_FIELD(accesses, H5T_NATIVE_UINT64);
  FLASHSIM_FIELD(hits, H5T_NATIVE_UINT64);
  FLASHSIM_FIELD(delayed_hits, H5T_NATIVE_UINT64);
  FLASHSIM_FIELD(misses, H5T_NATIVE_UINT64);
  FLASHSIM_FIELD(bypasses, H5T_NATIVE_UINT64);
  FLASHSIM_FIELD(hit_ratio_by_access, H5T_NATIVE_DOUBLE);
  FLASHSIM_FIELD(hit_ratio_by_byte, H5T_NATIVE_DOUBLE);
  FLASHSIM_FIELD(bytes_accessed, H5T_NATIVE_UINT64);
  FLASHSIM_FIELD(bytes_hit, H5T_NATIVE_UINT64);
  FLASHSIM_FIELD(bytes_fetched, H5T_NATIVE_UINT64);
  FLASHSIM_FIELD(bytes_prefetched, H5T_NATIVE_UINT64);
  FLASHSIM_FIELD(evictions, H5T_NATIVE_UINT64);
  FLASHSIM_FIELD(bytes_evicted, H5T_NATIVE_UINT64);
  FLASHSIM_FIELD(stall_ns, H5T_NATIVE_INT64);
  FLASHSIM_FIELD(latency_p50_ns, H5T_NATIVE_INT64);
  FLASHSIM_FIELD(latency_p99_ns, H5T_NATIVE_INT64);
  FLASHSIM_FIELD(latency_max_ns, H5T_NATIVE_INT64);
  FLASHSIM_FIELD(simulated_ns, H5T_NATIVE_INT64);
  FLASHSIM_FIELD(events, H5T_NATIVE_UINT64);
  FLASHSIM_FIELD(pinned_bytes, H5T_NATIVE_UINT64);
  FLASHSIM_FIELD(slot_reserved_peak_bytes, H5T_NATIVE_UINT64);
  FLASHSIM_FIELD(fragmentation_evictions, H5T_NATIVE_UINT64);
  FLASHSIM_FIELD(prefetches, H5T_NATIVE_UINT64);
  FLASHSIM_FIELD(prefetch_used_timely, H5T_NATIVE_UINT64);
  FLASHSIM_FIELD(prefetch_used_late, H5T_NATIVE_UINT64);
  FLASHSIM_FIELD(prefetch_unused, H5T_NATIVE_UINT64);
  FLASHSIM_FIELD(prefetch_accuracy, H5T_NATIVE_DOUBLE);
  FLASHSIM_FIELD(prefetch_coverage, H5T_NATIVE_DOUBLE);
  FLASHSIM_FIELD(prefetch_timeliness, H5T_NATIVE_DOUBLE);
  FLASHSIM_FIELD(write_allocations, H5T_NATIVE_UINT64);
  FLASHSIM_FIELD(bytes_written_back, H5T_NATIVE_UINT64);
  FLASHSIM_FIELD(requests, H5T_NATIVE_UINT64);
  FLASHSIM_FIELD(output_tokens, H5T_NATIVE_UINT64);
  FLASHSIM_FIELD(tokens_per_second, H5T_NATIVE_DOUBLE);
  FLASHSIM_FIELD(ttft_p50_ns, H5T_NATIVE_INT64);
  FLASHSIM_FIELD(ttft_p90_ns, H5T_NATIVE_INT64);
  FLASHSIM_FIELD(ttft_p99_ns, H5T_NATIVE_INT64);
  FLASHSIM_FIELD(ttft_mean_ns, H5T_NATIVE_DOUBLE);
  FLASHSIM_FIELD(tpot_mean_ns, H5T_NATIVE_DOUBLE);
  FLASHSIM_FIELD(tpot_p50_ns, H5T_NATIVE_DOUBLE);
  FLASHSIM_FIELD(tpot_p99_ns, H5T_NATIVE_DOUBLE);
  FLASHSIM_FIELD(e2e_p50_ns, H5T_NATIVE_INT64);
  FLASHSIM_FIELD(e2e_p90_ns, H5T_NATIVE_INT64);
  FLASHSIM_FIELD(e2e_p99_ns, H5T_NATIVE_INT64);
  FLASHSIM_FIELD(peak_weights_bytes, H5T_NATIVE_UINT64);
  FLASHSIM_FIELD(peak_kv_bytes, H5T_NATIVE_UINT64);
  FLASHSIM_FIELD(peak_other_bytes, H5T_NATIVE_UINT64);
  FLASHSIM_FIELD(peak_total_bytes, H5T_NATIVE_UINT64);
  FLASHSIM_FIELD(oom_reached, H5T_NATIVE_UINT64);
  FLASHSIM_FIELD(oom_time_ns, H5T_NATIVE_INT64);
  FLASHSIM_FIELD(oom_request_id, H5T_NATIVE_UINT64);
  FLASHSIM_FIELD(oom_token_index, H5T_NATIVE_INT64);
  FLASHSIM_FIELD(oom_kv_bytes, H5T_NATIVE_UINT64);
#undef FLASHSIM_FIELD
  return t;
}

void write_summary(hid_t file, const ScenarioResults& results) {
  // Backing strings for the row pointers.
  std::vector<std::string> params(results.runs.size());
  std::vector<SummaryRow> rows(results.runs.size());
  for (std::size_t i = 0; i < results.runs.size(); ++i) {
    const RunResult& r = results.runs[i];
    const AccessCounters& c = r.result.metrics.total;
    const LatencyHistogram& lat = r.result.metrics.latency;
    params[i] = params_text(r.policy_params);
    SummaryRow& row = rows[i];
    row.run = r.index;
    row.point = r.point_index;
    row.point_label = r.point_label.c_str();
    row.policy_index = r.policy_index;
    row.policy = r.policy.c_str();
    row.policy_label = r.policy_label.c_str();
    row.params = params[i].c_str();
    row.engine = r.engine.c_str();
    row.decision_clock = r.decision_clock.c_str();
    row.seed = r.seed;
    row.capacity_text = r.capacity_text.c_str();
    row.capacity_bytes = r.capacity_bytes;
    row.footprint_bytes = r.footprint_bytes;
    row.accesses = c.accesses;
    row.hits = c.hits;
    row.delayed_hits = c.delayed_hits;
    row.misses = c.misses;
    row.bypasses = c.bypasses;
    row.hit_ratio_by_access = c.hit_ratio_by_access();
    row.hit_ratio_by_byte = c.hit_ratio_by_byte();
    row.bytes_accessed = c.bytes_accessed;
    row.bytes_hit = c.bytes_hit;
    row.bytes_fetched = c.bytes_fetched;
    row.bytes_prefetched = c.bytes_prefetched;
    row.evictions = c.evictions;
    row.bytes_evicted = c.bytes_evicted;
    row.stall_ns = c.stall_ns;
    row.latency_p50_ns = lat.quantile_ns(0.50);
    row.latency_p99_ns = lat.quantile_ns(0.99);
    row.latency_max_ns = lat.max_ns();
    row.simulated_ns = r.result.metrics.simulated_ns;
    row.events = r.result.events_processed;
    row.pinned_bytes = r.result.pinned_bytes;
    row.slot_reserved_peak_bytes = r.result.slot_reserved_peak_bytes;
    row.fragmentation_evictions = r.result.fragmentation_evictions;
    const RunMetrics& m = r.result.metrics;
    row.prefetches = c.prefetches;
    row.prefetch_used_timely = c.prefetch_used_timely;
    row.prefetch_used_late = c.prefetch_used_late;
    row.prefetch_unused = c.prefetch_unused;
    row.prefetch_accuracy = c.prefetch_accuracy();
    row.prefetch_coverage = c.prefetch_coverage();
    row.prefetch_timeliness = c.prefetch_timeliness();
    row.write_allocations = c.write_allocations;
    row.bytes_written_back = c.bytes_written_back;
    const ServingMetrics& sv = m.serving;
    row.requests = sv.requests.size();
    row.output_tokens = sv.output_tokens;
    row.tokens_per_second = sv.tokens_per_second;
    row.ttft_p50_ns = sv.ttft_p50_ns;
    row.ttft_p90_ns = sv.ttft_p90_ns;
    row.ttft_p99_ns = sv.ttft_p99_ns;
    row.ttft_mean_ns = sv.ttft_mean_ns;
    row.tpot_mean_ns = sv.tpot_mean_ns;
    row.tpot_p50_ns = sv.tpot_p50_ns;
    row.tpot_p99_ns = sv.tpot_p99_ns;
    row.e2e_p50_ns = sv.e2e_p50_ns;
    row.e2e_p90_ns = sv.e2e_p90_ns;
    row.e2e_p99_ns = sv.e2e_p99_ns;
    row.peak_weights_bytes = m.occupancy.peak_weights_bytes;
    row.peak_kv_bytes = m.occupancy.peak_kv_bytes;
    row.peak_other_bytes = m.occupancy.peak_other_bytes;
    row.peak_total_bytes = m.occupancy.peak.total_bytes();
    row.oom_reached = m.out_of_memory.reached ? 1 : 0;
    row.oom_time_ns = m.out_of_memory.time_ns;
    row.oom_request_id = m.out_of_memory.request_id;
    row.oom_token_index = m.out_of_memory.token_index;
    row.oom_kv_bytes = m.out_of_memory.kv_bytes;
  }
  Id str = string_type();
  Id mem = summary_type(str.get());
  Id packed(H5Tcopy(mem.get()), H5Tclose, "copy the summary type");
  check(H5Tpack(packed.get()), "pack the summary type");
  dataset_1d(file, "summary", packed.get(), mem.get(), rows.size(), rows.data());
}

std::string run_group_name(std::size_t index, std::size_t count) {
  const int width = count <= 1000 ? 3 : static_cast<int>(std::to_string(count - 1).size());
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "run_%0*zu", width, index);
  return buffer;
}

// occupancy/: the occupancy-by-kind samples (metrics.h, OccupancySample).
void write_occupancy(hid_t run_group, const OccupancyMetrics& o) {
  Id g = make_group(run_group, "occupancy");
  attr_i64(g.get(), "sample_ns", o.sample_ns);
  const std::size_t n = o.samples.size();
  std::vector<std::int64_t> time(n);
  std::vector<std::uint64_t> weights(n), kv(n), other(n);
  for (std::size_t i = 0; i < n; ++i) {
    time[i] = o.samples[i].time_ns;
    weights[i] = o.samples[i].weights_bytes;
    kv[i] = o.samples[i].kv_bytes;
    other[i] = o.samples[i].other_bytes;
  }
  column(g.get(), "time_ns", time);
  column(g.get(), "weights_bytes", weights);
  column(g.get(), "kv_bytes", kv);
  column(g.get(), "other_bytes", other);
}

// requests/: one row per serving request (metrics.h, RequestMetrics).
void write_requests(hid_t run_group, const ServingMetrics& sv) {
  Id g = make_group(run_group, "requests");
  const std::size_t n = sv.requests.size();
  std::vector<std::uint64_t> id(n), tokens(n), input(n), accesses(n);
  std::vector<std::int64_t> arrival(n), admitted(n), first(n), end(n), ttft(n), e2e(n);
  std::vector<double> tpot(n);
  for (std::size_t i = 0; i < n; ++i) {
    const RequestMetrics& q = sv.requests[i];
    id[i] = q.request_id;
    tokens[i] = q.output_tokens;
    input[i] = q.input_tokens;
    accesses[i] = q.accesses;
    arrival[i] = q.arrival_ns;
    admitted[i] = q.admitted_ns;
    first[i] = q.first_token_ns;
    end[i] = q.end_ns;
    ttft[i] = q.ttft_ns();
    e2e[i] = q.e2e_ns();
    tpot[i] = q.tpot_ns();
  }
  column(g.get(), "request_id", id);
  column(g.get(), "arrival_ns", arrival);
  column(g.get(), "admitted_ns", admitted);
  column(g.get(), "first_token_ns", first);
  column(g.get(), "end_ns", end);
  column(g.get(), "output_tokens", tokens);
  column(g.get(), "input_tokens", input);
  column(g.get(), "accesses", accesses);
  column(g.get(), "ttft_ns", ttft);
  column(g.get(), "tpot_ns", tpot);
  column(g.get(), "e2e_ns", e2e);
}

void write_timeseries(hid_t file, const ScenarioResults& results) {
  Id top = make_group(file, "timeseries");
  for (const RunResult& r : results.runs) {
    const RunMetrics& m = r.result.metrics;
    Id g = make_group(top.get(), run_group_name(r.index, results.runs.size()));
    attr_string(g.get(), "policy", r.policy_label);
    attr_string(g.get(), "point", r.point_label);
    attr_i64(g.get(), "window_ns", m.window_ns);
    const std::size_t n = m.windows.size();
    std::vector<std::int64_t> start(n), stall(n), busy(n);
    std::vector<std::uint64_t> accesses(n), hits(n), delayed(n), misses(n), bytes_accessed(n), bytes_hit(n),
        fetched(n), occupancy(n);
    std::vector<double> hr_access(n), hr_byte(n), utilisation(n);
    for (std::size_t i = 0; i < n; ++i) {
      const MetricsWindow& w = m.windows[i];
      start[i] = w.start_ns;
      accesses[i] = w.counters.accesses;
      hits[i] = w.counters.hits;
      delayed[i] = w.counters.delayed_hits;
      misses[i] = w.counters.misses;
      bytes_accessed[i] = w.counters.bytes_accessed;
      bytes_hit[i] = w.counters.bytes_hit;
      fetched[i] = w.counters.bytes_fetched;
      stall[i] = w.counters.stall_ns;
      busy[i] = w.link_busy_ns;
      occupancy[i] = w.occupancy_bytes;
      hr_access[i] = w.counters.hit_ratio_by_access();
      hr_byte[i] = w.counters.hit_ratio_by_byte();
      // The last window may be cut short by the end of the run.
      Nanoseconds width = m.window_ns;
      if (i + 1 == n && m.simulated_ns > w.start_ns) width = std::min<Nanoseconds>(width, m.simulated_ns - w.start_ns);
      utilisation[i] = width > 0 ? static_cast<double>(w.link_busy_ns) / static_cast<double>(width) : 0.0;
    }
    column(g.get(), "start_ns", start);
    column(g.get(), "accesses", accesses);
    column(g.get(), "hits", hits);
    column(g.get(), "delayed_hits", delayed);
    column(g.get(), "misses", misses);
    column(g.get(), "bytes_accessed", bytes_accessed);
    column(g.get(), "bytes_hit", bytes_hit);
    column(g.get(), "bytes_fetched", fetched);
    column(g.get(), "stall_ns", stall);
    column(g.get(), "link_busy_ns", busy);
    column(g.get(), "occupancy_bytes", occupancy);
    column(g.get(), "hit_ratio_by_access", hr_access);
    column(g.get(), "hit_ratio_by_byte", hr_byte);
    column(g.get(), "link_utilisation", utilisation);
    write_occupancy(g.get(), m.occupancy);
    if (!m.serving.requests.empty()) write_requests(g.get(), m.serving);
  }
}

void write_scenario(hid_t file, const ScenarioResults& results) {
  std::vector<const char*> texts;
  texts.reserve(results.resolved_texts.size());
  for (const auto& t : results.resolved_texts) texts.push_back(t.c_str());
  Id str = string_type();
  const hsize_t dims[1] = {static_cast<hsize_t>(texts.size())};
  Id space(H5Screate_simple(1, dims, nullptr), H5Sclose, "create a space for scenario");
  Id props = dataset_props();
  Id ds(H5Dcreate2(file, "scenario", str.get(), space.get(), H5P_DEFAULT, props.get(), H5P_DEFAULT), H5Dclose,
        "create dataset scenario");
  if (!texts.empty()) {
    check(H5Dwrite(ds.get(), str.get(), H5S_ALL, H5S_ALL, H5P_DEFAULT, texts.data()), "write dataset scenario");
  }
  attr_string(ds.get(), "input", results.input_text);
  std::string labels;
  for (const auto& l : results.point_labels) labels += l + "\n";
  attr_string(ds.get(), "point_labels", labels);
}

void write_host(hid_t file, const ScenarioResults& results) {
  Id g = make_group(file, "host");
  attr_string(g.get(), "hostname", results.host.hostname);
  attr_string(g.get(), "date_utc", results.host.date_utc);
  attr_i64(g.get(), "jobs", results.host.jobs);
  attr_f64(g.get(), "total_wall_seconds", results.host.total_wall_seconds);
  std::vector<double> wall, rate;
  for (const RunResult& r : results.runs) {
    wall.push_back(r.wall_seconds);
    rate.push_back(r.accesses_per_second());
  }
  column(g.get(), "wall_seconds", wall);
  column(g.get(), "accesses_per_second", rate);
}

}  // namespace

void write_results_h5(const std::filesystem::path& path, const ScenarioResults& results,
                      const ResultsWriteOptions& options) {
  QuietHdf5 quiet;
  auto stage = [&](std::string_view name) {
    if (options.after_stage) options.after_stage(name);
  };
  Id fcpl(H5Pcreate(H5P_FILE_CREATE), H5Pclose, "create file properties");
  check(H5Pset_obj_track_times(fcpl.get(), false), "turn off object timestamps");
  h5::check_room_to_create(path.string(), "results.h5: cannot create " + path.string());
  Id file(H5Fcreate(path.c_str(), H5F_ACC_TRUNC, fcpl.get(), H5P_DEFAULT), H5Fclose, "create " + path.string());
  attr_i64(file.get(), "results_schema_version", kResultsSchemaVersion);
  attr_string(file.get(), "tool_version", results.tool_version);
  attr_string(file.get(), "scenario", results.scenario_name);
  attr_string(file.get(), "scenario_source", results.scenario_source);
  attr_i64(file.get(), "seed", results.runs.empty() ? 0 : static_cast<std::int64_t>(results.runs.front().seed));
  attr_string(file.get(), "decision_clock", results.common_decision_clock());
  attr_string(file.get(), "engine", results.common_engine());
  write_summary(file.get(), results);
  stage("summary");
  write_timeseries(file.get(), results);
  stage("timeseries");
  write_scenario(file.get(), results);
  stage("scenario");
  write_host(file.get(), results);
  stage("host");
  // Everything reaches the disk while all objects are open; only then close.
  if (H5Fflush(file.get(), H5F_SCOPE_GLOBAL) < 0) {
    throw Error("results.h5: cannot write " + path.string() + ": " + h5::last_error());
  }
  file.close("close " + path.string());
  stage("h5-closed");
}

}  // namespace flashsim
