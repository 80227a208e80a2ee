#include "sim/engine/event/link.h"

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

Link::Link(const LinkSpec& spec, Nanoseconds window_ns, std::vector<double> class_weights)
    : spec_(spec), bytes_per_ns_(spec.bandwidth / 1e9), busy_(window_ns) {
  if (!(spec.bandwidth > 0)) throw InputError("link: bandwidth must be > 0 bytes/s");
  if (spec.latency_ns < 0) throw InputError("link: latency must be >= 0 ns");
  if (class_weights.empty()) class_weights.push_back(1.0);
  for (double w : class_weights) {
    if (!(w > 0)) throw InputError("link: class weights must be > 0");
  }
  if (class_weights.size() > 1) spec_.sharing = LinkSharing::fair;
  classes_.resize(class_weights.size());
  for (std::size_t i = 0; i < class_weights.size(); ++i) classes_[i].weight = class_weights[i];
}

Nanoseconds Link::submit(Nanoseconds now_ns, ByteCount bytes, std::uint64_t tag, std::uint32_t klass) {
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
  if (klass >= classes_.size()) klass = 0;
  waiting_.push_back(Waiting{now_ns + spec_.latency_ns, bytes, sequence_++, tag, klass});
  ++generation_;
  return kNeverNs;
}

double Link::completion_real_ns(const Class& c) const {
  const Flowing& first = c.flowing.front();
  return clock_ns_ + (first.finish_bytes - c.virtual_bytes) * static_cast<double>(c.flowing.size()) /
                         (bytes_per_ns_ * share(c));
}

std::size_t Link::first_class() const {
  std::size_t best = classes_.size();
  double best_t = HUGE_VAL;
  for (std::size_t i = 0; i < classes_.size(); ++i) {
    if (classes_[i].flowing.empty()) continue;
    const double t = completion_real_ns(classes_[i]);
    if (t < best_t) {
      best_t = t;
      best = i;
    }
  }
  return best;
}

Nanoseconds Link::next_event_ns() const {
  Nanoseconds next = kNeverNs;
  const std::size_t c = first_class();
  if (c < classes_.size()) next = ceil_ns(completion_real_ns(classes_[c]));
  if (!waiting_.empty() && waiting_.front().start_flow_ns < next) next = waiting_.front().start_flow_ns;
  return next;
}

void Link::move_clock(double to_ns) {
  if (to_ns < clock_ns_) to_ns = clock_ns_;
  if (flowing_count_ > 0) {
    for (Class& c : classes_) {
      if (c.flowing.empty()) continue;
      c.virtual_bytes += (to_ns - clock_ns_) * bytes_per_ns_ * share(c) / static_cast<double>(c.flowing.size());
    }
  }
  clock_ns_ = to_ns;
}

void Link::update_active_weight() {
  double w = 0.0;
  for (const Class& c : classes_) {
    if (!c.flowing.empty()) w += c.weight;
  }
  active_weight_ = w;
}

void Link::advance(Nanoseconds now_ns, std::vector<std::uint64_t>* completed) {
  if (!fair()) return;
  const double now = static_cast<double>(now_ns);
  for (;;) {
    const std::size_t ci = first_class();
    const double tc = ci < classes_.size() ? completion_real_ns(classes_[ci]) : HUGE_VAL;
    const double ta = waiting_.empty() ? HUGE_VAL : static_cast<double>(waiting_.front().start_flow_ns);
    if (tc <= ta + kTimeSlackNs && tc <= now + kTimeSlackNs) {
      // Every class's virtual time moves to tc; the finishing class's is set
      // to its finish tag rather than accumulating rounding.
      move_clock(tc);
      Class& c = classes_[ci];
      const Flowing done = heap_pop(c.flowing);
      c.virtual_bytes = done.finish_bytes;
      --flowing_count_;
      if (c.flowing.empty()) update_active_weight();
      if (completed) completed->push_back(done.tag);
      if (flowing_count_ == 0) busy_.add(std::llround(busy_since_ns_), std::llround(clock_ns_));
      ++generation_;
    } else if (ta <= now) {
      const Waiting w = waiting_.front();
      waiting_.pop_front();
      move_clock(ta);
      if (flowing_count_ == 0) busy_since_ns_ = clock_ns_;
      Class& c = classes_[w.klass];
      const bool was_idle = c.flowing.empty();
      heap_push(c.flowing, Flowing{c.virtual_bytes + static_cast<double>(w.bytes), w.sequence, w.tag});
      ++flowing_count_;
      if (was_idle) update_active_weight();
      ++generation_;
    } else {
      break;
    }
  }
}

namespace {
bool earlier(double f1, std::uint64_t s1, double f2, std::uint64_t s2) { return f1 < f2 || (f1 == f2 && s1 < s2); }
}  // namespace

void Link::heap_push(std::vector<Flowing>& heap, const Flowing& f) {
  heap.push_back(f);
  std::size_t i = heap.size() - 1;
  while (i > 0) {
    const std::size_t parent = (i - 1) / 2;
    if (!earlier(f.finish_bytes, f.sequence, heap[parent].finish_bytes, heap[parent].sequence)) break;
    heap[i] = heap[parent];
    i = parent;
  }
  heap[i] = f;
}

Link::Flowing Link::heap_pop(std::vector<Flowing>& heap) {
  const Flowing out = heap.front();
  const Flowing last = heap.back();
  heap.pop_back();
  const std::size_t n = heap.size();
  if (n == 0) return out;
  std::size_t i = 0;
  for (;;) {
    std::size_t c = 2 * i + 1;
    if (c >= n) break;
    if (c + 1 < n && earlier(heap[c + 1].finish_bytes, heap[c + 1].sequence, heap[c].finish_bytes,
                             heap[c].sequence)) {
      ++c;
    }
    if (!earlier(heap[c].finish_bytes, heap[c].sequence, last.finish_bytes, last.sequence)) break;
    heap[i] = heap[c];
    i = c;
  }
  heap[i] = last;
  return out;
}

}  // namespace flashsim
