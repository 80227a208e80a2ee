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

// The fields of an AccessRecord the replay uses (64 bytes, not 96).
struct Pending {
  Nanoseconds time_ns = 0;
  Nanoseconds compute_ns = 0;
  ByteCount bytes = 0;
  std::uint64_t address = kNoAddress;
  std::uint64_t offset = 0;
  std::uint64_t next_use_index = kNeverAccessedAgain;
  std::uint64_t index = 0;  // position in the trace
  BlockIndex block = 0;
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
  void validate() const;
  void build_tiers();
  void prepare();
  void new_block(BlockIndex b, BlockId id, ByteCount bytes);
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
  void access(std::uint32_t s, const Pending& p);
  void miss(std::uint32_t s, const PolicyAccess& a, Nanoseconds pre, std::uint32_t w, Nanoseconds think);
  void start_hop(std::uint32_t f);
  void hop_done(std::uint32_t f);
  void arrive_fast_tier(std::uint32_t f);
  void link_check(std::uint32_t link, std::uint64_t generation);
  void schedule_link_check(std::uint32_t link);
  void finish(std::uint32_t s, Nanoseconds issue_ns, Nanoseconds done_ns, std::uint32_t w, Nanoseconds think);
  std::uint32_t new_waiter(std::uint32_t s, Nanoseconds issue, Nanoseconds ready, std::uint32_t w,
                           Nanoseconds think);
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
  links_.resize(tier_count_);
  for (std::size_t i = 1; i < tier_count_; ++i) {
    links_[i] = std::make_unique<Link>(hw_.tiers[i].link_to_faster, config_.window_ns);
  }
  scheduled_generation_.assign(tier_count_, ~0ull);
  served_.assign(tier_count_, 0);
  next_use_from_trace_ = meta.has_next_use;
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
  if (tlb_.enabled()) {
    synthetic_base_.push_back(synthetic_next_);
    synthetic_next_ += (bytes + kSyntheticAlign - 1) / kSyntheticAlign * kSyntheticAlign;
  }
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
    streams_[last_stream_].queue.push_back(
        Pending{r.time_ns, r.compute_ns, r.bytes, r.address, r.offset, r.next_use_index, next_record_++, b, r.op});
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
}

std::uint32_t EventEngine::new_waiter(std::uint32_t s, Nanoseconds issue, Nanoseconds ready, std::uint32_t w,
                                      Nanoseconds think) {
  std::uint32_t id;
  if (free_waiter_ != kNone) {
    id = free_waiter_;
    free_waiter_ = waiters_[id].next;
  } else {
    id = static_cast<std::uint32_t>(waiters_.size());
    waiters_.emplace_back();
  }
  waiters_[id] = Waiter{kNone, s, w, issue, ready, think};
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
  const Pending p = st.queue.front();
  st.queue.pop_front();
  --st.remaining;
  access(s, p);
  if (config_.issue == IssueMode::timestamp && st.remaining > 0) {
    ensure_head(s);
    queue_.push(st.queue.front().time_ns - scan_.earliest_time_ns, kIssue, s);
    tiers_[0]->prefetch(st.queue.front().block);
  }
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
  const BlockState state = fast.state(b);
  if (state == BlockState::resident || state == BlockState::in_use) {
    if (fast.block_bytes(b) == r.bytes) {
      fast.on_access_hit(a);
      ++c.hits;
      c.bytes_hit += r.bytes;
      finish(s, now_, now_ + pre + hw_.tiers[0].hit_latency_ns, w, think);
      return;
    }
    fast.invalidate(b);  // size changed: the old copy is dropped (not an eviction)
  } else if (state == BlockState::in_flight) {
    ++c.delayed_hits;
    add_waiter(fetches_[inflight_fetch_[b]], new_waiter(s, now_, now_ + pre, w, think));
    return;
  }
  miss(s, a, pre, w, think);
}

void EventEngine::miss(std::uint32_t s, const PolicyAccess& a, Nanoseconds pre, std::uint32_t w, Nanoseconds think) {
  const BlockIndex b = a.block;
  FastTier& fast = *tiers_[0];
  AccessCounters& c = windows_[w].counters;
  ++c.misses;
  c.bytes_fetched += a.bytes;
  const ByteCount evicted_before = fast.counters().bytes_evicted;
  const FetchAdmission admission = fast.begin_fetch(a, &evicted_);
  c.evictions += evicted_.size();
  c.bytes_evicted += fast.counters().bytes_evicted - evicted_before;
  if (admission == FetchAdmission::bypass) ++c.bypasses;

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
  add_waiter(fetch, new_waiter(s, now_, now_ + pre, w, think));
  if (fetch.admitted) inflight_fetch_[b] = f;
  if (src + 1 < tier_count_) {
    tiers_[src]->acquire(b);
    fetch.holding = true;
  }
  const Nanoseconds start = now_ + pre + hw_.miss_penalty_ns + hw_.tiers[src].hit_latency_ns;
  if (start == now_) start_hop(f);
  else queue_.push(start, kFetchStart, f);
}

void EventEngine::start_hop(std::uint32_t f) {
  const std::uint32_t from = fetches_[f].at_tier;
  Link& link = *links_[from];
  const Nanoseconds end = link.submit(now_, fetches_[f].access.bytes, f);
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
  }
  const Nanoseconds hit = hw_.tiers[0].hit_latency_ns;
  for (std::uint32_t id = fetch.waiters; id != kNone;) {
    const Waiter wt = waiters_[id];
    finish(wt.stream, wt.issue_ns, std::max(now_, wt.ready_ns) + hit, wt.window, wt.think_ns);
    waiters_[id].next = free_waiter_;
    free_waiter_ = id;
    id = wt.next;
  }
  fetches_[f].next_free = free_fetch_;
  free_fetch_ = f;
}

void EventEngine::finish(std::uint32_t s, Nanoseconds issue_ns, Nanoseconds done_ns, std::uint32_t w,
                         Nanoseconds think) {
  const Nanoseconds latency = done_ns - issue_ns;
  latency_.add(latency);
  windows_[w].counters.stall_ns += latency - hw_.tiers[0].hit_latency_ns;
  if (done_ns > last_done_) last_done_ = done_ns;
  if (config_.issue == IssueMode::closed && streams_[s].remaining > 0) {
    queue_.push(done_ns + think, kIssue, s);
    if (!streams_[s].queue.empty()) tiers_[0]->prefetch(streams_[s].queue.front().block);
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
