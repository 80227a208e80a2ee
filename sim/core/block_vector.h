// Per-block tables on transparent huge pages. At 1 M blocks an access reads
// a few tables of 4-32 MB at random: with 4 KiB pages nearly every read is
// also a TLB miss (a page walk), with 2 MiB pages almost none is. Measured:
// the event engine +25% events/s at 1 M blocks on the 2-vCPU AMD EPYC
// development machine (BENCHMARKS.md, issue 27, 2026-12-07), where the
// kernel gives huge pages on request (transparent_hugepage = madvise).
#pragma once
#include <cstddef>
#include <cstdlib>
#include <memory>
#include <new>
#include <vector>

#if defined(__linux__)
#include <sys/mman.h>
#endif

namespace flashsim {

/// The allocator of BlockVector: allocations of at least kHugePageBytes are
/// aligned to it, rounded up to a multiple of it and advised as huge pages
/// (madvise MADV_HUGEPAGE; a kernel that refuses the advice gives 4 KiB
/// pages, nothing else changes); smaller ones are std::allocator's.
/// Throws std::bad_alloc as std::allocator does.
template <class T>
class HugePageAllocator {
 public:
  using value_type = T;
  static constexpr std::size_t kHugePageBytes = std::size_t{2} << 20;  // x86-64 and arm64 (4 KiB base pages)

  HugePageAllocator() noexcept = default;
  template <class U>
  HugePageAllocator(const HugePageAllocator<U>&) noexcept {}

  T* allocate(std::size_t n) {
    if (n > (std::size_t(-1) - kHugePageBytes) / sizeof(T)) throw std::bad_alloc();  // the rounding below must not wrap
    const std::size_t bytes = n * sizeof(T);
    if (bytes < kHugePageBytes) return std::allocator<T>().allocate(n);
    const std::size_t rounded = (bytes + kHugePageBytes - 1) / kHugePageBytes * kHugePageBytes;
    void* p = std::aligned_alloc(kHugePageBytes, rounded);
    if (p == nullptr) throw std::bad_alloc();
#if defined(__linux__)
    ::madvise(p, rounded, MADV_HUGEPAGE);  // advice only: a refusal leaves 4 KiB pages
#endif
    return static_cast<T*>(p);
  }
  void deallocate(T* p, std::size_t n) noexcept {
    if (n * sizeof(T) < kHugePageBytes) {
      std::allocator<T>().deallocate(p, n);
    } else {
      std::free(p);
    }
  }
  template <class U>
  bool operator==(const HugePageAllocator<U>&) const noexcept {
    return true;
  }
};

/// A table indexed by BlockIndex (or by a hash of the block id) that the
/// hot path of an access reads at random.
template <class T>
using BlockVector = std::vector<T, HugePageAllocator<T>>;

}  // namespace flashsim
