#include "traces/record_validator.h"

namespace flashsim {

std::string RecordValidator::check(const AccessRecord& record) {
  if (record.bytes == 0) return "bytes == 0 (every access touches at least one byte)";
  if (record.op != AccessOp::read && record.op != AccessOp::write) {
    return "op = " + std::to_string(static_cast<int>(record.op)) + " is neither read (0) nor write (1)";
  }
  if (static_cast<int>(record.phase) > static_cast<int>(Phase::decode)) {
    return "phase = " + std::to_string(static_cast<int>(record.phase)) +
           " is not unknown (0), prefill (1) or decode (2)";
  }
  auto [it, inserted] = last_time_ns_.try_emplace(record.stream_id, record.time_ns);
  if (!inserted) {
    if (record.time_ns < it->second) {
      return "time goes backwards in stream " + std::to_string(record.stream_id) + ": " +
             std::to_string(record.time_ns) + " ns after " + std::to_string(it->second) + " ns";
    }
    it->second = record.time_ns;
  }
  return {};
}

}  // namespace flashsim
