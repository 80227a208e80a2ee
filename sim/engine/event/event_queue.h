// The engine's pending-event set: a binary min-heap of small POD events
// ordered by (time_ns, sequence), with one event held in front of it. The sequence number is the order of
// push(), so events at the same ns pop in the order they were scheduled
// and a run is deterministic whatever the heap's internal layout.
#pragma once
#include <cstdint>
#include <vector>

#include "sim/core/units.h"

namespace flashsim {

struct Event {
  Nanoseconds time_ns = 0;
  std::uint64_t sequence = 0;  ///< assigned by push(); breaks ties in time
  std::uint32_t kind = 0;      ///< meaning is the engine's
  std::uint32_t a = 0;         ///< payload (stream, fetch, link index)
  std::uint64_t b = 0;         ///< payload (generation, tag)
};

class EventQueue {
 public:
  void reserve(std::size_t n) { heap_.reserve(n); }
  bool empty() const { return !has_slot_ && heap_.empty(); }
  std::size_t size() const { return heap_.size() + (has_slot_ ? 1 : 0); }
  /// Number of events pushed so far (the next sequence number).
  std::uint64_t pushed() const { return next_sequence_; }

  /// Schedules an event; O(log n), no allocation once the heap has grown.
  void push(Nanoseconds time_ns, std::uint32_t kind, std::uint32_t a = 0, std::uint64_t b = 0) {
    const Event e{time_ns, next_sequence_++, kind, a, b};
    // One event waits in a slot in front of the heap: an event pushed and
    // popped next (a stream's next access after a hit) never touches the heap.
    if (!has_slot_) {
      slot_ = e;
      has_slot_ = true;
    } else if (before(e, slot_)) {
      heap_push(slot_);
      slot_ = e;
    } else {
      heap_push(e);
    }
  }

  /// The earliest event (smallest time, then smallest sequence). Precondition: !empty().
  const Event& top() const {
    if (has_slot_ && (heap_.empty() || before(slot_, heap_.front()))) return slot_;
    return heap_.front();
  }

  /// Removes and returns top(). Precondition: !empty().
  Event pop() {
    if (has_slot_ && (heap_.empty() || before(slot_, heap_.front()))) {
      has_slot_ = false;
      return slot_;
    }
    const Event out = heap_.front();
    const Event last = heap_.back();
    heap_.pop_back();
    if (!heap_.empty()) sift_down(last);
    return out;
  }

 private:
  static bool before(const Event& x, const Event& y) {
    return x.time_ns < y.time_ns || (x.time_ns == y.time_ns && x.sequence < y.sequence);
  }
  void heap_push(const Event& e) {
    heap_.push_back(e);
    std::size_t i = heap_.size() - 1;
    while (i > 0) {
      const std::size_t parent = (i - 1) / 2;
      if (!before(e, heap_[parent])) break;
      heap_[i] = heap_[parent];
      i = parent;
    }
    heap_[i] = e;
  }
  // Places `e` starting from the root (the slot vacated by pop()).
  void sift_down(const Event& e) {
    const std::size_t n = heap_.size();
    std::size_t i = 0;
    for (;;) {
      std::size_t child = 2 * i + 1;
      if (child >= n) break;
      if (child + 1 < n && before(heap_[child + 1], heap_[child])) ++child;
      if (!before(heap_[child], e)) break;
      heap_[i] = heap_[child];
      i = child;
    }
    heap_[i] = e;
  }

  std::vector<Event> heap_;
  Event slot_;
  bool has_slot_ = false;
  std::uint64_t next_sequence_ = 0;
};

}  // namespace flashsim
