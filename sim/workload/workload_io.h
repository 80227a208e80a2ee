// Running a generator: by name with user parameters, into a sink, into an
// HDF5 trace file (so any generated workload can be saved and replayed), or
// into memory.
#pragma once
#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <string>

#include "sim/workload/i_workload_generator.h"
#include "traces/hdf5_trace.h"

namespace flashsim {

/// The registered generator `name` built from `params` (key -> value text,
/// validated against its declared parameters). Throws UnknownNameError /
/// InputError.
std::unique_ptr<IWorkloadGenerator> make_workload(const std::string& name,
                                                  const std::map<std::string, std::string>& params,
                                                  const WorkloadContext& context);

/// Copies every record of `source` (from where it stands) into `sink` in
/// chunks of `chunk_records`; returns how many. Does not call finish().
std::uint64_t copy_records(ITraceSource& source, ITraceSink& sink, std::size_t chunk_records = 65536);

/// Generates the whole trace into an HDF5 file at `path` (temp file +
/// rename; catalog and operators included). Returns the record count.
/// Throws Error on I/O failure (nothing is left at `path`).
std::uint64_t write_workload(const IWorkloadGenerator& generator, const std::filesystem::path& path,
                             Hdf5WriteOptions options = {});

/// Generates the whole trace into memory (record_count set).
std::unique_ptr<MemoryTraceSource> generate_in_memory(const IWorkloadGenerator& generator);

}  // namespace flashsim
