// The union of time intervals, queried for the covered time inside any
// window in O(log n): kernel busy time of a capture, copy-engine busy time
// of a step. Add every interval, build() once, then query.
#pragma once
#include <algorithm>
#include <cstdint>
#include <utility>
#include <vector>

namespace flashsim {

class IntervalUnion {
 public:
  /// Adds [begin, end) (ns); an empty or reversed interval covers nothing.
  void add(std::uint64_t begin, std::uint64_t end) {
    if (end > begin) raw_.emplace_back(begin, end);
  }
  /// Merges overlapping intervals; call after the last add().
  void build() {
    std::sort(raw_.begin(), raw_.end());
    begin_.clear();
    end_.clear();
    for (const auto& [b, e] : raw_) {
      if (!begin_.empty() && b <= end_.back()) {
        end_.back() = std::max(end_.back(), e);
      } else {
        begin_.push_back(b);
        end_.push_back(e);
      }
    }
    prefix_.assign(begin_.size() + 1, 0);
    for (std::size_t i = 0; i < begin_.size(); ++i) prefix_[i + 1] = prefix_[i] + (end_[i] - begin_[i]);
  }
  /// Covered ns in all.
  std::uint64_t total() const { return prefix_.empty() ? 0 : prefix_.back(); }
  /// End of the last interval (0 when empty).
  std::uint64_t last_end() const { return end_.empty() ? 0 : end_.back(); }
  /// Covered ns inside [a, b).
  std::uint64_t between(std::uint64_t a, std::uint64_t b) const {
    if (b <= a) return 0;
    return upto(b) - upto(a);
  }

 private:
  std::uint64_t upto(std::uint64_t t) const {  // covered ns before t
    const std::size_t i = static_cast<std::size_t>(std::upper_bound(begin_.begin(), begin_.end(), t) - begin_.begin());
    if (i == 0) return 0;
    return prefix_[i - 1] + (std::min(t, end_[i - 1]) - begin_[i - 1]);
  }
  std::vector<std::pair<std::uint64_t, std::uint64_t>> raw_;
  std::vector<std::uint64_t> begin_, end_, prefix_;
};

}  // namespace flashsim
