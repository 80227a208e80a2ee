#include "traces/record_validator.h"

namespace flashsim {

std::string RecordValidator::check_slow(const AccessRecord& record, std::uint64_t index) {
  if (record.bytes == 0) return "bytes == 0 (every access touches at least one byte)";
  if (record.bytes > kMaxRecordBytes) {
    return "bytes = " + std::to_string(record.bytes) + " is more than 2^48 (256 TiB): corrupt size";
  }
  if (record.next_use_index != kNeverAccessedAgain && record.next_use_index <= index) {
    return "next_use_index = " + std::to_string(record.next_use_index) + " is not after the record itself (index " +
           std::to_string(index) + ")";
  }
  if (record.op != AccessOp::read && record.op != AccessOp::write) {
    return "op = " + std::to_string(static_cast<int>(record.op)) + " is neither read (0) nor write (1)";
  }
  if (record.compute_ns < 0) {
    return "compute_ns = " + std::to_string(record.compute_ns) + " is negative (it is a duration)";
  }
  if (record.compute_ns > kMaxComputeNs) {
    return "compute_ns = " + std::to_string(record.compute_ns) + " is more than 2^40 ns (18 minutes for one access): corrupt duration";
  }
  if (record.time_ns < -kMaxAbsTimeNs || record.time_ns > kMaxAbsTimeNs) {
    return "time_ns = " + std::to_string(record.time_ns) + " is beyond ±2^62 ns (146 years): corrupt time";
  }
  if (static_cast<int>(record.phase) > static_cast<int>(Phase::decode)) {
    return "phase = " + std::to_string(static_cast<int>(record.phase)) +
           " is not unknown (0), prefill (1) or decode (2)";
  }
  Nanoseconds* last = nullptr;
  if (record.stream_id < kDirectStreams) {
    last = &direct_[record.stream_id];
  } else {
    last = &last_time_ns_.try_emplace(record.stream_id, kUnseen).first->second;
  }
  // kUnseen is the smallest time, so a stream's first record always passes.
  if (record.time_ns < *last) {
    return "time goes backwards in stream " + std::to_string(record.stream_id) + ": " +
           std::to_string(record.time_ns) + " ns after " + std::to_string(*last) + " ns";
  }
  *last = record.time_ns;
  return {};
}

}  // namespace flashsim
