#include "hw/nvml/nvml_sampler.h"

#include <dlfcn.h>


namespace flashsim::hw {
namespace {

// The few NVML declarations used (nvml.h, r580), so no header is needed.
using nvmlReturn_t = int;
using nvmlDevice_t = void*;
struct nvmlMemory_t {
  unsigned long long total, free, used;
};
constexpr nvmlReturn_t kNvmlSuccess = 0;
constexpr int kPcieTx = 0, kPcieRx = 1;     // nvmlPcieUtilCounter_t
constexpr int kClockSm = 1, kClockMem = 2;  // nvmlClockType_t

}  // namespace

struct NvmlSampler::Api {
  nvmlReturn_t (*init)() = nullptr;
  nvmlReturn_t (*shutdown)() = nullptr;
  nvmlReturn_t (*handle_by_index)(unsigned, nvmlDevice_t*) = nullptr;
  nvmlReturn_t (*memory_info)(nvmlDevice_t, nvmlMemory_t*) = nullptr;
  nvmlReturn_t (*pcie_throughput)(nvmlDevice_t, int, unsigned*) = nullptr;
  nvmlReturn_t (*clock_info)(nvmlDevice_t, int, unsigned*) = nullptr;
  nvmlReturn_t (*power_usage)(nvmlDevice_t, unsigned*) = nullptr;
};

namespace {
template <class F>
bool load(void* lib, const char* name, F& out) {
  out = reinterpret_cast<F>(dlsym(lib, name));
  return out != nullptr;
}
}  // namespace

NvmlSampler::NvmlSampler(int ordinal, std::chrono::milliseconds period) : period_(period) {
  library_ = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
  if (library_ == nullptr) {
    error_ = "libnvidia-ml.so.1 not found";
    return;
  }
  api_ = new Api;
  if (!load(library_, "nvmlInit_v2", api_->init) || !load(library_, "nvmlShutdown", api_->shutdown) ||
      !load(library_, "nvmlDeviceGetHandleByIndex_v2", api_->handle_by_index) ||
      !load(library_, "nvmlDeviceGetMemoryInfo", api_->memory_info) ||
      !load(library_, "nvmlDeviceGetPcieThroughput", api_->pcie_throughput) ||
      !load(library_, "nvmlDeviceGetClockInfo", api_->clock_info) ||
      !load(library_, "nvmlDeviceGetPowerUsage", api_->power_usage)) {
    error_ = "libnvidia-ml.so.1 lacks an expected symbol";
    return;
  }
  if (api_->init() != kNvmlSuccess) {
    error_ = "nvmlInit_v2 failed";
    return;
  }
  nvmlDevice_t device = nullptr;
  if (api_->handle_by_index(static_cast<unsigned>(ordinal), &device) != kNvmlSuccess) {
    error_ = "nvmlDeviceGetHandleByIndex_v2 failed";
    api_->shutdown();
    return;
  }
  device_ = device;
}

NvmlSampler::~NvmlSampler() {
  if (running_) (void)stop();
  if (device_ != nullptr) api_->shutdown();
  delete api_;
  if (library_ != nullptr) dlclose(library_);
}

NvmlSample NvmlSampler::sample_now() const {
  NvmlSample s;
  s.time_ns = std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - origin_).count();
  if (device_ == nullptr) return s;
  nvmlMemory_t mem{};
  if (api_->memory_info(device_, &mem) == kNvmlSuccess) s.memory_used_bytes = static_cast<std::int64_t>(mem.used);
  unsigned v = 0;
  if (api_->pcie_throughput(device_, kPcieRx, &v) == kNvmlSuccess) s.pcie_rx_bytes_per_s = std::int64_t{v} * 1024;
  if (api_->pcie_throughput(device_, kPcieTx, &v) == kNvmlSuccess) s.pcie_tx_bytes_per_s = std::int64_t{v} * 1024;
  if (api_->clock_info(device_, kClockSm, &v) == kNvmlSuccess) s.sm_clock_mhz = v;
  if (api_->clock_info(device_, kClockMem, &v) == kNvmlSuccess) s.memory_clock_mhz = v;
  if (api_->power_usage(device_, &v) == kNvmlSuccess) s.power_mw = v;
  return s;
}

void NvmlSampler::start() {
  if (running_) (void)stop();
  origin_ = std::chrono::steady_clock::now();
  {
    std::lock_guard lock(mutex_);
    samples_.clear();
  }
  if (device_ == nullptr) return;
  running_ = true;
  thread_ = std::thread([this] { loop(); });
}

void NvmlSampler::loop() {
  auto next = std::chrono::steady_clock::now();
  while (running_) {
    const NvmlSample s = sample_now();
    {
      std::lock_guard lock(mutex_);
      samples_.push_back(s);
    }
    next += period_;
    // Sleep in short steps so stop() returns promptly.
    while (running_ && std::chrono::steady_clock::now() < next) std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
}

std::vector<NvmlSample> NvmlSampler::stop() {
  running_ = false;
  if (thread_.joinable()) thread_.join();
  std::lock_guard lock(mutex_);
  return std::move(samples_);
}

}  // namespace flashsim::hw
