// The program of a schema v2 trace (traces/program.h) in the HDF5 trace
// file: group /program, one 1-D dataset per ProgramOp field (kind, thread,
// host_start_ns, host_end_ns, stream, event, gpu_ns, gpu_start_ns, bytes,
// direction, host_memory, blocking, first_access, access_count) and the
// attributes thread_count, stream_count, event_count, step_rule.
#pragma once
#include <hdf5.h>

#include <memory>
#include <string>

#include "traces/program.h"

namespace flashsim {

/// Writes `program` under `file`. Throws Error on HDF5 failure.
void write_program(hid_t file, const Program& program);

/// Reads /program if present (else null). Throws InputError naming `where`
/// and the dataset when a column is missing, of another length, or the
/// program breaks check_program against `record_count`.
std::shared_ptr<const Program> read_program(hid_t file, const std::string& where, std::uint64_t record_count);

}  // namespace flashsim
