#include "traces/program.h"

#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

namespace flashsim {

namespace {
const CaptureCallCost* find_call(const CaptureHost& h, std::string_view call) {
  for (const CaptureCallCost& c : h.call_costs) {
    if (c.call == call) return &c;
  }
  return nullptr;
}
}  // namespace

Nanoseconds CaptureHost::gap_ns(std::string_view call) const {
  if (const CaptureCallCost* c = find_call(*this, call)) return c->recorded_gap_ns;
  if (call_costs.empty()) return 0;
  std::vector<Nanoseconds> all;
  for (const CaptureCallCost& c : call_costs) all.push_back(c.recorded_gap_ns);
  std::sort(all.begin(), all.end());
  const std::size_t n = all.size();
  return n % 2 == 1 ? all[n / 2] : all[n / 2 - 1] + (all[n / 2] - all[n / 2 - 1]) / 2;  // no overflow
}

Nanoseconds CaptureHost::inside_ns(std::string_view call) const {
  const CaptureCallCost* c = find_call(*this, call);
  if (c == nullptr) return 0;
  return std::max<Nanoseconds>(0, c->captured_ns - c->plain_ns - c->recorded_gap_ns);
}

std::string_view probe_call_for(const ProgramOp& op) {
  switch (op.kind) {
    case ProgramOpKind::kernel: return "launch";
    case ProgramOpKind::copy:
    case ProgramOpKind::memset: return op.blocking ? "sync_copy" : "copy_async";
    case ProgramOpKind::event_record: return "event_record";
    case ProgramOpKind::stream_wait_event: return "stream_wait_event";
    case ProgramOpKind::stream_sync: return "stream_sync";
    case ProgramOpKind::event_sync: return "event_sync";
    case ProgramOpKind::device_sync: return "device_sync";
    case ProgramOpKind::host: return "host_call";
    case ProgramOpKind::step: return "";
  }
  return "";
}

bool is_probe_call(std::string_view name) {
  return std::find(std::begin(kProbeCalls), std::end(kProbeCalls), name) != std::end(kProbeCalls);
}

std::string describe_capture_host(const CaptureHost& h) {
  auto points = [](const std::vector<CopyTimePoint>& c) {
    std::uint64_t copies = 0;
    for (const CopyTimePoint& p : c) copies += p.copies;
    return c.empty() ? std::string("none") : std::to_string(c.size()) + " sizes from " + std::to_string(copies) + " copies";
  };
  std::string s = "host facts: residency of pageable D2H destinations " +
                  std::string(h.residency_recorded ? "recorded" : "not recorded") + "; pageable curves H2D " +
                  points(h.pageable_h2d) + ", D2H " + points(h.pageable_d2h) + ", D2H fresh " +
                  points(h.pageable_d2h_fresh) + "; capture cost per call ";
  if (h.call_costs.empty()) return s + "not measured";
  char buf[96];
  std::snprintf(buf, sizeof buf, "measured (%zu calls; recorded gap median %lld ns)", h.call_costs.size(),
                static_cast<long long>(h.gap_ns("")));
  return s + buf;
}

std::string describe_program(const Program& program) {
  std::uint64_t steps = 0, copies = 0, kernels = 0;
  for (const ProgramOp& op : program.ops) {
    steps += op.kind == ProgramOpKind::step;
    copies += op.kind == ProgramOpKind::copy;
    kernels += op.kind == ProgramOpKind::kernel;
  }
  return std::to_string(program.ops.size()) + " ops (" + std::to_string(kernels) + " kernels, " +
         std::to_string(copies) + " copies) on " + std::to_string(program.thread_count) + " host thread(s), " +
         std::to_string(program.stream_count) + " stream(s), " + std::to_string(program.event_count) + " event(s); " +
         std::to_string(steps) + " step marks" + (program.step_rule.empty() ? "" : " (" + program.step_rule + ")");
}

std::string check_program(const Program& program, std::uint64_t record_count) {
  // Counts beyond the ops are corrupt (each thread, stream and event is named by an op).
  const std::uint64_t most = program.ops.size() + 1;
  if (program.thread_count > most || program.stream_count > most || program.event_count > most) {
    return "thread_count " + std::to_string(program.thread_count) + ", stream_count " +
           std::to_string(program.stream_count) + ", event_count " + std::to_string(program.event_count) +
           ": more than the " + std::to_string(program.ops.size()) + " ops could name";
  }
  Nanoseconds last = 0;
  for (std::size_t i = 0; i < program.ops.size(); ++i) {
    const ProgramOp& op = program.ops[i];
    const std::string at = "op " + std::to_string(i) + ": ";
    if (static_cast<unsigned>(op.kind) > static_cast<unsigned>(ProgramOpKind::step)) return at + "unknown kind";
    if (op.thread >= program.thread_count) return at + "thread " + std::to_string(op.thread) + " out of range";
    if (op.host_start_ns < 0) return at + "negative host time";
    if (op.host_end_ns < op.host_start_ns) return at + "host end before host start";
    if (op.gpu_ns < 0 || op.gpu_start_ns < 0) return at + "negative GPU time";
    if (op.bytes > (ByteCount{1} << 50)) return at + std::to_string(op.bytes) + " bytes (more than 1 PiB)";
    if (op.host_start_ns < last) return at + "host start before the previous op's (ops must be in host order)";
    last = op.host_start_ns;
    const bool needs_stream = op.kind == ProgramOpKind::kernel || op.kind == ProgramOpKind::copy ||
                              op.kind == ProgramOpKind::memset || op.kind == ProgramOpKind::event_record ||
                              op.kind == ProgramOpKind::stream_wait_event || op.kind == ProgramOpKind::stream_sync;
    if (needs_stream && op.stream >= program.stream_count) return at + "stream out of range";
    const bool needs_event = op.kind == ProgramOpKind::event_record || op.kind == ProgramOpKind::stream_wait_event ||
                             op.kind == ProgramOpKind::event_sync;
    if (needs_event && op.event >= program.event_count) return at + "event out of range";
    if (op.first_access != kNoAccess && (op.first_access >= record_count || op.access_count == 0 ||
                                         op.first_access + op.access_count > record_count)) {
      return at + "access records [" + std::to_string(op.first_access) + ", +" + std::to_string(op.access_count) +
             ") outside the trace's " + std::to_string(record_count);
    }
    if (static_cast<unsigned>(op.direction) > 3 || static_cast<unsigned>(op.host_memory) > 2) return at + "bad copy kind";
    if (op.host_fresh_bytes > op.bytes) {
      return at + "host_fresh_bytes " + std::to_string(op.host_fresh_bytes) + " exceeds its bytes " + std::to_string(op.bytes);
    }
  }
  return "";
}

}  // namespace flashsim
