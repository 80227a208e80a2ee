// What an access does to its block: a field of the trace record
// (traces/access_record.h) that policies also read (PolicyAccess::op).
#pragma once
#include <cstdint>

namespace flashsim {

enum class AccessOp : std::uint8_t { read = 0, write = 1 };

}  // namespace flashsim
