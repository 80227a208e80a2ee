// A small per-stream record for prefetchers that follow each stream's own
// sequence (continuous batching interleaves requests on several streams).
// Stream ids below 4096 index a vector; larger ones go to a hash map.
#pragma once
#include <cstdint>
#include <vector>

#include "sim/core/hash_map.h"

namespace flashsim {

template <class T>
class PerStream {
 public:
  explicit PerStream(T fill = T{}) : fill_(fill) {}
  /// The record of `stream`, created as `fill` on first use.
  T& at(std::uint32_t stream) {
    if (stream < kDirect) {
      if (stream >= direct_.size()) direct_.resize(stream + 1, fill_);
      return direct_[stream];
    }
    return sparse_.try_emplace(stream, fill_).first->second;
  }

 private:
  static constexpr std::uint32_t kDirect = 4096;
  T fill_;
  std::vector<T> direct_;
  HashMap<std::uint32_t, T> sparse_;
};

}  // namespace flashsim
