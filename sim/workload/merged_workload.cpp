#include "sim/workload/merged_workload.h"

#include <algorithm>

#include "sim/core/errors.h"
#include "sim/core/hash_map.h"

namespace flashsim {

namespace {

class MergedSource final : public ITraceSource {
 public:
  MergedSource(std::shared_ptr<const TraceMeta> meta, std::vector<std::unique_ptr<ITraceSource>> parts)
      : meta_(std::move(meta)), parts_(std::move(parts)), buffers_(parts_.size()), positions_(parts_.size(), 0) {
    for (auto& b : buffers_) b.resize(kChunk);
    sizes_.assign(parts_.size(), 0);
  }
  const TraceMeta& meta() const override { return *meta_; }
  std::size_t read(std::span<AccessRecord> out) override {
    std::size_t filled = 0;
    while (filled < out.size()) {
      std::size_t best = parts_.size();
      for (std::size_t k = 0; k < parts_.size(); ++k) {
        if (positions_[k] == sizes_[k]) {
          sizes_[k] = parts_[k]->read(buffers_[k]);
          positions_[k] = 0;
          if (sizes_[k] == 0) continue;
        }
        if (best == parts_.size() || buffers_[k][positions_[k]].time_ns < buffers_[best][positions_[best]].time_ns) {
          best = k;
        }
      }
      if (best == parts_.size()) break;
      out[filled++] = buffers_[best][positions_[best]++];
    }
    return filled;
  }
  void rewind() override {
    for (auto& p : parts_) p->rewind();
    std::fill(positions_.begin(), positions_.end(), 0);
    std::fill(sizes_.begin(), sizes_.end(), 0);
  }

 private:
  static constexpr std::size_t kChunk = 4096;
  std::shared_ptr<const TraceMeta> meta_;
  std::vector<std::unique_ptr<ITraceSource>> parts_;
  std::vector<std::vector<AccessRecord>> buffers_;
  std::vector<std::size_t> positions_, sizes_;
};

}  // namespace

MergedWorkload::MergedWorkload(std::vector<std::shared_ptr<const IWorkloadGenerator>> parts) : parts_(std::move(parts)), meta_(std::make_shared<TraceMeta>()) {
  HashMap<BlockId, std::size_t> owner;
  meta_->source = "merged workload:";
  for (std::size_t k = 0; k < parts_.size(); ++k) {
    const TraceMeta& m = parts_[k]->meta();
    meta_->source += (k ? " + " : " ") + m.source;
    for (const auto& e : m.catalog) {
      auto [it, added] = owner.emplace(e.id, k);
      if (!added) {
        throw Error("merged workload: block id " + std::to_string(e.id) + " (" + e.name + ") is in parts " +
                    std::to_string(it->second) + " and " + std::to_string(k));
      }
      meta_->catalog.push_back(e);
    }
    meta_->operators.insert(meta_->operators.end(), m.operators.begin(), m.operators.end());
  }
}

std::unique_ptr<ITraceSource> MergedWorkload::open() const {
  std::vector<std::unique_ptr<ITraceSource>> sources;
  for (const auto& p : parts_) sources.push_back(p->open());
  return std::make_unique<MergedSource>(meta_, std::move(sources));
}

}  // namespace flashsim
