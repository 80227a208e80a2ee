#include "traces/next_use.h"

#include <algorithm>

#include "sim/core/hash_map.h"
#include "sim/core/errors.h"
#include "traces/atomic_file.h"
#include "traces/hdf5_io.h"
#include "traces/hdf5_trace.h"

namespace flashsim {

std::vector<std::uint64_t> next_use_in_memory(ITraceSource& source) {
  // One forward pass: a block's latest record learns its next use when the
  // block comes again (no copy of the ids: 8 bytes per record).
  source.rewind();
  std::vector<std::uint64_t> next;
  if (source.meta().record_count > 0) next.reserve(source.meta().record_count);
  HashMap<BlockId, std::uint64_t> latest;
  std::vector<AccessRecord> buffer(buffer_records_for(source.meta(), 65536));
  std::uint64_t i = 0;
  while (const std::size_t n = source.read(buffer)) {
    for (std::size_t k = 0; k < n; ++k, ++i) {
      auto [it, added] = latest.try_emplace(buffer[k].block_id, i);
      if (!added) {
        next[it->second] = i;
        it->second = i;
      }
      next.push_back(kNeverAccessedAgain);
    }
  }
  source.rewind();
  return next;
}

void add_next_use(const std::filesystem::path& in_h5, const std::filesystem::path& out_h5,
                  const Hdf5WriteOptions& options, std::size_t window_records) {
  const std::size_t window = std::max<std::size_t>(1, window_records);
  // Validates the input (schema, lengths) before any work.
  Hdf5TraceSource source(in_h5, std::min<std::size_t>(window, 65536));
  const std::uint64_t count = source.meta().record_count;

  // 1. Backward pass over block_id into a scratch dataset.
  AtomicFile scratch(out_h5.string() + ".nextuse");
  {
    h5::QuietErrors quiet;
    h5::Handle in_file = h5::open_file_read(in_h5.string());
    h5::Handle records = h5::open_group(in_file.get(), "records");
    h5::Handle ids = h5::open_dataset(records.get(), "block_id");
    h5::Handle out_file = h5::create_file(scratch.temp_path().string());
    const std::uint64_t never = kNeverAccessedAgain;
    h5::Handle next_ds = h5::create_extendible(out_file.get(), "next_use", H5T_STD_U64LE, H5T_NATIVE_UINT64,
                                               std::min<std::size_t>(window, 65536), 1, &never);
    h5::set_length(next_ds.get(), count);
    std::vector<BlockId> block(window);
    std::vector<std::uint64_t> next(window);
    HashMap<BlockId, std::uint64_t> seen;
    std::uint64_t end = count;
    while (end > 0) {
      const std::uint64_t begin = (end - 1) / window * window;
      const std::size_t n = static_cast<std::size_t>(end - begin);
      h5::read_range(ids.get(), H5T_NATIVE_UINT64, begin, n, block.data());
      for (std::size_t i = n; i-- > 0;) {
        auto [it, inserted] = seen.try_emplace(block[i], begin + i);
        if (inserted) {
          next[i] = kNeverAccessedAgain;
        } else {
          next[i] = it->second;
          it->second = begin + i;
        }
      }
      try {
        h5::write_range(next_ds.get(), H5T_NATIVE_UINT64, begin, n, next.data());
      } catch (const Error& e) {
        throw Error("writing '" + scratch.temp_path().string() + "': " + e.what());
      }
      end = begin;
    }
    // Flush with every object open, so that closing writes nothing (hdf5_io.h).
    h5::flush_file(out_file.get(), "writing '" + scratch.temp_path().string() + "'");
  }

  // 2. Forward pass: records + next use into the output.
  TraceMeta meta = source.meta();
  meta.has_next_use = true;
  Hdf5TraceWriter writer(out_h5, meta, options);
  {
    h5::QuietErrors quiet;
    h5::Handle scratch_file = h5::open_file_read(scratch.temp_path().string());
    h5::Handle next_ds = h5::open_dataset(scratch_file.get(), "next_use");
    std::vector<AccessRecord> buffer(std::min<std::size_t>(window, 65536));
    std::vector<std::uint64_t> next(buffer.size());
    std::uint64_t index = 0;
    source.rewind();
    while (const std::size_t n = source.read(buffer)) {
      h5::read_range(next_ds.get(), H5T_NATIVE_UINT64, index, n, next.data());
      for (std::size_t i = 0; i < n; ++i) buffer[i].next_use_index = next[i];
      writer.write(std::span<const AccessRecord>(buffer.data(), n));
      index += n;
    }
    if (index != count) {
      throw InputError(in_h5.string() + ": read " + std::to_string(index) + " records, record_count is " +
                       std::to_string(count));
    }
  }
  writer.finish();
  // `scratch` is never committed: its destructor removes it.
}

}  // namespace flashsim
