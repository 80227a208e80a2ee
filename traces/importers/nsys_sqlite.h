// Nsight Systems exports (format "nsys"): the SQLite file that
// `nsys export --type sqlite report.nsys-rep` writes. Its
// CUPTI_ACTIVITY_KIND_MEMCPY table holds every copy the GPU ran (start, end,
// streamId, bytes, copyKind with CUPTI's values: 1 HtoD, 2 DtoH) but, like
// Kineto, no addresses; so copies become accesses by the Kineto importer's
// rules (traces/importers/copy_passes.h: forward passes, weights by their
// position in a pass), with the same options. Needs the sqlite3 library
// (Debian libsqlite3-dev); without it the format is not registered.
// When the export has CUPTI_ACTIVITY_KIND_RUNTIME (with StringIds), the trace
// also carries its program (schema 2), by the Kineto importer's rules
// (traces/importers/kineto_program.h) on the runtime, kernel, copy and memset
// rows joined by correlationId.
#pragma once
#include <filesystem>
#include <memory>

#include "traces/importers/kineto.h"
#include "traces/trace_source.h"

namespace flashsim {

class NsysSqliteTraceSource final : public CopyWeightTraceSource {
 public:
  /// Reads the copies of `path`. Throws InputError naming the file (not a
  /// SQLite file, no CUPTI_ACTIVITY_KIND_MEMCPY table or a column missing,
  /// a negative value, passes that cannot be aligned).
  NsysSqliteTraceSource(std::filesystem::path path, KinetoImportOptions options = {});
};

}  // namespace flashsim
