#include "sim/diagnose/program_health.h"

#include <algorithm>

#include "sim/core/errors.h"
#include "sim/core/interval_union.h"

namespace flashsim::diagnose {
namespace {

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2.0;
}

BytesPerSecond ceiling(BytesPerSecond execution, const HardwareProfile& hw) {
  if (execution > 0) return execution;
  return hw.tiers.size() > 1 ? hw.tiers[1].link_to_faster.bandwidth : 0;
}

}  // namespace

ProgramHealth measure_program_health(const Program& program, const HardwareProfile& hardware, std::size_t skip_steps) {
  ProgramHealth h;
  h.h2d_ceiling = ceiling(hardware.execution.h2d_bandwidth, hardware);
  h.d2h_ceiling = ceiling(hardware.execution.d2h_bandwidth, hardware);
  IntervalUnion h2d, d2h, kernels, copies_or_kernels;
  std::vector<Nanoseconds> marks;
  Nanoseconds gpu_begin = -1, gpu_end = 0;
  for (const ProgramOp& op : program.ops) {
    if (op.kind == ProgramOpKind::step) {
      marks.push_back(op.host_start_ns);
      continue;
    }
    const bool copy = op.kind == ProgramOpKind::copy &&
                      (op.direction == CopyDirection::h2d || op.direction == CopyDirection::d2h);
    if (!copy && op.kind != ProgramOpKind::kernel) continue;
    const auto b = static_cast<std::uint64_t>(std::max<Nanoseconds>(op.gpu_start_ns, 0));
    const auto e = b + static_cast<std::uint64_t>(std::max<Nanoseconds>(op.gpu_ns, 0));
    if (gpu_begin < 0 || op.gpu_start_ns < gpu_begin) gpu_begin = op.gpu_start_ns;
    gpu_end = std::max(gpu_end, static_cast<Nanoseconds>(e));
    copies_or_kernels.add(b, e);
    if (op.kind == ProgramOpKind::kernel) {
      kernels.add(b, e);
    } else {
      (op.direction == CopyDirection::h2d ? h2d : d2h).add(b, e);
    }
  }
  if (gpu_begin < 0) throw InputError("the program has no kernel and no host<->device copy: nothing to diagnose");
  for (auto* u : {&h2d, &d2h, &kernels, &copies_or_kernels}) u->build();
  std::sort(marks.begin(), marks.end());
  if (marks.size() < 2) {
    h.whole_program = true;
    marks = {gpu_begin, gpu_end};
    skip_steps = 0;
  }
  const std::size_t step_count = marks.size() - 1;
  if (skip_steps >= step_count) {
    throw InputError(std::to_string(step_count) + " step(s) between step marks (rule '" + program.step_rule +
                     "'); skipping " + std::to_string(skip_steps) + " leaves none");
  }
  h.skipped_steps = skip_steps;
  for (std::size_t i = skip_steps; i < step_count; ++i) {
    StepHealth s;
    s.start_ns = marks[i];
    s.duration_ns = marks[i + 1] - marks[i];
    const auto a = static_cast<std::uint64_t>(std::max<Nanoseconds>(marks[i], 0));
    const auto b = static_cast<std::uint64_t>(std::max<Nanoseconds>(marks[i + 1], 0));
    s.h2d_busy_ns = static_cast<Nanoseconds>(h2d.between(a, b));
    s.d2h_busy_ns = static_cast<Nanoseconds>(d2h.between(a, b));
    s.kernel_busy_ns = static_cast<Nanoseconds>(kernels.between(a, b));
    s.copy_stall_ns = static_cast<Nanoseconds>(copies_or_kernels.between(a, b)) - s.kernel_busy_ns;
    h.steps.push_back(s);
  }
  // Bytes by the step their copy started in (a binary search over the marks).
  for (const ProgramOp& op : program.ops) {
    if (op.kind != ProgramOpKind::copy || (op.direction != CopyDirection::h2d && op.direction != CopyDirection::d2h)) {
      continue;
    }
    const auto it = std::upper_bound(marks.begin(), marks.end(), op.gpu_start_ns);
    if (it == marks.begin() || it == marks.end()) continue;
    const std::size_t step = static_cast<std::size_t>(it - marks.begin()) - 1;
    if (step < skip_steps) continue;
    StepHealth& s = h.steps[step - skip_steps];
    (op.direction == CopyDirection::h2d ? s.h2d_bytes : s.d2h_bytes) += op.bytes;
  }
  std::vector<double> step_ms, load_ms, d2h_ms, h2d_use, d2h_use, stall, kernel_share;
  double h2d_bytes = 0, d2h_bytes = 0, h2d_busy = 0, d2h_busy = 0;
  for (StepHealth& s : h.steps) {
    h2d_bytes += static_cast<double>(s.h2d_bytes);
    d2h_bytes += static_cast<double>(s.d2h_bytes);
    h2d_busy += static_cast<double>(s.h2d_busy_ns);
    d2h_busy += static_cast<double>(s.d2h_busy_ns);
    const double sec = static_cast<double>(s.duration_ns) / 1e9;
    if (sec > 0 && h.h2d_ceiling > 0) s.h2d_utilisation = static_cast<double>(s.h2d_bytes) / sec / h.h2d_ceiling;
    if (sec > 0 && h.d2h_ceiling > 0) s.d2h_utilisation = static_cast<double>(s.d2h_bytes) / sec / h.d2h_ceiling;
    s.stall_share = s.duration_ns > 0 ? static_cast<double>(s.copy_stall_ns) / static_cast<double>(s.duration_ns) : 0;
    step_ms.push_back(static_cast<double>(s.duration_ns) / 1e6);
    load_ms.push_back(static_cast<double>(s.h2d_busy_ns) / 1e6);
    d2h_ms.push_back(static_cast<double>(s.d2h_busy_ns) / 1e6);
    h2d_use.push_back(s.h2d_utilisation);
    d2h_use.push_back(s.d2h_utilisation);
    stall.push_back(s.stall_share);
    kernel_share.push_back(s.duration_ns > 0 ? static_cast<double>(s.kernel_busy_ns) / static_cast<double>(s.duration_ns)
                                             : 0);
  }
  h.h2d_while_copying_bytes_per_s = h2d_busy > 0 ? h2d_bytes / h2d_busy * 1e9 : 0;
  h.d2h_while_copying_bytes_per_s = d2h_busy > 0 ? d2h_bytes / d2h_busy * 1e9 : 0;
  h.median_step_ms = median(step_ms);
  h.median_weight_load_ms = median(load_ms);
  h.median_d2h_ms = median(d2h_ms);
  h.median_h2d_utilisation = median(h2d_use);
  h.median_d2h_utilisation = median(d2h_use);
  h.median_stall_share = median(stall);
  h.median_kernel_share = median(kernel_share);
  return h;
}

}  // namespace flashsim::diagnose
