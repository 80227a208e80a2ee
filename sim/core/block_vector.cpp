// The mappings of large BlockVector tables (sim/core/block_vector.h).
#include "sim/core/block_vector.h"

#include <cstdint>

#if defined(__linux__)
#include <sys/mman.h>
#endif

namespace flashsim::block_vector_detail {

#if defined(__linux__)
namespace {

// An address range of `bytes` at a kHugePageBytes boundary, mapped with
// `prot` (over-mapped by one huge page, the ends trimmed). MAP_NORESERVE:
// the pages count when touched, as malloc's do.
void* aligned_range(std::size_t bytes, int prot) {
  const std::size_t span = bytes + kHugePageBytes;
  void* raw = ::mmap(nullptr, span, prot, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (raw == MAP_FAILED) throw std::bad_alloc();
  const auto start = reinterpret_cast<std::uintptr_t>(raw);
  const std::uintptr_t aligned = (start + kHugePageBytes - 1) / kHugePageBytes * kHugePageBytes;
  if (aligned > start) ::munmap(raw, aligned - start);
  const std::uintptr_t end = start + span, used_end = aligned + bytes;
  if (end > used_end) ::munmap(reinterpret_cast<void*>(used_end), end - used_end);
  return reinterpret_cast<void*>(aligned);
}

void advise(void* p, std::size_t bytes) {
  ::madvise(p, bytes, MADV_HUGEPAGE);  // advice only: a refusal leaves 4 KiB pages
}

}  // namespace

void* map_aligned(std::size_t bytes) {
  void* p = aligned_range(bytes, PROT_READ | PROT_WRITE);
  advise(p, bytes);
  return p;
}

void* remap(void* p, std::size_t old_bytes, std::size_t new_bytes) {
  // In place when the addresses after the table are free (or it shrinks).
  void* q = ::mremap(p, old_bytes, new_bytes, 0);
  if (q == MAP_FAILED) {
    // Elsewhere, at an aligned address, so that huge pages move whole.
    void* target = aligned_range(new_bytes, PROT_NONE);
    q = ::mremap(p, old_bytes, new_bytes, MREMAP_MAYMOVE | MREMAP_FIXED, target);
    if (q == MAP_FAILED) {
      ::munmap(target, new_bytes);
      throw std::bad_alloc();
    }
  }
  advise(q, new_bytes);
  return q;
}

void unmap(void* p, std::size_t bytes) noexcept { ::munmap(p, bytes); }

#else  // elsewhere: aligned heap storage, grown by copying

void* map_aligned(std::size_t bytes) {
  void* p = std::aligned_alloc(kHugePageBytes, bytes);
  if (p == nullptr) throw std::bad_alloc();
  std::memset(p, 0, bytes);
  return p;
}

void* remap(void* p, std::size_t old_bytes, std::size_t new_bytes) {
  void* q = map_aligned(new_bytes);
  std::memcpy(q, p, old_bytes < new_bytes ? old_bytes : new_bytes);
  std::free(p);
  return q;
}

void unmap(void* p, std::size_t) noexcept { std::free(p); }

#endif

}  // namespace flashsim::block_vector_detail
