#include "traces/importers/nsys_sqlite.h"

#ifdef FLASHSIM_HAVE_SQLITE3
#include <sqlite3.h>

#include <algorithm>
#include <string>
#include <vector>

#include "sim/core/errors.h"
#include "traces/importers/copy_passes.h"
#include "traces/trace_formats.h"

namespace flashsim {

namespace {

class Db {
 public:
  explicit Db(const std::filesystem::path& path) : where_(path.string()) {
    if (!std::filesystem::is_regular_file(path)) throw InputError(where_ + ": no such file");
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
