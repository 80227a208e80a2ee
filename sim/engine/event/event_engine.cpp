// run_engine: the discrete-event engine. The model is stated in
// sim/engine/event/engine_detail.h; this file is its event loop.
#include <algorithm>
#include <cmath>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "sim/core/saturating.h"
#include "sim/cache/tier_session.h"
#include "sim/core/hash_map.h"
#include "sim/cache/fast_tier.h"
#include "sim/core/errors.h"
#include "sim/engine/event/engine_detail.h"
#include "sim/engine/event/engine_observer.h"
#include "sim/engine/event/event_queue.h"
#include "sim/engine/event/l2_model.h"
#include "sim/engine/event/link.h"
#include "sim/engine/event/ring_queue.h"
#include "sim/engine/event/tlb.h"
#include "sim/engine/event/trace_scan.h"
#include "sim/prefetch/i_prefetcher.h"

namespace flashsim {
namespace {

constexpr std::uint32_t kNone = 0xFFFFFFFFu;
constexpr std::size_t kChunkRecords = 4096;
constexpr std::size_t kPrefetchAhead = 8;  // records of a stream whose state is loaded before they issue
constexpr std::size_t kNeighboursAhead = 4;  // records whose policy neighbours are loaded (their own state is by then)
constexpr std::size_t kNumberAhead = 48;   // records whose id lookup is loaded before they are numbered
constexpr std::size_t kMaxTiers = 32;      // fill masks are 32-bit
constexpr ByteCount kSyntheticAlign = 256;  // synthetic TLB layout (engine_detail.h)

enum EventKind : std::uint32_t {
  kIssue = 0,       // a = stream: issue its next record
  kFetchStart = 1,  // a = fetch: the copy leaves its source tier
  kHopDone = 2,     // a = fetch: a fifo link delivered the block one tier up
  kLinkCheck = 3,   // a = link (tier index), b = generation: a fair link's schedule changes
};

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
  std::uint64_t record = 0;  // position in the trace (for an observer)
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
};

struct Fetch {
  PolicyAccess access;         // the access that missed (now_ns = its decision time)
  std::uint32_t waiters = kNone, waiters_tail = kNone;
  std::uint32_t at_tier = 0;   // tier the block is at (the next hop leaves it)
  std::uint32_t fill_mask = 0; // intermediate tiers admitting the block
  bool admitted = false;       // tiers[0] admitted it (else bypass)
  bool holding = false;        // holds an acquire() on tiers[at_tier]
  std::uint32_t next_free = kNone;
  Nanoseconds hop_start_ns = 0;  // the current hop's start (for an observer)
};


class EventEngine {
 public:
  EventEngine(ITraceSource& trace, const EngineConfig& config, IEngineObserver* observer)
      : trace_(trace), config_(config), hw_(config.hardware), observer_(observer), tlb_(hw_.tlb), l2_(hw_.l2) {
    validate();
    build_tiers();
  }

  EngineResult run(EngineDetail* detail);

 private:
  // What prefetchers may do (sim/prefetch/i_prefetcher.h); they see the session's view.
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
  void prepare();
  void grow_blocks(ByteCount first_bytes);
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
  void start_fetch(const PolicyAccess& a, FetchAdmission admission, Nanoseconds ready_ns, std::uint32_t waiter);
  void note_peak();
  OccupancySample occupancy_now(Nanoseconds t) const {
    return OccupancySample{t, session_->occupancy_bytes(BlockKind::weights),
                           session_->occupancy_bytes(BlockKind::kv_page), session_->occupancy_bytes(BlockKind::other)};
  }
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
              const AccessTag& tag, bool stalled, std::uint64_t record);
  // Tells the observer what the session's last call made leave, and the occupancy.
  void observe_departures(DepartureCause cause);
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
  IEngineObserver* observer_ = nullptr;
  std::uint64_t current_record_ = 0;  // the access being decided (Waiter::record)
  std::size_t tier_count_ = 0;
  std::unique_ptr<TierSession> session_;          // the access protocol over tiers[0]
  std::vector<std::unique_ptr<FastTier>> inner_;  // intermediate tiers [1, tier_count − 1)
  std::vector<FastTier*> tiers_;                  // [0, tier_count − 1); the backing tier has none
  std::vector<std::unique_ptr<Link>> links_;      // links_[i] = tiers[i].link_to_faster, i >= 1
  std::vector<std::uint64_t> scheduled_generation_;
  Tlb tlb_;
  L2Model l2_;
  bool next_use_from_trace_ = false;

  TraceScan scan_;
  std::optional<SummaryCheck> summary_check_;  // set when scan_ is the trace's summary (one pass)
  std::vector<std::uint64_t> synthetic_base_;  // per BlockIndex (TLB only)
  std::uint64_t synthetic_next_ = 0;
  // The fetch into tiers[0] of each block in flight: a few entries (one per
  // outstanding fetch), so that an access touches no per-block table of the
  // engine's (a per-block vector was one more cache line per access at 1 M blocks).
  HashMap<BlockIndex, std::uint32_t> inflight_fetch_;
  BlockIndex blocks_known_ = 0;  ///< blocks the per-block vectors below cover (grow_blocks)
  std::vector<Stream> streams_;
  std::vector<AccessRecord> chunk_;  ///< read into when the source lends none
  std::size_t chunk_records_ = 0;
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

  std::vector<std::uint32_t> link_class_;         // per BlockIndex: segment class (segment shares only)
  std::vector<double> class_weights_;             // [0] = unlisted segments
  std::vector<std::string> class_segments_;
  OccupancyMetrics occupancy_;
  Nanoseconds next_sample_ns_ = kNeverNs;
  OutOfMemoryPoint oom_;

  // Prefetch.
  std::vector<std::unique_ptr<IPrefetcher>> prefetchers_;
  bool prefetching_ = false;
  Nanoseconds decision_now_ = 0;                  // of the access being handed to prefetchers
  std::uint64_t access_index_now_ = 0;
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
  if (!config_.segment_shares.empty()) {
    // A share for a segment no block belongs to would change nothing: refused, not ignored.
    std::set<std::string> segments;
    for (const BlockCatalogEntry& e : trace_.meta().catalog) {
      if (!e.segment.empty()) segments.insert(e.segment);
    }
    for (const auto& [segment, share] : config_.segment_shares) {
      if (segments.count(segment)) continue;
      std::string known;
      for (const std::string& s : segments) known += (known.empty() ? "" : ", ") + s;
      throw InputError("bandwidth.segment_shares." + segment + ": no block of trace '" + trace_.meta().source +
                       "' belongs to segment '" + segment + "' (" +
                       (known.empty() ? std::string(trace_.meta().catalog.empty()
                                                        ? "it has no block catalog, so no segments"
                                                        : "its catalog names no segments")
                                      : "its segments: " + known) +
                       "), so the share would change nothing");
    }
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
  TierSessionOptions options;
  options.kv_resident = config_.kv_resident;
  options.track_last_access = !config_.prefetchers.empty();
  options.prefetches = !config_.prefetchers.empty();
  options.moves_bytes = true;
  session_ = std::make_unique<TierSession>(config_.cache, meta, options);
  tiers_.push_back(&session_->tier());
  for (std::size_t i = 1; i + 1 < tier_count_; ++i) {
    FastTierSpec mid;
    mid.capacity_bytes = hw_.tiers[i].capacity_bytes;
    mid.policy = hw_.tiers[i].policy;
    mid.policy_params = hw_.tiers[i].policy_params;
    mid.block_count = meta.catalog.size();
    mid.meta = &meta;  // the session's numbering: model-aware policies work here too
    mid.catalog = &session_->catalog_view();
    try {
      inner_.push_back(FastTier::create(mid));
    } catch (const InputError& e) {  // name the tier's key, not the run's policy
      throw InputError("hardware.tiers." + std::to_string(i) + ".policy '" + mid.policy + "': " + e.what());
    }
    tiers_.push_back(inner_.back().get());
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
  if (tier_count_ > 2) {
    session_->set_next_tier([this](BlockIndex b) {
      const BlockState st = tiers_[1]->state(b);
      return st == BlockState::resident || st == BlockState::in_use;
    });
  }
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

void EventEngine::prepare() {
  bool need_next_use = false;
  for (const auto& t : tiers_) need_next_use |= t->policy().needs_next_use();
  std::vector<IPrefetcher*> previewing;
  for (const auto& p : prefetchers_) {
    if (p->wants_preview()) previewing.push_back(p.get());
  }
  std::function<void(const AccessRecord&, std::uint64_t)> preview;
  if (!previewing.empty()) {
    preview = [&previewing](const AccessRecord& r, std::uint64_t i) {
      for (IPrefetcher* p : previewing) p->preview(r, i);
    };
  }
  const bool compute_next_use = need_next_use && !next_use_from_trace_;
  std::optional<TraceScan> summary = compute_next_use || preview ? std::nullopt : scan_from_summary(trace_.meta());
  if (summary) {
    scan_ = std::move(*summary);
    summary_check_.emplace(scan_);
  } else {
    scan_ = scan_trace(trace_, compute_next_use, preview);
  }
  const std::size_t hint = trace_.meta().catalog.size();
  inflight_fetch_.reserve(64);
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
  chunk_records_ = buffer_records_for(trace_.meta(), kChunkRecords);
  evicted_.reserve(64);
  completed_.reserve(64);
  window(0).start_ns = 0;
  open_window_end_ = config_.window_ns > 0 ? config_.window_ns : kNeverNs;
  // Every stream's first record issues at its own time_ns (engine time 0 = earliest record).
  for (std::uint32_t s = 0; s < streams_.size(); ++s) {
    queue_.push(scan_.streams[s].first_time_ns - scan_.earliest_time_ns, kIssue, s);
  }
}

// Per-block vectors of the engine follow the session's numbering (a
// prefetch may number a block the trace has not reached yet); `first_bytes`
// sizes the new block in the synthetic TLB layout.
void EventEngine::grow_blocks(ByteCount first_bytes) {
  for (BlockIndex b = blocks_known_; b < session_->block_count(); ++b) {
    if (!class_segments_.empty()) {
      std::uint32_t klass = 0;
      if (const std::uint32_t pos = session_->catalog_of(b); pos != kNone) {
        const std::string& segment = trace_.meta().catalog[pos].segment;
        for (std::uint32_t k = 1; k < class_segments_.size() && !segment.empty(); ++k) {
          if (class_segments_[k] == segment) klass = k;
        }
      }
      link_class_.push_back(klass);
    }
    if (tlb_.enabled()) {
      synthetic_base_.push_back(synthetic_next_);
      synthetic_next_ += (first_bytes + kSyntheticAlign - 1) / kSyntheticAlign * kSyntheticAlign;
    }
  }
  blocks_known_ = static_cast<BlockIndex>(session_->block_count());
}

bool EventEngine::read_chunk() {
  // The reader's decoded chunk in place where it lends one (no copy of 104-byte records).
  const std::span<const AccessRecord> chunk = next_records(trace_, chunk_, chunk_records_);
  const std::size_t n = chunk.size();
  for (std::size_t k = 0; k < n; ++k) {
    if (k + kNumberAhead < n) session_->prefetch_number(chunk[k + kNumberAhead].block_id);
    const AccessRecord& r = chunk[k];
    if (r.stream_id != last_stream_id_ || last_stream_ == kNone) {
      last_stream_ = scan_.stream_index.find(r.stream_id);
      if (last_stream_ == kNone && !summary_check_) {
        throw Error("trace '" + trace_.meta().source + "' changed between passes (record " +
                    std::to_string(next_record_) + ")");
      }
      last_stream_id_ = r.stream_id;
    }
    if (summary_check_) summary_check_->check(trace_, next_record_, r, last_stream_);
    const std::size_t known = session_->block_count();
    const BlockIndex b = session_->number(r.block_id);
    if (b >= known) grow_blocks(r.bytes);
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
    occupancy_.samples.push_back(occupancy_now(next_sample_ns_));
    next_sample_ns_ += config_.occupancy_sample_ns;
  }
}

void EventEngine::note_peak() {
  const OccupancySample o = occupancy_now(now_);
  occupancy_.peak_weights_bytes = std::max(occupancy_.peak_weights_bytes, o.weights_bytes);
  occupancy_.peak_kv_bytes = std::max(occupancy_.peak_kv_bytes, o.kv_bytes);
  occupancy_.peak_other_bytes = std::max(occupancy_.peak_other_bytes, o.other_bytes);
  if (o.total_bytes() > occupancy_.peak.total_bytes()) occupancy_.peak = o;
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
  waiters_[id] = Waiter{kNone, s, w, issue, ready, think, tag, current_record_};
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
  // The state an access a few records on will read (tier record, policy
  // node, fetch slot): loaded while this one and its events run.
  if (st.queue.size() > kPrefetchAhead) {
    const BlockIndex ahead = st.queue.at(kPrefetchAhead).block;
    session_->prefetch_block(ahead);
    session_->prefetch_neighbours(st.queue.at(kNeighboursAhead).block);
  }
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

  Nanoseconds pre = 0;
  if (tlb_.enabled()) {
    pre += tlb_.access(r.address != kNoAddress ? r.address : synthetic_base_[b] + r.offset);
  }
  if (hw_.contention.ns_per_mib > 0) {
    const ByteCount reserved = tiers_[0]->reserved_bytes();
    const ByteCount excess = reserved > hw_.contention.baseline_bytes ? reserved - hw_.contention.baseline_bytes : 0;
    pre += std::llround(hw_.contention.ns_per_mib * static_cast<double>(excess) / static_cast<double>(kMiB));
  }
  if (l2_.enabled() && r.address != kNoAddress) pre += l2_.access(r.address, r.bytes, session_->is_pinned(b));
  const Nanoseconds think =
      config_.issue == IssueMode::closed ? (r.compute_ns > 0 ? r.compute_ns : config_.gap_ns) : 0;

  const std::uint32_t request = p.tag.request == kNone ? TierSession::kNoRequestIndex : p.tag.request;
  const AccessKind kind = session_->access(a, request, c);
  if (observer_) {
    current_record_ = p.index;
    observer_->on_access(ObservedAccess{p.index, scan_.streams[s].stream_id, session_->id_of(b), r.bytes, kind, now_});
    observe_departures(DepartureCause::eviction);
  }
  const Nanoseconds hit = hw_.tiers[0].hit_latency_ns;
  switch (kind) {
    case AccessKind::hit:
      finish(s, now_, now_ + pre + hit, w, think, p.tag, false, p.index);
      break;
    case AccessKind::delayed_hit:
      add_waiter(fetches_[inflight_fetch_.at(b)], new_waiter(s, now_, now_ + pre, w, think, p.tag));
      break;
    case AccessKind::write_allocated:
      note_peak();
      finish(s, now_, now_ + pre + hit, w, think, p.tag, true, p.index);
      break;
    case AccessKind::written_through:
      // The append is written through to the backing tier, timed as a
      // transfer of the page over the links.
      if (!oom_.reached) {
        oom_ = session_->oom_snapshot(b);
        oom_.time_ns = now_;
        oom_.request_id = p.tag.request != kNone ? scan_.requests[p.tag.request].request_id : kNoRequest;
        oom_.token_index = p.tag.token;
      }
      start_fetch(a, FetchAdmission::bypass, now_ + pre, new_waiter(s, now_, now_ + pre, w, think, p.tag));
      break;
    case AccessKind::miss:
      note_peak();
      start_fetch(a, FetchAdmission::admitted, now_ + pre, new_waiter(s, now_, now_ + pre, w, think, p.tag));
      break;
    case AccessKind::bypass:
      start_fetch(a, FetchAdmission::bypass, now_ + pre, new_waiter(s, now_, now_ + pre, w, think, p.tag));
      break;
  }
  if (prefetching_) notify_prefetchers(s, p, a, outcome_of(kind));
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
  session_->note_access(p.block, a.now_ns);
  decision_now_ = a.now_ns;
  access_index_now_ = p.index;
  PrefetchAccess pa;
  pa.now_ns = a.now_ns;
  pa.block_id = session_->id_of(p.block);
  pa.bytes = p.bytes;
  pa.access_index = p.index;
  pa.stream_id = scan_.streams[s].stream_id;
  pa.request_id = p.tag.request != kNone ? scan_.requests[p.tag.request].request_id : kNoRequest;
  pa.token_index = p.tag.token;
  pa.phase = p.tag.phase;
  pa.operator_id = p.operator_id;
  pa.outcome = outcome;
  for (auto& prefetcher : prefetchers_) prefetcher->on_access(pa, session_->view(), actions_);
}

bool EventEngine::prefetch_block(BlockId id) {
  AccessCounters& c = window(window_of(now_)).counters;
  const std::size_t known = session_->block_count();
  BlockIndex b = 0;
  const bool issued = session_->prefetch(id, decision_now_, access_index_now_, c, &b);
  if (session_->block_count() > known) grow_blocks(trace_.meta().catalog[session_->catalog_of(known)].bytes);
  if (observer_) observe_departures(DepartureCause::eviction);
  if (!issued) return false;
  if (observer_) observer_->on_prefetch(now_, id, tiers_[0]->block_bytes(b));
  note_peak();
  PolicyAccess a;
  a.now_ns = decision_now_;
  a.block = b;
  a.bytes = tiers_[0]->block_bytes(b);
  a.access_index = access_index_now_;
  a.op = AccessOp::read;
  a.is_prefetch = true;
  start_fetch(a, FetchAdmission::admitted, now_, kNone);
  return true;
}

bool EventEngine::evict_block(BlockId id) {
  const bool evicted = session_->evict(id, window(window_of(now_)).counters);
  if (observer_) observe_departures(DepartureCause::prefetcher_evicted);
  return evicted;
}

void EventEngine::observe_departures(DepartureCause cause) {
  for (const Departure& d : session_->departures()) {
    observer_->on_departure(now_, session_->id_of(d.block), d.slot.reserved_bytes, d.dirty, cause);
  }
  observer_->on_occupancy(now_, tiers_[0]->reserved_bytes());
}

void EventEngine::start_hop(std::uint32_t f) {
  const std::uint32_t from = fetches_[f].at_tier;
  Link& link = *links_[from];
  const std::uint32_t klass = link_class_.empty() ? 0 : link_class_[fetches_[f].access.block];
  const Nanoseconds end = link.submit(now_, fetches_[f].access.bytes, f, klass);
  if (observer_) {  // a fifo link starts it once the transfers before it are done (link.h)
    fetches_[f].hop_start_ns = link.fair() ? now_
                                           : end - link.spec().latency_ns -
                                                 transfer_time_ns(fetches_[f].access.bytes, link.spec().bandwidth);
  }
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
  if (observer_) {
    observer_->on_copy(ObservedCopy{session_->id_of(b), fetch.access.bytes, fetch.at_tier, fetch.access.is_prefetch,
                                    !fetch.admitted, fetch.hop_start_ns, now_});
  }
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
    session_->arrived(a);
    inflight_fetch_.erase(a.block);
  }
  const Nanoseconds hit = hw_.tiers[0].hit_latency_ns;
  for (std::uint32_t id = fetch.waiters; id != kNone;) {
    const Waiter wt = waiters_[id];
    finish(wt.stream, wt.issue_ns, std::max(now_, wt.ready_ns) + hit, wt.window, wt.think_ns, wt.tag, true, wt.record);
    waiters_[id].next = free_waiter_;
    free_waiter_ = id;
    id = wt.next;
  }
  fetches_[f].next_free = free_fetch_;
  free_fetch_ = f;
}

void EventEngine::finish(std::uint32_t s, Nanoseconds issue_ns, Nanoseconds done_ns, std::uint32_t w,
                         Nanoseconds think, const AccessTag& tag, bool stalled, std::uint64_t record) {
  const Nanoseconds latency = done_ns - issue_ns;
  latency_.add(latency);
  // Stall is the whole latency of an access that found its data absent
  // (the GPU replay's definition, hw/replay/replay.h), 0 for a hit.
  if (stalled) windows_[w].counters.stall_ns = saturating_add_nonnegative(windows_[w].counters.stall_ns, latency);
  if (done_ns > last_done_) last_done_ = done_ns;
  if (observer_) observer_->on_access_done(record, done_ns, stalled);
  if (config_.issue == IssueMode::closed && streams_[s].remaining > 0) {
    queue_.push(done_ns + think, kIssue, s);
    if (observer_ && think > 0) observer_->on_compute(scan_.streams[s].stream_id, done_ns, done_ns + think);
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
  session_->end_request(r, window(window_of(now_)).counters);
  if (observer_) observe_departures(DepartureCause::request_ended);
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
      occupancy_.samples.push_back(occupancy_now(last_done_));
    }
  }
  m.occupancy = std::move(occupancy_);
  m.out_of_memory = oom_;
  if (prefetching_) session_->finish(window(window_of(last_done_)).counters);  // prefetches never accessed
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

  // Each component's own statistics (component_stats.h).
  ComponentStats& cs = result.components;
  l2_.stats().report("l2", cs);
  tlb_.report("tlb", cs);
  for (std::size_t i = 1; i < tier_count_; ++i) {
    links_[i]->report("link." + hw_.tiers[i].name + "->" + hw_.tiers[i - 1].name, cs);
  }
  for (std::size_t i = 0; i < tier_count_; ++i) {
    const std::string component = "tier." + hw_.tiers[i].name;
    if (i < tiers_.size()) tiers_[i]->report(component, cs);
    if (i == 0) session_->report_experts(component, cs);
    if (i > 0) cs.add(component, "served", "count", static_cast<double>(served_[i]));
  }
  for (const auto& p : prefetchers_) {
    PrefetcherStats stats;
    if (!report_prefetcher_stats(*p, stats)) continue;
    for (const auto& counter : stats.counters) {
      const std::string& n = counter.name;
      const auto ends = [&](const char* suffix) {
        const std::string s(suffix);
        return n.size() >= s.size() && n.compare(n.size() - s.size(), s.size(), s) == 0;
      };
      cs.add("prefetcher." + std::string(p->name()), n, ends("_ns") ? "ns" : ends("_bytes") ? "bytes" : "", counter.value);
    }
  }

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
  return run_engine(trace, config, detail, nullptr);
}

EngineResult run_engine(ITraceSource& trace, const EngineConfig& config, EngineDetail* detail,
                        IEngineObserver* observer) {
  EventEngine engine(trace, config, observer);
  return engine.run(detail);
}

EngineResult run_engine(ITraceSource& trace, const EngineConfig& config) { return run_engine(trace, config, nullptr); }

}  // namespace flashsim
