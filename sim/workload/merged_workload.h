// Several workloads in one trace (two models sharing one fast tier): the
// catalogs and operator lists are concatenated, and the records merged by
// time_ns (ties: the earlier part first), each part keeping its own stream.
// Parts must use disjoint block ids and distinct streams; each part's
// operator ids must already be offset by the operators of the parts before
// it (ServingOptions::operator_base).
#pragma once
#include <memory>
#include <vector>

#include "sim/workload/i_workload_generator.h"

namespace flashsim {

class MergedWorkload final : public IWorkloadGenerator {
 public:
  /// Throws Error when two parts share a block id.
  explicit MergedWorkload(std::vector<std::shared_ptr<const IWorkloadGenerator>> parts);
  const TraceMeta& meta() const override { return *meta_; }
  std::unique_ptr<ITraceSource> open() const override;

 private:
  std::vector<std::shared_ptr<const IWorkloadGenerator>> parts_;
  std::shared_ptr<TraceMeta> meta_;  // shared with readers, which may outlive this
};

}  // namespace flashsim
