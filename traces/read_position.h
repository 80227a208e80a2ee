// How far a trace source that reads one file front to back has come in it,
// for progress lines (sim/run/read_progress.h): a percentage and an ETA
// before the record count is known (csv, libCacheSim formats, any .zst).
// A source implements IReadPosition beside ITraceSource; those that know
// their record count up front (hdf5, kineto) need not.
#pragma once
#include <cstdint>

namespace flashsim {

struct ReadPosition {
  std::uint64_t file_bytes_read = 0;  ///< bytes of the file consumed (compressed bytes for a .zst)
  std::uint64_t file_bytes = 0;       ///< the file's size in bytes
};

class IReadPosition {
 public:
  virtual ~IReadPosition() = default;
  /// Where the current pass is in the file (may run ahead of the records
  /// handed out by a read buffer, at most a few MiB). Never throws.
  virtual ReadPosition read_position() const = 0;
};

}  // namespace flashsim
