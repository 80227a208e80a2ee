// How much memory a command may plan to use: the default of the up-front
// memory checks (granularity pieces, generated catalogs), which compare an
// estimate against it instead of meeting std::bad_alloc hours later.
#pragma once
#include <string>

#include "sim/core/units.h"

namespace flashsim {

/// What caps the memory this process can get.
enum class MemoryCapSource { unknown, physical, address_space, cgroup };

struct MemoryCap {
  ByteCount bytes = 0;  ///< 0 when unknown
  MemoryCapSource source = MemoryCapSource::unknown;
};

/// The memory this process can really get: the smallest of physical memory
/// (sysconf), the address-space limit (RLIMIT_AS, `ulimit -v`) and the
/// cgroup v2 limit (/sys/fs/cgroup/memory.max), and which one it is.
MemoryCap available_memory();

/// available_memory().bytes; 0 if none is known.
ByteCount available_memory_bytes();

/// 80% of available_memory_bytes() (room for the allocator, the libraries
/// and the results); 0 if unknown (then the checks are off).
ByteCount default_memory_limit_bytes();

/// A limit the user asked for (--max-memory), capped at what the process
/// can get: a larger one would let an estimate pass that cannot be met.
ByteCount effective_memory_limit(ByteCount requested_bytes);

/// How to raise `limit_bytes`, for a message that ends "... above the limit
/// of X; <this>": "raise the limit (--max-memory SIZE; at most 61.2 GiB, the
/// physical memory)", or, when the limit is the process's own cap or near it,
/// "raise the process's address-space limit (`ulimit -v`, now 3.81 GiB):
/// --max-memory cannot go above it" (the cgroup's memory.max alike).
std::string raise_memory_limit_advice(ByteCount limit_bytes);

/// "12.34 GiB": a byte count for messages, two decimals.
std::string gib_text(double bytes);

}  // namespace flashsim
