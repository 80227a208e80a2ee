// run_engine: the discrete-event engine. The model is stated in
// sim/engine/engine_detail.h; this file is its event loop.
#include <algorithm>
#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "sim/cache/pinning.h"
#include "sim/core/hash_map.h"
#include "sim/cache/fast_tier.h"
#include "sim/core/errors.h"
#include "sim/engine/engine_detail.h"
#include "sim/engine/event_queue.h"
#include "sim/engine/l2_model.h"
#include "sim/engine/link.h"
#include "sim/engine/ring_queue.h"
#include "sim/engine/tlb.h"
#include "sim/engine/trace_scan.h"
#include "sim/prefetch/i_prefetcher.h"

namespace flashsim {
namespace {

constexpr std::uint32_t kNone = 0xFFFFFFFFu;
constexpr std::size_t kChunkRecords = 4096;
constexpr std::size_t kMaxTiers = 32;      // fill masks are 32-bit
constexpr ByteCount kSyntheticAlign = 256;  // synthetic TLB layout (engine_detail.h)

enum EventKind : std::uint32_t {
  kIssue = 0,       // a = stream: issue its next record
  kFetchStart = 1,  // a = fetch: the copy leaves its source tier
  kHopDone = 2,     // a = fetch: a fifo link delivered the block one tier up
  kLinkCheck = 3,   // a = link (tier index), b = generation: a fair link's schedule changes
};

// Per-block flags (EventEngine::flags_).
constexpr std::uint8_t kPrefetched = 1;  // brought in by a prefetch, not yet accessed
constexpr std::uint8_t kDirty = 2;       // written while in the fast tier
constexpr std::uint8_t kEverHeld = 4;    // has held space in the fast tier, or been accessed
constexpr std::uint8_t kHeld = 8;        // a KV page held in use for its running request

// Occupancy kinds (sim/metrics/metrics.h, OccupancySample).
constexpr std::uint8_t kKindWeights = 0, kKindKv = 1, kKindOther = 2;

// What an access carries for serving metrics.
struct AccessTag {
  std::uint32_t request = kNone;  // dense request index
  std::int32_t token = -1;
  Phase phase = Phase::unknown;
};

// The fields of an AccessRecord the replay uses (80 bytes, not 96).
struct Pending {
  Nanoseconds time_ns = 0;
  Nanoseconds compute_ns = 0;
  ByteCount bytes = 0;
  std::uint64_t address = kNoAddress;
  std::uint64_t offset = 0;
  std::uint64_t next_use_index = kNeverAccessedAgain;
  std::uint64_t index = 0;  // position in the trace
  BlockIndex block = 0;
  std::uint32_t operator_id = kNoOperator;
  AccessTag tag;
  AccessOp op = AccessOp::read;
};

struct Stream {
  RingQueue<Pending> queue;     // read ahead, not yet issued
  std::uint64_t remaining = 0;  // records not yet issued
};

// An access waiting for a fetch (the miss that started it, and delayed hits).
struct Waiter {
  std::uint32_t next = kNone;
  std::uint32_t stream = 0;
  std::uint32_t window = 0;
  Nanoseconds issue_ns = 0;
  Nanoseconds ready_ns = 0;  // issue + pre: data can be used from max(arrival, ready)
  Nanoseconds think_ns = 0;  // closed loop: delay to the stream's next issue
  AccessTag tag;
};

// A serving request (records with a request_id) during the replay.
struct RequestState {
  enum Status : std::uint8_t { fresh, queued, admitted };
  Nanoseconds arrival_ns = -1;  // first attempt to issue its first access
  Nanoseconds admitted_ns = 0;
  Nanoseconds prefill_done_ns = 0;
  Nanoseconds min_token_done_ns = 0, max_token_done_ns = 0;
  Nanoseconds end_ns = 0;
  std::int32_t min_token = -1, max_token = -1;
  bool has_prefill = false;
  Status status = fresh;
  std::uint64_t decode_tokens = 0;
  std::uint64_t remaining = 0;  // accesses not yet completed
  double need_bytes_per_s = 0.0;
  std::vector<std::uint32_t> parked;      // streams waiting for its admission
  std::vector<BlockIndex> kv_pages;       // pages it allocated (freed at its end)
};

struct Fetch {
  PolicyAccess access;         // the access that missed (now_ns = its decision time)
  std::uint32_t waiters = kNone, waiters_tail = kNone;
  std::uint32_t at_tier = 0;   // tier the block is at (the next hop leaves it)
  std::uint32_t fill_mask = 0; // intermediate tiers admitting the block
  bool admitted = false;       // tiers[0] admitted it (else bypass)
  bool holding = false;        // holds an acquire() on tiers[at_tier]
  std::uint32_t next_free = kNone;
};


class EventEngine {
 public:
  EventEngine(ITraceSource& trace, const EngineConfig& config)
      : trace_(trace), config_(config), hw_(config.hardware), tlb_(hw_.tlb), l2_(hw_.l2) {
    validate();
    build_tiers();
  }

  EngineResult run(EngineDetail* detail);

 private:
  // What prefetchers see and may do (sim/prefetch/i_prefetcher.h).
  class View final : public IFastTierView {
   public:
    explicit View(const EventEngine& e) : e_(e) {}
    BlockState state(BlockId block) const override;
    ByteCount capacity_bytes() const override { return e_.tiers_[0]->capacity_bytes(); }
    ByteCount reserved_bytes() const override { return e_.tiers_[0]->reserved_bytes(); }
    Nanoseconds last_access_ns(BlockId block) const override;
    void for_each_resident(const std::function<void(BlockId)>& visit) const override;
    bool in_next_tier(BlockId block) const override;

   private:
    const EventEngine& e_;
  };
  class Actions final : public IPrefetchActions {
   public:
    explicit Actions(EventEngine& e) : e_(e) {}
    bool prefetch(BlockId block) override { return e_.prefetch_block(block); }
    bool evict(BlockId block) override { return e_.evict_block(block); }

   private:
    EventEngine& e_;
  };

  void validate() const;
  void build_tiers();
  void build_catalog();
  void prepare();
  void new_block(BlockIndex b, BlockId id, ByteCount bytes);
  std::uint32_t catalog_position(BlockId id) const;
  BlockIndex number_block(BlockId id, ByteCount bytes);
  bool read_chunk();
  void ensure_head(std::uint32_t s);
  MetricsWindow& window(std::uint32_t w) {
    if (w >= windows_.size()) grow_windows(w);
    return windows_[w];
  }
  void grow_windows(std::uint32_t w);
  std::uint32_t window_of(Nanoseconds t) const {
    return config_.window_ns > 0 ? static_cast<std::uint32_t>(t / config_.window_ns) : 0;
  }
  void roll_windows(Nanoseconds now);

  void issue(std::uint32_t s);
  bool admitted_to_issue(std::uint32_t s, const Pending& head);
  void admit(std::uint32_t r);
  // Reservation admission: request r's bandwidth fits beside those admitted
  // (or nothing is admitted: a request needing more than the link runs alone).
  bool fits(std::uint32_t r) const {
    return admitted_active_ == 0 ||
           reserved_bytes_per_s_ + requests_[r].need_bytes_per_s <= grant_bytes_per_s_ * (1.0 + 1e-12);
  }
  void access(std::uint32_t s, const Pending& p);
  void miss(std::uint32_t s, const PolicyAccess& a, Nanoseconds pre, std::uint32_t w, Nanoseconds think,
            const AccessTag& tag);
  void write_allocate(std::uint32_t s, const PolicyAccess& a, Nanoseconds pre, std::uint32_t w, Nanoseconds think,
                      const AccessTag& tag);
  FetchAdmission admit_fast(const PolicyAccess& a, AccessCounters& c);
  void start_fetch(const PolicyAccess& a, FetchAdmission admission, Nanoseconds ready_ns, std::uint32_t waiter);
  void charge(BlockIndex b);
  void freed(BlockIndex b, AccessCounters& c);
  void note_peak();
  void sample_occupancy(Nanoseconds now);
  void notify_prefetchers(std::uint32_t s, const Pending& p, const PolicyAccess& a, AccessOutcome outcome);
  bool prefetch_block(BlockId id);
  bool evict_block(BlockId id);
  void request_access_done(const AccessTag& tag, Nanoseconds done_ns);
  void end_request(std::uint32_t r);
  void start_hop(std::uint32_t f);
  void hop_done(std::uint32_t f);
  void arrive_fast_tier(std::uint32_t f);
  void link_check(std::uint32_t link, std::uint64_t generation);
  void schedule_link_check(std::uint32_t link);
  // `stalled`: a miss, delayed hit or write allocation (its whole latency is
  // stall); false for a hit (no stall).
  void finish(std::uint32_t s, Nanoseconds issue_ns, Nanoseconds done_ns, std::uint32_t w, Nanoseconds think,
              const AccessTag& tag, bool stalled);
  std::uint32_t new_waiter(std::uint32_t s, Nanoseconds issue, Nanoseconds ready, std::uint32_t w,
                           Nanoseconds think, const AccessTag& tag);
  void add_waiter(Fetch& f, std::uint32_t waiter);
  std::uint32_t new_fetch();
  Nanoseconds decision_time(Nanoseconds trace_time) const {
    return config_.decision_clock == DecisionClock::trace ? trace_time : now_;
  }

  ITraceSource& trace_;
  const EngineConfig& config_;
  const HardwareProfile& hw_;
  std::size_t tier_count_ = 0;
  std::vector<std::unique_ptr<FastTier>> tiers_;  // [0, tier_count − 1); the backing tier has none
  std::vector<std::unique_ptr<Link>> links_;      // links_[i] = tiers[i].link_to_faster, i >= 1
  std::vector<std::uint64_t> scheduled_generation_;
  Tlb tlb_;
  L2Model l2_;
  PinnedSet pins_;
  bool next_use_from_trace_ = false;

  TraceScan scan_;
  BlockNumbering blocks_;                      // numbered as the replay reads them
  std::vector<std::uint8_t> pinned_;          // per BlockIndex
  std::vector<std::uint64_t> synthetic_base_;  // per BlockIndex (TLB only)
  std::uint64_t synthetic_next_ = 0;
  std::vector<std::uint32_t> inflight_fetch_;  // per BlockIndex: fetch into tiers[0], or kNone
  std::vector<Stream> streams_;
  std::vector<AccessRecord> chunk_;
  std::uint64_t next_record_ = 0;
  std::uint32_t last_stream_id_ = 0, last_stream_ = kNone;

  EventQueue queue_;
  Nanoseconds now_ = 0;
  Nanoseconds last_done_ = 0;
  std::uint64_t events_ = 0;
  std::vector<Waiter> waiters_;
  std::uint32_t free_waiter_ = kNone;
  std::vector<Fetch> fetches_;
  std::uint32_t free_fetch_ = kNone;
  std::vector<BlockIndex> evicted_;
  std::vector<std::uint64_t> completed_;
  std::vector<std::uint64_t> served_;  // per tier

  std::vector<MetricsWindow> windows_;
  std::uint32_t open_window_ = 0;      // occupancy recorded for windows before it
  Nanoseconds open_window_end_ = 0;
  LatencyHistogram latency_;

  // Catalog facts per BlockIndex.
  std::vector<std::uint32_t> catalog_direct_;     // id -> catalog position (dense ids)
  HashMap<BlockId, std::uint32_t> catalog_map_;   // the others
  std::vector<BlockId> block_ids_;
  std::vector<std::uint8_t> kind_;                // kKindWeights / kKindKv / kKindOther
  std::vector<std::uint32_t> link_class_;         // segment class (segment shares only)
  std::vector<ByteCount> charged_;                // slot bytes counted in occ_
  std::vector<std::uint8_t> flags_;
  std::vector<double> class_weights_;             // [0] = unlisted segments
  std::vector<std::string> class_segments_;
  ByteCount occ_[3] = {0, 0, 0};
  OccupancyMetrics occupancy_;
  Nanoseconds next_sample_ns_ = kNeverNs;
  OutOfMemoryPoint oom_;

  // Prefetch.
  std::vector<std::unique_ptr<IPrefetcher>> prefetchers_;
  bool prefetching_ = false;
  std::vector<Nanoseconds> last_access_;          // per BlockIndex, prefetching only
  Nanoseconds decision_now_ = 0;                  // of the access being handed to prefetchers
  std::uint64_t access_index_now_ = 0;
  View view_{*this};
  Actions actions_{*this};

  // Requests and bandwidth reservation.
  std::vector<RequestState> requests_;
  std::uint64_t last_request_id_ = kNoRequest;
  std::uint32_t last_request_ = kNone;
  RingQueue<std::uint32_t> admission_queue_;
  double reserved_bytes_per_s_ = 0.0;
  std::uint32_t admitted_active_ = 0;
  double grant_bytes_per_s_ = 0.0;
};

void EventEngine::validate() const {
  const auto& tiers = hw_.tiers;
  if (tiers.size() < 2) {
    throw InputError("hardware '" + hw_.name + "': needs at least two tiers (fast tier and backing tier), has " +
                     std::to_string(tiers.size()));
  }
  if (tiers.size() > kMaxTiers) throw InputError("hardware '" + hw_.name + "': at most 32 tiers");
  if (config_.cache.capacity_bytes == 0) throw InputError("cache.capacity_bytes must be > 0");
  for (std::size_t i = 1; i + 1 < tiers.size(); ++i) {
    if (tiers[i].capacity_bytes == 0) {
      throw InputError("hardware '" + hw_.name + "': tiers[" + std::to_string(i) + "] (" + tiers[i].name +
                       "): an intermediate tier needs a capacity > 0");
    }
  }
  for (std::size_t i = 0; i < tiers.size(); ++i) {
    if (tiers[i].hit_latency_ns < 0) {
      throw InputError("hardware '" + hw_.name + "': tiers[" + std::to_string(i) + "].hit_latency must be >= 0");
    }
    if (i >= 1 && !(tiers[i].link_to_faster.bandwidth > 0)) {
      throw InputError("hardware '" + hw_.name + "': tiers[" + std::to_string(i) + "] (" + tiers[i].name +
                       "): link bandwidth must be > 0");
    }
  }
  if (hw_.miss_penalty_ns < 0) throw InputError("hardware '" + hw_.name + "': miss_penalty must be >= 0");
  if (config_.window_ns < 0) throw InputError("window must be >= 0 ns");
  if (config_.gap_ns < 0) throw InputError("gap must be >= 0 ns");
  if (hw_.contention.ns_per_mib < 0) throw InputError("contention.ns_per_mib must be >= 0");
  double share_sum = 0.0;
  for (const auto& [segment, share] : config_.segment_shares) {
    if (!(share > 0.0 && share <= 1.0)) {
      throw InputError("bandwidth.segment_shares." + segment + ": share must be in (0, 1], got " + std::to_string(share));
    }
    share_sum += share;
  }
  if (share_sum > 1.0 + 1e-9) {
    throw InputError("bandwidth.segment_shares: shares sum to " + std::to_string(share_sum) + ", more than 1");
  }
  const ReservationSpec& res = config_.reservation;
  if (res.enabled) {
    if (!(res.base_bandwidth > 0)) throw InputError("bandwidth.reservation.base_bandwidth must be > 0 when enabled");
    if (!(res.input_coefficient >= 0) || !(res.output_coefficient >= 0)) {
      throw InputError("bandwidth.reservation: coefficients must be >= 0");
    }
    if (!(res.grant_share > 0 && res.grant_share <= 1)) {
      throw InputError("bandwidth.reservation.grant_share must be in (0, 1]");
    }
  }
  if (config_.occupancy_sample_ns < 0) throw InputError("occupancy sample period must be >= 0 ns");
}

void EventEngine::build_tiers() {
  tier_count_ = hw_.tiers.size();
  const TraceMeta& meta = trace_.meta();
  pins_ = resolve_pins(config_.cache.pinned, meta, config_.cache.capacity_bytes);
  FastTierSpec fast;
  fast.capacity_bytes = config_.cache.capacity_bytes;
  fast.policy = config_.cache.eviction.impl;
  fast.policy_params = config_.cache.eviction.params;
  fast.allocator = config_.cache.allocator.impl;
  fast.allocator_params = config_.cache.allocator.params;
  fast.block_count = meta.catalog.size();
  fast.policy_capacity_bytes = config_.cache.capacity_bytes - pins_.catalog_bytes;
  if (fast.policy_capacity_bytes == 0) fast.policy_capacity_bytes = 1;  // everything pinned
  tiers_.push_back(FastTier::create(fast));
  for (std::size_t i = 1; i + 1 < tier_count_; ++i) {
    FastTierSpec mid;
    mid.capacity_bytes = hw_.tiers[i].capacity_bytes;
    mid.policy = hw_.tiers[i].policy;
    mid.policy_params = hw_.tiers[i].policy_params;
    mid.block_count = meta.catalog.size();
    tiers_.push_back(FastTier::create(mid));
  }
  if (!config_.segment_shares.empty()) {
    double sum = 0.0;
    class_weights_.push_back(0.0);
    class_segments_.push_back("");
    for (const auto& [segment, share] : config_.segment_shares) {
      class_weights_.push_back(share);
      class_segments_.push_back(segment);
      sum += share;
    }
    // Unlisted segments share what is left; a sliver when nothing is, so
    // that they still move when the listed segments are idle.
    class_weights_[0] = std::max(1.0 - sum, 1e-6);
  }
  links_.resize(tier_count_);
  for (std::size_t i = 1; i < tier_count_; ++i) {
    links_[i] = std::make_unique<Link>(hw_.tiers[i].link_to_faster, config_.window_ns, class_weights_);
  }
  build_catalog();
  PrefetcherContext pc;
  pc.meta = &meta;
  pc.capacity_bytes = config_.cache.capacity_bytes;
  pc.seed = config_.seed;
  for (const ComponentChoice& choice : config_.prefetchers) {
    prefetchers_.push_back(PrefetcherRegistry::instance().create(choice.impl, choice.params, pc));
  }
  prefetching_ = !prefetchers_.empty();
  if (config_.reservation.enabled) {
    grant_bytes_per_s_ = config_.reservation.grant_share * hw_.tiers[1].link_to_faster.bandwidth;
  }
  scheduled_generation_.assign(tier_count_, ~0ull);
  served_.assign(tier_count_, 0);
  next_use_from_trace_ = meta.has_next_use;
}

void EventEngine::build_catalog() {
  const auto& catalog = trace_.meta().catalog;
  BlockId max_id = 0;
  for (const auto& e : catalog) max_id = std::max(max_id, e.id);
  const bool dense = !catalog.empty() && max_id < 4 * catalog.size() + 1024;
  if (dense) catalog_direct_.assign(max_id + 1, kNone);
  for (std::size_t i = 0; i < catalog.size(); ++i) {
    if (dense) catalog_direct_[catalog[i].id] = static_cast<std::uint32_t>(i);
    else catalog_map_.emplace(catalog[i].id, static_cast<std::uint32_t>(i));
  }
}

std::uint32_t EventEngine::catalog_position(BlockId id) const {
  if (!catalog_direct_.empty()) return id < catalog_direct_.size() ? catalog_direct_[id] : kNone;
  auto it = catalog_map_.find(id);
  return it == catalog_map_.end() ? kNone : it->second;
}

void EventEngine::prepare() {
  bool need_next_use = false;
  for (const auto& t : tiers_) need_next_use |= t->policy().needs_next_use();
  scan_ = scan_trace(trace_, need_next_use && !next_use_from_trace_);
  const std::size_t hint = trace_.meta().catalog.size();
  pinned_.reserve(hint);
  inflight_fetch_.reserve(hint);
  if (tlb_.enabled()) synthetic_base_.reserve(hint);
  streams_.resize(scan_.streams.size());
  for (std::size_t s = 0; s < streams_.size(); ++s) streams_[s].remaining = scan_.streams[s].records;
  requests_.resize(scan_.requests.size());
  for (std::size_t r = 0; r < requests_.size(); ++r) {
    const RequestScan& q = scan_.requests[r];
    requests_[r].remaining = q.records;
    if (config_.reservation.enabled) {
      const ReservationSpec& res = config_.reservation;
      requests_[r].need_bytes_per_s = (static_cast<double>(q.input_tokens()) * res.input_coefficient +
                                       static_cast<double>(q.output_tokens()) * res.output_coefficient) *
                                      res.base_bandwidth;
    }
  }
  occupancy_.sample_ns = config_.occupancy_sample_ns;
  next_sample_ns_ = config_.occupancy_sample_ns > 0 ? 0 : kNeverNs;
  chunk_.resize(kChunkRecords);
  evicted_.reserve(64);
  completed_.reserve(64);
  window(0).start_ns = 0;
  open_window_end_ = config_.window_ns > 0 ? config_.window_ns : kNeverNs;
  // Every stream's first record issues at its own time_ns (engine time 0 = earliest record).
  for (std::uint32_t s = 0; s < streams_.size(); ++s) {
    queue_.push(scan_.streams[s].first_time_ns - scan_.earliest_time_ns, kIssue, s);
  }
}

void EventEngine::new_block(BlockIndex b, BlockId id, ByteCount bytes) {
  const bool pinned = !pins_.ids.empty() && pins_.ids.contains(id);
  pinned_.push_back(pinned ? 1 : 0);
  if (pinned) tiers_[0]->pin(b);
  inflight_fetch_.push_back(kNone);
  block_ids_.push_back(id);
  std::uint8_t kind = kKindOther;
  std::uint32_t klass = 0;
  if (const std::uint32_t pos = catalog_position(id); pos != kNone) {
    const BlockCatalogEntry& e = trace_.meta().catalog[pos];
    if (e.kind == "kv_page") kind = kKindKv;
    else if (!(e.kind.empty() || e.kind == "io" || e.kind == "activation")) kind = kKindWeights;
    if (!class_segments_.empty() && !e.segment.empty()) {
      for (std::uint32_t k = 1; k < class_segments_.size(); ++k) {
        if (class_segments_[k] == e.segment) klass = k;
      }
    }
  }
  kind_.push_back(kind);
  if (!class_segments_.empty()) link_class_.push_back(klass);
  charged_.push_back(0);
  flags_.push_back(0);
  if (prefetching_) last_access_.push_back(kNeverNs);
  if (tlb_.enabled()) {
    synthetic_base_.push_back(synthetic_next_);
    synthetic_next_ += (bytes + kSyntheticAlign - 1) / kSyntheticAlign * kSyntheticAlign;
  }
}

BlockIndex EventEngine::number_block(BlockId id, ByteCount bytes) {
  bool added;
  const BlockIndex b = blocks_.index(id, &added);
  if (added) new_block(b, id, bytes);
  return b;
}

bool EventEngine::read_chunk() {
  const std::size_t n = trace_.read(chunk_);
  for (std::size_t k = 0; k < n; ++k) {
    const AccessRecord& r = chunk_[k];
    if (r.stream_id != last_stream_id_ || last_stream_ == kNone) {
      last_stream_ = scan_.stream_index.find(r.stream_id);
      if (last_stream_ == kNone) {
        throw Error("trace '" + trace_.meta().source + "' changed between passes (record " +
                    std::to_string(next_record_) + ")");
      }
      last_stream_id_ = r.stream_id;
    }
    bool added;
    const BlockIndex b = blocks_.index(r.block_id, &added);
    if (added) new_block(b, r.block_id, r.bytes);
    else tiers_[0]->prefetch(b);  // its state is read when it issues, a few thousand records on
    AccessTag tag;
    if (r.request_id != kNoRequest) {
      if (r.request_id != last_request_id_) {
        last_request_ = scan_.request_index.find(r.request_id);
        if (last_request_ == kNone) {
          throw Error("trace '" + trace_.meta().source + "' changed between passes (record " +
                      std::to_string(next_record_) + ")");
        }
        last_request_id_ = r.request_id;
      }
      tag = AccessTag{last_request_, r.token_index, r.phase};
    }
    streams_[last_stream_].queue.push_back(Pending{r.time_ns, r.compute_ns, r.bytes, r.address, r.offset,
                                                   r.next_use_index, next_record_++, b, r.operator_id, tag, r.op});
  }
  return n > 0;
}

void EventEngine::ensure_head(std::uint32_t s) {
  while (streams_[s].queue.empty()) {
    if (!read_chunk()) {
      throw Error("trace '" + trace_.meta().source + "' ended early on the replay pass (stream " +
                  std::to_string(scan_.streams[s].stream_id) + ")");
    }
  }
}

void EventEngine::grow_windows(std::uint32_t w) {
  check_window_index(w, config_.window_ns);
  const std::size_t old = windows_.size();
  windows_.resize(std::size_t(w) + 1);
  for (std::size_t k = old; k < windows_.size(); ++k) {
    windows_[k].start_ns = static_cast<Nanoseconds>(k) * config_.window_ns;
  }
}

}  // namespace

void check_window_index(std::size_t index, Nanoseconds window_ns) {
  if (index >= kMaxTimeSeriesWindows) {
    throw InputError("outputs.window: windows of " + std::to_string(window_ns) + " ns reach window " +
                     std::to_string(index) + " (simulated time " +
                     std::to_string(static_cast<double>(index) * static_cast<double>(window_ns) / 1e9) +
                     " s), more than the " + std::to_string(kMaxTimeSeriesWindows) +
                     " a run may have; choose a larger window");
  }
}

namespace {

void EventEngine::roll_windows(Nanoseconds now) {
  while (now >= open_window_end_) {
    window(open_window_).occupancy_bytes = tiers_[0]->reserved_bytes();
    ++open_window_;
    open_window_end_ += config_.window_ns;
  }
  if (now >= next_sample_ns_) sample_occupancy(now);
}

void EventEngine::sample_occupancy(Nanoseconds now) {
  while (next_sample_ns_ <= now) {
    if (occupancy_.samples.size() >= kMaxTimeSeriesWindows) {  // a run far longer than its period: stop sampling
      next_sample_ns_ = kNeverNs;
      return;
    }
    occupancy_.samples.push_back(OccupancySample{next_sample_ns_, occ_[kKindWeights], occ_[kKindKv], occ_[kKindOther]});
    next_sample_ns_ += config_.occupancy_sample_ns;
  }
}

void EventEngine::charge(BlockIndex b) {
  const ByteCount bytes = tiers_[0]->slot(b).reserved_bytes;
  charged_[b] = bytes;
  flags_[b] |= kEverHeld;
  occ_[kind_[b]] += bytes;
  note_peak();
}

void EventEngine::note_peak() {
  occupancy_.peak_weights_bytes = std::max(occupancy_.peak_weights_bytes, occ_[kKindWeights]);
  occupancy_.peak_kv_bytes = std::max(occupancy_.peak_kv_bytes, occ_[kKindKv]);
  occupancy_.peak_other_bytes = std::max(occupancy_.peak_other_bytes, occ_[kKindOther]);
  const ByteCount total = occ_[0] + occ_[1] + occ_[2];
  if (total > occupancy_.peak.total_bytes()) {
    occupancy_.peak = OccupancySample{now_, occ_[kKindWeights], occ_[kKindKv], occ_[kKindOther]};
  }
}

// `b` left the fast tier (FastTier already freed it): occupancy, an unused
// prefetch, a write-back of a written block.
void EventEngine::freed(BlockIndex b, AccessCounters& c) {
  occ_[kind_[b]] -= charged_[b];
  std::uint8_t& f = flags_[b];
  if (f & kPrefetched) ++c.prefetch_unused;
  if (f & kDirty) c.bytes_written_back += charged_[b];
  f &= static_cast<std::uint8_t>(~(kPrefetched | kDirty | kHeld));
  charged_[b] = 0;
}

std::uint32_t EventEngine::new_waiter(std::uint32_t s, Nanoseconds issue, Nanoseconds ready, std::uint32_t w,
                                      Nanoseconds think, const AccessTag& tag) {
  std::uint32_t id;
  if (free_waiter_ != kNone) {
    id = free_waiter_;
    free_waiter_ = waiters_[id].next;
  } else {
    id = static_cast<std::uint32_t>(waiters_.size());
    waiters_.emplace_back();
  }
  waiters_[id] = Waiter{kNone, s, w, issue, ready, think, tag};
  return id;
}

void EventEngine::add_waiter(Fetch& f, std::uint32_t waiter) {
  if (f.waiters_tail == kNone) f.waiters = waiter;
  else waiters_[f.waiters_tail].next = waiter;
  f.waiters_tail = waiter;
}

std::uint32_t EventEngine::new_fetch() {
  std::uint32_t id;
  if (free_fetch_ != kNone) {
    id = free_fetch_;
    free_fetch_ = fetches_[id].next_free;
  } else {
    id = static_cast<std::uint32_t>(fetches_.size());
    fetches_.emplace_back();
  }
  fetches_[id] = Fetch{};
  return id;
}

void EventEngine::issue(std::uint32_t s) {
  Stream& st = streams_[s];
  ensure_head(s);
  if (st.queue.front().tag.request != kNone && !admitted_to_issue(s, st.queue.front())) return;  // parked
  const Pending p = st.queue.front();
  st.queue.pop_front();
  --st.remaining;
  access(s, p);
  if (config_.issue == IssueMode::timestamp && st.remaining > 0) {
    ensure_head(s);
    // A stream held back by admission may be behind its recorded times.
    queue_.push(std::max(st.queue.front().time_ns - scan_.earliest_time_ns, now_), kIssue, s);
    tiers_[0]->prefetch(st.queue.front().block);
  }
}

// Stamps the request's arrival and, with bandwidth reservation, parks the
// stream until its request is granted (engine.h, ReservationSpec).
bool EventEngine::admitted_to_issue(std::uint32_t s, const Pending& head) {
  const std::uint32_t r = head.tag.request;
  RequestState& q = requests_[r];
  if (q.arrival_ns < 0) {
    q.arrival_ns = now_;
    q.admitted_ns = now_;
  }
  if (!config_.reservation.enabled || q.status == RequestState::admitted) return true;
  if (q.status == RequestState::fresh) {
    if (admission_queue_.empty() && fits(r)) {
      admit(r);
      return true;
    }
    q.status = RequestState::queued;
    admission_queue_.push_back(r);
  }
  q.parked.push_back(s);
  return false;
}

void EventEngine::admit(std::uint32_t r) {
  RequestState& q = requests_[r];
  q.status = RequestState::admitted;
  q.admitted_ns = now_;
  reserved_bytes_per_s_ += q.need_bytes_per_s;
  ++admitted_active_;
  for (std::uint32_t s : q.parked) queue_.push(now_, kIssue, s);
  q.parked.clear();
  q.parked.shrink_to_fit();
}

void EventEngine::access(std::uint32_t s, const Pending& p) {
  const Pending& r = p;
  const BlockIndex b = p.block;
  PolicyAccess a;
  a.now_ns = decision_time(r.time_ns);
  a.block = b;
  a.bytes = r.bytes;
  a.access_index = p.index;
  a.next_use_index = next_use_from_trace_ ? r.next_use_index
                     : scan_.next_use.empty() ? kNeverAccessedAgain
                                              : scan_.next_use[p.index];
  a.op = r.op;

  const std::uint32_t w = window_of(now_);
  AccessCounters& c = window(w).counters;
  ++c.accesses;
  c.bytes_accessed += r.bytes;

  Nanoseconds pre = 0;
  if (tlb_.enabled()) {
    pre += tlb_.access(r.address != kNoAddress ? r.address : synthetic_base_[b] + r.offset);
  }
  if (hw_.contention.ns_per_mib > 0) {
    const ByteCount reserved = tiers_[0]->reserved_bytes();
    const ByteCount excess = reserved > hw_.contention.baseline_bytes ? reserved - hw_.contention.baseline_bytes : 0;
    pre += std::llround(hw_.contention.ns_per_mib * static_cast<double>(excess) / static_cast<double>(kMiB));
  }
  if (l2_.enabled() && r.address != kNoAddress) pre += l2_.access(r.address, r.bytes, pinned_[b] != 0);
  const Nanoseconds think =
      config_.issue == IssueMode::closed ? (r.compute_ns > 0 ? r.compute_ns : config_.gap_ns) : 0;

  FastTier& fast = *tiers_[0];
  BlockState state = fast.state(b);
  AccessOutcome outcome = AccessOutcome::miss;
  if (state == BlockState::resident || state == BlockState::in_use) {
    // A KV page held for its request cannot be dropped: a size change reads it as a hit.
    if (fast.block_bytes(b) == r.bytes || state == BlockState::in_use) {
      fast.on_access_hit(a);
      ++c.hits;
      c.bytes_hit += r.bytes;
      if (r.op == AccessOp::write) flags_[b] |= kDirty;
      if (prefetching_ && (flags_[b] & kPrefetched)) {
        ++c.prefetch_used_timely;
        flags_[b] &= static_cast<std::uint8_t>(~kPrefetched);
      }
      outcome = AccessOutcome::hit;
      finish(s, now_, now_ + pre + hw_.tiers[0].hit_latency_ns, w, think, p.tag, false);
    } else {
      fast.invalidate(b);  // size changed: the old copy is dropped (not an eviction)
      freed(b, c);
      state = BlockState::absent;
    }
  } else if (state == BlockState::in_flight) {
    ++c.delayed_hits;
    if (prefetching_ && (flags_[b] & kPrefetched)) {
      ++c.prefetch_used_late;
      flags_[b] &= static_cast<std::uint8_t>(~kPrefetched);
    }
    outcome = AccessOutcome::delayed_hit;
    add_waiter(fetches_[inflight_fetch_[b]], new_waiter(s, now_, now_ + pre, w, think, p.tag));
  }
  if (state == BlockState::absent) {
    if (r.op == AccessOp::write && kind_[b] == kKindKv && !(flags_[b] & kEverHeld)) {
      write_allocate(s, a, pre, w, think, p.tag);
    } else {
      miss(s, a, pre, w, think, p.tag);
    }
    flags_[b] |= kEverHeld;  // hits and delayed hits were charged (or pinned) already: set there
  }
  if (prefetching_) notify_prefetchers(s, p, a, outcome);
}

FetchAdmission EventEngine::admit_fast(const PolicyAccess& a, AccessCounters& c) {
  FastTier& fast = *tiers_[0];
  const ByteCount evicted_before = fast.counters().bytes_evicted;
  const FetchAdmission admission = fast.begin_fetch(a, &evicted_);
  c.evictions += evicted_.size();
  c.bytes_evicted += fast.counters().bytes_evicted - evicted_before;
  for (BlockIndex victim : evicted_) freed(victim, c);
  if (admission == FetchAdmission::admitted) charge(a.block);
  return admission;
}

void EventEngine::miss(std::uint32_t s, const PolicyAccess& a, Nanoseconds pre, std::uint32_t w, Nanoseconds think,
                       const AccessTag& tag) {
  AccessCounters& c = windows_[w].counters;
  ++c.misses;
  c.bytes_fetched += a.bytes;
  const FetchAdmission admission = admit_fast(a, c);
  if (admission == FetchAdmission::bypass) ++c.bypasses;
  start_fetch(a, admission, now_ + pre, new_waiter(s, now_, now_ + pre, w, think, tag));
}

// A KV append to a page never seen before: space is allocated in place and
// the write needs no transfer. When the tier cannot admit it, that is the
// out-of-memory point (metrics.h); the append is written through to the
// backing tier, which the engine times as a transfer of the page over the
// links (a D2H copy costed like the H2D one).
void EventEngine::write_allocate(std::uint32_t s, const PolicyAccess& a, Nanoseconds pre, std::uint32_t w,
                                 Nanoseconds think, const AccessTag& tag) {
  AccessCounters& c = windows_[w].counters;
  ++c.misses;
  ++c.write_allocations;
  const BlockIndex b = a.block;
  FastTier& fast = *tiers_[0];
  const FetchAdmission admission = admit_fast(a, c);
  if (admission == FetchAdmission::admitted) {
    fast.on_arrival(a);
    flags_[b] |= kDirty;
    if (tag.request != kNone) {
      requests_[tag.request].kv_pages.push_back(b);
      if (config_.kv_resident) {
        fast.acquire(b);
        flags_[b] |= kHeld;
      }
    }
    finish(s, now_, now_ + pre + hw_.tiers[0].hit_latency_ns, w, think, tag, true);
    return;
  }
  ++c.bypasses;
  c.bytes_written_back += a.bytes;
  if (!oom_.reached) {
    oom_.reached = true;
    oom_.time_ns = now_;
    oom_.request_id = tag.request != kNone ? scan_.requests[tag.request].request_id : kNoRequest;
    oom_.token_index = tag.token;
    oom_.block_id = block_ids_[b];
    oom_.kv_bytes = occ_[kKindKv];
    oom_.reserved_bytes = fast.reserved_bytes();
    oom_.pinned_bytes = fast.pinned_bytes();
  }
  start_fetch(a, admission, now_ + pre, new_waiter(s, now_, now_ + pre, w, think, tag));
}

// The copy of a.block toward tiers[0] (store-and-forward through the
// intermediate tiers, engine_detail.h); `waiter` (or kNone for a prefetch)
// waits for it.
void EventEngine::start_fetch(const PolicyAccess& a, FetchAdmission admission, Nanoseconds ready_ns,
                              std::uint32_t waiter) {
  const BlockIndex b = a.block;
  std::uint32_t src = static_cast<std::uint32_t>(tier_count_ - 1);
  std::uint32_t fill = 0;
  for (std::uint32_t i = 1; i + 1 < tier_count_; ++i) {
    FastTier& t = *tiers_[i];
    BlockState st = t.state(b);
    if ((st == BlockState::resident || st == BlockState::in_use) && t.block_bytes(b) == a.bytes) {
      t.on_access_hit(a);
      src = i;
      break;
    }
    if (st == BlockState::resident) {  // size changed
      t.invalidate(b);
      st = BlockState::absent;
    }
    if (st == BlockState::absent && admission == FetchAdmission::admitted &&
        t.begin_fetch(a, &evicted_) == FetchAdmission::admitted) {
      fill |= 1u << i;
    }
  }
  ++served_[src];

  const std::uint32_t f = new_fetch();
  Fetch& fetch = fetches_[f];
  fetch.access = a;
  fetch.at_tier = src;
  fetch.fill_mask = fill;
  fetch.admitted = admission == FetchAdmission::admitted;
  if (waiter != kNone) add_waiter(fetch, waiter);
  if (fetch.admitted) inflight_fetch_[b] = f;
  if (src + 1 < tier_count_) {
    tiers_[src]->acquire(b);
    fetch.holding = true;
  }
  const Nanoseconds start = ready_ns + hw_.miss_penalty_ns + hw_.tiers[src].hit_latency_ns;
  if (start == now_) start_hop(f);
  else queue_.push(start, kFetchStart, f);
}

void EventEngine::notify_prefetchers(std::uint32_t s, const Pending& p, const PolicyAccess& a, AccessOutcome outcome) {
  last_access_[p.block] = a.now_ns;
  decision_now_ = a.now_ns;
  access_index_now_ = p.index;
  PrefetchAccess pa;
  pa.now_ns = a.now_ns;
  pa.block_id = block_ids_[p.block];
  pa.bytes = p.bytes;
  pa.access_index = p.index;
  pa.stream_id = scan_.streams[s].stream_id;
  pa.request_id = p.tag.request != kNone ? scan_.requests[p.tag.request].request_id : kNoRequest;
  pa.token_index = p.tag.token;
  pa.phase = p.tag.phase;
  pa.operator_id = p.operator_id;
  pa.outcome = outcome;
  for (auto& prefetcher : prefetchers_) prefetcher->on_access(pa, view_, actions_);
}

bool EventEngine::prefetch_block(BlockId id) {
  const std::uint32_t pos = catalog_position(id);
  if (pos == kNone) {
    throw InputError("prefetch: block " + std::to_string(id) + " is not in the catalog of trace '" +
                     trace_.meta().source + "' (its size is unknown)");
  }
  const ByteCount bytes = trace_.meta().catalog[pos].bytes;
  if (bytes == 0) return false;
  const BlockIndex b = number_block(id, bytes);
  FastTier& fast = *tiers_[0];
  if (fast.state(b) != BlockState::absent || pinned_[b]) return false;
  PolicyAccess a;
  a.now_ns = decision_now_;
  a.block = b;
  a.bytes = bytes;
  a.access_index = access_index_now_;
  a.next_use_index = kNeverAccessedAgain;  // a prefetch's next use is not known (only the trace has it)
  a.op = AccessOp::read;
  a.is_prefetch = true;
  AccessCounters& c = window(window_of(now_)).counters;
  if (admit_fast(a, c) != FetchAdmission::admitted) return false;
  ++c.prefetches;
  c.bytes_prefetched += bytes;
  c.bytes_fetched += bytes;
  flags_[b] |= kPrefetched;
  start_fetch(a, FetchAdmission::admitted, now_, kNone);
  return true;
}

bool EventEngine::evict_block(BlockId id) {
  const BlockIndex b = blocks_.find(id);
  if (b == BlockNumbering::kNone) return false;
  FastTier& fast = *tiers_[0];
  if (fast.state(b) != BlockState::resident || fast.is_pinned(b)) return false;
  AccessCounters& c = window(window_of(now_)).counters;
  const ByteCount evicted_before = fast.counters().bytes_evicted;
  fast.evict_explicit(b);
  ++c.evictions;
  c.bytes_evicted += fast.counters().bytes_evicted - evicted_before;
  freed(b, c);
  return true;
}

BlockState EventEngine::View::state(BlockId block) const {
  const BlockIndex b = e_.blocks_.find(block);
  return b == BlockNumbering::kNone ? BlockState::absent : e_.tiers_[0]->state(b);
}

Nanoseconds EventEngine::View::last_access_ns(BlockId block) const {
  const BlockIndex b = e_.blocks_.find(block);
  return b == BlockNumbering::kNone || b >= e_.last_access_.size() ? kNeverNs : e_.last_access_[b];
}

void EventEngine::View::for_each_resident(const std::function<void(BlockId)>& visit) const {
  const FastTier& fast = *e_.tiers_[0];
  for (BlockIndex b = 0; b < e_.block_ids_.size(); ++b) {
    if (fast.state(b) == BlockState::resident && !fast.is_pinned(b)) visit(e_.block_ids_[b]);
  }
}

bool EventEngine::View::in_next_tier(BlockId block) const {
  if (e_.tier_count_ <= 2) return true;  // the next tier is the backing tier
  const BlockIndex b = e_.blocks_.find(block);
  if (b == BlockNumbering::kNone) return false;
  const BlockState st = e_.tiers_[1]->state(b);
  return st == BlockState::resident || st == BlockState::in_use;
}

void EventEngine::start_hop(std::uint32_t f) {
  const std::uint32_t from = fetches_[f].at_tier;
  Link& link = *links_[from];
  const std::uint32_t klass = link_class_.empty() ? 0 : link_class_[fetches_[f].access.block];
  const Nanoseconds end = link.submit(now_, fetches_[f].access.bytes, f, klass);
  if (!link.fair()) queue_.push(end, kHopDone, f);
  else schedule_link_check(from);
}

void EventEngine::schedule_link_check(std::uint32_t l) {
  Link& link = *links_[l];
  const Nanoseconds t = link.next_event_ns();
  if (t == kNeverNs || scheduled_generation_[l] == link.generation()) return;
  scheduled_generation_[l] = link.generation();
  queue_.push(std::max(t, now_), kLinkCheck, l, link.generation());
}

void EventEngine::link_check(std::uint32_t l, std::uint64_t generation) {
  Link& link = *links_[l];
  if (generation != link.generation()) return;  // superseded
  completed_.clear();
  link.advance(now_, &completed_);
  // hop_done submits on link l − 1 only, so completed_ is not touched meanwhile.
  for (std::uint64_t tag : completed_) hop_done(static_cast<std::uint32_t>(tag));
  schedule_link_check(l);
}

void EventEngine::hop_done(std::uint32_t f) {
  Fetch& fetch = fetches_[f];
  const BlockIndex b = fetch.access.block;
  if (fetch.holding) {
    tiers_[fetch.at_tier]->release(b);
    fetch.holding = false;
  }
  const std::uint32_t to = fetch.at_tier - 1;
  if (to == 0) {
    arrive_fast_tier(f);
    return;
  }
  if (fetch.fill_mask & (1u << to)) {
    PolicyAccess a = fetch.access;
    a.now_ns = decision_time(fetch.access.now_ns);
    tiers_[to]->on_arrival(a);
    tiers_[to]->acquire(b);
    fetch.holding = true;
  }
  fetch.at_tier = to;
  start_hop(f);
}

void EventEngine::arrive_fast_tier(std::uint32_t f) {
  Fetch& fetch = fetches_[f];
  if (fetch.admitted) {
    PolicyAccess a = fetch.access;
    a.now_ns = decision_time(fetch.access.now_ns);
    tiers_[0]->on_arrival(a);
    inflight_fetch_[a.block] = kNone;
    if (prefetching_ && a.is_prefetch) last_access_[a.block] = a.now_ns;
  }
  const Nanoseconds hit = hw_.tiers[0].hit_latency_ns;
  for (std::uint32_t id = fetch.waiters; id != kNone;) {
    const Waiter wt = waiters_[id];
    finish(wt.stream, wt.issue_ns, std::max(now_, wt.ready_ns) + hit, wt.window, wt.think_ns, wt.tag, true);
    waiters_[id].next = free_waiter_;
    free_waiter_ = id;
    id = wt.next;
  }
  fetches_[f].next_free = free_fetch_;
  free_fetch_ = f;
}

void EventEngine::finish(std::uint32_t s, Nanoseconds issue_ns, Nanoseconds done_ns, std::uint32_t w,
                         Nanoseconds think, const AccessTag& tag, bool stalled) {
  const Nanoseconds latency = done_ns - issue_ns;
  latency_.add(latency);
  // Stall is the whole latency of an access that found its data absent
  // (the GPU replay's definition, hw/replay/replay.h), 0 for a hit.
  if (stalled) windows_[w].counters.stall_ns += latency;
  if (done_ns > last_done_) last_done_ = done_ns;
  if (config_.issue == IssueMode::closed && streams_[s].remaining > 0) {
    queue_.push(done_ns + think, kIssue, s);
    if (!streams_[s].queue.empty()) tiers_[0]->prefetch(streams_[s].queue.front().block);
  }
  if (tag.request != kNone) request_access_done(tag, done_ns);
}

// Token completions of a request (metrics.h, "Serving").
void EventEngine::request_access_done(const AccessTag& tag, Nanoseconds done_ns) {
  RequestState& q = requests_[tag.request];
  q.end_ns = std::max(q.end_ns, done_ns);
  if (tag.phase == Phase::prefill) {
    q.prefill_done_ns = q.has_prefill ? std::max(q.prefill_done_ns, done_ns) : done_ns;
    q.has_prefill = true;
  } else if (tag.token >= 0) {
    if (q.min_token < 0 || tag.token < q.min_token) {
      q.min_token = tag.token;
      q.min_token_done_ns = done_ns;
    } else if (tag.token == q.min_token) {
      q.min_token_done_ns = std::max(q.min_token_done_ns, done_ns);
    }
    if (tag.token > q.max_token) {
      q.max_token = tag.token;
      q.max_token_done_ns = done_ns;
      ++q.decode_tokens;
    } else if (tag.token == q.max_token) {
      q.max_token_done_ns = std::max(q.max_token_done_ns, done_ns);
    }
  }
  if (--q.remaining == 0) end_request(tag.request);
}

// The request's last access completed: its KV pages are freed (not written
// back: the request is over) and its reservation returned.
void EventEngine::end_request(std::uint32_t r) {
  RequestState& q = requests_[r];
  FastTier& fast = *tiers_[0];
  AccessCounters& c = window(window_of(now_)).counters;
  for (BlockIndex b : q.kv_pages) {
    if (flags_[b] & kHeld) {
      fast.release(b);
      flags_[b] &= static_cast<std::uint8_t>(~kHeld);
    }
    if (fast.state(b) == BlockState::resident && !fast.is_pinned(b)) {
      flags_[b] &= static_cast<std::uint8_t>(~kDirty);
      fast.invalidate(b);
      freed(b, c);
    }
  }
  q.kv_pages.clear();
  q.kv_pages.shrink_to_fit();
  if (q.status == RequestState::admitted && config_.reservation.enabled) {
    reserved_bytes_per_s_ -= q.need_bytes_per_s;
    if (--admitted_active_ == 0) reserved_bytes_per_s_ = 0.0;
    while (!admission_queue_.empty()) {
      const std::uint32_t next = admission_queue_.front();
      if (!fits(next)) break;
      admission_queue_.pop_front();
      admit(next);
    }
  }
}

EngineResult EventEngine::run(EngineDetail* detail) {
  prepare();
  while (!queue_.empty()) {
    const Event e = queue_.pop();
    ++events_;
    now_ = e.time_ns;
    roll_windows(now_);
    switch (e.kind) {
      case kIssue: issue(e.a); break;
      case kFetchStart: start_hop(e.a); break;
      case kHopDone: hop_done(e.a); break;
      case kLinkCheck: link_check(e.a, e.b); break;
      default: throw Error("event engine: unknown event kind " + std::to_string(e.kind));
    }
  }

  EngineResult result;
  result.decision_clock = config_.decision_clock;
  result.events_processed = events_;
  RunMetrics& m = result.metrics;
  m.simulated_ns = last_done_;
  if (config_.occupancy_sample_ns > 0) {
    if (next_sample_ns_ <= last_done_) sample_occupancy(last_done_);
    // The state at the end (requests' KV freed), unless a sample fell on it.
    if (occupancy_.samples.empty() || occupancy_.samples.back().time_ns < last_done_) {
      occupancy_.samples.push_back(OccupancySample{last_done_, occ_[kKindWeights], occ_[kKindKv], occ_[kKindOther]});
    }
  }
  m.occupancy = std::move(occupancy_);
  m.out_of_memory = oom_;
  if (prefetching_) {  // prefetched blocks never accessed before the end
    AccessCounters& c = window(window_of(last_done_)).counters;
    for (std::uint8_t f : flags_) c.prefetch_unused += (f & kPrefetched) ? 1 : 0;
  }
  for (std::size_t r = 0; r < requests_.size(); ++r) {
    const RequestState& q = requests_[r];
    RequestMetrics rm;
    rm.request_id = scan_.requests[r].request_id;
    rm.arrival_ns = q.arrival_ns < 0 ? 0 : q.arrival_ns;
    rm.admitted_ns = q.admitted_ns;
    rm.end_ns = q.end_ns;
    rm.input_tokens = scan_.requests[r].input_tokens();
    rm.accesses = scan_.requests[r].records;  // every record of the request was issued by now
    rm.output_tokens = (q.has_prefill ? 1 : 0) + q.decode_tokens;
    rm.first_token_ns = q.has_prefill ? q.prefill_done_ns : q.decode_tokens ? q.min_token_done_ns : q.end_ns;
    rm.last_token_ns = q.decode_tokens ? q.max_token_done_ns : rm.first_token_ns;
    m.serving.requests.push_back(rm);
  }
  m.serving.summarise(last_done_);
  // Windows cover [0, simulated_ns]; those after the last event end with
  // the final occupancy.
  const std::uint32_t last_window = window_of(last_done_);
  window(last_window);
  for (std::size_t k = open_window_; k < windows_.size(); ++k) {
    windows_[k].occupancy_bytes = tiers_[0]->reserved_bytes();
  }
  const Link& into_fast = *links_[1];
  for (std::size_t k = 0; k < windows_.size(); ++k) windows_[k].link_busy_ns = into_fast.busy().window(k);
  for (const MetricsWindow& win : windows_) m.total.merge(win.counters);
  m.window_ns = config_.window_ns > 0 ? config_.window_ns : last_done_;
  m.windows = std::move(windows_);
  m.latency = std::move(latency_);
  const FastTier& fast = *tiers_[0];
  result.pinned_bytes = fast.pinned_bytes();
  result.slot_reserved_peak_bytes = fast.peak_reserved_bytes();
  result.fragmentation_evictions = fast.counters().fragmentation_evictions;

  if (detail) {
    detail->l2 = l2_.stats();
    detail->tlb = TlbStats{tlb_.hits(), tlb_.misses()};
    detail->links.clear();
    for (std::size_t i = 1; i < tier_count_; ++i) {
      detail->links.push_back(LinkStats{hw_.tiers[i].name, hw_.tiers[i - 1].name, links_[i]->transfers(),
                                        links_[i]->bytes(), links_[i]->busy().total_ns()});
    }
    detail->tiers.clear();
    for (std::size_t i = 0; i < tier_count_; ++i) {
      TierStats t;
      t.name = hw_.tiers[i].name;
      t.served = served_[i];
      if (i < tiers_.size()) {
        t.evictions = tiers_[i]->counters().evictions;
        t.bytes_evicted = tiers_[i]->counters().bytes_evicted;
        t.bypasses = tiers_[i]->counters().bypasses;
        t.peak_reserved_bytes = tiers_[i]->peak_reserved_bytes();
      }
      detail->tiers.push_back(t);
    }
    detail->prefetchers.clear();
    for (const auto& p : prefetchers_) {
      PrefetcherReport report;
      report.name = std::string(p->name());
      report.reported = report_prefetcher_stats(*p, report.stats);
      detail->prefetchers.push_back(std::move(report));
    }
  }
  return result;
}

}  // namespace

EngineResult run_engine(ITraceSource& trace, const EngineConfig& config, EngineDetail* detail) {
  EventEngine engine(trace, config);
  return engine.run(detail);
}

EngineResult run_engine(ITraceSource& trace, const EngineConfig& config) { return run_engine(trace, config, nullptr); }

}  // namespace flashsim
