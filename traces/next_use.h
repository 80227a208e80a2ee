// Next use: for each access i, the index of the next access of the same
// block (kNeverAccessedAgain if none), as Belady/OPT needs. One backward
// pass with a hash map block → index of its latest-seen (i.e. next) access.
#pragma once
#include <cstdint>
#include <filesystem>
#include <vector>

#include "traces/hdf5_trace.h"
#include "traces/trace_source.h"

namespace flashsim {

/// In memory: reads `source` from the start (rewinds before and after) and
/// returns next_use_index per record, in one pass: 8 bytes per access plus
/// a map entry per distinct block (for small traces; a 200 M-access trace
/// needs 1.6 GB here). The drivers' offline policies use it
/// (sim/cache/cache_only.h) when a trace has no precomputed next use.
std::vector<std::uint64_t> next_use_in_memory(ITraceSource& source);

/// Out of core: writes `out_h5`, a copy of the HDF5 trace `in_h5` with
/// has_next_use set and a next_use_index dataset. The block ids are read
/// in windows of `window_records` from the last window to the first, and
/// the next-use values go to a compressed scratch file beside `out_h5`
/// (removed afterwards); a forward pass then writes the output. Memory:
/// the hash map (about 16 B × distinct blocks, plus its slack) and a few
/// windows; not 8 B per access. `in_h5` may equal `out_h5` (replaced atomically).
/// Throws InputError (bad input file) or Error (I/O); on error no output is left.
/// `options` are the output file's (chunking, deflate).
void add_next_use(const std::filesystem::path& in_h5, const std::filesystem::path& out_h5,
                  const Hdf5WriteOptions& options = {}, std::size_t window_records = 1 << 20);

}  // namespace flashsim
