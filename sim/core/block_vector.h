// Per-block tables on transparent huge pages that grow without a copy.
//
// Huge pages: at 1 M blocks an access reads a few tables of 4-32 MB at
// random; with 4 KiB pages nearly every read is also a TLB miss, with 2 MiB
// pages almost none is (event engine +25% events/s at 1 M blocks on the
// 2-vCPU AMD EPYC machine, BENCHMARKS.md, issue 27, 2026-12-07).
//
// No copy on growth: a std::vector that doubles holds the old and the new
// table at once (1.5x the final size at the peak, and the pages of the new
// one are zeroed by the kernel before the copy overwrites them). A large
// table here is its own mapping, grown by mremap, which moves page tables,
// not bytes: its peak memory is its final size.
#pragma once
#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <new>
#include <type_traits>
#include <utility>

namespace flashsim {

/// The size from which a table is a mapping of its own, 2 MiB-aligned and
/// advised as huge pages (madvise MADV_HUGEPAGE: a kernel that refuses the
/// advice gives 4 KiB pages, nothing else changes). x86-64 and arm64 with
/// 4 KiB base pages.
inline constexpr std::size_t kHugePageBytes = std::size_t{2} << 20;

namespace block_vector_detail {
/// A fresh zeroed mapping of `bytes` (a multiple of kHugePageBytes) at a
/// kHugePageBytes-aligned address; throws std::bad_alloc.
void* map_aligned(std::size_t bytes);
/// Grows or shrinks mapping `p` of `old_bytes` to `new_bytes` (multiples of
/// kHugePageBytes), keeping its contents and its alignment; the pages past
/// old_bytes are zero. Throws std::bad_alloc (p then stays valid).
void* remap(void* p, std::size_t old_bytes, std::size_t new_bytes);
void unmap(void* p, std::size_t bytes) noexcept;
}  // namespace block_vector_detail

/// A table indexed by BlockIndex (or by a hash of the block id) that the
/// hot path of an access reads at random: the part of std::vector's
/// interface the tables use, for trivially copyable T. Below
/// kHugePageBytes of capacity it lives on the malloc heap. resize() grows
/// the capacity to exactly what is asked (callers grow geometrically,
/// sim/policy/block_table.h), push_back() doubles it. Throws std::bad_alloc.
template <class T>
class BlockVector {
  static_assert(std::is_trivially_copyable_v<T> && std::is_trivially_destructible_v<T>,
                "BlockVector moves its elements as bytes");
  static_assert(alignof(T) <= alignof(std::max_align_t), "malloc's alignment must suffice");

 public:
  using value_type = T;
  using size_type = std::size_t;

  BlockVector() noexcept = default;
  explicit BlockVector(std::size_t n, const T& value = T{}) { assign(n, value); }
  BlockVector(const BlockVector& other) {
    reserve(other.size_);
    if (other.size_ != 0) std::memcpy(static_cast<void*>(data_), other.data_, other.size_ * sizeof(T));
    size_ = other.size_;
  }
  BlockVector(BlockVector&& other) noexcept { swap(other); }
  BlockVector& operator=(BlockVector other) noexcept {
    swap(other);
    return *this;
  }
  ~BlockVector() { free_storage(); }

  void swap(BlockVector& other) noexcept {
    std::swap(data_, other.data_);
    std::swap(size_, other.size_);
    std::swap(capacity_, other.capacity_);
  }

  std::size_t size() const noexcept { return size_; }
  bool empty() const noexcept { return size_ == 0; }
  std::size_t capacity() const noexcept { return capacity_; }
  T* data() noexcept { return data_; }
  const T* data() const noexcept { return data_; }
  T& operator[](std::size_t i) noexcept { return data_[i]; }
  const T& operator[](std::size_t i) const noexcept { return data_[i]; }
  T& back() noexcept { return data_[size_ - 1]; }
  const T& back() const noexcept { return data_[size_ - 1]; }
  T* begin() noexcept { return data_; }
  T* end() noexcept { return data_ + size_; }
  const T* begin() const noexcept { return data_; }
  const T* end() const noexcept { return data_ + size_; }

  void reserve(std::size_t n) {
    if (n > capacity_) reallocate(n);
  }
  /// New elements are `value`.
  void resize(std::size_t n, const T& value = T{}) {
    if (n > capacity_) reallocate(n);
    for (std::size_t i = size_; i < n; ++i) data_[i] = value;
    size_ = n;
  }
  void assign(std::size_t n, const T& value) {
    size_ = 0;
    resize(n, value);
  }
  void push_back(const T& value) {
    if (size_ == capacity_) {
      const T copy = value;  // `value` may be an element
      reallocate(capacity_ < 16 ? 16 : 2 * capacity_);
      data_[size_++] = copy;
      return;
    }
    data_[size_++] = value;
  }
  void clear() noexcept { size_ = 0; }
  void shrink_to_fit() {
    if (size_ < capacity_) reallocate(size_);
  }

 private:
  static bool mapped(std::size_t capacity) { return capacity * sizeof(T) >= kHugePageBytes; }
  static std::size_t mapping_bytes(std::size_t capacity) {
    return (capacity * sizeof(T) + kHugePageBytes - 1) / kHugePageBytes * kHugePageBytes;
  }

  void reallocate(std::size_t n) {
    if (n > (std::size_t(-1) - kHugePageBytes) / sizeof(T)) throw std::bad_alloc();  // the rounding must not wrap
    const bool was_mapped = data_ != nullptr && mapped(capacity_);
    std::size_t new_capacity = n;
    T* p = nullptr;
    if (mapped(n)) {
      const std::size_t bytes = mapping_bytes(n);
      new_capacity = bytes / sizeof(T);
      if (was_mapped) {
        p = static_cast<T*>(block_vector_detail::remap(data_, mapping_bytes(capacity_), bytes));
      } else {
        p = static_cast<T*>(block_vector_detail::map_aligned(bytes));
        if (size_ != 0) std::memcpy(static_cast<void*>(p), data_, size_ * sizeof(T));
        std::free(data_);
      }
    } else if (was_mapped) {
      p = n == 0 ? nullptr : static_cast<T*>(std::malloc(n * sizeof(T)));
      if (n != 0 && p == nullptr) throw std::bad_alloc();
      if (n != 0) std::memcpy(static_cast<void*>(p), data_, (size_ < n ? size_ : n) * sizeof(T));
      block_vector_detail::unmap(data_, mapping_bytes(capacity_));
    } else if (n == 0) {
      std::free(data_);
    } else {
      p = static_cast<T*>(std::realloc(data_, n * sizeof(T)));
      if (p == nullptr) throw std::bad_alloc();
    }
    data_ = p;
    capacity_ = new_capacity;
    if (size_ > capacity_) size_ = capacity_;
  }
  void free_storage() noexcept {
    if (data_ == nullptr) return;
    if (mapped(capacity_)) block_vector_detail::unmap(data_, mapping_bytes(capacity_));
    else std::free(data_);
    data_ = nullptr;
  }

  T* data_ = nullptr;
  std::size_t size_ = 0;
  std::size_t capacity_ = 0;
};

}  // namespace flashsim
