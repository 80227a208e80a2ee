#include "sim/engine/program/program_prefetch.h"

#include <vector>

#include "sim/core/errors.h"

namespace flashsim {
namespace {

bool prefetchable(const ProgramOp& op) { return op.kind == ProgramOpKind::copy && op.direction == CopyDirection::h2d; }

}  // namespace

Program with_prefetch(const Program& program, std::size_t distance) {
  if (distance > 1024) throw InputError("prefetch distance " + std::to_string(distance) + ": at most 1024 copies");
  Program out;
  out.thread_count = program.thread_count;
  out.stream_count = program.stream_count + program.thread_count;  // one copy stream per thread
  out.step_rule = program.step_rule;
  // Per thread: the op indices of its H2D copies, in order, and each copy's event.
  std::vector<std::vector<std::size_t>> copies(program.thread_count);
  std::vector<std::uint32_t> event_of(program.ops.size(), kNoEvent);
  std::uint32_t next_event = program.event_count;
  for (std::size_t i = 0; i < program.ops.size(); ++i) {
    if (!prefetchable(program.ops[i])) continue;
    copies[program.ops[i].thread].push_back(i);
    event_of[i] = next_event++;
  }
  out.event_count = next_event;
  std::vector<std::size_t> issued(program.thread_count, 0), seen(program.thread_count, 0);
  out.ops.reserve(program.ops.size() + 3 * event_of.size());
  for (std::size_t i = 0; i < program.ops.size(); ++i) {
    const ProgramOp& op = program.ops[i];
    if (!prefetchable(op)) {
      out.ops.push_back(op);
      continue;
    }
    const std::uint32_t t = op.thread;
    const std::uint32_t side = program.stream_count + t;
    const std::size_t j = seen[t]++;
    const Nanoseconds at = op.host_start_ns;
    // Issue every copy up to j + distance not yet issued, here.
    for (; issued[t] < copies[t].size() && issued[t] <= j + distance; ++issued[t]) {
      const std::size_t k = copies[t][issued[t]];
      ProgramOp copy = program.ops[k];
      copy.stream = side;
      copy.blocking = false;
      copy.host_start_ns = copy.host_end_ns = at;
      out.ops.push_back(copy);
      ProgramOp record;
      record.kind = ProgramOpKind::event_record;
      record.thread = t;
      record.stream = side;
      record.event = event_of[k];
      record.host_start_ns = record.host_end_ns = at;
      out.ops.push_back(record);
    }
    ProgramOp wait;
    wait.kind = ProgramOpKind::stream_wait_event;
    wait.thread = t;
    wait.stream = op.stream;
    wait.event = event_of[i];
    wait.host_start_ns = at;
    wait.host_end_ns = op.host_end_ns;  // the next call's recorded gap stays the same
    out.ops.push_back(wait);
  }
  return out;
}

}  // namespace flashsim
