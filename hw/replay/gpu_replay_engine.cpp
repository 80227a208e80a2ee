// `engine: {impl: gpu_replay, ...}`: the scenario's runs on the GPU
// (hw/replay/replay.h), registered beside the simulator's engines with its
// options declared here once. Compiled into every program that links
// flashsim_hw (an INTERFACE source of it, hw/CMakeLists.txt), so that the
// registration is not dropped from the static library.
//
// What a run reports beyond the simulator's metrics, as components
// (sim/metrics/component_stats.h):
//   replay.*   numbers: decisions, decision_ns_total/mean/p50/p99/max (host
//              policy cost), decision_isolated_ns_mean/p50/p99,
//              host_issue_seconds, checksum_mismatches, resident_checked,
//              resident_mismatches, write_backs, tokens, decode_token_ns,
//              recorded_decode_token_ns, tokens_per_second, host_store_bytes,
//              device_pool_bytes, nvml_samples;
//              texts: allocator, nvml_status, access_log (file name in the
//              results folder; absent without one);
//              series: token_start_ns, nvml_time_ns, nvml_memory_used_bytes,
//              nvml_pcie_rx_bytes_per_s, nvml_pcie_tx_bytes_per_s,
//              nvml_sm_clock_mhz, nvml_memory_clock_mhz, nvml_power_mw
//   device.*   texts: name, uuid, driver_version, pci_bus_id, source;
//              numbers: cuda_driver_version, sm_clock_mhz, memory_clock_mhz,
//              sm_clock_max_mhz, memory_clock_max_mhz, sm_clock_application_mhz
//              (read when the run starts; clocks in MHz, 0 = not readable)
#include <cstdio>

#include "hw/cuda_check.h"
#include "hw/device_identity.h"
#include "hw/replay/replay.h"
#include "sim/engine/engine_registry.h"

namespace flashsim::hw {
namespace {

std::vector<ParamSpec> gpu_replay_params() {
  const std::vector<std::string> yes_no{"true", "false"};
  return {
      {"backing", ParamType::choice, "pinned", "host memory of the backing store", -1e300, 1e300, {"pinned", "pageable"}},
      {"no_cache", ParamType::choice, "false",
       "no fast tier: every access copies its block into a staging buffer (offload without a cache)", -1e300, 1e300,
       yes_no},
      {"kernel", ParamType::choice, "read", "per-access kernel: read (every byte) or gemv (bf16 [rows x 4096] x vector)",
       -1e300, 1e300, {"read", "gemv"}},
      {"copy_streams", ParamType::integer, "1", "copy streams for misses and prefetches", 1, 64, {}},
      {"run_ahead", ParamType::integer, "8", "accesses the host may issue ahead of the GPU", 1, 4096, {}},
      {"verify", ParamType::choice, "false", "probe device memory per access (slot table against device memory); slower",
       -1e300, 1e300, yes_no},
      {"replay_gaps", ParamType::choice, "false",
       "hold each access until its recorded time offset (host gaps as recorded)", -1e300, 1e300, yes_no},
      {"l2_mode", ParamType::choice, "false",
       "the fast tier is the persisting L2 carve-out over a staging region (capacity <= 37.5 MiB on the H200)", -1e300,
       1e300, yes_no},
      {"l2_window", ParamType::choice, "true",
       "with l2_mode: set the persisting limit and the access-policy window (false: the baseline without them)",
       -1e300, 1e300, yes_no},
      {"prefetcher", ParamType::text, "",
       "a prefetcher replacing the scenario's prefetch lists (empty: the scenario's own, as the event engine runs them)",
       -1e300, 1e300, {}},
      {"prefetcher_params", ParamType::text, "", "its parameters, KEY=VALUE separated by commas", -1e300, 1e300, {}},
      {"access_log", ParamType::choice, "true",
       "write each run's access log as access_log_run_NNN.h5 in the results folder", -1e300, 1e300, yes_no},
      {"nvml", ParamType::choice, "true", "sample NVML every 100 ms", -1e300, 1e300, yes_no},
      {"device", ParamType::integer, "0", "CUDA device ordinal", 0, 1024, {}},
      {"max_accesses", ParamType::integer, "0", "replay only the first N accesses (0: all)", 0, 1e18, {}},
  };
}

std::map<std::string, std::string> parse_key_values(const std::string& text) {
  std::map<std::string, std::string> out;
  std::size_t at = 0;
  while (at < text.size()) {
    std::size_t end = text.find(',', at);
    if (end == std::string::npos) end = text.size();
    const std::string item = text.substr(at, end - at);
    const auto eq = item.find('=');
    if (eq == std::string::npos || eq == 0) {
      throw InputError("engine gpu_replay: prefetcher_params '" + text + "': expected KEY=VALUE[,KEY=VALUE...]");
    }
    out[item.substr(0, eq)] = item.substr(eq + 1);
    at = end + 1;
  }
  return out;
}

struct GpuReplaySettings {
  ReplayOptions options;
  bool access_log = true;
};

GpuReplaySettings settings_of(const ParamValues& v) {
  GpuReplaySettings s;
  ReplayOptions& o = s.options;
  o.backing = v.text("backing") == "pageable" ? HostMemory::pageable : HostMemory::pinned;
  o.no_cache = v.text("no_cache") == "true";
  o.kernel = v.text("kernel") == "gemv" ? kernels::ConsumeMode::gemv : kernels::ConsumeMode::read;
  o.copy_streams = static_cast<unsigned>(v.integer("copy_streams"));
  o.run_ahead = static_cast<std::size_t>(v.integer("run_ahead"));
  o.verify = v.text("verify") == "true";
  o.replay_gaps = v.text("replay_gaps") == "true";
  o.l2_mode = v.text("l2_mode") == "true";
  o.l2_window = v.text("l2_window") == "true";
  o.prefetcher.impl = v.text("prefetcher");
  o.prefetcher.params = parse_key_values(v.text("prefetcher_params"));
  if (o.prefetcher.impl.empty() && !o.prefetcher.params.empty()) {
    throw InputError("engine gpu_replay: prefetcher_params given without prefetcher");
  }
  o.nvml = v.text("nvml") == "true";
  o.device = static_cast<int>(v.integer("device"));
  o.max_accesses = static_cast<std::uint64_t>(v.integer("max_accesses"));
  s.access_log = v.text("access_log") == "true";
  return s;
}

template <class F>
std::vector<double> nvml_series(const std::vector<NvmlSample>& samples, F field) {
  std::vector<double> out;
  out.reserve(samples.size());
  for (const NvmlSample& s : samples) out.push_back(static_cast<double>(field(s)));
  return out;
}

void report_device(const DeviceIdentity& d, ComponentStats& c) {
  c.add_text("device", "name", d.name);
  c.add_text("device", "uuid", d.uuid);
  c.add_text("device", "driver_version", d.driver_version);
  c.add_text("device", "pci_bus_id", d.pci_bus_id);
  c.add_text("device", "source", d.source);
  c.add("device", "cuda_driver_version", "", d.cuda_driver_version);
  c.add("device", "sm_clock_mhz", "MHz", d.sm_clock_mhz);
  c.add("device", "memory_clock_mhz", "MHz", d.memory_clock_mhz);
  c.add("device", "sm_clock_max_mhz", "MHz", d.sm_clock_max_mhz);
  c.add("device", "memory_clock_max_mhz", "MHz", d.memory_clock_max_mhz);
  c.add("device", "sm_clock_application_mhz", "MHz", d.sm_clock_application_mhz);
}

void report_replay(const ReplayRun& r, const std::string& access_log, ComponentStats& c) {
  const auto mean = [](double total, std::uint64_t n) { return n ? total / static_cast<double>(n) : 0.0; };
  c.add("replay", "decisions", "count", static_cast<double>(r.decisions));
  c.add("replay", "decision_ns_total", "ns", static_cast<double>(r.decision_ns_total));
  c.add("replay", "decision_ns_mean", "ns", mean(static_cast<double>(r.decision_ns_total), r.decisions));
  c.add("replay", "decision_ns_p50", "ns", static_cast<double>(r.decision_ns.quantile_ns(0.5)));
  c.add("replay", "decision_ns_p99", "ns", static_cast<double>(r.decision_ns.quantile_ns(0.99)));
  c.add("replay", "decision_ns_max", "ns", static_cast<double>(r.decision_ns.max_ns()));
  c.add("replay", "decision_isolated_ns_mean", "ns",
        mean(static_cast<double>(r.decision_isolated_ns_total), r.decision_isolated_ns.count()));
  c.add("replay", "decision_isolated_ns_p50", "ns", static_cast<double>(r.decision_isolated_ns.quantile_ns(0.5)));
  c.add("replay", "decision_isolated_ns_p99", "ns", static_cast<double>(r.decision_isolated_ns.quantile_ns(0.99)));
  c.add("replay", "host_issue_seconds", "s", r.host_issue_seconds);
  c.add("replay", "checksum_mismatches", "count", static_cast<double>(r.checksum_mismatches));
  c.add("replay", "resident_checked", "count", static_cast<double>(r.resident_checked));
  c.add("replay", "resident_mismatches", "count", static_cast<double>(r.resident_mismatches));
  c.add("replay", "write_backs", "count", static_cast<double>(r.write_backs));
  c.add("replay", "tokens", "count", static_cast<double>(r.token_start_ns.size()));
  c.add("replay", "decode_token_ns", "ns", r.decode_token_ns);
  c.add("replay", "recorded_decode_token_ns", "ns", r.recorded_decode_token_ns);
  c.add("replay", "tokens_per_second", "1/s", r.tokens_per_second);
  c.add("replay", "host_store_bytes", "bytes", static_cast<double>(r.host_store_bytes));
  c.add("replay", "device_pool_bytes", "bytes", static_cast<double>(r.device_pool_bytes));
  c.add("replay", "nvml_samples", "count", static_cast<double>(r.nvml.size()));
  c.add_text("replay", "allocator", r.allocator);
  c.add_text("replay", "nvml_status", r.nvml_status);
  if (!access_log.empty()) c.add_text("replay", "access_log", access_log);
  c.add_series("replay", "token_start_ns", "ns",
               std::vector<double>(r.token_start_ns.begin(), r.token_start_ns.end()));
  c.add_series("replay", "nvml_time_ns", "ns", nvml_series(r.nvml, [](const NvmlSample& s) { return s.time_ns; }));
  c.add_series("replay", "nvml_memory_used_bytes", "bytes",
               nvml_series(r.nvml, [](const NvmlSample& s) { return s.memory_used_bytes; }));
  c.add_series("replay", "nvml_pcie_rx_bytes_per_s", "bytes/s",
               nvml_series(r.nvml, [](const NvmlSample& s) { return s.pcie_rx_bytes_per_s; }));
  c.add_series("replay", "nvml_pcie_tx_bytes_per_s", "bytes/s",
               nvml_series(r.nvml, [](const NvmlSample& s) { return s.pcie_tx_bytes_per_s; }));
  c.add_series("replay", "nvml_sm_clock_mhz", "MHz", nvml_series(r.nvml, [](const NvmlSample& s) { return s.sm_clock_mhz; }));
  c.add_series("replay", "nvml_memory_clock_mhz", "MHz",
               nvml_series(r.nvml, [](const NvmlSample& s) { return s.memory_clock_mhz; }));
  c.add_series("replay", "nvml_power_mw", "mW", nvml_series(r.nvml, [](const NvmlSample& s) { return s.power_mw; }));
}

class GpuReplayEngine final : public IEngine {
 public:
  GpuReplayEngine(GpuReplaySettings settings, EngineContext context)
      : settings_(std::move(settings)), context_(std::move(context)) {}

  EngineResult run(ITraceSource& trace, const EngineConfig& config) override {
    if (!cuda_device_present()) throw Error("engine gpu_replay: no CUDA device visible (it runs on a GPU)");
    ReplayOptions o = settings_.options;
    std::string log_name;
    if (settings_.access_log && !context_.artifacts_dir.empty()) {
      char name[48];
      std::snprintf(name, sizeof(name), "access_log_run_%03zu.h5", context_.run_index);
      log_name = name;
      std::filesystem::create_directories(context_.artifacts_dir);
      o.access_log = context_.artifacts_dir / log_name;
    }
    const DeviceIdentity device = read_device_identity(o.device);
    ReplayRun run = replay_trace(trace, config, o);
    EngineResult result = std::move(run.result);
    report_replay(run, log_name, result.components);
    report_device(device, result.components);
    return result;
  }

 private:
  GpuReplaySettings settings_;
  EngineContext context_;
};

EngineTraits gpu_replay_traits() {
  EngineTraits t;
  t.capabilities = {.models_time = true, .takes_prefetchers = true, .time_series = true, .needs_gpu = true};
  t.uses = {"hardware", "workload.issue", "workload.gap", "decision_clock", "prefetch", "policies.prefetch",
            "policies.admission", "serving.kv_resident", "outputs.window", "cache.granularity", "cache.allocator", "cache.pin",
            "cache.size_change"};
  t.statistics = cache_statistics();
  for (const char* s : {"delayed_hits", "bytes_prefetched", "prefetches", "prefetch_used_timely", "prefetch_used_late",
                        "prefetch_unused", "prefetch_accuracy", "prefetch_coverage", "prefetch_timeliness", "stall_ns",
                        "latency_p50_ns", "latency_p99_ns", "latency_max_ns", "simulated_ns", "windows"}) {
    t.statistics.emplace_back(s);
  }
  return t;
}

FLASHSIM_REGISTER(EngineRegistry,
                  (EngineRegistry::Entry{
                      "gpu_replay",
                      "the runs on the GPU (hw/replay): the same policy objects decide every access; real copies "
                      "and kernels",
                      gpu_replay_params(),
                      [](const ParamValues& v, const EngineContext& context) -> std::unique_ptr<IEngine> {
                        return std::make_unique<GpuReplayEngine>(settings_of(v), context);
                      },
                      gpu_replay_traits()}));

}  // namespace
}  // namespace flashsim::hw
