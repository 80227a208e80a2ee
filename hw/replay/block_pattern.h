// The content of every block in the replay: word w (8 bytes, little-endian)
// of block `id` is pattern_word(id, w), a splitmix64 of a mix of both
// (Steele, Lea & Flood, "Fast splittable pseudorandom number generators",
// OOPSLA 2014), so distinct blocks differ in every word and a checksum
// tells which block a slot holds. Host and device (the write kernel) share
// this one definition.
#pragma once
#include <cstdint>

#if defined(__CUDACC__)
#define FLASHSIM_HOST_DEVICE __host__ __device__
#else
#define FLASHSIM_HOST_DEVICE
#endif

namespace flashsim::hw {

/// Word `word` (0-based) of block `id`'s pattern.
FLASHSIM_HOST_DEVICE inline std::uint64_t pattern_word(std::uint64_t id, std::uint64_t word) {
  std::uint64_t z = id * 0x9e3779b97f4a7c15ull + word + 0x632be59bd9b4e019ull;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

}  // namespace flashsim::hw
