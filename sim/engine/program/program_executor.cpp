#include "sim/engine/program/program_executor.h"

#include <algorithm>
#include <cmath>
#include <deque>
#include <limits>
#include <memory>
#include <queue>
#include <string>

#include "sim/cache/tier_session.h"
#include "sim/core/errors.h"
#include "traces/trace_source.h"
#include "traces/importers/capture_host_facts.h"
#include "traces/next_use.h"

namespace flashsim {

namespace {

constexpr Nanoseconds kNever = std::numeric_limits<Nanoseconds>::max();
constexpr std::uint64_t kNoRecord = std::numeric_limits<std::uint64_t>::max();
enum Engine : std::uint8_t { kH2D = 0, kD2H = 1, kNoEngine = 2 };

struct Event {
  Nanoseconds t;
  std::uint64_t seq;
  bool host;          // true: a host thread continues; false: a stream's op finished
  std::uint32_t who;  // thread or stream
  bool operator>(const Event& o) const { return std::tie(t, seq) > std::tie(o.t, o.seq); }
};

class Executor {
 public:
  Executor(const TraceMeta& meta, const std::vector<AccessRecord>& records, const HardwareProfile& hw,
           const ExecutorOptions& o)
      : p_(*meta.program), records_(records), hw_(hw.execution), o_(o) {
    const LinkSpec link = hw.tiers.size() > 1 ? hw.tiers[1].link_to_faster : LinkSpec{};
    h2d_lat_ = hw_.h2d_latency_ns > 0 ? hw_.h2d_latency_ns : link.latency_ns;
    d2h_lat_ = hw_.d2h_latency_ns > 0 ? hw_.d2h_latency_ns : link.latency_ns;
    h2d_bw_ = hw_.h2d_bandwidth > 0 ? hw_.h2d_bandwidth : link.bandwidth;
    d2h_bw_ = hw_.d2h_bandwidth > 0 ? hw_.d2h_bandwidth : link.bandwidth;
    set_host_facts(hw.name);
    const std::size_t n = p_.ops.size();
    per_thread_.resize(p_.thread_count);
    for (std::size_t i = 0; i < n; ++i) per_thread_[p_.ops[i].thread].push_back(i);
    pos_.assign(p_.thread_count, 0);
    threads_done_ = 0;
    for (std::uint32_t t = 0; t < p_.thread_count; ++t) threads_done_ += per_thread_[t].empty();
    streams_.resize(p_.stream_count);
    last_record_.assign(p_.event_count, kNoRecord);
    dur_.assign(n, 0);
    engine_.assign(n, kNoEngine);
    link_.assign(n, kNoRecord);
    done_.assign(n, kNever);
    if (!o.as_recorded) {
      TierSessionOptions so;
      so.prefetches = false;  // the program's own copies, no prefetcher
      session_ = std::make_unique<TierSession>(o.cache, meta, so);
      if (session_->needs_next_use() && !meta.has_next_use) {
        MemoryTraceSource source(meta, records);
        next_use_ = next_use_in_memory(source);
      }
    }
  }

  ProgramPrediction run() {
    for (std::uint32_t t = 0; t < p_.thread_count; ++t) {
      if (!per_thread_[t].empty()) {
        const ProgramOp& first = p_.ops[per_thread_[t][0]];
        schedule(first.host_start_ns, true, t);
      }
    }
    while (!queue_.empty()) {
      const Event e = queue_.top();
      queue_.pop();
      now_ = e.t;
      if (e.host) {
        host_step(e.who);
      } else {
        stream_finished(e.who);
      }
    }
    if (threads_done_ != p_.thread_count) {
      for (std::uint32_t t = 0; t < p_.thread_count; ++t) {
        if (pos_[t] < per_thread_[t].size()) {
          throw Error("program model deadlocked: host thread " + std::to_string(t) + " waits forever at op " +
                      std::to_string(per_thread_[t][pos_[t]]) + " (a malformed program)");
        }
      }
    }
    out_.end_ns = std::max(now_, now_thread_end_);  // a thread's last call ends after its cost
    if (session_) session_->finish(out_.counters);
    return std::move(out_);
  }

 private:
  struct Stream {
    std::deque<std::size_t> queue;  // op indices issued, not yet finished
    bool busy = false;
  };
  struct Wait {
    enum Kind { none, stream, record, device, op } kind = none;
    std::uint64_t what = 0;
  };

  void schedule(Nanoseconds t, bool host, std::uint32_t who) { queue_.push(Event{t, seq_++, host, who}); }

  static std::size_t kind_slot(const ProgramOp& op) { return static_cast<std::size_t>(op.kind) * 2 + op.blocking; }

  /// The pageable curves, the fresh-page rule and the capture's cost, from
  /// the trace's host facts (schema v3) or the profile, as the options say.
  void set_host_facts(const std::string& profile) {
    // fit: the curves fitted now from the trace's own copies, by the rule
    // of the capture (older traces carry none).
    Program refit;
    if (o_.copy_curves == CopyCurveSource::fit) {
      refit.ops = p_.ops;
      refit.host = p_.host;
      capture::fit_pageable_curves(refit);
    }
    const CaptureHost& h = o_.copy_curves == CopyCurveSource::fit ? refit.host : p_.host;
    const bool from_capture = o_.copy_curves != CopyCurveSource::profile;
    auto pick = [&](const std::vector<CopyTimePoint>& fitted, const CopyCurve& own, BlendedCopyCurve& into,
                    std::string& source) {
      into.outer = own;
      source = own.empty() ? "none" : "profile " + profile;
      if (!from_capture || fitted.empty()) return;
      std::uint64_t copies = 0;
      for (const CopyTimePoint& q : fitted) {
        into.inner.points.emplace_back(q.bytes, q.ns);
        copies += q.copies;
      }
      source = "capture (" + std::to_string(fitted.size()) + " sizes, " + std::to_string(copies) + " copies)" +
               (own.empty() ? "" : ", profile " + profile + " beyond them");
    };
    PredictionSources& src = out_.sources;
    pick(h.pageable_h2d, hw_.pageable_h2d, h2d_curve_, src.pageable_h2d);
    pick(h.pageable_d2h, hw_.pageable_d2h, d2h_curve_, src.pageable_d2h);
    pick(h.pageable_d2h_fresh, hw_.pageable_d2h_fresh, d2h_fresh_curve_, src.pageable_d2h_fresh);
    if (o_.fresh_pages == FreshPages::all && d2h_fresh_curve_.empty()) {
      throw InputError("fresh pages 'all': neither the trace (as copy curves '" +
                       std::string(o_.copy_curves == CopyCurveSource::fit       ? "fit"
                                   : o_.copy_curves == CopyCurveSource::profile ? "profile"
                                                                                : "capture") +
                       "' give it) nor profile '" + profile +
                       "' has a fresh-page D2H curve (flashsim calibrate --only copies measures "
                       "execution.pageable_d2h_fresh_points)");
    }
    if (o_.fresh_pages == FreshPages::per_copy && h.residency_recorded && d2h_fresh_curve_.empty()) {
      const auto fresh_op = std::find_if(p_.ops.begin(), p_.ops.end(), [&](const ProgramOp& op) {
        return op.kind == ProgramOpKind::copy && op.direction == CopyDirection::d2h &&
               op.host_memory == HostMemory::pageable && op.host_fresh_bytes > 0;
      });
      if (fresh_op != p_.ops.end()) {
        src.warnings.push_back("the capture recorded pageable D2H copies into fresh host pages but there is no "
                               "fresh-page curve (trace or profile '" + profile +
                               "'): they are timed as copies into touched pages");
      }
    }
    src.fresh_pages = o_.fresh_pages == FreshPages::all    ? "all"
                      : o_.fresh_pages == FreshPages::none ? "none"
                      : h.residency_recorded               ? "per copy (capture)"
                                                           : "none (residency not recorded)";
    for (std::size_t k = 0; k < kSlots; ++k) {
      ProgramOp op;
      op.kind = static_cast<ProgramOpKind>(k / 2);
      op.blocking = k % 2 == 1;
      const std::string_view call = probe_call_for(op);
      const bool measured = o_.capture_gap_ns == kMeasuredCaptureGap && !call.empty();
      half_gap_[k] = measured ? h.gap_ns(call) / 2 : 0;
      inside_[k] = measured ? h.inside_ns(call) : 0;
    }
    if (o_.capture_gap_ns >= 0) {
      src.capture_cost = std::to_string(o_.capture_gap_ns) + " ns a gap (--capture-gap)";
    } else if (h.call_costs.empty()) {
      src.capture_cost = "none (not measured)";
    } else {
      src.capture_cost = "measured at capture (" + std::to_string(h.call_costs.size()) + " calls, median gap " +
                         std::to_string(h.gap_ns("")) + " ns)";
    }
  }

  /// Share of a pageable D2H copy's bytes that land in fresh pages.
  double fresh_share(const ProgramOp& op) const {
    switch (o_.fresh_pages) {
      case FreshPages::all: return 1;
      case FreshPages::none: return 0;
      default:
        return p_.host.residency_recorded && op.bytes > 0
                   ? static_cast<double>(std::min(op.host_fresh_bytes, op.bytes)) / static_cast<double>(op.bytes)
                   : 0;
    }
  }

  bool pageable(const ProgramOp& op) const {
    if (op.kind != ProgramOpKind::copy || op.host_memory == HostMemory::none) return false;
    switch (o_.host_memory) {
      case HostMemoryMode::pinned: return false;
      case HostMemoryMode::pageable: return true;
      default: return op.host_memory == HostMemory::pageable;
    }
  }

  Nanoseconds recorded_cost(const ProgramOp& op) const { return op.host_end_ns - op.host_start_ns; }

  /// Host cost of a call that does not block (or the part after the wait).
  Nanoseconds call_cost(const ProgramOp& op, bool blocked) const {
    const Nanoseconds recorded = recorded_cost(op);
    if (blocked) {
      switch (op.kind) {
        case ProgramOpKind::stream_sync: return hw_.api_stream_sync_ns;
        case ProgramOpKind::event_sync: return hw_.api_event_sync_ns;
        case ProgramOpKind::device_sync: return hw_.api_device_sync_ns;
        default: return hw_.api_stream_sync_ns;  // a blocking copy returns like a synchronise
      }
    }
    if (recorded == 0) return 0;
    // The capture's cost inside the call is not the program's (measured traces).
    const Nanoseconds own = std::max<Nanoseconds>(0, recorded - inside_[kind_slot(op)]);
    if (o_.host_time == HostTime::recorded) return own;
    switch (op.kind) {
      case ProgramOpKind::kernel: return std::min(recorded, hw_.api_launch_ns);
      case ProgramOpKind::copy:
      case ProgramOpKind::memset: return std::min(recorded, hw_.api_copy_async_ns);
      case ProgramOpKind::event_record: return std::min(recorded, hw_.api_event_record_ns);
      case ProgramOpKind::stream_wait_event: return std::min(recorded, hw_.api_stream_wait_event_ns);
      case ProgramOpKind::stream_sync: return std::min(recorded, hw_.api_stream_sync_ns);
      case ProgramOpKind::event_sync: return std::min(recorded, hw_.api_event_sync_ns);
      case ProgramOpKind::device_sync: return std::min(recorded, hw_.api_device_sync_ns);
      default: return own;
    }
  }

  Nanoseconds gap_before(std::uint32_t thread, std::size_t k) const {
    if (k == 0) return 0;
    const ProgramOp& prev = p_.ops[per_thread_[thread][k - 1]];
    const ProgramOp& op = p_.ops[per_thread_[thread][k]];
    const Nanoseconds gap = op.host_start_ns - prev.host_end_ns;
    const Nanoseconds capture = o_.capture_gap_ns >= 0 ? o_.capture_gap_ns
                                                       : half_gap_[kind_slot(prev)] + half_gap_[kind_slot(op)];
    return std::max<Nanoseconds>(0, gap - capture);
  }

  /// The copy's bytes after the fast tier (policy runs): hits are not copied.
  ByteCount bytes_to_copy(const ProgramOp& op) {
    if (op.first_access == kNoAccess) return op.bytes;
    if (!session_) {
      // as_recorded: every access is served by the program's own copy (a
      // miss that nothing caches), so the counters say what moved.
      AccessCounters& c = out_.counters;
      for (std::uint64_t i = op.first_access; i < op.first_access + op.access_count; ++i) {
        ++c.accesses;
        ++c.misses;
        ++c.bypasses;
        c.bytes_accessed += records_[i].bytes;
        if (op.direction == CopyDirection::h2d) c.bytes_fetched += records_[i].bytes;
      }
      return op.bytes;
    }
    ByteCount removed = 0;
    for (std::uint64_t i = op.first_access; i < op.first_access + op.access_count; ++i) {
      const AccessRecord& r = records_[i];
      PolicyAccess a;
      a.now_ns = now_;
      a.block = session_->number(r.block_id);
      a.bytes = r.bytes;
      a.access_index = i;
      a.next_use_index = meta_next_use(i, r);
      a.op = r.op;
      const AccessKind kind = session_->access(a, TierSession::kNoRequestIndex, out_.counters);
      if (kind == AccessKind::miss) session_->arrived(a);
      if (op.direction == CopyDirection::h2d && (kind == AccessKind::hit || kind == AccessKind::delayed_hit)) {
        removed += r.bytes;
      }
    }
    out_.bytes_removed += std::min(removed, op.bytes);
    return op.bytes - std::min(removed, op.bytes);
  }
  std::uint64_t meta_next_use(std::uint64_t i, const AccessRecord& r) const {
    return next_use_.empty() ? r.next_use_index : next_use_[i];
  }

  /// `begin`: when the copy starts on its engine (the duplex limit applies
  /// when the other engine is busy then).
  /// Only for copies on an engine (bytes > 0); the rest take dur_.
  Nanoseconds copy_time(const ProgramOp& op, ByteCount bytes, Engine engine, Nanoseconds begin) const {
    if (o_.recorded_copy_time && bytes == op.bytes && o_.host_memory == HostMemoryMode::as_recorded) return op.gpu_ns;
    if (pageable(op)) {
      if (engine == kH2D) {
        if (!h2d_curve_.empty()) return h2d_curve_.time_ns(bytes);
      } else {
        const double f = d2h_fresh_curve_.empty() ? 0 : fresh_share(op);
        if (d2h_curve_.empty() && f > 0) return d2h_fresh_curve_.time_ns(bytes);
        if (!d2h_curve_.empty()) {
          const Nanoseconds touched = d2h_curve_.time_ns(bytes);
          if (f <= 0) return touched;
          const double fresh = static_cast<double>(d2h_fresh_curve_.time_ns(bytes));
          return static_cast<Nanoseconds>(std::llround(static_cast<double>(touched) + f * (fresh - static_cast<double>(touched))));
        }
      }
    }
    double bw = engine == kH2D ? h2d_bw_ : d2h_bw_;
    const Nanoseconds other_free = engine_free_[engine == kH2D ? kD2H : kH2D];
    if (hw_.duplex_bandwidth > 0 && other_free > begin) bw = std::min(bw, hw_.duplex_bandwidth / 2);
    const Nanoseconds latency = engine == kH2D ? h2d_lat_ : d2h_lat_;
    return latency + static_cast<Nanoseconds>(static_cast<double>(bytes) * 1e9 / bw);
  }

  // --- host ---

  void host_step(std::uint32_t t) {
    // A thread event means: the thread is free at now_ and issues op pos_[t].
    const std::size_t k = pos_[t];
    const std::size_t i = per_thread_[t][k];
    const ProgramOp& op = p_.ops[i];
    Wait wait;
    switch (op.kind) {
      case ProgramOpKind::step:
        out_.step_start_ns.push_back(now_);
        out_.recorded_step_ns.push_back(op.host_start_ns);
        break;
      case ProgramOpKind::host: break;
      case ProgramOpKind::kernel:
      case ProgramOpKind::memset:
        dur_[i] = op.gpu_ns;
        enqueue(op.stream, i);
        break;
      case ProgramOpKind::copy: {
        ++out_.copies;
        const Engine engine = op.direction == CopyDirection::h2d   ? kH2D
                              : op.direction == CopyDirection::d2h ? kD2H
                                                                   : kNoEngine;
        const ByteCount bytes = bytes_to_copy(op);
        if (bytes == 0 && op.bytes > 0) ++out_.copies_removed;
        (engine == kH2D ? out_.h2d_bytes : out_.d2h_bytes) += engine == kNoEngine ? 0 : bytes;
        engine_[i] = bytes == 0 ? kNoEngine : engine;
        link_[i] = bytes;  // bytes to move, read when the stream starts it
        // Off the engines: a device-to-device copy takes its recorded time; one
        // the fast tier removed (or of 0 bytes), none.
        if (engine_[i] == kNoEngine) dur_[i] = bytes == 0 ? 0 : op.gpu_ns;
        enqueue(op.stream, i);
        if (bytes > 0 && (op.blocking || pageable(op))) wait = Wait{Wait::op, i};
        break;
      }
      case ProgramOpKind::event_record:
        link_[i] = next_record_;
        last_record_[op.event] = next_record_;
        record_done_.push_back(kNever);
        ++next_record_;
        enqueue(op.stream, i);
        break;
      case ProgramOpKind::stream_wait_event:
        link_[i] = last_record_[op.event];
        enqueue(op.stream, i);
        break;
      case ProgramOpKind::stream_sync:
        if (!drained(op.stream)) wait = Wait{Wait::stream, op.stream};
        break;
      case ProgramOpKind::event_sync:
        if (const std::uint64_t r = last_record_[op.event]; r != kNoRecord && record_done_[r] == kNever) {
          wait = Wait{Wait::record, r};
        }
        break;
      case ProgramOpKind::device_sync:
        if (!all_drained()) wait = Wait{Wait::device, 0};
        break;
    }
    if (wait.kind == Wait::none) {
      finish_call(t, call_cost(op, false));
      return;
    }
    waits_.push_back({t, wait, now_});
  }

  void finish_call(std::uint32_t t, Nanoseconds cost) {
    const std::size_t k = ++pos_[t];
    if (k == per_thread_[t].size()) {
      ++threads_done_;
      now_thread_end_ = std::max(now_thread_end_, now_ + cost);
      return;
    }
    schedule(now_ + cost + gap_before(t, k), true, t);
  }

  bool satisfied(const Wait& w) const {
    switch (w.kind) {
      case Wait::stream: return drained(static_cast<std::uint32_t>(w.what));
      case Wait::record: return record_done_[w.what] != kNever;
      case Wait::device: return all_drained();
      case Wait::op: return done_[w.what] != kNever;
      default: return true;
    }
  }

  void wake_waiters() {
    for (std::size_t j = 0; j < waits_.size();) {
      if (satisfied(waits_[j].wait)) {
        const auto [t, w, since] = waits_[j];
        waits_[j] = waits_.back();
        waits_.pop_back();
        out_.host_blocked_ns += now_ - since;
        const ProgramOp& op = p_.ops[per_thread_[t][pos_[t]]];
        finish_call(t, call_cost(op, true));
      } else {
        ++j;
      }
    }
  }

  // --- streams ---

  bool drained(std::uint32_t s) const { return streams_[s].queue.empty(); }
  bool all_drained() const {
    return std::all_of(streams_.begin(), streams_.end(), [](const Stream& s) { return s.queue.empty(); });
  }

  void enqueue(std::uint32_t s, std::size_t i) {
    streams_[s].queue.push_back(i);
    start(s);
  }

  /// Starts the stream's head operation if it can run; event records and
  /// satisfied waits complete at once.
  void start(std::uint32_t s) {
    Stream& st = streams_[s];
    while (!st.busy && !st.queue.empty()) {
      const std::size_t i = st.queue.front();
      const ProgramOp& op = p_.ops[i];
      if (op.kind == ProgramOpKind::event_record) {
        record_done_[link_[i]] = now_;
        complete(s, i);
        continue;
      }
      if (op.kind == ProgramOpKind::stream_wait_event) {
        if (link_[i] != kNoRecord && record_done_[link_[i]] == kNever) {
          record_waiters_.push_back({link_[i], s});
          return;
        }
        complete(s, i);
        continue;
      }
      Nanoseconds t_end = now_ + dur_[i];
      if (op.kind == ProgramOpKind::copy && engine_[i] != kNoEngine) {
        const Engine e = static_cast<Engine>(engine_[i]);
        const Nanoseconds begin = std::max(now_, engine_free_[e]);
        const Nanoseconds took = copy_time(op, link_[i], e, begin);
        t_end = begin + took;
        engine_free_[e] = t_end;
        const int m = pageable(op) ? 1 : 0;
        ++out_.copy_count[e][m];
        out_.copy_model_ns[e][m] += took;
        out_.copy_recorded_ns[e][m] += op.gpu_ns;
      }
      st.busy = true;
      schedule(t_end, false, s);
      return;
    }
  }

  void complete(std::uint32_t s, std::size_t i) {
    streams_[s].queue.pop_front();
    done_[i] = now_;
  }

  void stream_finished(std::uint32_t s) {
    Stream& st = streams_[s];
    st.busy = false;
    complete(s, st.queue.front());
    start(s);
    // Records completed here may release other streams' waits.
    for (bool progress = true; progress;) {
      progress = false;
      for (std::size_t j = 0; j < record_waiters_.size();) {
        const auto [r, other] = record_waiters_[j];
        if (record_done_[r] != kNever) {
          record_waiters_[j] = record_waiters_.back();
          record_waiters_.pop_back();
          start(other);
          progress = true;
        } else {
          ++j;
        }
      }
    }
    wake_waiters();
  }

  const Program& p_;
  const std::vector<AccessRecord>& records_;
  const ExecutionSpec& hw_;
  const ExecutorOptions& o_;
  Nanoseconds h2d_lat_ = 0, d2h_lat_ = 0;
  double h2d_bw_ = 1, d2h_bw_ = 1;
  BlendedCopyCurve h2d_curve_, d2h_curve_, d2h_fresh_curve_;
  static constexpr std::size_t kSlots = (static_cast<std::size_t>(ProgramOpKind::step) + 1) * 2;
  Nanoseconds half_gap_[kSlots] = {};  // per (kind, blocking): half the capture's recorded gap
  Nanoseconds inside_[kSlots] = {};    // per (kind, blocking): the capture's cost inside the call
  std::vector<std::vector<std::size_t>> per_thread_;
  std::vector<std::size_t> pos_;
  std::uint32_t threads_done_ = 0;
  std::vector<Stream> streams_;
  std::vector<std::uint64_t> last_record_;
  std::vector<Nanoseconds> record_done_;
  std::uint64_t next_record_ = 0;
  std::vector<Nanoseconds> dur_;
  std::vector<std::uint8_t> engine_;
  std::vector<std::uint64_t> link_;
  std::vector<Nanoseconds> done_;
  Nanoseconds engine_free_[2] = {0, 0};
  struct Waiting {
    std::uint32_t thread;
    Wait wait;
    Nanoseconds since;
  };
  std::vector<Waiting> waits_;
  std::vector<std::pair<std::uint64_t, std::uint32_t>> record_waiters_;
  std::priority_queue<Event, std::vector<Event>, std::greater<>> queue_;
  std::uint64_t seq_ = 0;
  Nanoseconds now_ = 0, now_thread_end_ = 0;
  std::unique_ptr<TierSession> session_;
  std::vector<std::uint64_t> next_use_;
  ProgramPrediction out_;
};

}  // namespace

double ProgramPrediction::median_step_ns(std::size_t skip, bool recorded) const {
  std::vector<Nanoseconds> v = step_durations(skip, recorded);
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? static_cast<double>(v[n / 2]) : 0.5 * static_cast<double>(v[n / 2 - 1] + v[n / 2]);
}

std::vector<Nanoseconds> ProgramPrediction::step_durations(std::size_t skip, bool recorded) const {
  const std::vector<Nanoseconds>& s = recorded ? recorded_step_ns : step_start_ns;
  std::vector<Nanoseconds> d;
  for (std::size_t i = skip + 1; i < s.size(); ++i) d.push_back(s[i] - s[i - 1]);
  return d;
}

std::string no_program_reason(const TraceMeta& meta) {
  const bool imported = meta.source.rfind("kineto", 0) == 0 || meta.source.rfind("nsys", 0) == 0;
  return "has no program (trace schema " + std::to_string(meta.schema_version) +
         ": records only; the program is what `flashsim capture` records, schema 2 and later): " +
         (imported ? "import it again with the option program: on" : "capture it with `flashsim capture`");
}

ProgramPrediction run_program(const TraceMeta& meta, const std::vector<AccessRecord>& records,
                              const HardwareProfile& hardware, const ExecutorOptions& options) {
  if (!meta.program || meta.program->empty()) {
    throw InputError("trace '" + meta.source + "' " + no_program_reason(meta));
  }
  if (const std::string problem = check_program(*meta.program, records.size()); !problem.empty()) {
    throw InputError("trace '" + meta.source + "': program: " + problem);
  }
  Executor e(meta, records, hardware, options);
  return e.run();
}

}  // namespace flashsim
