// How much memory a command may plan to use: the default of the up-front
// memory checks (granularity pieces, generated catalogs), which compare an
// estimate against it instead of meeting std::bad_alloc hours later.
#pragma once
#include <string>

#include "sim/core/units.h"

namespace flashsim {

/// The memory this process can really get: the smallest of physical memory
/// (sysconf), the address-space limit (RLIMIT_AS, `ulimit -v`) and the
/// cgroup v2 limit (/sys/fs/cgroup/memory.max); 0 if none is known.
ByteCount available_memory_bytes();

/// 80% of available_memory_bytes() (room for the allocator, the libraries
/// and the results); 0 if unknown (then the checks are off).
ByteCount default_memory_limit_bytes();

/// A limit the user asked for (--max-memory), capped at what the process
/// can get: a larger one would let an estimate pass that cannot be met.
ByteCount effective_memory_limit(ByteCount requested_bytes);

/// "12.34 GiB": a byte count for messages, two decimals.
std::string gib_text(double bytes);

}  // namespace flashsim
