#include "traces/program.h"

#include <string>

namespace flashsim {

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
  }
  return "";
}

}  // namespace flashsim
