#include "traces/importers/kineto_program.h"

#include <algorithm>
#include <map>
#include <unordered_map>

#include "sim/core/errors.h"

namespace flashsim {

namespace {

using Event = KinetoProgramEvent;

/// Weight record index per gpu_memcpy event: the records' times are GPU
/// starts relative to the first weight copy; find that copy's start (the
/// first HtoD copy of the first record's size whose offsets place every
/// record on a copy of its size).
std::unordered_map<const Event*, std::uint64_t> match_records(const std::vector<const Event*>& h2d,
                                                              const std::vector<AccessRecord>& records) {
  std::unordered_map<const Event*, std::uint64_t> out;
  if (records.empty()) return out;
  std::multimap<Nanoseconds, const Event*> by_ts;
  for (const Event* e : h2d) by_ts.emplace(e->ts_ns, e);
  auto at = [&](Nanoseconds t, ByteCount bytes) -> const Event* {
    auto [lo, hi] = by_ts.equal_range(t);
    for (auto it = lo; it != hi; ++it) {
      if (it->second->bytes == bytes) return it->second;
    }
    return nullptr;
  };
  for (const Event* first : h2d) {
    if (first->bytes != records[0].bytes) continue;
    const Nanoseconds origin = first->ts_ns - records[0].time_ns;
    std::unordered_map<const Event*, std::uint64_t> candidate;
    bool ok = true;
    for (std::uint64_t i = 0; i < records.size() && ok; ++i) {
      const Event* e = at(origin + records[i].time_ns, records[i].bytes);
      ok = e != nullptr && candidate.emplace(e, i).second;
    }
    if (ok) return candidate;
  }
  return out;  // no consistent origin: copies stay without accesses
}

}  // namespace

Program kineto_program(std::vector<Event> events, const std::vector<AccessRecord>& records, const std::string& where) {
  Program prog;
  std::vector<const Event*> calls, h2d;
  std::unordered_map<std::uint64_t, std::vector<const Event*>> device_by_corr;
  for (const Event& e : events) {
    if (e.type == Event::Type::call) {
      calls.push_back(&e);
    } else {
      device_by_corr[e.correlation].push_back(&e);
      if (e.type == Event::Type::copy && e.name.find("HtoD") != std::string::npos) h2d.push_back(&e);
    }
  }
  if (calls.empty()) return prog;
  std::stable_sort(calls.begin(), calls.end(), [](const Event* a, const Event* b) {
    return std::tie(a->thread, a->ts_ns) < std::tie(b->thread, b->ts_ns);
  });
  const auto record_of = match_records(h2d, records);
  Nanoseconds origin = calls.front()->ts_ns;
  for (const Event* c : calls) origin = std::min(origin, c->ts_ns);

  std::map<std::uint64_t, std::uint32_t> threads, streams;
  auto dense = [](std::map<std::uint64_t, std::uint32_t>& m, std::uint64_t key) {
    return m.try_emplace(key, static_cast<std::uint32_t>(m.size())).first->second;
  };
  std::vector<ProgramOp> ops;
  std::unordered_map<std::uint32_t, std::uint32_t> last_stream;  // per thread
  std::int32_t token = -1;
  const Event* enclosing = nullptr;  // the runtime call the next calls may lie inside
  for (const Event* c : calls) {
    const bool driver = c->name.rfind("cu", 0) == 0 && c->name.rfind("cuda", 0) != 0;
    if (driver && enclosing != nullptr && enclosing->thread == c->thread &&
        c->ts_ns + c->dur_ns <= enclosing->ts_ns + enclosing->dur_ns) {
      continue;  // part of the runtime call around it (its device work joins by correlation anyway)
    }
    if (!driver) enclosing = c;
    ProgramOp op;
    op.thread = dense(threads, c->thread);
    op.host_start_ns = c->ts_ns - origin;
    op.host_end_ns = op.host_start_ns + std::max<Nanoseconds>(0, c->dur_ns);
    std::vector<const Event*> work;
    if (auto it = device_by_corr.find(c->correlation); it != device_by_corr.end()) work = it->second;
    std::stable_sort(work.begin(), work.end(), [](const Event* a, const Event* b) { return a->ts_ns < b->ts_ns; });
    if (work.empty()) {
      if (c->name.find("StreamSynchronize") != std::string::npos) {
        auto s = last_stream.find(op.thread);
        op.kind = s != last_stream.end() ? ProgramOpKind::stream_sync : ProgramOpKind::device_sync;
        if (s != last_stream.end()) op.stream = s->second;
      } else if (c->name.find("DeviceSynchronize") != std::string::npos) {
        op.kind = ProgramOpKind::device_sync;
      }
      ops.push_back(op);
      continue;
    }
    const bool async = c->name.find("Async") != std::string::npos;
    for (std::size_t k = 0; k < work.size(); ++k) {
      const Event& w = *work[k];
      ProgramOp d = op;
      if (k > 0) d.host_start_ns = d.host_end_ns;
      d.stream = dense(streams, w.stream);
      last_stream[d.thread] = d.stream;
      d.gpu_ns = std::max<Nanoseconds>(0, w.dur_ns);
      d.gpu_start_ns = std::max<Nanoseconds>(0, w.ts_ns - origin);
      d.bytes = w.bytes;
      if (w.type == Event::Type::kernel) {
        d.kind = ProgramOpKind::kernel;
      } else if (w.type == Event::Type::memset) {
        d.kind = ProgramOpKind::memset;
      } else {
        d.kind = ProgramOpKind::copy;
        d.direction = w.name.find("HtoD") != std::string::npos   ? CopyDirection::h2d
                      : w.name.find("DtoH") != std::string::npos ? CopyDirection::d2h
                      : w.name.find("DtoD") != std::string::npos ? CopyDirection::d2d
                                                                 : CopyDirection::other;
        d.host_memory = w.name.find("Pageable") != std::string::npos ? HostMemory::pageable
                        : w.name.find("Pinned") != std::string::npos ? HostMemory::pinned
                                                                     : HostMemory::none;
        d.blocking = !async;
        if (auto r = record_of.find(&w); r != record_of.end()) {
          d.first_access = r->second;
          d.access_count = 1;
          const std::int32_t t = records[r->second].token_index;
          if (t != token) {
            token = t;
            ops.push_back(step_op(d.thread, op.host_start_ns));
            prog.step_rule = "kineto passes";
          }
        }
      }
      ops.push_back(d);
    }
  }
  // Stable: ops of one instant keep the order they were pushed in.
  std::stable_sort(ops.begin(), ops.end(),
                   [](const ProgramOp& a, const ProgramOp& b) { return a.host_start_ns < b.host_start_ns; });
  prog.ops = std::move(ops);
  prog.thread_count = static_cast<std::uint32_t>(threads.size());
  prog.stream_count = static_cast<std::uint32_t>(streams.size());
  if (const std::string problem = check_program(prog, records.size()); !problem.empty()) {
    throw InputError(where + ": program: " + problem);
  }
  return prog;
}

}  // namespace flashsim
