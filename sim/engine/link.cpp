#include "sim/engine/link.h"

#include <cmath>
#include <string>

#include "sim/core/errors.h"
#include "sim/engine/engine.h"

namespace flashsim {

namespace {
// Completion times are computed in double ns; a completion this close to an
// integer ns is taken to happen at that ns (guards against 2e6 becoming
// 2000000.0000000002 and rounding up to the next ns).
constexpr double kTimeSlackNs = 1e-6;

Nanoseconds ceil_ns(double t) { return static_cast<Nanoseconds>(std::ceil(t - kTimeSlackNs)); }
}  // namespace

void BusyWindows::add(Nanoseconds begin_ns, Nanoseconds end_ns) {
  if (end_ns <= begin_ns) return;
  total_ns_ += end_ns - begin_ns;
  if (window_ns_ <= 0) {
    if (busy_ns_.empty()) busy_ns_.resize(1, 0);
    busy_ns_[0] += end_ns - begin_ns;
    return;
  }
  const auto last = static_cast<std::size_t>((end_ns - 1) / window_ns_);
  if (busy_ns_.size() <= last) {
    check_window_index(last, window_ns_);
    busy_ns_.resize(last + 1, 0);
  }
  Nanoseconds t = begin_ns;
  while (t < end_ns) {
    const auto k = static_cast<std::size_t>(t / window_ns_);
    const Nanoseconds window_end = static_cast<Nanoseconds>(k + 1) * window_ns_;
    const Nanoseconds stop = end_ns < window_end ? end_ns : window_end;
    busy_ns_[k] += stop - t;
    t = stop;
  }
}

Link::Link(const LinkSpec& spec, Nanoseconds window_ns)
    : spec_(spec), bytes_per_ns_(spec.bandwidth / 1e9), busy_(window_ns) {
  if (!(spec.bandwidth > 0)) throw InputError("link: bandwidth must be > 0 bytes/s");
  if (spec.latency_ns < 0) throw InputError("link: latency must be >= 0 ns");
}

Nanoseconds Link::submit(Nanoseconds now_ns, ByteCount bytes, std::uint64_t tag) {
  ++transfers_;
  bytes_ += bytes;
  if (!fair()) {
    const Nanoseconds start = now_ns > free_at_ns_ ? now_ns : free_at_ns_;
    const Nanoseconds flow = start + spec_.latency_ns;
    const Nanoseconds end = flow + transfer_time_ns(bytes, spec_.bandwidth);
    free_at_ns_ = end;
    busy_.add(flow, end);
    return end;
  }
  waiting_.push_back(Waiting{now_ns + spec_.latency_ns, bytes, sequence_++, tag});
  ++generation_;
  return kNeverNs;
}

double Link::completion_real_ns() const {
  const Flowing& first = flowing_.front();
  return clock_ns_ + (first.finish_bytes - virtual_bytes_) * static_cast<double>(flowing_.size()) / bytes_per_ns_;
}

Nanoseconds Link::next_event_ns() const {
  Nanoseconds next = kNeverNs;
  if (!flowing_.empty()) next = ceil_ns(completion_real_ns());
  if (!waiting_.empty() && waiting_.front().start_flow_ns < next) next = waiting_.front().start_flow_ns;
  return next;
}

void Link::move_clock(double to_ns) {
  if (to_ns < clock_ns_) to_ns = clock_ns_;
  if (!flowing_.empty()) {
    virtual_bytes_ += (to_ns - clock_ns_) * bytes_per_ns_ / static_cast<double>(flowing_.size());
  }
  clock_ns_ = to_ns;
}

void Link::advance(Nanoseconds now_ns, std::vector<std::uint64_t>* completed) {
  if (!fair()) return;
  const double now = static_cast<double>(now_ns);
  for (;;) {
    const double tc = flowing_.empty() ? HUGE_VAL : completion_real_ns();
    const double ta = waiting_.empty() ? HUGE_VAL : static_cast<double>(waiting_.front().start_flow_ns);
    if (tc <= ta + kTimeSlackNs && tc <= now + kTimeSlackNs) {
      // At tc the first flowing transfer has received exactly its bytes:
      // set virtual time to its finish tag rather than accumulate rounding.
      if (tc > clock_ns_) clock_ns_ = tc;
      const Flowing done = heap_pop();
      virtual_bytes_ = done.finish_bytes;
      if (completed) completed->push_back(done.tag);
      if (flowing_.empty()) busy_.add(std::llround(busy_since_ns_), std::llround(clock_ns_));
      ++generation_;
    } else if (ta <= now) {
      const Waiting w = waiting_.front();
      waiting_.pop_front();
      move_clock(ta);
      if (flowing_.empty()) busy_since_ns_ = clock_ns_;
      heap_push(Flowing{virtual_bytes_ + static_cast<double>(w.bytes), w.sequence, w.tag});
      ++generation_;
    } else {
      break;
    }
  }
}

namespace {
bool earlier(double f1, std::uint64_t s1, double f2, std::uint64_t s2) { return f1 < f2 || (f1 == f2 && s1 < s2); }
}  // namespace

void Link::heap_push(const Flowing& f) {
  flowing_.push_back(f);
  std::size_t i = flowing_.size() - 1;
  while (i > 0) {
    const std::size_t parent = (i - 1) / 2;
    if (!earlier(f.finish_bytes, f.sequence, flowing_[parent].finish_bytes, flowing_[parent].sequence)) break;
    flowing_[i] = flowing_[parent];
    i = parent;
  }
  flowing_[i] = f;
}

Link::Flowing Link::heap_pop() {
  const Flowing out = flowing_.front();
  const Flowing last = flowing_.back();
  flowing_.pop_back();
  const std::size_t n = flowing_.size();
  if (n == 0) return out;
  std::size_t i = 0;
  for (;;) {
    std::size_t c = 2 * i + 1;
    if (c >= n) break;
    if (c + 1 < n && earlier(flowing_[c + 1].finish_bytes, flowing_[c + 1].sequence, flowing_[c].finish_bytes,
                             flowing_[c].sequence)) {
      ++c;
    }
    if (!earlier(flowing_[c].finish_bytes, flowing_[c].sequence, last.finish_bytes, last.sequence)) break;
    flowing_[i] = flowing_[c];
    i = c;
  }
  flowing_[i] = last;
  return out;
}

}  // namespace flashsim
