// A link between two tiers (PCIe host→HBM, NVMe→host): per-transfer
// latency, bandwidth, and how concurrent transfers share it.
//
//   fifo  one transfer at a time in request order (a single copy engine):
//         start = max(now, free_at), end = start + latency + bytes/bandwidth,
//         free_at = end. The latency occupies the link. End times are known
//         at submit().
//   fair  processor sharing (Kleinrock, "Queueing Systems" vol. 2, 1976,
//         §4.4): a transfer first waits its latency without using
//         bandwidth, then its bytes flow while the n flowing transfers each
//         get bandwidth/n. End times change whenever the flowing set
//         changes; the driver asks next_event_ns(), schedules a check
//         tagged with generation(), ignores checks whose generation is
//         stale, and calls advance() on a current one.
//
// Busy time is the time the link carries data (at least one transfer's
// bytes flowing; a fifo transfer's latency does not count), accumulated per
// window of `window_ns` for link-utilisation time series.
#pragma once
#include <cstdint>
#include <limits>
#include <vector>

#include "sim/core/units.h"
#include "sim/engine/hardware_profile.h"
#include "sim/engine/ring_queue.h"

namespace flashsim {

/// Busy time split over fixed windows [k·window_ns, (k+1)·window_ns).
/// window_ns == 0 means one window holding everything.
class BusyWindows {
 public:
  explicit BusyWindows(Nanoseconds window_ns) : window_ns_(window_ns) {}
  /// Adds [begin_ns, end_ns); empty or reversed intervals add nothing.
  void add(Nanoseconds begin_ns, Nanoseconds end_ns);
  Nanoseconds total_ns() const { return total_ns_; }
  /// Busy ns of window k (0 beyond the last window touched).
  Nanoseconds window(std::size_t k) const { return k < busy_ns_.size() ? busy_ns_[k] : 0; }
  std::size_t window_count() const { return busy_ns_.size(); }

 private:
  Nanoseconds window_ns_;
  Nanoseconds total_ns_ = 0;
  std::vector<Nanoseconds> busy_ns_;
};

class Link {
 public:
  /// Throws InputError if spec.bandwidth <= 0 or spec.latency_ns < 0.
  Link(const LinkSpec& spec, Nanoseconds window_ns);

  bool fair() const { return spec_.sharing == LinkSharing::fair; }
  const LinkSpec& spec() const { return spec_; }

  /// Requests a transfer of `bytes` at `now_ns` (calls must come in
  /// non-decreasing now_ns). `tag` comes back from advance() (fair).
  /// Returns the completion time for fifo links, kNeverNs for fair ones.
  Nanoseconds submit(Nanoseconds now_ns, ByteCount bytes, std::uint64_t tag);

  /// fair: the earliest time (ns, rounded up) at which a transfer starts
  /// flowing or completes; kNeverNs when idle. fifo: kNeverNs.
  Nanoseconds next_event_ns() const;
  /// Changes whenever the fair schedule changes (submit, start, completion).
  std::uint64_t generation() const { return generation_; }

  /// fair: processes starts and completions up to `now_ns` in time order
  /// (completion before start at the same instant; ties among completions
  /// by submit order) and appends the tags of completed transfers to
  /// `completed`. fifo: does nothing.
  void advance(Nanoseconds now_ns, std::vector<std::uint64_t>* completed);

  std::uint64_t transfers() const { return transfers_; }
  ByteCount bytes() const { return bytes_; }
  const BusyWindows& busy() const { return busy_; }
  /// Transfers submitted and not yet completed (fair), or not yet ended by
  /// the last submit's clock (fifo: always 0).
  std::size_t in_progress() const { return waiting_.size() + flowing_.size(); }

 private:
  struct Waiting {  // fair: paying its latency
    Nanoseconds start_flow_ns;
    ByteCount bytes;
    std::uint64_t sequence;
    std::uint64_t tag;
  };
  struct Flowing {  // fair: bytes flowing; done when virtual time reaches finish
    double finish_bytes;
    std::uint64_t sequence;
    std::uint64_t tag;
  };
  double completion_real_ns() const;  // of the flowing transfer that finishes first
  void move_clock(double to_ns);      // advances virtual time and busy accounting
  void heap_push(const Flowing& f);
  Flowing heap_pop();

  LinkSpec spec_;
  double bytes_per_ns_;
  BusyWindows busy_;
  std::uint64_t transfers_ = 0;
  ByteCount bytes_ = 0;
  // fifo
  Nanoseconds free_at_ns_ = 0;
  // fair
  RingQueue<Waiting> waiting_;    // start times are non-decreasing: a FIFO
  std::vector<Flowing> flowing_;  // min-heap by (finish_bytes, sequence)
  double virtual_bytes_ = 0.0;    // service each flowing transfer has received so far
  double clock_ns_ = 0.0;         // real time virtual_bytes_ refers to
  double busy_since_ns_ = 0.0;
  std::uint64_t sequence_ = 0;
  std::uint64_t generation_ = 0;
};

}  // namespace flashsim
