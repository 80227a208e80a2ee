#include "sim/engine/gpu_replay/replay_driver.h"

#include <algorithm>
#include <string>

#include "sim/core/errors.h"
#include "sim/core/hash_map.h"

namespace flashsim::hw {

ReplayDriver::ReplayDriver(ITraceSource& trace, const EngineConfig& config, const ReplayDriverOptions& options)
    : config_(config), options_(options), meta_(trace.meta()) {
  std::vector<AccessRecord> chunk(16384);
  trace.rewind();
  const std::uint64_t limit = options_.max_accesses;
  for (std::size_t n; (n = trace.read(chunk)) > 0;) {
    for (std::size_t k = 0; k < n && !(limit && records_.size() >= limit); ++k) {
      if (chunk[k].bytes == 0) {
        throw InputError("replay: trace '" + meta_.source + "', record " + std::to_string(records_.size()) +
                         ": bytes must be > 0");
      }
      records_.push_back(chunk[k]);
    }
    if (limit && records_.size() >= limit) break;
  }
  if (records_.empty()) throw InputError("replay: trace '" + meta_.source + "' has no records");

  if (!options_.no_cache) {
    TierSessionOptions so;
    so.allocator = allocator();
    so.kv_resident = config_.kv_resident;
    so.track_last_access = true;
    so.moves_bytes = true;
    session_ = std::make_unique<TierSession>(config_.cache, meta_, so);
  }
  // Blocks in trace order (the engine's order of first sight), then catalog
  // blocks the trace never touches, which prefetchers may still name.
  BlockNumbering plain;  // no_cache: the same numbering without a session
  auto number = [&](BlockId id, ByteCount bytes) {
    bool added = false;
    BlockIndex b;
    if (session_) {
      const std::size_t known = session_->block_count();
      b = session_->number(id);
      added = session_->block_count() > known;
    } else {
      b = plain.index(id, &added);
    }
    if (added) {
      ids_.push_back(id);
      max_bytes_.push_back(bytes);
    } else {
      max_bytes_[b] = std::max(max_bytes_[b], bytes);
    }
    return b;
  };
  record_index_.reserve(records_.size());
  for (const AccessRecord& r : records_) record_index_.push_back(number(r.block_id, r.bytes));
  if (session_) {
    for (const BlockCatalogEntry& e : meta_.catalog) {
      if (e.bytes > 0) number(e.id, e.bytes);
    }
  }
  HashMap<std::uint64_t, std::uint32_t> requests;
  request_of_.reserve(records_.size());
  for (const AccessRecord& r : records_) {
    if (r.request_id == kNoRequest) {
      request_of_.push_back(TierSession::kNoRequestIndex);
      continue;
    }
    auto [it, added] = requests.try_emplace(r.request_id, static_cast<std::uint32_t>(request_remaining_.size()));
    if (added) request_remaining_.push_back(0);
    ++request_remaining_[it->second];
    request_of_.push_back(it->second);
  }
  // Next use within the records replayed (max_accesses may cut the trace).
  next_use_.assign(records_.size(), kNeverAccessedAgain);
  std::vector<std::uint64_t> next(ids_.size(), kNeverAccessedAgain);
  for (std::size_t i = records_.size(); i-- > 0;) {
    next_use_[i] = next[record_index_[i]];
    next[record_index_[i]] = i;
  }
  if (session_) {
    PrefetcherContext pc;
    pc.meta = &meta_;
    pc.capacity_bytes = config_.cache.capacity_bytes;
    pc.seed = config_.seed;
    if (!options_.prefetcher.impl.empty()) {
      prefetchers_.push_back(
          PrefetcherRegistry::instance().create(options_.prefetcher.impl, options_.prefetcher.params, pc));
    } else {
      for (const ComponentChoice& choice : config_.prefetchers) {
        prefetchers_.push_back(PrefetcherRegistry::instance().create(choice.impl, choice.params, pc));
      }
    }
    for (const auto& p : prefetchers_) {
      if (!p->wants_preview()) continue;
      for (std::size_t i = 0; i < records_.size(); ++i) p->preview(records_[i], i);
    }
  }
}

std::string ReplayDriver::allocator() const {
  if (options_.no_cache) return "none";
  if (!options_.allocator.empty()) return options_.allocator;
  // "bytes" places nothing; a device pool needs real offsets.
  return config_.cache.allocator.impl == "bytes" ? "first_fit" : config_.cache.allocator.impl;
}

void ReplayDriver::isolated_decisions(LatencyHistogram& per_access_ns, Nanoseconds& total_ns) const {
  total_ns = 0;
  if (!session_) return;
  TierSessionOptions so;
  so.allocator = allocator();
  TierSession fresh(config_.cache, meta_, so);
  for (BlockId id : ids_) fresh.number(id);
  AccessCounters c;
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
    if (fresh.access(a, TierSession::kNoRequestIndex, c) == AccessKind::miss) fresh.arrived(a);
    per_access_ns.add(host_ns_since(t0));
  }
  total_ns = host_ns_since(start);
}

Nanoseconds ReplayDriver::decision_now(const AccessRecord& r) const {
  return config_.decision_clock == DecisionClock::engine ? host_ns_since(origin_) : r.time_ns;
}

void ReplayDriver::poll_arrivals(bool wait_all) {
  for (; first_unarrived_ < copies_.size(); ++first_unarrived_) {
    ReplayCopy& c = copies_[first_unarrived_];
    if (c.arrived || !c.prefetch) continue;
    if (!backend_->copy_done(c.id, wait_all)) return;  // copies finish roughly in order: a scan is enough
    // As the engine: the arrival carries the fetch's decision time on the trace clock.
    PolicyAccess a;
    a.now_ns = config_.decision_clock == DecisionClock::trace ? c.decided_ns : current_now_;
    a.block = c.block;
    a.bytes = c.bytes;
    a.access_index = c.access_index;
    a.is_prefetch = true;
    session_->arrived(a);
    inflight_copy_[c.block] = 0;
    c.arrived = true;
  }
}

void ReplayDriver::departed(std::uint64_t access) {
  for (const Departure& d : session_->departures()) {
    if (d.dirty) written_back_bytes_[access] += d.slot.reserved_bytes;
    backend_->departed(d, access);
  }
}

bool ReplayDriver::prefetch(BlockId id) {
  BlockIndex b = 0;
  if (!session_->prefetch(id, current_now_, current_access_, totals_, &b)) {
    const auto t0 = Clock::now();
    departed(current_access_);  // a refused prefetch may still have evicted
    backend_in_actions_ns_ += host_ns_since(t0);
    return false;
  }
  // The backend's calls are the driver's, not the prefetcher's decision:
  // their host time is kept apart.
  const auto t0 = Clock::now();
  departed(current_access_);
  const ByteCount bytes = session_->tier().block_bytes(b);
  ReplayCopy c;
  c.id = backend_->fetch(b, bytes, session_->tier().slot(b), true);
  c.block = b;
  c.bytes = bytes;
  c.decided_ns = current_now_;
  c.access_index = current_access_;
  c.prefetch = true;
  copies_.push_back(c);
  inflight_copy_[b] = copies_.size();
  backend_in_actions_ns_ += host_ns_since(t0);
  return true;
}

bool ReplayDriver::evict(BlockId id) {
  if (!session_->evict(id, totals_)) return false;
  const auto t0 = Clock::now();
  departed(current_access_);
  backend_in_actions_ns_ += host_ns_since(t0);
  return true;
}

// The last access of a request frees the request's KV pages (dropped, not
// written back: the request is over), as the engine's end_request does.
void ReplayDriver::end_request_of(std::size_t i) {
  const std::uint32_t q = request_of_[i];
  if (q == TierSession::kNoRequestIndex || --request_remaining_[q] != 0 || !session_) return;
  session_->end_request(q, totals_);
  departed(i);
}

void ReplayDriver::run(IReplayBackend& backend) {
  backend_ = &backend;
  const std::size_t n = records_.size();
  kinds_.assign(n, AccessKind::bypass);
  written_back_bytes_.assign(n, 0);
  occupancy_.assign(n, 0);
  inflight_copy_.assign(ids_.size(), 0);
  copies_.reserve(n * 2);
  const std::size_t run_ahead = std::max<std::size_t>(1, options_.run_ahead);
  origin_ = Clock::now();
  PolicyAccess a;
  for (std::size_t i = 0; i < n; ++i) {
    const AccessRecord& r = records_[i];
    const BlockIndex b = record_index_[i];
    current_access_ = i;
    // 1. throttle and arrivals
    if (i >= run_ahead) backend.wait_access_done(i - run_ahead);
    current_now_ = decision_now(r);
    if (session_) poll_arrivals(false);

    // 2. decide
    const auto t_decide = Clock::now();
    AccessKind kind = AccessKind::bypass;
    if (session_) {
      a.now_ns = current_now_;
      a.block = b;
      a.bytes = r.bytes;
      a.access_index = i;
      a.next_use_index = next_use_[i];
      a.op = r.op;
      a.is_prefetch = false;
      kind = session_->access(a, request_of_[i], totals_);
    } else {
      ++totals_.accesses;
      ++totals_.misses;
      ++totals_.bypasses;
      totals_.bytes_accessed += r.bytes;
      totals_.bytes_fetched += r.bytes;
    }
    Nanoseconds decision = host_ns_since(t_decide);
    kinds_[i] = kind;

    // 3. issue
    if (session_) departed(i);
    SlotRange slot;
    CopyId wait = kNoCopy;
    switch (kind) {
      case AccessKind::hit:
      case AccessKind::write_allocated:
        slot = session_->tier().slot(b);
        break;
      case AccessKind::delayed_hit: {
        const std::size_t ci = inflight_copy_[b];
        if (ci == 0) throw Error("replay: block " + std::to_string(ids_[b]) + " in flight without a copy");
        ReplayCopy& c = copies_[ci - 1];
        wait = c.id;
        PolicyAccess arrival = a;
        arrival.now_ns = config_.decision_clock == DecisionClock::trace ? c.decided_ns : current_now_;
        arrival.bytes = c.bytes;
        arrival.access_index = c.access_index;
        arrival.is_prefetch = true;
        session_->arrived(arrival);
        c.arrived = true;
        inflight_copy_[b] = 0;
        slot = session_->tier().slot(b);
        break;
      }
      case AccessKind::miss: {
        slot = session_->tier().slot(b);
        ReplayCopy c;
        c.id = backend.fetch(b, r.bytes, slot, false);
        c.block = b;
        c.bytes = r.bytes;
        c.decided_ns = current_now_;
        c.access_index = i;
        c.arrived = true;  // stream order: the consumer below runs after the copy
        copies_.push_back(c);
        wait = c.id;
        const auto t0 = Clock::now();
        session_->arrived(a);
        decision += host_ns_since(t0);
        break;
      }
      case AccessKind::written_through:
        if (!oom_.reached) {
          oom_ = session_->oom_snapshot(b);
          oom_.request_id = r.request_id;
          oom_.token_index = r.token_index;
          oom_access_ = i;
        }
        break;
      case AccessKind::bypass:
        break;
    }
    backend.consume(i, kind, b, r, slot, wait);

    // 4. The engine's order: a hit or an in-place append completes at once
    // (its request may end, freeing its KV pages, before prefetchers run);
    // a demand fetch or a delayed hit completes at its arrival, after them,
    // and its block -- in flight in the engine -- cannot be evicted meanwhile.
    const bool done_now = kind == AccessKind::hit || kind == AccessKind::write_allocated;
    if (done_now) end_request_of(i);
    const bool held = session_ && !done_now && (kind == AccessKind::delayed_hit || kind == AccessKind::miss);
    if (held) session_->tier().acquire(b);
    if (session_) session_->note_access(b, current_now_);
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
      pa.outcome = outcome_of(kind);
      backend_in_actions_ns_ = 0;
      const auto t0 = Clock::now();
      for (auto& p : prefetchers_) p->on_access(pa, session_->view(), *this);
      decision += host_ns_since(t0) - backend_in_actions_ns_;
    }
    if (held) session_->tier().release(b);
    if (!done_now) end_request_of(i);
    decision_ns_.add(decision);
    decision_ns_total_ += decision;
    ++decisions_;
    occupancy_[i] = session_ ? session_->tier().reserved_bytes() : 0;
  }
  if (session_) {
    poll_arrivals(true);
    session_->finish(totals_);
  }
  backend_ = nullptr;
}

}  // namespace flashsim::hw
