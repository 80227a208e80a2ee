// Hit ratio over a sliding window: the last W accesses (a count window) or
// the accesses of the last `window_ns` of decision-clock time (a time
// window). Used by the seed's hit-ratio controller (seeds/000 §1: the
// X-Flash-Hit-Ratio its serving layer computes "in real time").
// O(1) amortised per access; no allocation once the window has grown.
#pragma once
#include <cstdint>
#include <vector>

#include "sim/core/units.h"

namespace flashsim {

class WindowedHitRatio {
 public:
  /// A count window of `window_accesses` (>= 1) when `window_ns` == 0,
  /// otherwise a time window of `window_ns` (then `window_accesses` is
  /// ignored). Throws InputError when both are 0.
  WindowedHitRatio(std::uint64_t window_accesses, Nanoseconds window_ns);

  /// Records one access at decision-clock time `now_ns` (non-decreasing).
  void add(Nanoseconds now_ns, bool hit);

  /// True once the window has filled: W accesses seen (count), or the clock
  /// has advanced `window_ns` past the first access (time). Before that the
  /// ratio covers less than a window and a controller should not act on it.
  bool full() const { return full_; }
  std::uint64_t accesses() const { return count_; }  ///< accesses in the window now
  std::uint64_t hits() const { return hits_; }
  /// hits / accesses in the window; 0 when empty.
  double ratio() const { return count_ ? static_cast<double>(hits_) / static_cast<double>(count_) : 0.0; }

 private:
  struct Entry {
    Nanoseconds time_ns;
    bool hit;
  };
  void push(Entry e);
  void pop();

  std::uint64_t window_accesses_;
  Nanoseconds window_ns_;
  std::vector<std::uint8_t> bits_;  ///< count window: the last W outcomes, ring at head_
  std::vector<Entry> ring_;         ///< time window: power-of-two capacity
  std::uint64_t head_ = 0;          ///< oldest entry
  std::uint64_t count_ = 0;
  std::uint64_t hits_ = 0;
  bool full_ = false;
  bool started_ = false;
  Nanoseconds first_ns_ = 0;
};

}  // namespace flashsim
