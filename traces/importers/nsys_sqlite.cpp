#include "traces/importers/nsys_sqlite.h"

#ifdef FLASHSIM_HAVE_SQLITE3
#include <sqlite3.h>

#include <algorithm>
#include <string>
#include <vector>

#include "sim/core/errors.h"
#include "sim/core/input_file.h"
#include "traces/importers/copy_passes.h"
#include "traces/importers/kineto_program.h"
#include "traces/trace_formats.h"

namespace flashsim {

namespace {

class Db {
 public:
  explicit Db(const std::filesystem::path& path) : where_(path.string()) {
    require_input_file(path);  // names a folder, a link loop, a missing file for what each is
    if (sqlite3_open_v2(path.c_str(), &db_, SQLITE_OPEN_READONLY, nullptr) != SQLITE_OK) {
      const std::string message = db_ != nullptr ? sqlite3_errmsg(db_) : "out of memory";
      sqlite3_close(db_);
      throw InputError(where_ + ": cannot open as SQLite: " + message);
    }
  }
  ~Db() { sqlite3_close(db_); }
  Db(const Db&) = delete;
  Db& operator=(const Db&) = delete;

  sqlite3_stmt* prepare(const std::string& sql) {
    sqlite3_stmt* stmt = nullptr;
    if (sqlite3_prepare_v2(db_, sql.c_str(), -1, &stmt, nullptr) != SQLITE_OK) {
      throw InputError(where_ + ": " + sqlite3_errmsg(db_) +
                       " (an `nsys export --type sqlite` file of a report traced with --trace=cuda?)");
    }
    return stmt;
  }
  [[noreturn]] void fail(const std::string& what) const { throw InputError(where_ + ": " + what); }
  const char* error() const { return sqlite3_errmsg(db_); }

 private:
  std::string where_;
  sqlite3* db_ = nullptr;
};

struct Statement {
  sqlite3_stmt* stmt;
  ~Statement() { sqlite3_finalize(stmt); }
};

bool has_table(Db& db, const char* name) {
  Statement q{db.prepare(std::string("SELECT count(*) FROM sqlite_master WHERE type='table' AND name='") + name + "'")};
  return sqlite3_step(q.stmt) == SQLITE_ROW && sqlite3_column_int(q.stmt, 0) != 0;
}

// The rows the program needs, in the Kineto importer's terms (the rules are
// traces/importers/kineto_program.h's): runtime calls (names from StringIds,
// "_v7000" suffixes kept: the rules look for substrings), and the kernels,
// copies and memsets with their correlation ids. Copies are named as Kineto
// names them ("Memcpy HtoD (Pageable -> Device)") from copyKind and the
// host side's memory kind (CUPTI values: 1 pageable, 2 pinned).
std::vector<KinetoProgramEvent> program_events(Db& db) {
  std::vector<KinetoProgramEvent> out;
  if (!has_table(db, "CUPTI_ACTIVITY_KIND_RUNTIME") || !has_table(db, "StringIds")) return out;
  auto read = [&](const std::string& sql, KinetoProgramEvent::Type type) {
    Statement q{db.prepare(sql)};
    int rc = 0;
    while ((rc = sqlite3_step(q.stmt)) == SQLITE_ROW) {
      KinetoProgramEvent e;
      e.type = type;
      e.ts_ns = sqlite3_column_int64(q.stmt, 0);
      e.dur_ns = std::max<sqlite3_int64>(0, sqlite3_column_int64(q.stmt, 1) - e.ts_ns);
      e.correlation = static_cast<std::uint64_t>(sqlite3_column_int64(q.stmt, 2));
      e.thread = static_cast<std::uint64_t>(sqlite3_column_int64(q.stmt, 3));
      e.stream = static_cast<std::uint32_t>(sqlite3_column_int64(q.stmt, 4));
      e.bytes = static_cast<ByteCount>(std::max<sqlite3_int64>(0, sqlite3_column_int64(q.stmt, 5)));
      const unsigned char* name = sqlite3_column_text(q.stmt, 6);
      e.name = name != nullptr ? reinterpret_cast<const char*>(name) : "";
      if (type == KinetoProgramEvent::Type::copy) {
        const int kind = sqlite3_column_int(q.stmt, 7), src = sqlite3_column_int(q.stmt, 8),
                  dst = sqlite3_column_int(q.stmt, 9);
        const int host = kind == 1 ? src : dst;
        e.name = std::string("Memcpy ") + (kind == 1 ? "HtoD" : kind == 2 ? "DtoH" : kind == 8 ? "DtoD" : "Other") +
                 (host == 1 ? " (Pageable)" : host == 2 ? " (Pinned)" : "");
      }
      out.push_back(std::move(e));
    }
    if (rc != SQLITE_DONE) db.fail(std::string("reading the program's tables: ") + db.error());
  };
  read("SELECT r.start, r.end, r.correlationId, r.globalTid, 0, 0, s.value FROM CUPTI_ACTIVITY_KIND_RUNTIME r "
       "JOIN StringIds s ON s.id = r.nameId",
       KinetoProgramEvent::Type::call);
  if (has_table(db, "CUPTI_ACTIVITY_KIND_KERNEL")) {
    read("SELECT start, end, correlationId, 0, streamId, 0, '' FROM CUPTI_ACTIVITY_KIND_KERNEL",
         KinetoProgramEvent::Type::kernel);
  }
  read("SELECT start, end, correlationId, 0, streamId, bytes, '', copyKind, srcKind, dstKind "
       "FROM CUPTI_ACTIVITY_KIND_MEMCPY",
       KinetoProgramEvent::Type::copy);
  if (has_table(db, "CUPTI_ACTIVITY_KIND_MEMSET")) {
    read("SELECT start, end, correlationId, 0, streamId, bytes, '' FROM CUPTI_ACTIVITY_KIND_MEMSET",
         KinetoProgramEvent::Type::memset);
  }
  return out;
}

}  // namespace

NsysSqliteTraceSource::NsysSqliteTraceSource(std::filesystem::path path, KinetoImportOptions options) {
  const std::string where = path.string();
  Db db(path);
  {
    Statement check{db.prepare("SELECT count(*) FROM sqlite_master WHERE type='table' AND "
                               "name='CUPTI_ACTIVITY_KIND_MEMCPY'")};
    if (sqlite3_step(check.stmt) != SQLITE_ROW || sqlite3_column_int(check.stmt, 0) == 0) {
      db.fail("no CUPTI_ACTIVITY_KIND_MEMCPY table: the report has no CUDA copies (trace with "
              "`nsys profile --trace=cuda`, then `nsys export --type sqlite`)");
    }
  }
  std::vector<CopyEvent> events;
  Statement q{db.prepare("SELECT start, streamId, bytes, copyKind FROM CUPTI_ACTIVITY_KIND_MEMCPY ORDER BY start, rowid")};
  int rc = 0;
  while ((rc = sqlite3_step(q.stmt)) == SQLITE_ROW) {
    const sqlite3_int64 start = sqlite3_column_int64(q.stmt, 0);
    const sqlite3_int64 stream = sqlite3_column_int64(q.stmt, 1);
    const sqlite3_int64 bytes = sqlite3_column_int64(q.stmt, 2);
    const int kind = sqlite3_column_int(q.stmt, 3);
    if (start < 0 || stream < 0 || bytes < 0) {
      db.fail("CUPTI_ACTIVITY_KIND_MEMCPY row " + std::to_string(events.size()) + ": negative start, streamId or bytes");
    }
    CopyEvent e;
    e.direction = kind == 1 ? CopyDirection::h2d : kind == 2 ? CopyDirection::d2h : CopyDirection::other;
    e.ts_ns = start;
    e.bytes = static_cast<ByteCount>(bytes);
    e.stream = static_cast<std::uint32_t>(stream);
    e.order = events.size();
    events.push_back(e);
  }
  if (rc != SQLITE_DONE) db.fail(std::string("reading CUPTI_ACTIVITY_KIND_MEMCPY: ") + db.error());
  build(std::move(events), options, where, "nsys", {});
  if (options.program) attach_program(kineto_program(program_events(db), records(), where));
}

namespace {

FLASHSIM_REGISTER_TRACE_FORMAT((TraceFormatRegistry::Entry{
    "nsys",
    "Nsight Systems SQLite export (nsys export --type sqlite): host-to-device copies by the Kineto rules",
    copy_import_param_specs(false),
    [](const ParamValues& p, const TraceOpenContext& c) -> std::unique_ptr<ITraceSource> {
      return std::make_unique<NsysSqliteTraceSource>(c.path, copy_import_options(p));
    }}));

}  // namespace

}  // namespace flashsim

#endif  // FLASHSIM_HAVE_SQLITE3
