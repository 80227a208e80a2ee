#include "hw/replay/replay_suite.h"

#include <hdf5.h>

#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "hw/device_identity.h"
#include "sim/core/errors.h"
#include "sim/results/results_table.h"
#include "sim/results/results_writer.h"
#include "sim/run/scenario_runner.h"
#include "traces/atomic_file.h"

namespace flashsim::hw {
namespace {

const char* backing_name(HostMemory m) { return m == HostMemory::pinned ? "pinned" : "pageable"; }
const char* kernel_name(kernels::ConsumeMode m) { return m == kernels::ConsumeMode::gemv ? "gemv" : "read"; }

// --- minimal HDF5 writers for the /replay group ---
struct H5 {
  hid_t id;
  herr_t (*close)(hid_t);
  H5(hid_t i, herr_t (*c)(hid_t), const std::string& what) : id(i), close(c) {
    if (id < 0) throw Error("results.h5: cannot create " + what);
  }
  ~H5() {
    if (id >= 0) close(id);
  }
  H5(const H5&) = delete;
  H5& operator=(const H5&) = delete;
};

void attr_str(hid_t obj, const char* name, const std::string& value) {
  H5 type(H5Tcopy(H5T_C_S1), H5Tclose, name);
  H5Tset_size(type.id, value.empty() ? 1 : value.size());
  H5 space(H5Screate(H5S_SCALAR), H5Sclose, name);
  H5 a(H5Acreate2(obj, name, type.id, space.id, H5P_DEFAULT, H5P_DEFAULT), H5Aclose, name);
  const std::string v = value.empty() ? std::string(1, '\0') : value;
  if (H5Awrite(a.id, type.id, v.data()) < 0) throw Error(std::string("results.h5: cannot write ") + name);
}

template <class T>
void attr_num(hid_t obj, const char* name, T value) {
  const hid_t file_type = std::is_floating_point_v<T> ? H5T_IEEE_F64LE : H5T_STD_I64LE;
  const hid_t mem_type = std::is_floating_point_v<T> ? H5T_NATIVE_DOUBLE : H5T_NATIVE_INT64;
  H5 space(H5Screate(H5S_SCALAR), H5Sclose, name);
  H5 a(H5Acreate2(obj, name, file_type, space.id, H5P_DEFAULT, H5P_DEFAULT), H5Aclose, name);
  using Stored = std::conditional_t<std::is_floating_point_v<T>, double, std::int64_t>;
  const Stored v = static_cast<Stored>(value);
  if (H5Awrite(a.id, mem_type, &v) < 0) throw Error(std::string("results.h5: cannot write ") + name);
}

void column(hid_t group, const char* name, const std::vector<std::int64_t>& values) {
  const hsize_t n = values.size();
  H5 space(H5Screate_simple(1, &n, nullptr), H5Sclose, name);
  H5 ds(H5Dcreate2(group, name, H5T_STD_I64LE, space.id, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), H5Dclose, name);
  if (n > 0 && H5Dwrite(ds.id, H5T_NATIVE_INT64, H5S_ALL, H5S_ALL, H5P_DEFAULT, values.data()) < 0) {
    throw Error(std::string("results.h5: cannot write ") + name);
  }
}

template <class F>
std::vector<std::int64_t> nvml_column(const std::vector<NvmlSample>& samples, F field) {
  std::vector<std::int64_t> out;
  out.reserve(samples.size());
  for (const NvmlSample& s : samples) out.push_back(field(s));
  return out;
}

char run_name_buffer[32];
const char* run_name(std::size_t k) {
  std::snprintf(run_name_buffer, sizeof(run_name_buffer), "run_%03zu", k);
  return run_name_buffer;
}

nlohmann::ordered_json device_json(const DeviceIdentity& d) {
  nlohmann::ordered_json j;
  j["name"] = d.name;
  j["uuid"] = d.uuid;
  j["driver_version"] = d.driver_version;
  j["cuda_driver_version"] = d.cuda_driver_version;
  j["pci_bus_id"] = d.pci_bus_id;
  j["sm_clock_mhz"] = d.sm_clock_mhz;
  j["memory_clock_mhz"] = d.memory_clock_mhz;
  j["sm_clock_max_mhz"] = d.sm_clock_max_mhz;
  j["memory_clock_max_mhz"] = d.memory_clock_max_mhz;
  j["sm_clock_application_mhz"] = d.sm_clock_application_mhz;
  j["source"] = d.source;
  return j;
}

nlohmann::ordered_json run_json(const ReplayRun& r) {
  nlohmann::ordered_json j;
  j["allocator"] = r.allocator;
  j["decisions"] = r.decisions;
  j["decision_ns_total"] = r.decision_ns_total;
  j["decision_ns_mean"] = r.decisions ? double(r.decision_ns_total) / double(r.decisions) : 0.0;
  j["decision_ns_p50"] = r.decision_ns.quantile_ns(0.5);
  j["decision_ns_p99"] = r.decision_ns.quantile_ns(0.99);
  j["decision_ns_max"] = r.decision_ns.max_ns();
  const std::uint64_t n = r.decision_isolated_ns.count();
  j["decision_isolated_ns_mean"] = n ? double(r.decision_isolated_ns_total) / double(n) : 0.0;
  j["decision_isolated_ns_p50"] = r.decision_isolated_ns.quantile_ns(0.5);
  j["decision_isolated_ns_p99"] = r.decision_isolated_ns.quantile_ns(0.99);
  j["host_issue_seconds"] = r.host_issue_seconds;
  j["checksum_mismatches"] = r.checksum_mismatches;
  j["resident_checked"] = r.resident_checked;
  j["resident_mismatches"] = r.resident_mismatches;
  j["write_backs"] = r.write_backs;
  j["tokens"] = r.token_start_ns.size();
  j["decode_token_ns"] = r.decode_token_ns;
  j["recorded_decode_token_ns"] = r.recorded_decode_token_ns;
  j["tokens_per_second"] = r.tokens_per_second;
  j["host_store_bytes"] = r.host_store_bytes;
  j["device_pool_bytes"] = r.device_pool_bytes;
  j["nvml_status"] = r.nvml_status;
  j["nvml_samples"] = r.nvml.size();
  return j;
}

void write_replay_group(const std::filesystem::path& h5, const ReplaySuite& suite) {
  H5 file(H5Fopen(h5.c_str(), H5F_ACC_RDWR, H5P_DEFAULT), H5Fclose, h5.string());
  H5 g(H5Gcreate2(file.id, "replay", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), H5Gclose, "/replay");
  const ReplayOptions& o = suite.options;
  attr_str(g.id, "backing", backing_name(o.backing));
  attr_str(g.id, "kernel", kernel_name(o.kernel));
  attr_num(g.id, "no_cache", o.no_cache ? 1 : 0);
  attr_num(g.id, "l2_mode", o.l2_mode ? 1 : 0);
  attr_num(g.id, "l2_window", o.l2_mode && o.l2_window ? 1 : 0);
  attr_num(g.id, "copy_streams", o.copy_streams);
  attr_num(g.id, "run_ahead", o.run_ahead);
  attr_num(g.id, "replay_gaps", o.replay_gaps ? 1 : 0);
  attr_str(g.id, "prefetcher",
           o.prefetcher.impl.empty() ? "scenario" : o.prefetcher.impl + " " + params_text(o.prefetcher.params));
  attr_num(g.id, "device", o.device);
  const DeviceIdentity& d = suite.device;
  attr_str(g.id, "device_name", d.name);
  attr_str(g.id, "device_uuid", d.uuid);
  attr_str(g.id, "driver_version", d.driver_version);
  attr_num(g.id, "cuda_driver_version", d.cuda_driver_version);
  attr_str(g.id, "pci_bus_id", d.pci_bus_id);
  attr_num(g.id, "sm_clock_mhz", d.sm_clock_mhz);
  attr_num(g.id, "memory_clock_mhz", d.memory_clock_mhz);
  attr_num(g.id, "sm_clock_max_mhz", d.sm_clock_max_mhz);
  attr_num(g.id, "memory_clock_max_mhz", d.memory_clock_max_mhz);
  attr_num(g.id, "sm_clock_application_mhz", d.sm_clock_application_mhz);
  attr_str(g.id, "identity_source", d.source);
  for (std::size_t k = 0; k < suite.runs.size(); ++k) {
    const ReplayRun& r = suite.runs[k];
    H5 rg(H5Gcreate2(g.id, run_name(k), H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), H5Gclose, "/replay/run");
    const nlohmann::ordered_json j = run_json(r);
    for (const auto& [key, value] : j.items()) {
      if (value.is_string()) attr_str(rg.id, key.c_str(), value.get<std::string>());
      else if (value.is_number_float()) attr_num(rg.id, key.c_str(), value.get<double>());
      else attr_num(rg.id, key.c_str(), value.get<std::int64_t>());
    }
    std::vector<std::int64_t> tokens(r.token_start_ns.begin(), r.token_start_ns.end());
    column(rg.id, "token_start_ns", tokens);
    column(rg.id, "nvml_time_ns", nvml_column(r.nvml, [](const NvmlSample& s) { return s.time_ns; }));
    column(rg.id, "nvml_memory_used_bytes", nvml_column(r.nvml, [](const NvmlSample& s) { return s.memory_used_bytes; }));
    column(rg.id, "nvml_pcie_rx_bytes_per_s", nvml_column(r.nvml, [](const NvmlSample& s) { return s.pcie_rx_bytes_per_s; }));
    column(rg.id, "nvml_pcie_tx_bytes_per_s", nvml_column(r.nvml, [](const NvmlSample& s) { return s.pcie_tx_bytes_per_s; }));
    column(rg.id, "nvml_sm_clock_mhz", nvml_column(r.nvml, [](const NvmlSample& s) { return s.sm_clock_mhz; }));
    column(rg.id, "nvml_memory_clock_mhz", nvml_column(r.nvml, [](const NvmlSample& s) { return s.memory_clock_mhz; }));
    column(rg.id, "nvml_power_mw", nvml_column(r.nvml, [](const NvmlSample& s) { return s.power_mw; }));
  }
  if (H5Fflush(file.id, H5F_SCOPE_GLOBAL) < 0) throw Error("results.h5: cannot flush " + h5.string());
}

}  // namespace

ReplaySuite replay_scenario(const ScenarioDocument& document, const ReplayOptions& options,
                            const std::filesystem::path& log_dir, std::ostream* progress) {
  ReplaySuite suite;
  suite.options = options;
  suite.device = read_device_identity(options.device);
  RunnerOptions ro;
  ro.jobs = 1;  // one GPU: runs one after another, in run order
  ro.progress = progress;
  std::size_t run = 0;
  ro.engine = [&](ITraceSource& trace, const EngineConfig& config, const ComponentChoice&) {
    ReplayOptions o = options;
    if (!log_dir.empty()) {
      std::filesystem::create_directories(log_dir);
      o.access_log = log_dir / (std::string("access_log_") + run_name(run) + ".h5");
    }
    ++run;
    suite.runs.push_back(replay_trace(trace, config, o));
    return suite.runs.back().result;
  };
  suite.results = run_scenario(document, ro);
  for (RunResult& r : suite.results.runs) r.engine = "gpu_replay";
  return suite;
}

void write_replay_results(const std::filesystem::path& dir, const ReplaySuite& suite) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) throw Error("results folder '" + dir.string() + "': " + ec.message());
  AtomicFile h5(dir / "results.h5");
  write_results_h5(h5.temp_path(), suite.results);
  write_replay_group(h5.temp_path(), suite);
  nlohmann::ordered_json summary = nlohmann::ordered_json::parse(summary_json_text(suite.results));
  nlohmann::ordered_json runs = nlohmann::ordered_json::array();
  for (const ReplayRun& r : suite.runs) runs.push_back(run_json(r));
  summary["device"] = device_json(suite.device);
  summary["replay"] = runs;
  AtomicFile json(dir / "summary.json");
  {
    std::ofstream f(json.temp_path());
    f << summary.dump(2) << "\n";
    if (!f) throw Error("cannot write " + json.temp_path().string());
  }
  h5.commit();
  json.commit();
}

void print_device_identity(std::ostream& out, const DeviceIdentity& d) {
  out << "device: " << d.name << "  " << d.uuid << "  pci " << d.pci_bus_id << "\n"
      << "        driver " << (d.driver_version.empty() ? "?" : d.driver_version) << ", CUDA driver "
      << d.cuda_driver_version / 1000 << "." << (d.cuda_driver_version % 1000) / 10 << ", SM clock " << d.sm_clock_mhz
      << " MHz (max " << d.sm_clock_max_mhz << ", application " << d.sm_clock_application_mhz << "), memory clock "
      << d.memory_clock_mhz << " MHz (max " << d.memory_clock_max_mhz << ")  [" << d.source << "]\n";
}

void print_replay_table(std::ostream& out, const ReplaySuite& suite) {
  char line[512];
  std::snprintf(line, sizeof(line), "%-28s %-8s %8s %8s %10s %10s %10s %10s %11s %9s %7s %11s %11s %s\n", "policy", "capacity",
                "hit%acc", "hit%byte", "misses", "H2D", "stall", "p99 lat", "GPU time", "dec ns", "iso ns", "token ms", "rec tok ms",
                "checks");
  out << line;
  for (std::size_t k = 0; k < suite.runs.size(); ++k) {
    const RunResult& rr = suite.results.runs[k];
    const ReplayRun& r = suite.runs[k];
    const AccessCounters& c = r.result.metrics.total;
    const std::string label = rr.point_label.empty() ? rr.policy_label : rr.policy_label + " @" + rr.capacity_text;
    std::snprintf(line, sizeof(line), "%-28s %-8s %7.1f%% %7.1f%% %10llu %10s %10s %10s %11s %9.0f %7.0f %11.3f %11.3f %s\n",
                  label.substr(0, 28).c_str(), rr.capacity_text.c_str(), 100 * c.hit_ratio_by_access(),
                  100 * c.hit_ratio_by_byte(), static_cast<unsigned long long>(c.misses),
                  format_bytes_si(c.bytes_fetched).c_str(), format_duration(c.stall_ns).c_str(),
                  format_duration(r.result.metrics.latency.quantile_ns(0.99)).c_str(),
                  format_duration(r.result.metrics.simulated_ns).c_str(),
                  r.decisions ? double(r.decision_ns_total) / double(r.decisions) : 0.0,
                  r.decision_isolated_ns.count()
                      ? double(r.decision_isolated_ns_total) / double(r.decision_isolated_ns.count())
                      : 0.0,
                  r.decode_token_ns / 1e6,
                  r.recorded_decode_token_ns / 1e6,
                  (r.checksum_mismatches == 0 && r.resident_mismatches == 0)
                      ? ("ok(" + std::to_string(r.resident_checked) + ")").c_str()
                      : "MISMATCH");
    out << line;
  }
}

}  // namespace flashsim::hw
