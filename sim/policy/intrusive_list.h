// Index-based intrusive doubly linked lists over BlockIndex, the building
// block of every list policy (LRU, FIFO, CLOCK, ARC, 2Q, S3-FIFO, SIEVE,
// the groups of MLRU). The links live in one table indexed by BlockIndex
// that several lists may share, as long as a block is in at most one of
// them at a time (ARC's T1/T2/B1/B2, S3-FIFO's S/M/G): no allocation per
// access, 8 bytes of links per block.
//
// Orientation: front = newest (most recently inserted or promoted),
// back = oldest (the eviction end). `next` points toward the back, `prev`
// toward the front. Walking from the back toward the front (the order in
// which eviction examines blocks) follows `prev`.
#pragma once
#include <cstddef>
#include <limits>
#include <vector>

#include "sim/core/block_vector.h"
#include "sim/core/units.h"

namespace flashsim {

/// "No block": the end of a list, or an empty hand.
inline constexpr BlockIndex kNoBlock = std::numeric_limits<BlockIndex>::max();

/// The two links of a block. A policy's per-block node derives from it
/// (struct Node : ListLink { ...payload... }) so that a block's links and
/// metadata share one cache line: list walks during eviction touch one
/// line per block instead of one per array.
struct ListLink {
  BlockIndex prev = kNoBlock;  ///< toward the front (newer)
  BlockIndex next = kNoBlock;  ///< toward the back (older)
};

/// The simplest node table: links only.
using LinkTable = BlockVector<ListLink>;

/// One list: head, tail and length; the links are in a node table (any
/// indexable container of ListLink-derived nodes) passed to each operation.
/// Preconditions (not checked, for speed): a block pushed is in no list of
/// this table; a block erased is in this list.
class IntrusiveList {
 public:
  BlockIndex front() const { return front_; }
  BlockIndex back() const { return back_; }
  std::size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }

  /// The neighbour of `b` on the front side (newer), kNoBlock at the front.
  template <class Table>
  static BlockIndex toward_front(const Table& t, BlockIndex b) { return t[b].prev; }
  /// The neighbour of `b` on the back side (older), kNoBlock at the back.
  template <class Table>
  static BlockIndex toward_back(const Table& t, BlockIndex b) { return t[b].next; }

  template <class Table>
  void push_front(Table& t, BlockIndex b) {
    t[b].prev = kNoBlock;
    t[b].next = front_;
    if (front_ != kNoBlock) t[front_].prev = b; else back_ = b;
    front_ = b;
    ++size_;
  }

  template <class Table>
  void push_back(Table& t, BlockIndex b) {
    t[b].next = kNoBlock;
    t[b].prev = back_;
    if (back_ != kNoBlock) t[back_].next = b; else front_ = b;
    back_ = b;
    ++size_;
  }

  /// Inserts `b` immediately on the front side of `pos` (which is in this list).
  template <class Table>
  void insert_before(Table& t, BlockIndex pos, BlockIndex b) {
    const BlockIndex p = t[pos].prev;
    t[b].prev = p;
    t[b].next = pos;
    t[pos].prev = b;
    if (p != kNoBlock) t[p].next = b; else front_ = b;
    ++size_;
  }

  template <class Table>
  void erase(Table& t, BlockIndex b) {
    const BlockIndex prev = t[b].prev, next = t[b].next;
    if (prev != kNoBlock) t[prev].next = next; else front_ = next;
    if (next != kNoBlock) t[next].prev = prev; else back_ = prev;
    t[b].prev = kNoBlock;
    t[b].next = kNoBlock;
    --size_;
  }

  template <class Table>
  void move_to_front(Table& t, BlockIndex b) {
    if (front_ == b) return;
    erase(t, b);
    push_front(t, b);
  }

  /// Removes and returns the back (oldest) block; kNoBlock if empty.
  template <class Table>
  BlockIndex pop_back(Table& t) {
    const BlockIndex b = back_;
    if (b != kNoBlock) erase(t, b);
    return b;
  }

 private:
  BlockIndex front_ = kNoBlock;
  BlockIndex back_ = kNoBlock;
  std::size_t size_ = 0;
};

}  // namespace flashsim
