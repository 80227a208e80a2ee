#include "traces/importers/cupti_program.h"

#include <algorithm>
#include <limits>
#include <map>
#include <sstream>
#include <unordered_map>

#include "sim/core/errors.h"
#include "traces/importers/capture_host_facts.h"

namespace flashsim::capture {

namespace {

constexpr std::size_t kNone = std::numeric_limits<std::size_t>::max();

CopyDirection direction_of(CopyKind kind) {
  switch (kind) {
    case CopyKind::htod: return CopyDirection::h2d;
    case CopyKind::dtoh: return CopyDirection::d2h;
    case CopyKind::dtod:
    case CopyKind::ptop: return CopyDirection::d2d;
    default: return CopyDirection::other;
  }
}

HostMemory host_memory_of(MemoryKind kind) {
  switch (kind) {
    case MemoryKind::pinned: return HostMemory::pinned;
    case MemoryKind::pageable: return HostMemory::pageable;
    default: return HostMemory::none;
  }
}

/// The API calls of one process and how device records map onto them.
class CallIndex {
 public:
  explicit CallIndex(const RawCapture& c) : c_(c) {
    for (std::size_t i = 0; i < c.apis.size(); ++i) {
      (c.apis[i].domain == ApiDomain::runtime ? runtime_ : driver_)[c.apis[i].correlation_id] = i;
    }
    for (const RawLink& l : c.links) {
      if (runtime_.count(l.runtime_correlation_id) != 0) link_[l.driver_correlation_id] = l.runtime_correlation_id;
    }
    for (const RawApiName& n : c.api_names) names_[key(n.domain, n.cbid)] = n.name;
  }
  /// The top-level call that `corr` (and, for copies, `runtime_corr`) belongs to.
  std::size_t resolve(std::uint32_t corr, std::uint32_t runtime_corr) const {
    if (runtime_corr != 0) {
      if (auto it = runtime_.find(runtime_corr); it != runtime_.end()) return it->second;
    }
    if (auto l = link_.find(corr); l != link_.end()) return runtime_.at(l->second);
    if (auto it = driver_.find(corr); it != driver_.end()) return it->second;
    if (auto it = runtime_.find(corr); it != runtime_.end()) return it->second;
    return kNone;
  }
  /// A driver call made inside a runtime call is part of that call.
  bool top_level(std::size_t i) const {
    const RawApi& a = c_.apis[i];
    return a.domain == ApiDomain::runtime || link_.count(a.correlation_id) == 0;
  }
  const std::string& name(const RawApi& a) const {
    static const std::string unknown;
    auto it = names_.find(key(a.domain, a.cbid));
    return it != names_.end() ? it->second : unknown;
  }

 private:
  static std::uint64_t key(ApiDomain d, std::uint32_t cbid) { return (std::uint64_t{d == ApiDomain::driver} << 32) | cbid; }
  const RawCapture& c_;
  std::unordered_map<std::uint32_t, std::size_t> runtime_, driver_;
  std::unordered_map<std::uint32_t, std::uint32_t> link_;
  std::unordered_map<std::uint64_t, std::string> names_;
};

struct Dense {
  std::map<std::pair<std::uint32_t, std::uint32_t>, std::uint32_t> ids;
  std::uint32_t next = 0;
  std::uint32_t of(std::uint32_t process, std::uint32_t raw) {
    auto [it, added] = ids.try_emplace({process, raw}, next);
    if (added) ++next;
    return it->second;
  }
};

}  // namespace

Program build_program(const std::vector<RawCapture>& processes, const ConvertedCapture& converted,
                      const ProgramOptions& options, const std::string& source, ProgramReport* report) {
  Program prog;
  ProgramReport rep;
  std::uint64_t origin = std::numeric_limits<std::uint64_t>::max();
  for (const RawCapture& c : processes) {
    for (const RawApi& a : c.apis) origin = std::min(origin, a.start_ns);
  }
  if (origin == std::numeric_limits<std::uint64_t>::max()) return prog;  // format 1: no program
  for (const RawCapture& c : processes) {  // a mark before the first call keeps its place
    for (const RawMarker& m : c.markers) origin = std::min(origin, m.timestamp_ns);
  }
  auto rel = [&](std::uint64_t t) -> Nanoseconds { return t > origin ? static_cast<Nanoseconds>(t - origin) : 0; };

  // Streams keep the trace's dense numbering; streams seen only in
  // synchronisation records come after.
  Dense streams;
  for (const CaptureEvent& e : converted.events) {
    streams.ids.try_emplace({e.process, e.raw_stream}, e.stream);
    streams.next = std::max(streams.next, e.stream + 1);
  }
  Dense threads, events;
  std::vector<ProgramOp> ops;
  auto push = [&](const ProgramOp& op) { ops.push_back(op); };

  for (std::uint32_t p = 0; p < processes.size(); ++p) {
    const RawCapture& c = processes[p];
    if (c.apis.empty()) continue;
    const CallIndex index(c);
    std::vector<std::vector<std::size_t>> device_ops(c.apis.size());
    for (std::size_t i = 0; i < converted.events.size(); ++i) {
      const CaptureEvent& e = converted.events[i];
      if (e.process != p) continue;
      const std::size_t call = index.resolve(e.correlation_id, e.runtime_correlation_id);
      if (call == kNone) {
        ++rep.unmatched_device_ops;
        continue;
      }
      device_ops[call].push_back(i);
    }
    std::vector<const RawSync*> sync_of(c.apis.size(), nullptr);
    for (const RawSync& y : c.syncs) {
      if (const std::size_t call = index.resolve(y.correlation_id, 0); call != kNone) sync_of[call] = &y;
    }
    std::vector<const RawEventRecord*> record_of(c.apis.size(), nullptr);
    for (const RawEventRecord& v : c.event_records) {
      if (const std::size_t call = index.resolve(v.correlation_id, 0); call != kNone) record_of[call] = &v;
    }
    std::map<std::uint32_t, std::uint64_t> calls_per_thread;
    for (std::size_t i = 0; i < c.apis.size(); ++i) {
      if (!index.top_level(i)) continue;
      const RawApi& a = c.apis[i];
      ++rep.api_calls;
      ++calls_per_thread[a.thread];
      rep.api_host_ns += static_cast<Nanoseconds>(a.end_ns - a.start_ns);
      ProgramOp op;
      op.thread = threads.of(p, a.thread);
      op.host_start_ns = rel(a.start_ns);
      op.host_end_ns = std::max(op.host_start_ns, rel(a.end_ns));
      if (const RawSync* y = sync_of[i]; y != nullptr) {
        switch (y->type) {
          case SyncType::event_synchronize:
            op.kind = ProgramOpKind::event_sync;
            op.event = events.of(p, y->event_id);
            break;
          case SyncType::stream_wait_event:
            op.kind = ProgramOpKind::stream_wait_event;
            op.stream = streams.of(p, y->stream_id);
            op.event = events.of(p, y->event_id);
            ++rep.stream_waits;
            break;
          case SyncType::stream_synchronize:
            op.kind = ProgramOpKind::stream_sync;
            op.stream = streams.of(p, y->stream_id);
            break;
          case SyncType::context_synchronize: op.kind = ProgramOpKind::device_sync; break;
          default: break;
        }
        rep.syncs += op.kind != ProgramOpKind::stream_wait_event && op.kind != ProgramOpKind::host;
        push(op);
        continue;
      }
      if (const RawEventRecord* v = record_of[i]; v != nullptr) {
        op.kind = ProgramOpKind::event_record;
        op.stream = streams.of(p, v->stream_id);
        op.event = events.of(p, v->event_id);
        ++rep.event_records;
        push(op);
        continue;
      }
      std::vector<std::size_t>& mine = device_ops[i];
      if (mine.empty()) {
        push(op);  // host time only
        continue;
      }
      std::stable_sort(mine.begin(), mine.end(), [&](std::size_t x, std::size_t y) {
        return converted.events[x].start_ns < converted.events[y].start_ns;
      });
      const bool async = index.name(a).find("Async") != std::string::npos;
      for (std::size_t k = 0; k < mine.size(); ++k) {
        const CaptureEvent& e = converted.events[mine[k]];
        ProgramOp d = op;
        if (k > 0) d.host_start_ns = d.host_end_ns;  // the call's host time is counted once
        d.stream = e.stream;
        d.gpu_ns = static_cast<Nanoseconds>(std::max<std::int64_t>(0, e.end_ns - e.start_ns));
        d.gpu_start_ns = rel(static_cast<std::uint64_t>(e.start_ns + static_cast<std::int64_t>(converted.origin_ns)));
        d.bytes = e.bytes;
        switch (e.type) {
          case CaptureEvent::Type::kernel:
            d.kind = ProgramOpKind::kernel;
            ++rep.kernels;
            break;
          case CaptureEvent::Type::memset: d.kind = ProgramOpKind::memset; break;
          case CaptureEvent::Type::copy:
            d.kind = ProgramOpKind::copy;
            d.direction = direction_of(e.copy_kind);
            d.host_memory = d.direction == CopyDirection::h2d   ? host_memory_of(e.src_kind)
                            : d.direction == CopyDirection::d2h ? host_memory_of(e.dst_kind)
                                                                : HostMemory::none;
            d.blocking = !async;
            if (e.host_checked && d.direction == CopyDirection::d2h && d.host_memory == HostMemory::pageable) {
              d.host_fresh_bytes = e.host_fresh_bytes;
              prog.host.residency_recorded = true;
            }
            if (e.first_record != kNoAddress) {
              d.first_access = e.first_record;
              d.access_count = e.record_count;
            }
            ++rep.copies;
            break;
        }
        push(d);
      }
    }
    // Steps: NVTX marks on the thread that made them (or, if CUPTI named a
    // thread that made no call, the busiest thread).
    std::uint32_t busiest = 0;
    std::uint64_t most = 0;
    for (const auto& [tid, n] : calls_per_thread) {
      if (n > most) most = n, busiest = tid;
    }
    for (const RawMarker& m : c.markers) {
      if ((m.flags & (kMarkerInstantaneous | kMarkerStart)) == 0) continue;
      if (m.name == options.repeat_marker) prog.repeat_marks_ns.push_back(rel(m.timestamp_ns));
      if (m.name != options.step_marker && m.name != "flashsim.end") continue;
      push(step_op(threads.of(p, calls_per_thread.count(m.thread) != 0 ? m.thread : busiest), rel(m.timestamp_ns)));
      prog.step_rule = "nvtx:" + options.step_marker;
    }
  }
  // Stable: ops of one instant keep the order they were pushed in.
  std::stable_sort(ops.begin(), ops.end(),
                   [](const ProgramOp& a, const ProgramOp& b) { return a.host_start_ns < b.host_start_ns; });
  prog.ops = std::move(ops);

  auto insert_steps_before = [&](auto&& starts_step) {
    std::vector<ProgramOp> out;
    out.reserve(prog.ops.size() + 64);
    for (const ProgramOp& op : prog.ops) {
      if (starts_step(op)) out.push_back(step_op(op.thread, op.host_start_ns));
      out.push_back(op);
    }
    prog.ops = std::move(out);
  };
  if (prog.step_rule.empty() && !options.step_kernel.empty()) {
    // Kernel names live in the events; map each kernel op back by GPU start.
    std::map<Nanoseconds, bool> named;
    for (const CaptureEvent& e : converted.events) {
      if (e.type == CaptureEvent::Type::kernel && e.name.find(options.step_kernel) != std::string::npos) {
        named[rel(static_cast<std::uint64_t>(e.start_ns + static_cast<std::int64_t>(converted.origin_ns)))] = true;
      }
    }
    insert_steps_before([&](const ProgramOp& op) { return op.kind == ProgramOpKind::kernel && named.count(op.gpu_start_ns) != 0; });
    if (!named.empty()) prog.step_rule = "kernel:" + options.step_kernel;
  }
  if (prog.step_rule.empty()) {
    std::int32_t token = 0;
    bool any = false;
    insert_steps_before([&](const ProgramOp& op) {
      if (op.first_access == kNoAccess || op.first_access >= converted.records.size()) return false;
      const std::int32_t t = converted.records[op.first_access].token_index;
      const bool starts = converted.records[op.first_access].block_id == converted.report.marker_block &&
                          converted.records[op.first_access].op == AccessOp::read && (t > token || !any);
      if (starts) token = t, any = true;
      return starts;
    });
    if (any) prog.step_rule = "block:" + std::to_string(converted.report.marker_block);
  }
  for (const ProgramOp& op : prog.ops) rep.steps += op.kind == ProgramOpKind::step;
  std::sort(prog.repeat_marks_ns.begin(), prog.repeat_marks_ns.end());
  rep.repeat_marks = prog.repeat_marks_ns.size();
  fit_pageable_curves(prog);
  if (!options.probe_dir.empty()) prog.host.call_costs = read_probe_dir(options.probe_dir, rep.warnings);
  prog.thread_count = threads.next;
  prog.stream_count = streams.next;
  prog.event_count = events.next;
  rep.ops = prog.ops.size();
  rep.threads = prog.thread_count;
  rep.streams = prog.stream_count;
  rep.events = prog.event_count;
  if (const std::string problem = check_program(prog, converted.records.size()); !problem.empty()) {
    throw InputError(source + ": program: " + problem);
  }
  if (report != nullptr) *report = rep;
  return prog;
}

void attach_program(ConvertedCapture& converted, const std::vector<RawCapture>& processes,
                    const ProgramOptions& options, const std::string& source, ProgramReport* report) {
  Program program = build_program(processes, converted, options, source, report);
  if (program.empty()) return;
  converted.meta.schema_version = program.schema_version();
  converted.meta.program = std::make_shared<const Program>(std::move(program));
}

std::string describe(const ProgramReport& r) {
  std::ostringstream s;
  s << "program: " << r.api_calls << " API calls on " << r.threads << " host thread(s) ("
    << static_cast<double>(r.api_host_ns) / 1e6 << " ms inside them), " << r.kernels << " kernels, " << r.copies
    << " copies, " << r.syncs << " synchronisations, " << r.event_records << " event records, " << r.stream_waits
    << " stream waits on " << r.streams << " stream(s); " << r.steps << " step marks";
  if (r.repeat_marks != 0) s << ", " << r.repeat_marks << " repeat marks";
  if (r.unmatched_device_ops != 0) s << "; " << r.unmatched_device_ops << " device operations without an API call";
  return s.str();
}

}  // namespace flashsim::capture
