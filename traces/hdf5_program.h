// The program of a schema v2 trace (traces/program.h) in the HDF5 trace
// file: group /program, one 1-D dataset per ProgramOp field (kind, thread,
// host_start_ns, host_end_ns, stream, event, gpu_ns, gpu_start_ns, bytes,
// direction, host_memory, blocking, first_access, access_count) and the
// attributes thread_count, stream_count, event_count, step_rule.
// Schema v3 adds the column host_fresh_bytes, the dataset repeat_marks_ns and
// the group /program/host (Program::host: attribute residency_recorded;
// pageable_{h2d,d2h,d2h_fresh}_{bytes,ns,copies}; call_cost_call (strings),
// call_cost_{plain,captured,gap}_ns).
#pragma once
#include <hdf5.h>

#include <memory>
#include <string>

#include "traces/program.h"

namespace flashsim {

/// Writes `program` under `file`. Throws Error on HDF5 failure.
void write_program(hid_t file, const Program& program);

/// Reads /program if present (else null), with the v3 parts when
/// `schema_version` >= 3. Throws InputError naming `where` and the dataset
/// when a column is missing, of another length, out of range, or the
/// program breaks check_program against `record_count`.
std::shared_ptr<const Program> read_program(hid_t file, const std::string& where, std::uint64_t record_count,
                                            int schema_version);

}  // namespace flashsim
