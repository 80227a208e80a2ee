#include "hw/replay/replay.h"

#include <cuda_runtime_api.h>

#include <algorithm>
#include <chrono>
#include <memory>
#include <string>

#include "hw/cuda_check.h"
#include "hw/replay/pattern_write.h"
#include "sim/cache/fast_tier.h"
#include "sim/cache/pinning.h"
#include "sim/core/errors.h"
#include "sim/core/hash_map.h"
#include "traces/trace_formats.h"

namespace flashsim::hw {
namespace {

using Clock = std::chrono::steady_clock;

std::int64_t host_ns(Clock::time_point t, Clock::time_point origin) {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(t - origin).count();
}

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

/// A copy in flight (demand or prefetch), with its timing events.
struct Copy {
  cudaEvent_t start = nullptr;
  cudaEvent_t end = nullptr;
  BlockIndex block = 0;
  ByteCount bytes = 0;
  Nanoseconds decided_ns = 0;        ///< decision clock of the fetch decision
  std::uint64_t access_index = 0;    ///< the access whose decision issued it
  bool prefetch = false;
  bool arrived = false;  ///< the tier was told (on_arrival)
};

// Per-block flags (the engine's, sim/engine/engine.cpp).
constexpr std::uint8_t kPrefetched = 1;  // brought in by a prefetch, not yet accessed
constexpr std::uint8_t kDirty = 2;       // written while in the fast tier: written back when it leaves
constexpr std::uint8_t kEverHeld = 4;    // has held space in the fast tier, or been accessed
constexpr std::uint8_t kHeld = 8;        // a KV page held in use for its running request (kv_resident)

constexpr std::uint32_t kNoRequestIndex = 0xFFFFFFFFu;

// Per-access write kind (ReplayRun counters).
constexpr std::uint8_t kWriteAllocated = 1;    // KV append to a never-held page, allocated in place
constexpr std::uint8_t kWrittenThrough = 2;    // the same, not admitted: written through to the backing tier

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

class Replayer final : public IFastTierView, public IPrefetchActions {
 public:
  Replayer(ITraceSource& trace, const EngineConfig& config, const ReplayOptions& options)
      : config_(config), options_(options), meta_(trace.meta()) {
    load(trace);
  }

  ReplayRun run();

  // ---- IFastTierView ----
  BlockState state(BlockId id) const override {
    const BlockIndex* b = find(id);
    return b && tier_ ? tier_->state(*b) : BlockState::absent;
  }
  ByteCount capacity_bytes() const override { return tier_ ? tier_->capacity_bytes() : 0; }
  ByteCount reserved_bytes() const override { return tier_ ? tier_->reserved_bytes() : 0; }
  Nanoseconds last_access_ns(BlockId id) const override {
    const BlockIndex* b = find(id);
    return b ? last_access_ns_[*b] : kNeverNs;
  }
  void for_each_resident(const std::function<void(BlockId)>& visit) const override {
    if (!tier_) return;
    for (BlockIndex b = 0; b < ids_.size(); ++b) {
      if (tier_->state(b) == BlockState::resident && !tier_->is_pinned(b)) visit(ids_[b]);
    }
  }
  bool in_next_tier(BlockId) const override { return false; }

  // ---- IPrefetchActions ----
  bool prefetch(BlockId id) override;
  bool evict(BlockId id) override;

 private:
  const BlockIndex* find(BlockId id) const {
    auto it = index_.find(id);
    return it == index_.end() ? nullptr : &it->second;
  }
  void load(ITraceSource& trace);
  void setup_device();
  void setup_l2_mode();
  void poll_arrivals(bool wait_all);
  void wait_fences(ByteCount offset, ByteCount bytes, cudaStream_t stream);
  void note_evictions(std::uint64_t access);
  cudaEvent_t write_back(BlockIndex v, const SlotRange& range);
  void request_access_done(std::size_t i);
  void fill_oom_point(std::size_t i, const AccessRecord& r);
  cudaStream_t next_copy_stream() { return dev_.copy[copy_rr_++ % dev_.copy.size()]; }
  Copy& issue_copy(BlockIndex b, ByteCount bytes, void* dst, bool prefetch);
  Nanoseconds decision_now(const AccessRecord& r) const {
    return config_.decision_clock == DecisionClock::engine ? host_ns(Clock::now(), origin_) : r.time_ns;
  }
  std::uint64_t host_checksum(BlockIndex b, ByteCount bytes);
  void finish(ReplayRun& out);
  void isolated_decisions(const FastTierSpec& spec, const PinnedSet& pins, ReplayRun& out) const;

  const EngineConfig& config_;
  const ReplayOptions& options_;
  TraceMeta meta_;
  std::vector<AccessRecord> records_;
  std::vector<BlockIndex> record_index_;
  std::vector<std::uint64_t> next_use_;
  HashMap<BlockId, BlockIndex> index_;
  std::vector<BlockId> ids_;
  std::vector<ByteCount> max_bytes_;
  std::unique_ptr<HostStore> store_;
  std::unique_ptr<FastTier> tier_;
  std::vector<std::unique_ptr<IPrefetcher>> prefetchers_;
  std::string allocator_;
  ByteCount capacity_ = 0;

  DeviceResources dev_;
  std::size_t ring_size_ = 0;
  std::uint64_t completed_through_ = 0;  // accesses [0, completed_through_) have finished on the GPU
  std::vector<Fence> fences_;
  std::vector<SlotRange> slot_of_;                 // our copy of each block's slot (victims lose theirs)
  std::vector<std::uint64_t> last_reader_;         // per block: last access index + 1 (0 = none)
  std::vector<Nanoseconds> last_access_ns_;
  std::vector<std::size_t> inflight_copy_;         // per block: index into copies_ + 1 (0 = none)
  std::vector<Copy> copies_;
  std::size_t first_unarrived_ = 0;
  std::vector<BlockIndex> evicted_;
  std::uint64_t staging_last_[2] = {0, 0};         // last access + 1 that read each staging buffer
  unsigned staging_next_ = 0;
  unsigned copy_rr_ = 0;
  Clock::time_point origin_;
  std::uint64_t current_access_ = 0;
  Nanoseconds current_now_ = 0;
  ByteCount bytes_prefetched_ = 0;
  std::uint64_t demand_bypasses_ = 0;
  Nanoseconds cuda_in_actions_ns_ = 0;  // host time of CUDA calls made inside prefetcher actions
  std::vector<ByteCount> occupancy_;               // per access, reserved bytes after the decision
  HashMap<std::uint64_t, std::uint64_t> checksum_memo_;

  // Writes and requests, as the event engine treats them (engine.cpp).
  std::vector<std::uint8_t> kv_page_;              // per block: catalog kind "kv_page"
  std::vector<std::uint8_t> flags_;                // per block: kPrefetched | kDirty | kEverHeld | kHeld
  std::vector<ByteCount> held_bytes_;              // per block: bytes when it was admitted
  std::vector<cudaEvent_t> written_back_;          // per block: end of its last write-back (a later H2D waits)
  std::vector<std::uint8_t> write_kind_;           // per access: 0, kWriteAllocated, kWrittenThrough
  std::vector<ByteCount> written_back_bytes_;      // per access: slot bytes of dirty blocks its decisions evicted
  std::vector<std::uint32_t> request_of_;          // per access: dense request index or kNoRequestIndex
  std::vector<std::uint64_t> request_remaining_;   // per request: accesses not yet done
  std::vector<std::vector<BlockIndex>> request_kv_;  // per request: pages it write-allocated (freed at its end)
  std::uint64_t write_backs_ = 0;
  std::uint64_t prefetches_ = 0, prefetch_timely_ = 0, prefetch_late_ = 0, prefetch_unused_ = 0;
  std::size_t oom_access_ = ~std::size_t{0};
  OutOfMemoryPoint oom_;
};

void Replayer::load(ITraceSource& trace) {
  std::vector<AccessRecord> chunk(16384);
  trace.rewind();
  const std::uint64_t limit = options_.max_accesses;
  for (std::size_t n; (n = trace.read(chunk)) > 0;) {
    for (std::size_t k = 0; k < n; ++k) {
      if (limit && records_.size() >= limit) break;
      if (chunk[k].bytes == 0) {
        throw InputError("replay: trace '" + meta_.source + "', record " + std::to_string(records_.size()) +
                         ": bytes must be > 0");
      }
      records_.push_back(chunk[k]);
    }
    if (limit && records_.size() >= limit) break;
  }
  if (records_.empty()) throw InputError("replay: trace '" + meta_.source + "' has no records");
  auto add = [&](BlockId id, ByteCount bytes) {
    auto [it, added] = index_.try_emplace(id, static_cast<BlockIndex>(ids_.size()));
    if (added) {
      ids_.push_back(id);
      max_bytes_.push_back(bytes);
    } else {
      max_bytes_[it->second] = std::max(max_bytes_[it->second], bytes);
    }
    return it->second;
  };
  record_index_.reserve(records_.size());
  for (const AccessRecord& r : records_) record_index_.push_back(add(r.block_id, r.bytes));
  // Catalog blocks the trace never touches can still be prefetched.
  if (!config_.cache.eviction.impl.empty()) {
    for (const BlockCatalogEntry& e : meta_.catalog) {
      if (e.bytes > 0) add(e.id, e.bytes);
    }
  }
  // KV pages (catalog kind "kv_page") and requests (records with a request_id).
  kv_page_.assign(ids_.size(), 0);
  for (const BlockCatalogEntry& e : meta_.catalog) {
    if (e.kind != "kv_page") continue;
    if (const BlockIndex* b = find(e.id)) kv_page_[*b] = 1;
  }
  HashMap<std::uint64_t, std::uint32_t> requests;
  request_of_.reserve(records_.size());
  for (const AccessRecord& r : records_) {
    if (r.request_id == kNoRequest) {
      request_of_.push_back(kNoRequestIndex);
      continue;
    }
    auto [it, added] = requests.try_emplace(r.request_id, static_cast<std::uint32_t>(request_remaining_.size()));
    if (added) request_remaining_.push_back(0);
    ++request_remaining_[it->second];
    request_of_.push_back(it->second);
  }
  request_kv_.resize(request_remaining_.size());
  // Next use in memory (offline policies); the limit may cut the trace.
  next_use_.assign(records_.size(), kNeverAccessedAgain);
  std::vector<std::uint64_t> next(ids_.size(), kNeverAccessedAgain);
  for (std::size_t i = records_.size(); i-- > 0;) {
    next_use_[i] = next[record_index_[i]];
    next[record_index_[i]] = i;
  }
}

void Replayer::setup_device() {
  FLASHSIM_CUDA_CHECK(cudaSetDevice(options_.device));
  const std::size_t n = records_.size();
  std::size_t free_bytes = 0, total_bytes = 0;
  FLASHSIM_CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
  const ByteCount max_block = *std::max_element(max_bytes_.begin(), max_bytes_.end());
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

void Replayer::setup_l2_mode() {
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

void Replayer::wait_fences(ByteCount offset, ByteCount bytes, cudaStream_t stream) {
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

// Blocks in evicted_ left the tier (evicted, invalidated, or their request
// ended): a dirty one is written back, an unused prefetch counted, and
// their space fenced until its last reader and write-back are done.
void Replayer::note_evictions(std::uint64_t access) {
  for (BlockIndex v : evicted_) {
    const SlotRange range = slot_of_[v];
    std::uint8_t& f = flags_[v];
    cudaEvent_t wb = (f & kDirty) ? write_back(v, range) : nullptr;
    if (f & kPrefetched) ++prefetch_unused_;
    f &= static_cast<std::uint8_t>(~(kPrefetched | kDirty | kHeld));
    if (last_reader_[v] != 0 || wb != nullptr) {
      fences_.push_back(Fence{range.offset_bytes, range.reserved_bytes, last_reader_[v], wb});
    }
    if (options_.verify) {
      if (wb != nullptr) FLASHSIM_CUDA_CHECK(cudaStreamWaitEvent(dev_.compute, wb, 0));
      // Clear the victim's tag so device memory says "absent" as the tier does.
      FLASHSIM_CUDA_CHECK(cudaMemsetAsync(dev_.pool + range.offset_bytes, 0, std::min<ByteCount>(16, range.reserved_bytes),
                                          dev_.compute));
    }
    slot_of_[v] = SlotRange{};
  }
  if (options_.verify && !evicted_.empty()) {
    FLASHSIM_CUDA_CHECK(cudaEventRecord(dev_.verify_event, dev_.compute));
    for (cudaStream_t s : dev_.copy) FLASHSIM_CUDA_CHECK(cudaStreamWaitEvent(s, dev_.verify_event, 0));
  }
  (void)access;
}

// D2H of a dirty block's slot into its host bytes (L2 mode: D2D into the
// HBM backing buffer), after the block's last reader; counted as the
// engine counts it (the slot's bytes, into the current access).
cudaEvent_t Replayer::write_back(BlockIndex v, const SlotRange& range) {
  cudaStream_t s = next_copy_stream();
  if (last_reader_[v] != 0 && last_reader_[v] - 1 >= completed_through_) {
    FLASHSIM_CUDA_CHECK(cudaStreamWaitEvent(s, dev_.ring[(last_reader_[v] - 1) % ring_size_], 0));
  }
  const ByteCount bytes = held_bytes_[v];
  const unsigned char* src = dev_.pool + range.offset_bytes;
  if (dev_.backing) {
    FLASHSIM_CUDA_CHECK(cudaMemcpyAsync(dev_.backing + store_->block_offset(v), src, bytes, cudaMemcpyDeviceToDevice, s));
  } else {
    FLASHSIM_CUDA_CHECK(cudaMemcpyAsync(store_->writable_block(v), src, bytes, cudaMemcpyDeviceToHost, s));
  }
  cudaEvent_t end = dev_.take_event();
  FLASHSIM_CUDA_CHECK(cudaEventRecord(end, s));
  written_back_[v] = end;
  written_back_bytes_[current_access_] += range.reserved_bytes;
  ++write_backs_;
  return end;
}

// Access i is done: the last access of its request frees the request's KV
// pages (dropped, not written back: the request is over), as the engine's
// end_request does.
void Replayer::request_access_done(std::size_t i) {
  const std::uint32_t q = request_of_[i];
  if (q == kNoRequestIndex || --request_remaining_[q] != 0 || !tier_) return;
  evicted_.clear();
  for (BlockIndex p : request_kv_[q]) {
    if (flags_[p] & kHeld) {
      tier_->release(p);
      flags_[p] &= static_cast<std::uint8_t>(~kHeld);
    }
    if (tier_->state(p) == BlockState::resident && !tier_->is_pinned(p)) {
      flags_[p] &= static_cast<std::uint8_t>(~kDirty);
      tier_->invalidate(p);
      evicted_.push_back(p);
    }
  }
  note_evictions(i);
  evicted_.clear();
  request_kv_[q].clear();
  request_kv_[q].shrink_to_fit();
}

// The first KV append the tier could not admit (metrics.h, OutOfMemoryPoint);
// its time is filled from the GPU stamps in finish().
void Replayer::fill_oom_point(std::size_t i, const AccessRecord& r) {
  if (oom_.reached) return;
  oom_.reached = true;
  oom_access_ = i;
  oom_.request_id = r.request_id;
  oom_.token_index = r.token_index;
  oom_.block_id = r.block_id;
  for (BlockIndex b = 0; b < ids_.size(); ++b) {
    if (kv_page_[b] && tier_->state(b) != BlockState::absent) oom_.kv_bytes += tier_->slot(b).reserved_bytes;
  }
  oom_.reserved_bytes = tier_->reserved_bytes();
  oom_.pinned_bytes = tier_->pinned_bytes();
}

Copy& Replayer::issue_copy(BlockIndex b, ByteCount bytes, void* dst, bool prefetch) {
  cudaStream_t s = next_copy_stream();
  Copy c;
  c.start = dev_.take_event();
  c.end = dev_.take_event();
  c.block = b;
  c.bytes = bytes;
  c.prefetch = prefetch;
  c.decided_ns = current_now_;
  c.access_index = current_access_;
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
  copies_.push_back(c);
  return copies_.back();
}

bool Replayer::prefetch(BlockId id) {
  const BlockIndex* found = find(id);
  if (found == nullptr) throw InputError("replay: prefetch of block " + std::to_string(id) + ", which is not in the catalog");
  const BlockIndex b = *found;
  if (tier_->state(b) != BlockState::absent || tier_->is_pinned(b)) return false;
  PolicyAccess a;
  a.now_ns = current_now_;
  a.block = b;
  a.bytes = max_bytes_[b];
  a.access_index = current_access_;
  a.is_prefetch = true;
  if (tier_->begin_fetch(a, &evicted_) != FetchAdmission::admitted) return false;
  flags_[b] |= kPrefetched | kEverHeld;
  held_bytes_[b] = a.bytes;
  ++prefetches_;
  // The CUDA calls below are the driver's, not the prefetcher's decision:
  // their host time is kept apart (see run()).
  const auto t0 = Clock::now();
  note_evictions(current_access_);
  const SlotRange slot = tier_->slot(b);
  slot_of_[b] = slot;
  cudaStream_t s = dev_.copy[copy_rr_ % dev_.copy.size()];
  wait_fences(slot.offset_bytes, slot.reserved_bytes, s);
  issue_copy(b, a.bytes, dev_.pool + slot.offset_bytes, true);
  cuda_in_actions_ns_ += host_ns(Clock::now(), t0);
  inflight_copy_[b] = copies_.size();
  bytes_prefetched_ += a.bytes;
  return true;
}

bool Replayer::evict(BlockId id) {
  const BlockIndex* found = find(id);
  if (found == nullptr) return false;
  const BlockIndex b = *found;
  if (tier_->state(b) != BlockState::resident || tier_->is_pinned(b)) return false;
  tier_->evict_explicit(b);
  evicted_.assign(1, b);
  const auto t0 = Clock::now();
  note_evictions(current_access_);
  cuda_in_actions_ns_ += host_ns(Clock::now(), t0);
  return true;
}

void Replayer::poll_arrivals(bool wait_all) {
  for (; first_unarrived_ < copies_.size(); ++first_unarrived_) {
    Copy& c = copies_[first_unarrived_];
    if (c.arrived || !c.prefetch) continue;
    if (wait_all) {
      FLASHSIM_CUDA_CHECK(cudaEventSynchronize(c.end));
    } else {
      const cudaError_t q = cudaEventQuery(c.end);
      if (q == cudaErrorNotReady) return;  // copies on one stream finish in order; good enough a scan
      FLASHSIM_CUDA_CHECK(q);
    }
    // As the engine: the arrival carries the fetch's decision time on the trace clock.
    PolicyAccess a;
    a.now_ns = config_.decision_clock == DecisionClock::trace ? c.decided_ns : current_now_;
    a.block = c.block;
    a.bytes = c.bytes;
    a.access_index = c.access_index;
    a.is_prefetch = true;
    tier_->on_arrival(a);
    last_access_ns_[c.block] = a.now_ns;
    inflight_copy_[c.block] = 0;
    c.arrived = true;
  }
}

std::uint64_t Replayer::host_checksum(BlockIndex b, ByteCount bytes) {
  const std::uint64_t key = (std::uint64_t{b} << 40) ^ bytes;
  auto [it, added] = checksum_memo_.try_emplace(key, 0);
  if (added) it->second = kernels::replay_checksum_host(store_->block(b), bytes);
  return it->second;
}

// The same demand decisions on a fresh tier, with no CUDA call between
// them: the policy's own cost, apart from the cache pollution of the driver
// calls the in-situ figure includes.
void Replayer::isolated_decisions(const FastTierSpec& spec, const PinnedSet& pins, ReplayRun& out) const {
  const std::unique_ptr<FastTier> tier = FastTier::create(spec);
  for (BlockIndex b = 0; b < ids_.size(); ++b) {
    if (pins.ids.contains(ids_[b])) tier->pin(b);
  }
  std::vector<BlockIndex> evicted;
  PolicyAccess a;
  const auto start = Clock::now();
  for (std::size_t i = 0; i < records_.size(); ++i) {
    const AccessRecord& r = records_[i];
    const auto t0 = Clock::now();
    a.now_ns = r.time_ns;
    a.block = record_index_[i];
    a.bytes = r.bytes;
    a.access_index = i;
    a.next_use_index = next_use_[i];
    a.op = r.op;
    BlockState s = tier->state(a.block);
    if ((s == BlockState::resident || s == BlockState::in_use) && tier->block_bytes(a.block) != r.bytes) {
      tier->invalidate(a.block);
      s = BlockState::absent;
    }
    if (s == BlockState::resident || s == BlockState::in_use) {
      tier->on_access_hit(a);
    } else if (tier->begin_fetch(a, &evicted) == FetchAdmission::admitted) {
      tier->on_arrival(a);
    }
    out.decision_isolated_ns.add(host_ns(Clock::now(), t0));
  }
  out.decision_isolated_ns_total = host_ns(Clock::now(), start);
}

ReplayRun Replayer::run() {
  ReplayRun out;
  const CacheConfig& cache = config_.cache;
  const bool no_cache = options_.no_cache;
  capacity_ = no_cache ? 0 : cache.capacity_bytes;
  if (!no_cache && capacity_ == 0) throw InputError("replay: cache capacity must be > 0 bytes (or use --no-cache)");

  store_ = std::make_unique<HostStore>(ids_, max_bytes_, options_.backing);
  out.host_store_bytes = store_->total_bytes();
  out.device_pool_bytes = capacity_;

  PinnedSet pins;
  if (!no_cache) {
    pins = resolve_pins(cache.pinned, meta_, capacity_);
    FastTierSpec spec;
    spec.capacity_bytes = capacity_;
    spec.policy = cache.eviction.impl;
    spec.policy_params = cache.eviction.params;
    allocator_ = cache.allocator.impl == "bytes" ? "first_fit" : cache.allocator.impl;
    spec.allocator = allocator_;
    if (allocator_ != cache.allocator.impl) {
      spec.allocator_params = {};
    } else {
      spec.allocator_params = cache.allocator.params;
    }
    spec.block_count = ids_.size();
    spec.policy_capacity_bytes = capacity_ - pins.catalog_bytes;
    isolated_decisions(spec, pins, out);
    tier_ = FastTier::create(spec);
    for (BlockIndex b = 0; b < ids_.size(); ++b) {
      if (pins.ids.contains(ids_[b])) tier_->pin(b);
    }
    // The scenario's prefetchers (EngineConfig::prefetchers, as the engine
    // builds them), unless options name one to use instead.
    PrefetcherContext pc;
    pc.meta = &meta_;
    pc.capacity_bytes = capacity_;
    pc.seed = config_.seed;
    if (!options_.prefetcher.impl.empty()) {
      prefetchers_.push_back(
          PrefetcherRegistry::instance().create(options_.prefetcher.impl, options_.prefetcher.params, pc));
    } else {
      for (const ComponentChoice& choice : config_.prefetchers) {
        prefetchers_.push_back(PrefetcherRegistry::instance().create(choice.impl, choice.params, pc));
      }
    }
  } else {
    allocator_ = "none";
  }
  out.allocator = allocator_;
  slot_of_.assign(ids_.size(), SlotRange{});
  last_reader_.assign(ids_.size(), 0);
  last_access_ns_.assign(ids_.size(), kNeverNs);
  inflight_copy_.assign(ids_.size(), 0);
  copies_.reserve(records_.size() * 2);
  flags_.assign(ids_.size(), 0);
  held_bytes_.assign(ids_.size(), 0);
  written_back_.assign(ids_.size(), nullptr);
  write_kind_.assign(records_.size(), 0);
  written_back_bytes_.assign(records_.size(), 0);

  setup_device();
  const std::size_t n = records_.size();
  out.outcomes.resize(n);
  occupancy_.resize(n);
  if (options_.verify) out.device_resident.assign(n, 0);

  NvmlSampler sampler(options_.device);
  out.nvml_status = sampler.available() ? "ok" : sampler.error();
  if (options_.nvml && sampler.available()) sampler.start();
  if (!options_.nvml) out.nvml_status = "off";

  // Anchor: an event and a globaltimer stamp back to back on the compute stream.
  FLASHSIM_CUDA_CHECK(cudaEventRecord(dev_.anchor_event, dev_.compute));
  FLASHSIM_CUDA_CHECK(kernels::launch_stamp_now(dev_.anchor, dev_.compute));
  FLASHSIM_CUDA_CHECK(cudaStreamSynchronize(dev_.compute));
  unsigned long long anchor_gpu_ns = 0;
  FLASHSIM_CUDA_CHECK(cudaMemcpy(&anchor_gpu_ns, dev_.anchor, sizeof(anchor_gpu_ns), cudaMemcpyDeviceToHost));
  // Open-loop issue / recorded gaps: hold each access until anchor + offset (+ a lead for the host).
  const unsigned long long lead_ns = 2'000'000;
  const Nanoseconds first_time = records_.front().time_ns;
  const bool hold_until_time = options_.replay_gaps || config_.issue == IssueMode::timestamp;

  origin_ = Clock::now();
  const Nanoseconds hold_default = config_.gap_ns;
  PolicyAccess a;
  for (std::size_t i = 0; i < n; ++i) {
    const AccessRecord& r = records_[i];
    const BlockIndex b = record_index_[i];
    current_access_ = i;
    // 1. throttle and arrivals
    if (i >= options_.run_ahead && options_.run_ahead > 0) {
      const std::uint64_t done = i - options_.run_ahead;
      if (done + 1 > completed_through_) {
        FLASHSIM_CUDA_CHECK(cudaEventSynchronize(dev_.ring[done % ring_size_]));
        completed_through_ = done + 1;
      }
    }
    current_now_ = decision_now(r);
    if (!no_cache) poll_arrivals(false);

    // 2. decide (the event engine's rules, engine.cpp: access / write_allocate)
    AccessOutcome outcome = AccessOutcome::miss;
    bool admitted = false;
    bool write_allocation = false;
    const auto t_decide = Clock::now();
    if (!no_cache) {
      a.now_ns = current_now_;
      a.block = b;
      a.bytes = r.bytes;
      a.access_index = i;
      a.next_use_index = next_use_[i];
      a.op = r.op;
      a.is_prefetch = false;
      BlockState s = tier_->state(b);
      // Size changed: the old copy is dropped (written back if dirty); a
      // block held in use (a running request's KV page) reads as a hit.
      if (s == BlockState::resident && tier_->block_bytes(b) != r.bytes) {
        tier_->invalidate(b);
        evicted_.assign(1, b);
        note_evictions(i);
        s = BlockState::absent;
      }
      if (s == BlockState::resident || s == BlockState::in_use) {
        outcome = AccessOutcome::hit;
        tier_->on_access_hit(a);
        if (r.op == AccessOp::write) flags_[b] |= kDirty;
        if (flags_[b] & kPrefetched) {
          ++prefetch_timely_;
          flags_[b] &= static_cast<std::uint8_t>(~kPrefetched);
        }
      } else if (s == BlockState::in_flight) {
        outcome = AccessOutcome::delayed_hit;
        if (flags_[b] & kPrefetched) {
          ++prefetch_late_;
          flags_[b] &= static_cast<std::uint8_t>(~kPrefetched);
        }
      } else {
        // A KV append to a page never held: allocated in place, no transfer.
        write_allocation = r.op == AccessOp::write && kv_page_[b] && !(flags_[b] & kEverHeld);
        const FetchAdmission adm = tier_->begin_fetch(a, &evicted_);
        admitted = adm == FetchAdmission::admitted;
        if (!admitted) ++demand_bypasses_;
        if (admitted) held_bytes_[b] = r.bytes;
        if (write_allocation && admitted) {
          tier_->on_arrival(a);
          flags_[b] |= kDirty;
          if (request_of_[i] != kNoRequestIndex) {
            request_kv_[request_of_[i]].push_back(b);
            if (config_.kv_resident) {
              tier_->acquire(b);
              flags_[b] |= kHeld;
            }
          }
        }
        flags_[b] |= kEverHeld;
      }
    }
    const auto t_decided = Clock::now();
    Nanoseconds decision = host_ns(t_decided, t_decide);

    // 3. issue
    const unsigned char* data = nullptr;
    if (outcome == AccessOutcome::hit) {
      data = dev_.pool + tier_->slot(b).offset_bytes;
      if (options_.verify) FLASHSIM_CUDA_CHECK(kernels::launch_probe16(data, dev_.probes + 2 * i, dev_.compute));
    } else if (outcome == AccessOutcome::delayed_hit) {
      const std::size_t ci = inflight_copy_[b];
      if (ci == 0) throw Error("replay: block " + std::to_string(ids_[b]) + " in flight without a copy");
      Copy& c = copies_[ci - 1];
      FLASHSIM_CUDA_CHECK(cudaStreamWaitEvent(dev_.compute, c.end, 0));
      PolicyAccess arrival = a;
      arrival.now_ns = config_.decision_clock == DecisionClock::trace ? c.decided_ns : current_now_;
      arrival.bytes = c.bytes;
      arrival.access_index = c.access_index;
      arrival.is_prefetch = true;
      tier_->on_arrival(arrival);
      c.arrived = true;
      inflight_copy_[b] = 0;
      data = dev_.pool + tier_->slot(b).offset_bytes;
    } else if (admitted && write_allocation) {  // the append writes the page in its new slot
      note_evictions(i);
      const SlotRange slot = tier_->slot(b);
      slot_of_[b] = slot;
      wait_fences(slot.offset_bytes, slot.reserved_bytes, dev_.compute);
      FLASHSIM_CUDA_CHECK(launch_write_pattern(dev_.pool + slot.offset_bytes, ids_[b], r.bytes, dev_.compute));
      data = dev_.pool + slot.offset_bytes;
    } else if (admitted) {
      note_evictions(i);
      const SlotRange slot = tier_->slot(b);
      slot_of_[b] = slot;
      cudaStream_t s = dev_.copy[copy_rr_ % dev_.copy.size()];
      wait_fences(slot.offset_bytes, slot.reserved_bytes, s);
      Copy& c = issue_copy(b, r.bytes, dev_.pool + slot.offset_bytes, false);
      FLASHSIM_CUDA_CHECK(cudaStreamWaitEvent(dev_.compute, c.end, 0));
      const auto t0 = Clock::now();
      tier_->on_arrival(a);
      decision += host_ns(Clock::now(), t0);
      c.arrived = true;
      data = dev_.pool + slot.offset_bytes;
    } else if (write_allocation) {  // not admitted: the append is written through to the backing tier
      note_evictions(i);
      fill_oom_point(i, r);
      if (dev_.backing) {
        unsigned char* dst = dev_.backing + store_->block_offset(b);
        FLASHSIM_CUDA_CHECK(launch_write_pattern(dst, ids_[b], r.bytes, dev_.compute));
        data = dst;
      } else {
        const unsigned k = staging_next_++ % 2;
        FLASHSIM_CUDA_CHECK(launch_write_pattern(dev_.staging[k], ids_[b], r.bytes, dev_.compute));
        FLASHSIM_CUDA_CHECK(cudaMemcpyAsync(store_->writable_block(b), dev_.staging[k], r.bytes, cudaMemcpyDeviceToHost,
                                            dev_.compute));
        cudaEvent_t end = dev_.take_event();
        FLASHSIM_CUDA_CHECK(cudaEventRecord(end, dev_.compute));
        written_back_[b] = end;
        staging_last_[k] = i + 1;
        data = dev_.staging[k];
      }
    } else if (dev_.backing) {  // L2 mode bypass: read the block where it lives, in HBM
      note_evictions(i);
      if (written_back_[b] != nullptr) FLASHSIM_CUDA_CHECK(cudaStreamWaitEvent(dev_.compute, written_back_[b], 0));
      data = dev_.backing + store_->block_offset(b);
    } else {  // bypass or no cache: a staging buffer, alternating
      if (!no_cache) note_evictions(i);  // a bypass may follow evictions
      const unsigned k = staging_next_++ % 2;
      cudaStream_t s = dev_.copy[copy_rr_ % dev_.copy.size()];
      if (staging_last_[k] != 0 && staging_last_[k] - 1 >= completed_through_) {
        FLASHSIM_CUDA_CHECK(cudaStreamWaitEvent(s, dev_.ring[(staging_last_[k] - 1) % ring_size_], 0));
      }
      Copy& c = issue_copy(b, r.bytes, dev_.staging[k], false);
      c.arrived = true;
      FLASHSIM_CUDA_CHECK(cudaStreamWaitEvent(dev_.compute, c.end, 0));
      staging_last_[k] = i + 1;
      data = dev_.staging[k];
    }
    out.outcomes[i] = outcome;
    write_kind_[i] = write_allocation ? (admitted ? kWriteAllocated : kWrittenThrough) : 0;

    // 4. consume: the access's kernel, then its ring event (fences on this
    // block's space from here on wait for it)
    kernels::ConsumeArgs args;
    args.data = data;
    args.bytes = r.bytes;
    args.checksum = dev_.checksums + i;
    args.start_ns = dev_.stamps + i;
    args.end_ns = dev_.stamps + n + i;
    args.hold_ns = static_cast<unsigned long long>(r.compute_ns > 0 ? r.compute_ns : hold_default);
    if (hold_until_time) args.not_before_ns = anchor_gpu_ns + lead_ns + static_cast<unsigned long long>(r.time_ns - first_time);
    args.mode = options_.kernel;
    args.cached_loads = options_.l2_mode;
    args.gemv_x = dev_.gemv_x;
    args.gemv_sink = dev_.gemv_sink;
    FLASHSIM_CUDA_CHECK(kernels::launch_replay_consume(args, dev_.compute));
    FLASHSIM_CUDA_CHECK(cudaEventRecord(dev_.ring[i % ring_size_], dev_.compute));
    last_reader_[b] = i + 1;
    if (options_.kernel == kernels::ConsumeMode::gemv) out.gemv_rows += r.bytes / (kernels::kGemvColumns * 2);

    // 5. The engine's order: a hit or an in-place append completes at once
    // (its request may end, freeing its KV pages, before prefetchers run);
    // a demand fetch or a delayed hit completes at its arrival, after them,
    // and its block -- in flight in the engine -- cannot be evicted meanwhile.
    const bool done_now = outcome == AccessOutcome::hit || (write_allocation && admitted);
    if (done_now) request_access_done(i);
    const bool held = tier_ && !done_now && (outcome == AccessOutcome::delayed_hit || admitted);
    if (held) tier_->acquire(b);
    last_access_ns_[b] = current_now_;
    // Prefetchers see the access after the tier classified it.
    if (!prefetchers_.empty()) {
      PrefetchAccess pa;
      pa.now_ns = current_now_;
      pa.block_id = r.block_id;
      pa.bytes = r.bytes;
      pa.access_index = i;
      pa.stream_id = r.stream_id;
      pa.request_id = r.request_id;
      pa.token_index = r.token_index;
      pa.phase = r.phase;
      pa.operator_id = r.operator_id;
      pa.outcome = outcome;
      cuda_in_actions_ns_ = 0;
      const auto t0 = Clock::now();
      for (auto& p : prefetchers_) p->on_access(pa, *this, *this);
      decision += host_ns(Clock::now(), t0) - cuda_in_actions_ns_;
    }
    if (held) tier_->release(b);
    if (!done_now) request_access_done(i);
    out.decision_ns.add(decision);
    out.decision_ns_total += decision;
    ++out.decisions;
    occupancy_[i] = tier_ ? tier_->reserved_bytes() : 0;
  }
  FLASHSIM_CUDA_CHECK(cudaStreamSynchronize(dev_.compute));
  for (cudaStream_t s : dev_.copy) FLASHSIM_CUDA_CHECK(cudaStreamSynchronize(s));
  out.host_issue_seconds = std::chrono::duration<double>(Clock::now() - origin_).count();
  if (!no_cache) poll_arrivals(true);
  if (options_.nvml && sampler.available()) out.nvml = sampler.stop();
  finish(out);
  return out;
}

void Replayer::finish(ReplayRun& out) {
  const std::size_t n = records_.size();
  std::vector<unsigned long long> stamps(2 * n), sums(n), probes;
  FLASHSIM_CUDA_CHECK(cudaMemcpy(stamps.data(), dev_.stamps, stamps.size() * 8, cudaMemcpyDeviceToHost));
  FLASHSIM_CUDA_CHECK(cudaMemcpy(sums.data(), dev_.checksums, sums.size() * 8, cudaMemcpyDeviceToHost));
  if (options_.verify) {
    probes.resize(2 * n);
    FLASHSIM_CUDA_CHECK(cudaMemcpy(probes.data(), dev_.probes, probes.size() * 8, cudaMemcpyDeviceToHost));
  }
  unsigned long long anchor_gpu_ns = 0;
  FLASHSIM_CUDA_CHECK(cudaMemcpy(&anchor_gpu_ns, dev_.anchor, 8, cudaMemcpyDeviceToHost));
  const unsigned long long t0 = stamps[0];
  auto start_of = [&](std::size_t i) -> Nanoseconds { return static_cast<Nanoseconds>(stamps[i] - t0); };
  auto end_of = [&](std::size_t i) -> Nanoseconds { return static_cast<Nanoseconds>(stamps[n + i] - t0); };

  RunMetrics& m = out.result.metrics;
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
    const AccessRecord& r = records_[i];
    const BlockIndex b = record_index_[i];
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
          if (write_kind_[i] != 0) ++t->write_allocations;  // no transfer into the tier
          else t->bytes_fetched += r.bytes;
          if (write_kind_[i] == kWrittenThrough) t->bytes_written_back += r.bytes;
        }
        t->stall_ns += latency;
      }
      t->bytes_written_back += written_back_bytes_[i];
    }
    if (i == oom_access_) oom_.time_ns = start;
    m.windows[std::min<std::size_t>(static_cast<std::size_t>(start / w), windows - 1)].occupancy_bytes = occupancy_[i];
    m.latency.add(latency);
    if (sums[i] != host_checksum(b, r.bytes)) ++out.checksum_mismatches;
    if (options_.verify && o == AccessOutcome::hit) {
      out.device_resident[i] = probes[2 * i] == pattern_word(ids_[b], 0) &&
                               (r.bytes <= 8 || probes[2 * i + 1] == pattern_word(ids_[b], 1));
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
  if (tier_) {
    m.total.bypasses = demand_bypasses_;
    m.total.evictions = tier_->counters().evictions;
    m.total.bytes_evicted = tier_->counters().bytes_evicted;
    out.result.fragmentation_evictions = tier_->counters().fragmentation_evictions;
    out.result.pinned_bytes = tier_->pinned_bytes();
    out.result.slot_reserved_peak_bytes = tier_->peak_reserved_bytes();
  } else {
    m.total.bypasses = m.total.misses;
  }
  m.total.bytes_prefetched = bytes_prefetched_;
  m.total.bytes_fetched += bytes_prefetched_;
  m.total.prefetches = prefetches_;
  m.total.prefetch_used_timely = prefetch_timely_;
  m.total.prefetch_used_late = prefetch_late_;
  m.total.prefetch_unused = prefetch_unused_;
  for (std::uint8_t f : flags_) m.total.prefetch_unused += (f & kPrefetched) ? 1 : 0;  // never accessed before the end
  m.out_of_memory = oom_;
  out.write_backs = write_backs_;
  // Link busy time per window, from the copies' events on the GPU timeline.
  for (const Copy& c : copies_) {
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
    for (const AccessRecord& r : records_) {
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
  if (tier_) {
    std::size_t resident = 0;
    for (BlockIndex b = 0; b < ids_.size(); ++b) resident += tier_->state(b) == BlockState::resident;
    if (resident <= 4096 || options_.verify) {
      for (BlockIndex b = 0; b < ids_.size(); ++b) {
        if (tier_->state(b) != BlockState::resident) continue;
        const ByteCount bytes = tier_->block_bytes(b);
        FLASHSIM_CUDA_CHECK(cudaMemsetAsync(dev_.scratch, 0, 8, dev_.compute));
        kernels::ConsumeArgs args;
        args.data = dev_.pool + tier_->slot(b).offset_bytes;
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
    lm.source = "flashsim replay of '" + meta_.source + "' on the GPU (time_ns: consume kernel start, compute_ns: its duration)";
    lm.catalog = meta_.catalog;
    lm.operators = meta_.operators;
    lm.record_count = log.size();
    auto sink = create_trace_sink(options_.access_log, lm);
    sink->write(log);
    sink->finish();
  }
}

}  // namespace

ReplayRun replay_trace(ITraceSource& trace, const EngineConfig& config, const ReplayOptions& options) {
  Replayer replayer(trace, config, options);
  return replayer.run();
}

}  // namespace flashsim::hw
