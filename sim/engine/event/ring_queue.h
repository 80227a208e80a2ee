// A growable FIFO ring buffer: the per-stream queue of records read ahead
// from the trace. Grows by doubling; never shrinks, so a steady state
// allocates nothing.
#pragma once
#include <cstddef>
#include <vector>

namespace flashsim {

template <class T>
class RingQueue {
 public:
  bool empty() const { return size_ == 0; }
  std::size_t size() const { return size_; }
  /// Precondition: !empty().
  T& front() { return items_[head_]; }
  const T& front() const { return items_[head_]; }
  /// The i-th item from the front. Precondition: i < size().
  const T& at(std::size_t i) const { return items_[(head_ + i) & (items_.size() - 1)]; }
  void pop_front() {
    head_ = (head_ + 1) & (items_.size() - 1);
    --size_;
  }
  void push_back(const T& item) {
    if (size_ == items_.size()) grow();
    items_[(head_ + size_) & (items_.size() - 1)] = item;
    ++size_;
  }

 private:
  void grow() {
    std::vector<T> bigger(items_.empty() ? 16 : items_.size() * 2);
    for (std::size_t i = 0; i < size_; ++i) bigger[i] = items_[(head_ + i) & (items_.size() - 1)];
    items_.swap(bigger);
    head_ = 0;
  }
  std::vector<T> items_;  // capacity is a power of two
  std::size_t head_ = 0;
  std::size_t size_ = 0;
};

}  // namespace flashsim
