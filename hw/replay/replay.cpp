#include "hw/replay/replay.h"

#include <cuda_runtime_api.h>

#include <algorithm>
#include <chrono>
#include <memory>
#include <string>

#include "hw/cuda_check.h"
#include "hw/replay/pattern_write.h"
#include "sim/engine/gpu_replay/replay_driver.h"
#include "sim/core/errors.h"
#include "sim/core/hash_map.h"
#include "traces/trace_formats.h"

namespace flashsim::hw {
namespace {

/// Space freed by an eviction whose last reader (access last_reader - 1;
/// 0 = none) may still be running, or whose write-back (D2H of a dirty
/// block) may still be reading it: a copy or write into an overlapping
/// range must wait for both.
struct Fence {
  ByteCount offset = 0;
  ByteCount bytes = 0;
  std::uint64_t last_reader = 0;
  cudaEvent_t write_back = nullptr;  ///< end of the write-back; null when none (or known done)
};

/// A copy's timing events (CopyId indexes them).
struct CopyEvents {
  cudaEvent_t start = nullptr;
  cudaEvent_t end = nullptr;
  ByteCount bytes = 0;
  bool prefetch = false;
};

/// RAII owner of the CUDA resources of one replay (freed on every path).
struct DeviceResources {
  unsigned char* pool = nullptr;
  unsigned char* staging[2] = {nullptr, nullptr};
  unsigned long long* stamps = nullptr;     // [2n]: start, end
  unsigned long long* checksums = nullptr;  // [n]
  unsigned long long* probes = nullptr;     // [2n] in verify mode
  unsigned long long* anchor = nullptr;     // [1]
  unsigned long long* scratch = nullptr;    // [1] resident checks
  std::uint16_t* gemv_x = nullptr;
  float* gemv_sink = nullptr;
  cudaStream_t compute = nullptr;
  std::vector<cudaStream_t> copy;
  std::vector<cudaEvent_t> ring;    // per access, mod ring size
  std::vector<cudaEvent_t> events;  // free timing events
  std::vector<cudaEvent_t> all_events;
  cudaEvent_t anchor_event = nullptr;
  cudaEvent_t verify_event = nullptr;
  unsigned char* backing = nullptr;  // L2 mode: every block in HBM
  bool l2_limit_set = false;
  std::size_t l2_limit_before = 0;

  ~DeviceResources() {
    if (l2_limit_set) {
      (void)cudaCtxResetPersistingL2Cache();
      (void)cudaDeviceSetLimit(cudaLimitPersistingL2CacheSize, l2_limit_before);
    }
    if (backing) (void)cudaFree(backing);
    if (compute) (void)cudaStreamSynchronize(compute);
    for (cudaStream_t s : copy) (void)cudaStreamSynchronize(s);
    for (cudaEvent_t e : all_events) (void)cudaEventDestroy(e);
    for (cudaEvent_t e : ring) (void)cudaEventDestroy(e);
    if (anchor_event) (void)cudaEventDestroy(anchor_event);
    if (verify_event) (void)cudaEventDestroy(verify_event);
    for (cudaStream_t s : copy) (void)cudaStreamDestroy(s);
    if (compute) (void)cudaStreamDestroy(compute);
    for (void* p : {static_cast<void*>(pool), static_cast<void*>(staging[0]), static_cast<void*>(staging[1]),
                    static_cast<void*>(stamps), static_cast<void*>(checksums), static_cast<void*>(probes),
                    static_cast<void*>(anchor), static_cast<void*>(scratch), static_cast<void*>(gemv_x),
                    static_cast<void*>(gemv_sink)}) {
      if (p) (void)cudaFree(p);
    }
  }

  cudaEvent_t take_event() {
    if (events.empty()) {
      cudaEvent_t e = nullptr;
      FLASHSIM_CUDA_CHECK(cudaEventCreate(&e));
      all_events.push_back(e);
      return e;
    }
    cudaEvent_t e = events.back();
    events.pop_back();
    return e;
  }
};

/// The CUDA backend of the replay driver (sim/engine/gpu_replay/replay_driver.h): a
/// device pool as the fast tier, a host store behind it, copies on copy
/// streams, consume kernels on one compute stream, fences on reused space.
class CudaBackend final : public IReplayBackend {
 public:
  CudaBackend(ITraceSource& trace, const EngineConfig& config, const ReplayOptions& options)
      : config_(config), options_(options), driver_(trace, config, driver_options(options)) {}

  ReplayRun run();

  // ---- IReplayBackend ----
  void wait_access_done(std::uint64_t index) override {
    if (index + 1 > completed_through_) {
      FLASHSIM_CUDA_CHECK(cudaEventSynchronize(dev_.ring[index % ring_size_]));
      completed_through_ = index + 1;
    }
  }
  bool copy_done(CopyId id, bool wait) override {
    const cudaEvent_t end = events_[id].end;
    if (wait) {
      FLASHSIM_CUDA_CHECK(cudaEventSynchronize(end));
      return true;
    }
    const cudaError_t q = cudaEventQuery(end);
    if (q == cudaErrorNotReady) return false;
    FLASHSIM_CUDA_CHECK(q);
    return true;
  }
  void departed(const Departure& d, std::uint64_t access) override;
  CopyId fetch(BlockIndex block, ByteCount bytes, const SlotRange& slot, bool prefetch) override;
  void consume(std::uint64_t index, AccessKind kind, BlockIndex block, const AccessRecord& r, const SlotRange& slot,
               CopyId wait) override;

 private:
  static ReplayDriverOptions driver_options(const ReplayOptions& o) {
    ReplayDriverOptions d;
    d.no_cache = o.no_cache;
    d.run_ahead = o.run_ahead;
    d.prefetcher = o.prefetcher;
    d.max_accesses = o.max_accesses;
    return d;
  }
  void setup_device();
  void setup_l2_mode();
  void wait_fences(ByteCount offset, ByteCount bytes, cudaStream_t stream);
  cudaStream_t next_copy_stream() { return dev_.copy[copy_rr_++ % dev_.copy.size()]; }
  CopyId issue_copy(BlockIndex b, ByteCount bytes, void* dst, bool prefetch);
  std::uint64_t host_checksum(BlockIndex b, ByteCount bytes);
  void finish(ReplayRun& out);

  const EngineConfig& config_;
  const ReplayOptions& options_;
  ReplayDriver driver_;
  std::unique_ptr<HostStore> store_;
  ByteCount capacity_ = 0;

  DeviceResources dev_;
  std::size_t ring_size_ = 0;
  std::uint64_t completed_through_ = 0;  // accesses [0, completed_through_) have finished on the GPU
  std::vector<Fence> fences_;
  std::vector<std::uint64_t> last_reader_;         // per block: last access index + 1 (0 = none)
  std::vector<cudaEvent_t> written_back_;          // per block: end of its last write-back (a later H2D waits)
  std::vector<CopyEvents> events_;                 // per CopyId
  std::uint64_t staging_last_[2] = {0, 0};         // last access + 1 that read each staging buffer
  unsigned staging_next_ = 0;
  unsigned copy_rr_ = 0;
  std::uint64_t write_backs_ = 0;
  std::uint64_t gemv_rows_ = 0;
  unsigned long long anchor_gpu_ns_ = 0;
  bool hold_until_time_ = false;
  HashMap<std::uint64_t, std::uint64_t> checksum_memo_;
};

void CudaBackend::setup_device() {
  FLASHSIM_CUDA_CHECK(cudaSetDevice(options_.device));
  const std::size_t n = driver_.records().size();
  std::size_t free_bytes = 0, total_bytes = 0;
  FLASHSIM_CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
  const ByteCount max_block = *std::max_element(driver_.max_bytes().begin(), driver_.max_bytes().end());
  const ByteCount staging = (max_block + 255) / 256 * 256;
  const ByteCount logs = n * 8 * (options_.verify ? 5 : 3);
  if (capacity_ + 2 * staging + logs + (ByteCount{256} << 20) > free_bytes) {
    throw InputError("replay: the fast tier (" + std::to_string(capacity_) + " B) plus staging and logs do not fit " +
                     "in the device's free memory (" + std::to_string(free_bytes) + " B)");
  }
  if (capacity_ > 0) FLASHSIM_CUDA_CHECK(cudaMalloc(reinterpret_cast<void**>(&dev_.pool), capacity_));
  for (auto& s : dev_.staging) FLASHSIM_CUDA_CHECK(cudaMalloc(reinterpret_cast<void**>(&s), staging));
  FLASHSIM_CUDA_CHECK(cudaMalloc(reinterpret_cast<void**>(&dev_.stamps), 2 * n * sizeof(unsigned long long)));
  FLASHSIM_CUDA_CHECK(cudaMalloc(reinterpret_cast<void**>(&dev_.checksums), n * sizeof(unsigned long long)));
  if (options_.verify) {
    FLASHSIM_CUDA_CHECK(cudaMalloc(reinterpret_cast<void**>(&dev_.probes), 2 * n * sizeof(unsigned long long)));
    FLASHSIM_CUDA_CHECK(cudaMemset(dev_.probes, 0, 2 * n * sizeof(unsigned long long)));
    FLASHSIM_CUDA_CHECK(cudaEventCreateWithFlags(&dev_.verify_event, cudaEventDisableTiming));
  }
  FLASHSIM_CUDA_CHECK(cudaMalloc(reinterpret_cast<void**>(&dev_.anchor), sizeof(unsigned long long)));
  FLASHSIM_CUDA_CHECK(cudaMalloc(reinterpret_cast<void**>(&dev_.scratch), sizeof(unsigned long long)));
  FLASHSIM_CUDA_CHECK(cudaMemset(dev_.checksums, 0, n * sizeof(unsigned long long)));
  if (options_.kernel == kernels::ConsumeMode::gemv) {
    std::vector<std::uint16_t> x(kernels::kGemvColumns);
    for (std::size_t k = 0; k < x.size(); ++k) x[k] = static_cast<std::uint16_t>(0x3c00 + (k % 64));  // ~[0.0078, 0.0117)
    FLASHSIM_CUDA_CHECK(cudaMalloc(reinterpret_cast<void**>(&dev_.gemv_x), x.size() * sizeof(std::uint16_t)));
    FLASHSIM_CUDA_CHECK(cudaMemcpy(dev_.gemv_x, x.data(), x.size() * sizeof(std::uint16_t), cudaMemcpyHostToDevice));
    FLASHSIM_CUDA_CHECK(cudaMalloc(reinterpret_cast<void**>(&dev_.gemv_sink), sizeof(float)));
    FLASHSIM_CUDA_CHECK(cudaMemset(dev_.gemv_sink, 0, sizeof(float)));
  }
  FLASHSIM_CUDA_CHECK(cudaStreamCreateWithFlags(&dev_.compute, cudaStreamNonBlocking));
  if (options_.l2_mode) setup_l2_mode();
  for (unsigned k = 0; k < std::max(1u, options_.copy_streams); ++k) {
    cudaStream_t s = nullptr;
    FLASHSIM_CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    dev_.copy.push_back(s);
  }
  ring_size_ = std::max<std::size_t>(1, options_.run_ahead) + 1;
  dev_.ring.resize(ring_size_);
  for (auto& e : dev_.ring) FLASHSIM_CUDA_CHECK(cudaEventCreateWithFlags(&e, cudaEventDisableTiming));
  FLASHSIM_CUDA_CHECK(cudaEventCreate(&dev_.anchor_event));
  FLASHSIM_CUDA_CHECK(kernels::launch_init_stamps(dev_.stamps, dev_.stamps + n, n, dev_.compute));
  // The whole device: the memsets and pageable copies above ran on the
  // legacy stream, which the non-blocking streams do not wait for.
  FLASHSIM_CUDA_CHECK(cudaDeviceSynchronize());
}

void CudaBackend::setup_l2_mode() {
  int persisting_max = 0, window_max = 0;
  FLASHSIM_CUDA_CHECK(cudaDeviceGetAttribute(&persisting_max, cudaDevAttrMaxPersistingL2CacheSize, options_.device));
  FLASHSIM_CUDA_CHECK(cudaDeviceGetAttribute(&window_max, cudaDevAttrMaxAccessPolicyWindowSize, options_.device));
  if (capacity_ == 0 || capacity_ > static_cast<ByteCount>(persisting_max) ||
      capacity_ > static_cast<ByteCount>(window_max)) {
    throw InputError("replay --l2-mode: the fast tier's capacity (" + std::to_string(capacity_) +
                     " B) must be > 0 and at most the persisting L2 maximum (" + std::to_string(persisting_max) +
                     " B) and the access-policy window maximum (" + std::to_string(window_max) + " B)");
  }
  FLASHSIM_CUDA_CHECK(cudaMalloc(reinterpret_cast<void**>(&dev_.backing), std::max<ByteCount>(store_->total_bytes(), 256)));
  FLASHSIM_CUDA_CHECK(cudaMemcpy(dev_.backing, store_->data(), store_->total_bytes(), cudaMemcpyHostToDevice));
  if (!options_.l2_window) return;
  FLASHSIM_CUDA_CHECK(cudaDeviceGetLimit(&dev_.l2_limit_before, cudaLimitPersistingL2CacheSize));
  FLASHSIM_CUDA_CHECK(cudaDeviceSetLimit(cudaLimitPersistingL2CacheSize, capacity_));
  dev_.l2_limit_set = true;
  cudaStreamAttrValue attr{};
  attr.accessPolicyWindow.base_ptr = dev_.pool;
  attr.accessPolicyWindow.num_bytes = capacity_;
  attr.accessPolicyWindow.hitRatio = 1.0f;
  attr.accessPolicyWindow.hitProp = cudaAccessPropertyPersisting;
  attr.accessPolicyWindow.missProp = cudaAccessPropertyStreaming;
  FLASHSIM_CUDA_CHECK(cudaStreamSetAttribute(dev_.compute, cudaStreamAttributeAccessPolicyWindow, &attr));
}

void CudaBackend::wait_fences(ByteCount offset, ByteCount bytes, cudaStream_t stream) {
  // Fences whose reader is known finished and whose write-back is done are
  // dropped; ring events of the other readers have not been re-recorded yet
  // (see the ring's size).
  std::erase_if(fences_, [&](Fence& f) {
    if (f.last_reader != 0 && f.last_reader - 1 < completed_through_) f.last_reader = 0;
    if (f.write_back != nullptr && f.last_reader == 0) {
      const cudaError_t q = cudaEventQuery(f.write_back);
      if (q == cudaSuccess) f.write_back = nullptr;
      else if (q != cudaErrorNotReady) FLASHSIM_CUDA_CHECK(q);
    }
    return f.last_reader == 0 && f.write_back == nullptr;
  });
  for (const Fence& f : fences_) {
    if (f.offset < offset + bytes && offset < f.offset + f.bytes) {
      if (f.last_reader != 0) FLASHSIM_CUDA_CHECK(cudaStreamWaitEvent(stream, dev_.ring[(f.last_reader - 1) % ring_size_], 0));
      if (f.write_back != nullptr) FLASHSIM_CUDA_CHECK(cudaStreamWaitEvent(stream, f.write_back, 0));
    }
  }
}

// A block left the tier: a dirty one is written back (D2H of its slot into
// its host bytes, L2 mode: D2D into the HBM backing buffer) after its last
// reader; its space is fenced until its last reader and write-back are done.
void CudaBackend::departed(const Departure& d, std::uint64_t access) {
  (void)access;
  const BlockIndex v = d.block;
  cudaEvent_t wb = nullptr;
  if (d.dirty) {
    cudaStream_t s = next_copy_stream();
    if (last_reader_[v] != 0 && last_reader_[v] - 1 >= completed_through_) {
      FLASHSIM_CUDA_CHECK(cudaStreamWaitEvent(s, dev_.ring[(last_reader_[v] - 1) % ring_size_], 0));
    }
    const unsigned char* src = dev_.pool + d.slot.offset_bytes;
    if (dev_.backing) {
      FLASHSIM_CUDA_CHECK(
          cudaMemcpyAsync(dev_.backing + store_->block_offset(v), src, d.bytes, cudaMemcpyDeviceToDevice, s));
    } else {
      FLASHSIM_CUDA_CHECK(cudaMemcpyAsync(store_->writable_block(v), src, d.bytes, cudaMemcpyDeviceToHost, s));
    }
    wb = dev_.take_event();
    FLASHSIM_CUDA_CHECK(cudaEventRecord(wb, s));
    written_back_[v] = wb;
    ++write_backs_;
  }
  if (last_reader_[v] != 0 || wb != nullptr) {
    fences_.push_back(Fence{d.slot.offset_bytes, d.slot.reserved_bytes, last_reader_[v], wb});
  }
  if (options_.verify) {
    if (wb != nullptr) FLASHSIM_CUDA_CHECK(cudaStreamWaitEvent(dev_.compute, wb, 0));
    // Clear the victim's tag so device memory says "absent" as the tier does.
    FLASHSIM_CUDA_CHECK(cudaMemsetAsync(dev_.pool + d.slot.offset_bytes, 0,
                                        std::min<ByteCount>(16, d.slot.reserved_bytes), dev_.compute));
    FLASHSIM_CUDA_CHECK(cudaEventRecord(dev_.verify_event, dev_.compute));
    for (cudaStream_t s : dev_.copy) FLASHSIM_CUDA_CHECK(cudaStreamWaitEvent(s, dev_.verify_event, 0));
  }
}

CopyId CudaBackend::issue_copy(BlockIndex b, ByteCount bytes, void* dst, bool prefetch) {
  cudaStream_t s = next_copy_stream();
  CopyEvents c;
  c.start = dev_.take_event();
  c.end = dev_.take_event();
  c.bytes = bytes;
  c.prefetch = prefetch;
  // The block's host bytes may still be receiving its write-back.
  if (written_back_[b] != nullptr) FLASHSIM_CUDA_CHECK(cudaStreamWaitEvent(s, written_back_[b], 0));
  FLASHSIM_CUDA_CHECK(cudaEventRecord(c.start, s));
  if (dev_.backing) {  // L2 mode: HBM -> staging region
    FLASHSIM_CUDA_CHECK(
        cudaMemcpyAsync(dst, dev_.backing + store_->block_offset(b), bytes, cudaMemcpyDeviceToDevice, s));
  } else {
    FLASHSIM_CUDA_CHECK(cudaMemcpyAsync(dst, store_->block(b), bytes, cudaMemcpyHostToDevice, s));
  }
  FLASHSIM_CUDA_CHECK(cudaEventRecord(c.end, s));
  events_.push_back(c);
  return static_cast<CopyId>(events_.size() - 1);
}

CopyId CudaBackend::fetch(BlockIndex block, ByteCount bytes, const SlotRange& slot, bool prefetch) {
  cudaStream_t s = dev_.copy[copy_rr_ % dev_.copy.size()];  // the stream issue_copy takes
  wait_fences(slot.offset_bytes, slot.reserved_bytes, s);
  return issue_copy(block, bytes, dev_.pool + slot.offset_bytes, prefetch);
}

void CudaBackend::consume(std::uint64_t i, AccessKind kind, BlockIndex b, const AccessRecord& r, const SlotRange& slot,
                          CopyId wait) {
  const std::size_t n = driver_.records().size();
  const unsigned char* data = nullptr;
  switch (kind) {
    case AccessKind::hit:
      data = dev_.pool + slot.offset_bytes;
      if (options_.verify) FLASHSIM_CUDA_CHECK(kernels::launch_probe16(data, dev_.probes + 2 * i, dev_.compute));
      break;
    case AccessKind::delayed_hit:
    case AccessKind::miss:
      FLASHSIM_CUDA_CHECK(cudaStreamWaitEvent(dev_.compute, events_[wait].end, 0));
      data = dev_.pool + slot.offset_bytes;
      break;
    case AccessKind::write_allocated:  // the append writes the page in its new slot
      wait_fences(slot.offset_bytes, slot.reserved_bytes, dev_.compute);
      FLASHSIM_CUDA_CHECK(launch_write_pattern(dev_.pool + slot.offset_bytes, r.block_id, r.bytes, dev_.compute));
      data = dev_.pool + slot.offset_bytes;
      break;
    case AccessKind::written_through:  // not admitted: the append is written through to the backing tier
      if (dev_.backing) {
        unsigned char* dst = dev_.backing + store_->block_offset(b);
        FLASHSIM_CUDA_CHECK(launch_write_pattern(dst, r.block_id, r.bytes, dev_.compute));
        data = dst;
      } else {
        const unsigned k = staging_next_++ % 2;
        FLASHSIM_CUDA_CHECK(launch_write_pattern(dev_.staging[k], r.block_id, r.bytes, dev_.compute));
        FLASHSIM_CUDA_CHECK(cudaMemcpyAsync(store_->writable_block(b), dev_.staging[k], r.bytes,
                                            cudaMemcpyDeviceToHost, dev_.compute));
        cudaEvent_t end = dev_.take_event();
        FLASHSIM_CUDA_CHECK(cudaEventRecord(end, dev_.compute));
        written_back_[b] = end;
        staging_last_[k] = i + 1;
        data = dev_.staging[k];
      }
      break;
    case AccessKind::bypass:
      if (dev_.backing) {  // L2 mode: read the block where it lives, in HBM
        if (written_back_[b] != nullptr) FLASHSIM_CUDA_CHECK(cudaStreamWaitEvent(dev_.compute, written_back_[b], 0));
        data = dev_.backing + store_->block_offset(b);
      } else {  // a staging buffer, alternating
        const unsigned k = staging_next_++ % 2;
        cudaStream_t s = dev_.copy[copy_rr_ % dev_.copy.size()];
        if (staging_last_[k] != 0 && staging_last_[k] - 1 >= completed_through_) {
          FLASHSIM_CUDA_CHECK(cudaStreamWaitEvent(s, dev_.ring[(staging_last_[k] - 1) % ring_size_], 0));
        }
        const CopyId c = issue_copy(b, r.bytes, dev_.staging[k], false);
        FLASHSIM_CUDA_CHECK(cudaStreamWaitEvent(dev_.compute, events_[c].end, 0));
        staging_last_[k] = i + 1;
        data = dev_.staging[k];
      }
      break;
  }
  // The access's kernel, then its ring event (fences on this block's space
  // from here on wait for it).
  kernels::ConsumeArgs args;
  args.data = data;
  args.bytes = r.bytes;
  args.checksum = dev_.checksums + i;
  args.start_ns = dev_.stamps + i;
  args.end_ns = dev_.stamps + n + i;
  args.hold_ns = static_cast<unsigned long long>(r.compute_ns > 0 ? r.compute_ns : config_.gap_ns);
  if (hold_until_time_) {
    const unsigned long long lead_ns = 2'000'000;
    args.not_before_ns =
        anchor_gpu_ns_ + lead_ns + static_cast<unsigned long long>(r.time_ns - driver_.records().front().time_ns);
  }
  args.mode = options_.kernel;
  args.cached_loads = options_.l2_mode;
  args.gemv_x = dev_.gemv_x;
  args.gemv_sink = dev_.gemv_sink;
  FLASHSIM_CUDA_CHECK(kernels::launch_replay_consume(args, dev_.compute));
  FLASHSIM_CUDA_CHECK(cudaEventRecord(dev_.ring[i % ring_size_], dev_.compute));
  last_reader_[b] = i + 1;
  if (options_.kernel == kernels::ConsumeMode::gemv) gemv_rows_ += r.bytes / (kernels::kGemvColumns * 2);
}

std::uint64_t CudaBackend::host_checksum(BlockIndex b, ByteCount bytes) {
  const std::uint64_t key = (std::uint64_t{b} << 40) ^ bytes;
  auto [it, added] = checksum_memo_.try_emplace(key, 0);
  if (added) it->second = kernels::replay_checksum_host(store_->block(b), bytes);
  return it->second;
}

ReplayRun CudaBackend::run() {
  ReplayRun out;
  capacity_ = driver_.capacity_bytes();
  if (!options_.no_cache && capacity_ == 0) {
    throw InputError("replay: cache capacity must be > 0 bytes (or use --no-cache)");
  }
  store_ = std::make_unique<HostStore>(driver_.block_ids(), driver_.max_bytes(), options_.backing);
  out.host_store_bytes = store_->total_bytes();
  out.device_pool_bytes = capacity_;
  out.allocator = driver_.allocator();
  driver_.isolated_decisions(out.decision_isolated_ns, out.decision_isolated_ns_total);
  const std::size_t blocks = driver_.block_ids().size();
  last_reader_.assign(blocks, 0);
  written_back_.assign(blocks, nullptr);
  events_.reserve(driver_.records().size() * 2);

  setup_device();
  const std::size_t n = driver_.records().size();
  if (options_.verify) out.device_resident.assign(n, 0);

  NvmlSampler sampler(options_.device);
  out.nvml_status = sampler.available() ? "ok" : sampler.error();
  if (options_.nvml && sampler.available()) sampler.start();
  if (!options_.nvml) out.nvml_status = "off";

  // Anchor: an event and a globaltimer stamp back to back on the compute stream.
  FLASHSIM_CUDA_CHECK(cudaEventRecord(dev_.anchor_event, dev_.compute));
  FLASHSIM_CUDA_CHECK(kernels::launch_stamp_now(dev_.anchor, dev_.compute));
  FLASHSIM_CUDA_CHECK(cudaStreamSynchronize(dev_.compute));
  FLASHSIM_CUDA_CHECK(cudaMemcpy(&anchor_gpu_ns_, dev_.anchor, sizeof(anchor_gpu_ns_), cudaMemcpyDeviceToHost));
  // Open-loop issue / recorded gaps: hold each access until anchor + offset (+ a lead for the host).
  hold_until_time_ = options_.replay_gaps || config_.issue == IssueMode::timestamp;

  const auto origin = std::chrono::steady_clock::now();
  driver_.run(*this);
  FLASHSIM_CUDA_CHECK(cudaStreamSynchronize(dev_.compute));
  for (cudaStream_t s : dev_.copy) FLASHSIM_CUDA_CHECK(cudaStreamSynchronize(s));
  out.host_issue_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - origin).count();
  if (options_.nvml && sampler.available()) out.nvml = sampler.stop();
  out.decisions = driver_.decisions();
  out.decision_ns = driver_.decision_ns();
  out.decision_ns_total = driver_.decision_ns_total();
  out.gemv_rows = gemv_rows_;
  finish(out);
  return out;
}

void CudaBackend::finish(ReplayRun& out) {
  const std::vector<AccessRecord>& records = driver_.records();
  const std::size_t n = records.size();
  const std::vector<AccessKind>& kinds = driver_.kinds();
  const TierSession* session = driver_.session();
  const FastTier* tier = session ? &session->tier() : nullptr;
  const std::vector<BlockId>& ids = driver_.block_ids();
  out.outcomes.resize(n);
  for (std::size_t i = 0; i < n; ++i) out.outcomes[i] = outcome_of(kinds[i]);
  std::vector<unsigned long long> stamps(2 * n), sums(n), probes;
  FLASHSIM_CUDA_CHECK(cudaMemcpy(stamps.data(), dev_.stamps, stamps.size() * 8, cudaMemcpyDeviceToHost));
  FLASHSIM_CUDA_CHECK(cudaMemcpy(sums.data(), dev_.checksums, sums.size() * 8, cudaMemcpyDeviceToHost));
  if (options_.verify) {
    probes.resize(2 * n);
    FLASHSIM_CUDA_CHECK(cudaMemcpy(probes.data(), dev_.probes, probes.size() * 8, cudaMemcpyDeviceToHost));
  }
  const unsigned long long anchor_gpu_ns = anchor_gpu_ns_;
  const unsigned long long t0 = stamps[0];
  auto start_of = [&](std::size_t i) -> Nanoseconds { return static_cast<Nanoseconds>(stamps[i] - t0); };
  auto end_of = [&](std::size_t i) -> Nanoseconds { return static_cast<Nanoseconds>(stamps[n + i] - t0); };

  RunMetrics& m = out.result.metrics;
  m.out_of_memory = driver_.oom();
  m.window_ns = config_.window_ns;
  const Nanoseconds span = end_of(n - 1) > 0 ? std::max<Nanoseconds>(end_of(n - 1), 1) : 1;
  m.simulated_ns = span;
  const Nanoseconds w = config_.window_ns > 0 ? config_.window_ns : span + 1;
  const std::size_t windows = static_cast<std::size_t>(span / w) + 1;
  check_window_index(windows - 1, w);
  m.windows.resize(windows);
  for (std::size_t k = 0; k < windows; ++k) m.windows[k].start_ns = static_cast<Nanoseconds>(k) * w;

  std::vector<AccessRecord> log;
  if (!options_.access_log.empty()) log.reserve(n);
  std::int64_t prev_token_key = -1;
  for (std::size_t i = 0; i < n; ++i) {
    const AccessRecord& r = records[i];
    const BlockIndex b = driver_.block_of(i);
    const Nanoseconds start = start_of(i), end = end_of(i);
    const Nanoseconds latency = i == 0 ? 0 : std::max<Nanoseconds>(0, start - end_of(i - 1));
    const AccessOutcome o = out.outcomes[i];
    AccessCounters& c = m.windows[std::min<std::size_t>(static_cast<std::size_t>(start / w), windows - 1)].counters;
    for (AccessCounters* t : {&m.total, &c}) {
      ++t->accesses;
      t->bytes_accessed += r.bytes;
      if (o == AccessOutcome::hit) {
        ++t->hits;
        t->bytes_hit += r.bytes;
      } else {
        if (o == AccessOutcome::delayed_hit) ++t->delayed_hits;
        else {
          ++t->misses;
          const bool appended = kinds[i] == AccessKind::write_allocated || kinds[i] == AccessKind::written_through;
          if (appended) ++t->write_allocations;  // no transfer into the tier
          else t->bytes_fetched += r.bytes;
          if (kinds[i] == AccessKind::written_through) t->bytes_written_back += r.bytes;
        }
        t->stall_ns += latency;
      }
      t->bytes_written_back += driver_.written_back_bytes()[i];
    }
    if (i == driver_.oom_access()) m.out_of_memory.time_ns = start;
    m.windows[std::min<std::size_t>(static_cast<std::size_t>(start / w), windows - 1)].occupancy_bytes =
        driver_.occupancy()[i];
    m.latency.add(latency);
    if (sums[i] != host_checksum(b, r.bytes)) ++out.checksum_mismatches;
    if (options_.verify && o == AccessOutcome::hit) {
      out.device_resident[i] = probes[2 * i] == pattern_word(ids[b], 0) &&
                               (r.bytes <= 8 || probes[2 * i + 1] == pattern_word(ids[b], 1));
    }
    // Tokens: a new (request, token) pair starts a token.
    const std::int64_t key = r.token_index < 0 ? -1
                                               : static_cast<std::int64_t>((r.request_id & 0xffffffffull) << 24) ^
                                                     r.token_index;
    if (key >= 0 && key != prev_token_key) {
      out.token_start_ns.push_back(start);
      out.token_is_decode.push_back(r.phase == Phase::decode);
      prev_token_key = key;
    }
    if (!options_.access_log.empty()) {
      AccessRecord l = r;
      l.time_ns = start;
      l.compute_ns = end - start;
      l.next_use_index = kNeverAccessedAgain;
      log.push_back(l);
    }
  }
  // Bypasses and evictions from the tier's counters; prefetch bytes.
  const AccessCounters& totals = driver_.totals();
  if (tier) {
    m.total.bypasses = totals.bypasses;
    m.total.evictions = totals.evictions;
    m.total.bytes_evicted = totals.bytes_evicted;
    out.result.fragmentation_evictions = tier->counters().fragmentation_evictions;
    out.result.pinned_bytes = tier->pinned_bytes();
    out.result.slot_reserved_peak_bytes = tier->peak_reserved_bytes();
    if (driver_.session() && !config_.hardware.tiers.empty()) {  // the engine's component name
      driver_.session()->report_experts("tier." + config_.hardware.tiers[0].name, out.result.components);
    }
  } else {
    m.total.bypasses = m.total.misses;
  }
  m.total.bytes_prefetched = totals.bytes_prefetched;
  m.total.bytes_fetched += totals.bytes_prefetched;
  m.total.prefetches = totals.prefetches;
  m.total.prefetch_used_timely = totals.prefetch_used_timely;
  m.total.prefetch_used_late = totals.prefetch_used_late;
  m.total.prefetch_unused = totals.prefetch_unused;
  out.write_backs = write_backs_;
  // Link busy time per window, from the copies' events on the GPU timeline.
  for (const CopyEvents& c : events_) {
    float ms0 = 0, ms1 = 0;
    FLASHSIM_CUDA_CHECK(cudaEventElapsedTime(&ms0, dev_.anchor_event, c.start));
    FLASHSIM_CUDA_CHECK(cudaEventElapsedTime(&ms1, dev_.anchor_event, c.end));
    const auto gpu = [&](float ms) {
      return static_cast<Nanoseconds>(anchor_gpu_ns + static_cast<unsigned long long>(ms * 1e6)) -
             static_cast<Nanoseconds>(t0);
    };
    Nanoseconds s = std::max<Nanoseconds>(0, gpu(ms0)), e = std::max<Nanoseconds>(s, gpu(ms1));
    while (s < e) {
      const std::size_t k = std::min<std::size_t>(static_cast<std::size_t>(s / w), windows - 1);
      const Nanoseconds edge = k + 1 == windows ? e : std::min<Nanoseconds>(e, static_cast<Nanoseconds>(k + 1) * w);
      m.windows[k].link_busy_ns += edge - s;
      s = edge;
    }
    if (c.prefetch) {
      const std::size_t k = std::min<std::size_t>(static_cast<std::size_t>(std::max<Nanoseconds>(0, gpu(ms1)) / w), windows - 1);
      m.windows[k].counters.bytes_fetched += c.bytes;
      m.windows[k].counters.bytes_prefetched += c.bytes;
      ++m.windows[k].counters.prefetches;
    }
  }
  out.result.decision_clock = config_.decision_clock;
  out.result.events_processed = n;

  // Tokens.
  auto mean_decode_gap = [](const std::vector<Nanoseconds>& starts, const std::vector<std::uint8_t>& decode) {
    double sum = 0;
    std::size_t count = 0;
    for (std::size_t k = 1; k < starts.size(); ++k) {
      if (decode[k] && decode[k - 1]) {
        sum += static_cast<double>(starts[k] - starts[k - 1]);
        ++count;
      }
    }
    if (count == 0) {  // no phases: every token counts
      for (std::size_t k = 1; k < starts.size(); ++k) sum += static_cast<double>(starts[k] - starts[k - 1]);
      count = starts.size() > 1 ? starts.size() - 1 : 0;
    }
    return count ? sum / static_cast<double>(count) : 0.0;
  };
  out.decode_token_ns = mean_decode_gap(out.token_start_ns, out.token_is_decode);
  {
    std::vector<Nanoseconds> rec;
    std::vector<std::uint8_t> dec;
    std::int64_t prev = -1;
    for (const AccessRecord& r : records) {
      const std::int64_t key = r.token_index < 0 ? -1
                                                 : static_cast<std::int64_t>((r.request_id & 0xffffffffull) << 24) ^
                                                       r.token_index;
      if (key >= 0 && key != prev) {
        rec.push_back(r.time_ns);
        dec.push_back(r.phase == Phase::decode);
        prev = key;
      }
    }
    out.recorded_decode_token_ns = mean_decode_gap(rec, dec);
  }
  out.tokens_per_second =
      out.token_start_ns.empty() ? 0.0 : static_cast<double>(out.token_start_ns.size()) / (static_cast<double>(span) * 1e-9);

  // Every resident slot's contents against its host block.
  if (tier) {
    std::size_t resident = 0;
    for (BlockIndex b = 0; b < ids.size(); ++b) resident += tier->state(b) == BlockState::resident;
    if (resident <= 4096 || options_.verify) {
      for (BlockIndex b = 0; b < ids.size(); ++b) {
        if (tier->state(b) != BlockState::resident) continue;
        const ByteCount bytes = tier->block_bytes(b);
        FLASHSIM_CUDA_CHECK(cudaMemsetAsync(dev_.scratch, 0, 8, dev_.compute));
        kernels::ConsumeArgs args;
        args.data = dev_.pool + tier->slot(b).offset_bytes;
        args.bytes = bytes;
        args.checksum = dev_.scratch;
        FLASHSIM_CUDA_CHECK(kernels::launch_replay_consume(args, dev_.compute));
        unsigned long long sum = 0;
        FLASHSIM_CUDA_CHECK(cudaMemcpyAsync(&sum, dev_.scratch, 8, cudaMemcpyDeviceToHost, dev_.compute));
        FLASHSIM_CUDA_CHECK(cudaStreamSynchronize(dev_.compute));
        ++out.resident_checked;
        if (sum != host_checksum(b, bytes)) ++out.resident_mismatches;
      }
    }
  }

  if (!options_.access_log.empty()) {
    TraceMeta lm;
    lm.source = "flashsim replay of '" + driver_.meta().source + "' on the GPU (time_ns: consume kernel start, compute_ns: its duration)";
    lm.catalog = driver_.meta().catalog;
    lm.operators = driver_.meta().operators;
    lm.record_count = log.size();
    auto sink = create_trace_sink(options_.access_log, lm);
    sink->write(log);
    sink->finish();
  }
}

}  // namespace

ReplayRun replay_trace(ITraceSource& trace, const EngineConfig& config, const ReplayOptions& options) {
  CudaBackend backend(trace, config, options);
  return backend.run();
}

}  // namespace flashsim::hw
