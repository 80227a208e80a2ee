// results.h5 (layout in results_writer.h), through the HDF5 C API.
#include <hdf5.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <exception>
#include <memory>
#include <string>
#include <vector>

#include "sim/core/errors.h"
#include "sim/core/utf8.h"
#include "sim/results/metric_schema.h"
#include "sim/results/results_writer.h"
#include "sim/results/sweep_store.h"
#include "sim/results/timeseries_group.h"
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
  const std::string text = to_valid_utf8(value);  // a trace's file name need not be UTF-8
  const char* ptr = text.c_str();
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

// /summary: one row per run, one field per metric of the schema
// (sim/results/metric_schema.h), in its order. In memory every field takes
// 8 bytes (a number, or the pointer of a variable-length string); the file
// type is packed.
constexpr std::size_t kField = 8;
static_assert(sizeof(const char*) == kField && sizeof(double) == kField);

// The in-memory type of a /summary row: 8 bytes a field, schema order.
Id summary_mem_type() {
  const std::vector<RunMetricSpec>& schema = run_metric_schema();
  Id str = string_type();
  Id mem(H5Tcreate(H5T_COMPOUND, schema.size() * kField), H5Tclose, "create the summary type");
  for (std::size_t k = 0; k < schema.size(); ++k) {
    const RunMetricSpec& m = schema[k];
    const hid_t type = m.type == MetricType::u64   ? H5T_NATIVE_UINT64
                       : m.type == MetricType::i64 ? H5T_NATIVE_INT64
                       : m.type == MetricType::f64 ? H5T_NATIVE_DOUBLE
                                                   : str.get();
    const std::string name(m.name);
    check(H5Tinsert(mem.get(), name.c_str(), k * kField, type), "define summary field " + name);
  }
  return mem;
}

void write_summary(hid_t file, const ScenarioResults& results) {
  const std::vector<RunMetricSpec>& schema = run_metric_schema();
  Id mem = summary_mem_type();
  const std::size_t n = results.runs.size();
  std::vector<unsigned char> rows(n * schema.size() * kField);
  std::vector<std::string> texts;  // backing strings for the row pointers
  texts.reserve(n * schema.size());
  for (std::size_t r = 0; r < n; ++r) {
    for (std::size_t k = 0; k < schema.size(); ++k) {
      const RunMetricValue v = schema[k].get(results.runs[r]);
      unsigned char* at = rows.data() + (r * schema.size() + k) * kField;
      switch (v.type) {
        case MetricType::u64: std::memcpy(at, &v.u64, kField); break;
        case MetricType::i64: std::memcpy(at, &v.i64, kField); break;
        case MetricType::f64: std::memcpy(at, &v.f64, kField); break;
        case MetricType::text: {
          texts.push_back(to_valid_utf8(v.text));
          const char* p = texts.back().c_str();
          std::memcpy(at, &p, kField);
          break;
        }
      }
    }
  }
  Id packed(H5Tcopy(mem.get()), H5Tclose, "copy the summary type");
  check(H5Tpack(packed.get()), "pack the summary type");
  dataset_1d(file, "summary", packed.get(), mem.get(), n, rows.data());
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
// components/: what each component counted (sim/metrics/component_stats.h),
// one row per statistic.
void write_components(hid_t run_group, const ComponentStats& cs) {
  Id g = make_group(run_group, "components");
  std::vector<std::string> component, name, unit;
  std::vector<double> value;
  for (const ComponentStat& s : cs.rows) {
    component.push_back(s.component);
    name.push_back(s.name);
    unit.push_back(s.unit);
    value.push_back(s.value);
  }
  h5::write_strings(g.get(), "component", component);
  h5::write_strings(g.get(), "name", name);
  h5::write_strings(g.get(), "unit", unit);
  column(g.get(), "value", value);
  if (!cs.texts.empty()) {
    Id t = make_group(g.get(), "texts");
    std::vector<std::string> tc, tn, tt;
    for (const ComponentText& x : cs.texts) {
      tc.push_back(x.component);
      tn.push_back(x.name);
      tt.push_back(x.text);
    }
    h5::write_strings(t.get(), "component", tc);
    h5::write_strings(t.get(), "name", tn);
    h5::write_strings(t.get(), "text", tt);
  }
  if (!cs.series.empty()) {
    Id sg = make_group(g.get(), "series");
    for (const ComponentSeries& x : cs.series) {
      const std::string name = x.component + "." + x.name;
      column(sg.get(), name, x.values);
      Id d(H5Dopen2(sg.get(), name.c_str(), H5P_DEFAULT), H5Dclose, "components/series/" + name);
      attr_string(d.get(), "unit", x.unit);
    }
  }
}

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
    Id g = make_group(top.get(), timeseries_group_name(r.index, results.runs.size()));
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
    const ComponentStats& cs = r.result.components;
    if (!cs.rows.empty() || !cs.texts.empty() || !cs.series.empty()) write_components(g.get(), cs);
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

void write_host_values(hid_t file, const HostInfo& host, const std::vector<double>& wall,
                       const std::vector<double>& rate) {
  Id g = make_group(file, "host");
  attr_string(g.get(), "hostname", host.hostname);
  attr_string(g.get(), "date_utc", host.date_utc);
  attr_i64(g.get(), "jobs", host.jobs);
  attr_f64(g.get(), "total_wall_seconds", host.total_wall_seconds);
  column(g.get(), "wall_seconds", wall);
  column(g.get(), "accesses_per_second", rate);
}

void write_host(hid_t file, const ScenarioResults& results) {
  std::vector<double> wall, rate;
  for (const RunResult& r : results.runs) {
    wall.push_back(r.wall_seconds);
    rate.push_back(r.accesses_per_second());
  }
  write_host_values(file, results.host, wall, rate);
}

// results.h5 created at `path` (no object timestamps, so files of equal
// runs are equal) with its root attributes: the schema version, the tool
// version and scenario of `results`, and the given seed, decision clock
// and engine (which a merge derives from its point files).
Id create_results_file(const std::filesystem::path& path, const ScenarioResults& results, std::int64_t seed,
                       const std::string& decision_clock, const std::string& engine) {
  Id fcpl(H5Pcreate(H5P_FILE_CREATE), H5Pclose, "create file properties");
  check(H5Pset_obj_track_times(fcpl.get(), false), "turn off object timestamps");
  h5::check_room_to_create(path.string(), "results.h5: cannot create " + path.string());
  Id file(H5Fcreate(path.c_str(), H5F_ACC_TRUNC, fcpl.get(), H5P_DEFAULT), H5Fclose, "create " + path.string());
  attr_i64(file.get(), "results_schema_version", kResultsSchemaVersion);
  attr_string(file.get(), "tool_version", results.tool_version);
  attr_string(file.get(), "scenario", results.scenario_name);
  attr_string(file.get(), "scenario_source", results.scenario_source);
  attr_i64(file.get(), "seed", seed);
  attr_string(file.get(), "decision_clock", decision_clock);
  attr_string(file.get(), "engine", engine);
  return file;
}

// --- reading back what write_results_h5 wrote (merging point files) ---

std::string read_attr_string(hid_t obj, const char* name, const std::string& file) {
  Id attr(H5Aopen(obj, name, H5P_DEFAULT), H5Aclose, "read attribute " + std::string(name) + " of " + file);
  Id type = string_type();
  char* value = nullptr;
  check(H5Aread(attr.get(), type.get(), &value), "read attribute " + std::string(name) + " of " + file);
  std::string out = value ? value : "";
  H5free_memory(value);
  return out;
}

std::int64_t read_attr_i64(hid_t obj, const char* name, const std::string& file) {
  Id attr(H5Aopen(obj, name, H5P_DEFAULT), H5Aclose, "read attribute " + std::string(name) + " of " + file);
  std::int64_t value = 0;
  check(H5Aread(attr.get(), H5T_NATIVE_INT64, &value), "read attribute " + std::string(name) + " of " + file);
  return value;
}

std::vector<double> read_doubles(hid_t loc, const std::string& name, const std::string& file) {
  Id ds(H5Dopen2(loc, name.c_str(), H5P_DEFAULT), H5Dclose, "open " + name + " of " + file);
  Id space(H5Dget_space(ds.get()), H5Sclose, "read the shape of " + name + " of " + file);
  std::vector<double> out(static_cast<std::size_t>(H5Sget_simple_extent_npoints(space.get())));
  if (!out.empty()) {
    check(H5Dread(ds.get(), H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, out.data()), "read " + name + " of " + file);
  }
  return out;
}

// One point file's /summary rows, as read (strings owned by HDF5 until
// the destructor reclaims them).
class SummaryRows {
 public:
  SummaryRows(hid_t file, hid_t mem, const std::string& what) : mem_(mem) {
    Id ds(H5Dopen2(file, "summary", H5P_DEFAULT), H5Dclose, "open /summary of " + what);
    Id file_type(H5Dget_type(ds.get()), H5Tclose, "read the type of /summary of " + what);
    if (H5Tget_nmembers(file_type.get()) != static_cast<int>(run_metric_schema().size())) {
      throw Error("results.h5: " + what + ": /summary has " + std::to_string(H5Tget_nmembers(file_type.get())) +
                  " fields, this flashsim writes " + std::to_string(run_metric_schema().size()) +
                  " (a point file of another version: remove it and run again)");
    }
    space_ = H5Dget_space(ds.get());
    if (space_ < 0) throw Error("results.h5: cannot read the shape of /summary of " + what);
    rows_ = static_cast<std::size_t>(H5Sget_simple_extent_npoints(space_));
    bytes_.resize(rows_ * run_metric_schema().size() * kField);
    if (rows_ > 0 && H5Dread(ds.get(), mem, H5S_ALL, H5S_ALL, H5P_DEFAULT, bytes_.data()) < 0) {
      H5Sclose(space_);
      throw Error("results.h5: cannot read /summary of " + what);
    }
  }
  ~SummaryRows() {
    if (rows_ > 0) H5Dvlen_reclaim(mem_, space_, H5P_DEFAULT, bytes_.data());
    H5Sclose(space_);
  }
  SummaryRows(const SummaryRows&) = delete;
  SummaryRows& operator=(const SummaryRows&) = delete;
  std::size_t rows() const { return rows_; }
  const std::vector<unsigned char>& bytes() const { return bytes_; }

 private:
  hid_t mem_;
  hid_t space_ = -1;
  std::size_t rows_ = 0;
  std::vector<unsigned char> bytes_;
};

}  // namespace

std::string timeseries_group_name(std::size_t index, std::size_t count) {
  const int width = count <= 1000 ? 3 : static_cast<int>(std::to_string(count - 1).size());
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "run_%0*zu", width, index);
  return buffer;
}

void write_results_h5(const std::filesystem::path& path, const ScenarioResults& results,
                      const ResultsWriteOptions& options) {
  QuietHdf5 quiet;
  auto stage = [&](std::string_view name) {
    if (options.after_stage) options.after_stage(name);
  };
  Id file = create_results_file(path, results,
                                results.runs.empty() ? 0 : static_cast<std::int64_t>(results.runs.front().seed),
                                results.common_decision_clock(), results.common_engine());
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

void merge_results_h5(const std::filesystem::path& path, const ScenarioResults& header,
                      const std::vector<std::filesystem::path>& point_files, const std::function<void()>& on_point) {
  QuietHdf5 quiet;
  if (point_files.size() != header.point_labels.size()) {
    throw Error("results.h5: " + std::to_string(point_files.size()) + " point files for " +
                std::to_string(header.point_labels.size()) + " sweep points");
  }
  Id mem = summary_mem_type();
  std::vector<std::unique_ptr<SummaryRows>> rows;
  std::vector<double> wall, rate;
  std::int64_t seed = 0;
  std::string clock, engine;
  std::size_t total = 0;
  for (std::size_t p = 0; p < point_files.size(); ++p) {
    const std::string what = point_files[p].string();
    // One point file open at a time: a sweep of more points than the
    // process may open files (ulimit -n, often 1024) must still merge.
    Id source(H5Fopen(what.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), H5Fclose, "open " + what);
    const hid_t f = source.get();
    rows.push_back(std::make_unique<SummaryRows>(f, mem.get(), what));
    const std::string point_clock = read_attr_string(f, "decision_clock", what);
    const std::string point_engine = read_attr_string(f, "engine", what);
    // As ScenarioResults::common_*: the value every run shares, else "mixed".
    if (p == 0) {
      seed = read_attr_i64(f, "seed", what);
      clock = point_clock;
      engine = point_engine;
    }
    if (point_clock != clock) clock = "mixed";
    if (point_engine != engine) engine = "mixed";
    for (double v : read_doubles(f, "host/wall_seconds", what)) wall.push_back(v);
    for (double v : read_doubles(f, "host/accesses_per_second", what)) rate.push_back(v);
    total += rows.back()->rows();
    if (on_point) on_point();
  }
  if (wall.size() != total || rate.size() != total) throw Error("results.h5: point files with /host rows missing");

  Id file = create_results_file(path, header, seed, clock, engine);

  // /summary: the points' rows in point order, with the run and point
  // numbers (and label) of this sweep; a point file numbers its own from 0.
  const std::vector<RunMetricSpec>& schema = run_metric_schema();
  auto field = [&](std::string_view name) {
    for (std::size_t k = 0; k < schema.size(); ++k) {
      if (schema[k].name == name) return k;
    }
    throw Error("results.h5: the metric schema has no field " + std::string(name));
  };
  const std::size_t run_field = field("run"), point_field = field("point"), label_field = field("point_label");
  const std::size_t row_bytes = schema.size() * kField;
  std::vector<unsigned char> merged;
  merged.reserve(total * row_bytes);
  std::size_t run = 0;
  for (std::size_t p = 0; p < rows.size(); ++p) {
    for (std::size_t r = 0; r < rows[p]->rows(); ++r, ++run) {
      const unsigned char* from = rows[p]->bytes().data() + r * row_bytes;
      merged.insert(merged.end(), from, from + row_bytes);
      unsigned char* row = merged.data() + run * row_bytes;
      const std::uint64_t run_number = run, point_number = p;
      const char* label = header.point_labels[p].c_str();
      std::memcpy(row + run_field * kField, &run_number, kField);
      std::memcpy(row + point_field * kField, &point_number, kField);
      std::memcpy(row + label_field * kField, &label, kField);
    }
  }
  Id packed(H5Tcopy(mem.get()), H5Tclose, "copy the summary type");
  check(H5Tpack(packed.get()), "pack the summary type");
  dataset_1d(file.get(), "summary", packed.get(), mem.get(), total, merged.data());

  // /timeseries: each point's run groups copied whole (chunks and all),
  // renumbered, their `point` attribute set to this sweep's label.
  {
    Id top = make_group(file.get(), "timeseries");
    run = 0;
    for (std::size_t p = 0; p < rows.size(); ++p) {
      const std::size_t n = rows[p]->rows();
      const std::string what = point_files[p].string();
      Id source(H5Fopen(what.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), H5Fclose, "open " + what);
      for (std::size_t r = 0; r < n; ++r, ++run) {
        const std::string from = "timeseries/" + timeseries_group_name(r, n);
        const std::string to = timeseries_group_name(run, total);
        check(H5Ocopy(source.get(), from.c_str(), top.get(), to.c_str(), H5P_DEFAULT, H5P_DEFAULT),
              "copy " + from + " of " + point_files[p].string());
        Id g(H5Gopen2(top.get(), to.c_str(), H5P_DEFAULT), H5Gclose, "open timeseries/" + to);
        check(H5Adelete(g.get(), "point"), "relabel timeseries/" + to);
        attr_string(g.get(), "point", header.point_labels[p]);
      }
    }
  }
  write_scenario(file.get(), header);
  write_host_values(file.get(), header.host, wall, rate);
  if (H5Fflush(file.get(), H5F_SCOPE_GLOBAL) < 0) {
    throw Error("results.h5: cannot write " + path.string() + ": " + h5::last_error());
  }
  rows.clear();  // reclaims the strings read
  file.close("close " + path.string());
}

std::vector<std::string> read_resolved_scenarios_h5(const std::filesystem::path& path) {
  QuietHdf5 quiet;
  const std::string what = path.string();
  Id file(H5Fopen(what.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), H5Fclose, "open " + what);
  Id ds(H5Dopen2(file.get(), "scenario", H5P_DEFAULT), H5Dclose, "open /scenario of " + what);
  Id space(H5Dget_space(ds.get()), H5Sclose, "read the shape of /scenario of " + what);
  const std::size_t n = static_cast<std::size_t>(H5Sget_simple_extent_npoints(space.get()));
  Id type = string_type();
  std::vector<char*> texts(n, nullptr);
  if (n > 0) check(H5Dread(ds.get(), type.get(), H5S_ALL, H5S_ALL, H5P_DEFAULT, texts.data()), "read /scenario of " + what);
  std::vector<std::string> out;
  for (char* t : texts) out.emplace_back(t ? t : "");
  if (n > 0) H5Dvlen_reclaim(type.get(), space.get(), H5P_DEFAULT, texts.data());
  return out;
}

}  // namespace flashsim
