// The program of a PyTorch profiler (Kineto) trace, as far as the format
// carries it (trace schema 2, traces/program.h):
//  * Host calls: events of cat cuda_runtime and cuda_driver (a driver call
//    inside a runtime call on the same thread is part of it), per thread
//    (tid) in ts order, with their ts/dur as host times.
//  * Device work: kernel, gpu_memcpy and gpu_memset events, joined to the call
//    with the same args.correlation; stream = args.stream; a copy's direction
//    and host memory from its name ("Memcpy HtoD (Pageable -> Device)"); a
//    copy blocks the host when its call is not an *Async one.
//  * Synchronisation: Kineto names no stream or event in its runtime events,
//    so cudaStreamSynchronize synchronises the stream of the thread's last
//    device operation (torch's current stream), cudaDeviceSynchronize every
//    stream; event record / wait / synchronise calls are host time only.
//  * Accesses: each weight record of the trace (traces/importers/kineto.h) is
//    matched to its gpu_memcpy by GPU start time.
//  * Steps: the first weight copy of every forward pass (the records'
//    token_index), as the importer's pass rule found them.
#pragma once
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "traces/access_record.h"
#include "traces/program.h"

namespace flashsim {

inline constexpr std::uint64_t kNoCorrelation = std::numeric_limits<std::uint64_t>::max();

/// One Kineto event the program needs.
struct KinetoProgramEvent {
  enum class Type : std::uint8_t { call, kernel, copy, memset };
  Type type = Type::call;
  std::string name;
  std::uint64_t thread = 0;      ///< tid (a text tid hashed)
  Nanoseconds ts_ns = 0, dur_ns = 0;
  std::uint64_t correlation = kNoCorrelation;
  std::uint32_t stream = 0;
  ByteCount bytes = 0;
};

/// Builds the program; empty when there is no call event. `records` are the
/// importer's weight records (time_ns from the first weight copy). Throws
/// InputError naming `where` when the program breaks check_program.
Program kineto_program(std::vector<KinetoProgramEvent> events, const std::vector<AccessRecord>& records,
                       const std::string& where);

}  // namespace flashsim
