#include "sim/prefetch/windowed_hit_ratio.h"

#include "sim/core/errors.h"

namespace flashsim {

WindowedHitRatio::WindowedHitRatio(std::uint64_t window_accesses, Nanoseconds window_ns)
    : window_accesses_(window_accesses), window_ns_(window_ns) {
  if (window_ns_ == 0 && window_accesses_ == 0)
    throw InputError("hit-ratio window: window (accesses) and window_time are both 0");
  if (window_ns_ == 0) bits_.assign(window_accesses_, 0);
  else ring_.resize(16);
}

void WindowedHitRatio::push(Entry e) {
  if (count_ == ring_.size()) {  // grow (time windows only): unroll into a ring twice the size
    std::vector<Entry> grown(ring_.size() * 2);
    for (std::uint64_t i = 0; i < count_; ++i) grown[i] = ring_[(head_ + i) & (ring_.size() - 1)];
    ring_.swap(grown);
    head_ = 0;
  }
  ring_[(head_ + count_) & (ring_.size() - 1)] = e;
  ++count_;
  if (e.hit) ++hits_;
}

void WindowedHitRatio::pop() {
  if (ring_[head_].hit) --hits_;
  head_ = (head_ + 1) & (ring_.size() - 1);
  --count_;
}

void WindowedHitRatio::add(Nanoseconds now_ns, bool hit) {
  if (!started_) {
    started_ = true;
    first_ns_ = now_ns;
  }
  if (window_ns_ == 0) {  // head_ is the next slot to write, the oldest once full
    if (count_ == window_accesses_) hits_ -= bits_[head_];
    else ++count_;
    bits_[head_] = hit ? 1 : 0;
    hits_ += bits_[head_];
    head_ = head_ + 1 == window_accesses_ ? 0 : head_ + 1;
    if (count_ == window_accesses_) full_ = true;
    return;
  }
  push({now_ns, hit});
  // Keep accesses with time > now - window: the window is (now - W, now].
  while (count_ > 0 && now_ns - ring_[head_].time_ns >= window_ns_) pop();
  if (now_ns - first_ns_ >= window_ns_) full_ = true;
}

}  // namespace flashsim
