// Index-based intrusive doubly linked lists over BlockIndex, the building
// block of every list policy (LRU, FIFO, CLOCK, ARC, 2Q, S3-FIFO, SIEVE,
// the groups of MLRU). The links live in one table indexed by BlockIndex
// that several lists may share, as long as a block is in at most one of
// them at a time (ARC's T1/T2/B1/B2, S3-FIFO's S/M/G): no allocation per
// access, 8 bytes per block.
//
// Orientation: front = newest (most recently inserted or promoted),
// back = oldest (the eviction end). `next` points toward the back, `prev`
// toward the front. Walking from the back toward the front (the order in
// which eviction examines blocks) follows `prev`.
#pragma once
#include <cstddef>
#include <limits>
#include <vector>

#include "sim/core/units.h"

namespace flashsim {

/// "No block": the end of a list, or an empty hand.
inline constexpr BlockIndex kNoBlock = std::numeric_limits<BlockIndex>::max();

struct ListLink {
  BlockIndex prev = kNoBlock;  ///< toward the front (newer)
  BlockIndex next = kNoBlock;  ///< toward the back (older)
};

/// The link table shared by the lists of one policy.
using LinkTable = std::vector<ListLink>;

/// One list: head, tail and length; the links are in a LinkTable passed to
/// each operation. Preconditions (not checked, for speed): a block pushed
/// is in no list of this table; a block erased is in this list.
class IntrusiveList {
 public:
  BlockIndex front() const { return front_; }
  BlockIndex back() const { return back_; }
  std::size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }

  /// The neighbour of `b` on the front side (newer), kNoBlock at the front.
  static BlockIndex toward_front(const LinkTable& links, BlockIndex b) { return links[b].prev; }
  /// The neighbour of `b` on the back side (older), kNoBlock at the back.
  static BlockIndex toward_back(const LinkTable& links, BlockIndex b) { return links[b].next; }

  void push_front(LinkTable& links, BlockIndex b) {
    links[b].prev = kNoBlock;
    links[b].next = front_;
    if (front_ != kNoBlock) links[front_].prev = b; else back_ = b;
    front_ = b;
    ++size_;
  }

  void push_back(LinkTable& links, BlockIndex b) {
    links[b].next = kNoBlock;
    links[b].prev = back_;
    if (back_ != kNoBlock) links[back_].next = b; else front_ = b;
    back_ = b;
    ++size_;
  }

  /// Inserts `b` immediately on the front side of `pos` (which is in this list).
  void insert_before(LinkTable& links, BlockIndex pos, BlockIndex b) {
    const BlockIndex p = links[pos].prev;
    links[b].prev = p;
    links[b].next = pos;
    links[pos].prev = b;
    if (p != kNoBlock) links[p].next = b; else front_ = b;
    ++size_;
  }

  void erase(LinkTable& links, BlockIndex b) {
    const ListLink l = links[b];
    if (l.prev != kNoBlock) links[l.prev].next = l.next; else front_ = l.next;
    if (l.next != kNoBlock) links[l.next].prev = l.prev; else back_ = l.prev;
    links[b] = ListLink{};
    --size_;
  }

  void move_to_front(LinkTable& links, BlockIndex b) {
    if (front_ == b) return;
    erase(links, b);
    push_front(links, b);
  }

  /// Removes and returns the back (oldest) block; kNoBlock if empty.
  BlockIndex pop_back(LinkTable& links) {
    const BlockIndex b = back_;
    if (b != kNoBlock) erase(links, b);
    return b;
  }

 private:
  BlockIndex front_ = kNoBlock;
  BlockIndex back_ = kNoBlock;
  std::size_t size_ = 0;
};

}  // namespace flashsim
