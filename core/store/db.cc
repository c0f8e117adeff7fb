#include "core/store/db.h"
#include "core/store/db_stats.h"

#include <sqlite3.h>

#include <sys/stat.h>
#if defined(__linux__) || defined(__APPLE__)
#include <sys/statvfs.h>
#endif
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <mutex>
#include <set>

#include "core/base/env.h"
#include "core/base/time_util.h"
#include "core/base/utf8.h"

namespace pulse {

namespace {

Code CodeFor(int rc) {
  switch (rc & 0xff) {
    case SQLITE_BUSY:
    case SQLITE_LOCKED: return Code::kBusy;
    case SQLITE_NOTADB:
    case SQLITE_CORRUPT: return Code::kCorruption;
    case SQLITE_IOERR:
    case SQLITE_FULL:
    case SQLITE_READONLY:
    case SQLITE_CANTOPEN:
    case SQLITE_PERM: return Code::kIoError;
    case SQLITE_CONSTRAINT:
    case SQLITE_MISMATCH:
    case SQLITE_RANGE: return Code::kInvalidArgument;
    default: return Code::kInternal;
  }
}

// Databases whose last write found no room, by name: the one-line notice
// goes out once per episode, and one more line when a write succeeds again.
std::mutex g_full_mu;
std::atomic<int> g_full_count{0};
std::atomic<bool> g_full_notices{false};

std::set<std::string>& FullDatabases() {
  static std::set<std::string> names;
  return names;
}

// "workflow substack" for ".../Workflow/substack/db/db.sqlite", else the name.
std::string WhoseDatabase(const std::string& name) {
  size_t at = name.rfind("/db/");
  size_t wf = name.rfind("/Workflow/", at == std::string::npos ? std::string::npos : at);
  if (at == std::string::npos || wf == std::string::npos) return name;
  return "workflow " + name.substr(wf + 10, at - wf - 10);
}

std::string Bytes(uint64_t n) {
  if (n >= (uint64_t{1} << 20)) return std::to_string((n + (1 << 19)) >> 20) + " MiB";
  return std::to_string((n + 512) >> 10) + " KiB";
}

// Free bytes on the volume holding `path`; -1 when it cannot be told.
int64_t FreeBytes(const std::string& path) {
#if defined(__linux__) || defined(__APPLE__)
  size_t cut = path.find_last_of('/');
  std::string dir = cut == std::string::npos ? "." : cut == 0 ? "/" : path.substr(0, cut);
  struct statvfs v;
  if (::statvfs(dir.c_str(), &v) == 0) return static_cast<int64_t>(v.f_bavail) * static_cast<int64_t>(v.f_frsize);
#else
  (void)path;
#endif
  return -1;
}

void NoteFull(const std::string& name, const std::string& line) {
  std::lock_guard<std::mutex> l(g_full_mu);
  if (!FullDatabases().insert(name).second) return;
  g_full_count.fetch_add(1);
  if (g_full_notices.load()) DefaultEnv()->Log(LogLevel::kError, line);
}

void NoteWritten(const std::string& name) {
  if (g_full_count.load(std::memory_order_relaxed) == 0) return;
  std::lock_guard<std::mutex> l(g_full_mu);
  if (FullDatabases().erase(name) == 0) return;
  g_full_count.fetch_sub(1);
  if (g_full_notices.load()) {
    DefaultEnv()->Log(LogLevel::kInfo, WhoseDatabase(name) + ": writes go through again (" + name +
                                           " has room on its disk)");
  }
}

Status MakeStatus(Code code, std::string msg) {
  switch (code) {
    case Code::kBusy: return Status::Busy(std::move(msg));
    case Code::kCorruption: return Status::Corruption(std::move(msg));
    case Code::kIoError: return Status::IoError(std::move(msg));
    case Code::kInvalidArgument: return Status::InvalidArgument(std::move(msg));
    default: return Status::Internal(std::move(msg));
  }
}

}  // namespace

// ---- Statement ----

Statement::Statement(Statement&& other) noexcept
    : bind_status_(std::move(other.bind_status_)), db_(other.db_), stmt_(other.stmt_) {
  other.stmt_ = nullptr;
}

Statement& Statement::operator=(Statement&& other) noexcept {
  if (this != &other) {
    if (stmt_) sqlite3_finalize(stmt_);
    db_ = other.db_;
    stmt_ = other.stmt_;
    bind_status_ = std::move(other.bind_status_);
    other.stmt_ = nullptr;
  }
  return *this;
}

Statement::~Statement() {
  if (stmt_) sqlite3_finalize(stmt_);
}

#define PULSE_BIND_CHECK(rc)                                              \
  do {                                                                    \
    int bind_rc_ = (rc);                                                  \
    if (bind_rc_ != SQLITE_OK && bind_status_.ok()) bind_status_ = db_->Error(bind_rc_, "bind"); \
  } while (0)

Statement& Statement::Bind(int index, int64_t value) {
  PULSE_BIND_CHECK(sqlite3_bind_int64(stmt_, index, value));
  return *this;
}
Statement& Statement::Bind(int index, double value) {
  PULSE_BIND_CHECK(sqlite3_bind_double(stmt_, index, value));
  return *this;
}
Statement& Statement::Bind(int index, std::string_view value) {
  // The one door every Pulse text goes through into a row: a stray byte stored
  // here would fail every later JSON rendering of the row, so it is repaired.
  if (!IsValidUtf8(value)) {
    std::string repaired = RepairUtf8(value);
    PULSE_BIND_CHECK(sqlite3_bind_text(stmt_, index, repaired.data(), static_cast<int>(repaired.size()),
                                       SQLITE_TRANSIENT));
    return *this;
  }
  PULSE_BIND_CHECK(sqlite3_bind_text(stmt_, index, value.data(), static_cast<int>(value.size()),
                                     SQLITE_TRANSIENT));
  return *this;
}
Statement& Statement::BindNull(int index) {
  PULSE_BIND_CHECK(sqlite3_bind_null(stmt_, index));
  return *this;
}
Statement& Statement::BindTime(int index, int64_t seconds) { return Bind(index, FormatTime(seconds)); }
Statement& Statement::Bind(const char* name, std::string_view value) {
  int index = sqlite3_bind_parameter_index(stmt_, name);
  return index > 0 ? Bind(index, value) : *this;
}
Statement& Statement::Bind(const char* name, int64_t value) {
  int index = sqlite3_bind_parameter_index(stmt_, name);
  return index > 0 ? Bind(index, value) : *this;
}

Result<bool> Statement::Step() {
  if (!bind_status_.ok()) return bind_status_;
  int rc = sqlite3_step(stmt_);
  if (rc == SQLITE_ROW) return true;
  if (rc == SQLITE_DONE) return false;
  return db_->Error(rc);
}

Status Statement::Run() {
  sqlite3* handle = sqlite3_db_handle(stmt_);
  const int64_t before = sqlite3_total_changes64(handle);
  for (;;) {
    Result<bool> row = Step();
    if (!row.ok()) return row.status();
    if (!*row) {
      // A row written and committed (not inside a transaction still open).
      if (sqlite3_total_changes64(handle) > before && sqlite3_get_autocommit(handle)) NoteWritten(db_->name());
      return Status::OK();
    }
  }
}

void Statement::Reset() {
  sqlite3_reset(stmt_);
  sqlite3_clear_bindings(stmt_);
  bind_status_ = Status::OK();
}

bool Statement::IsNull(int col) const { return sqlite3_column_type(stmt_, col) == SQLITE_NULL; }
int64_t Statement::Int64(int col) const { return sqlite3_column_int64(stmt_, col); }
double Statement::Double(int col) const { return sqlite3_column_double(stmt_, col); }
std::string Statement::Text(int col) const {
  const unsigned char* text = sqlite3_column_text(stmt_, col);
  if (!text) return {};
  std::string_view view(reinterpret_cast<const char*>(text), static_cast<size_t>(sqlite3_column_bytes(stmt_, col)));
  // Rows written by something other than Pulse (an older version, a shell)
  // may hold any bytes: readers always get well-formed text.
  if (!IsValidUtf8(view)) return RepairUtf8(view);
  return std::string(view);
}

std::optional<int64_t> Statement::Time(int col) const {
  const unsigned char* text = sqlite3_column_text(stmt_, col);
  if (!text || !*text) return std::nullopt;
  Result<int64_t> t =
      ParseTime(std::string_view(reinterpret_cast<const char*>(text), static_cast<size_t>(sqlite3_column_bytes(stmt_, col))));
  if (!t.ok()) return std::nullopt;
  return *t;
}

// ---- Db ----

namespace {
std::atomic<uint64_t> g_open_count{0};
}  // namespace

uint64_t DbOpenCount() { return g_open_count.load(std::memory_order_relaxed); }

namespace {
thread_local bool making_aside = false;  // CreateWhole's own open makes its file in place

// A new database file appears whole: made under a unique sibling name (page
// size, the WAL header), closed, then linked into place with link(2), which
// refuses to overwrite. No other process opens it empty or half-made (SQLite
// deletes a WAL beside an empty file; "disk I/O error" for whoever loses that
// race). Losing to another maker is fine: theirs is the one used.
Status CreateWhole(const std::string& path, const OpenOptions& options) {
  static std::atomic<uint64_t> counter{0};
  std::string tmp = path + ".new-" + std::to_string(::getpid()) + "-" + std::to_string(counter.fetch_add(1));
  OpenOptions made = options;
  making_aside = true;
  struct Reset { ~Reset() { making_aside = false; } } reset;
  {
    PULSE_ASSIGN_OR_RETURN(std::unique_ptr<Db> db, Db::Open(tmp, made));
    PULSE_ASSIGN_OR_RETURN(int64_t pages, db->QueryInt64("PRAGMA page_count"));
    if (pages == 0) PULSE_RETURN_IF_ERROR(db->Exec("PRAGMA user_version=0; VACUUM"));
  }
  ::unlink((tmp + "-wal").c_str());
  ::unlink((tmp + "-shm").c_str());
  int rc = ::link(tmp.c_str(), path.c_str());
  int err = errno;
  ::unlink(tmp.c_str());
  if (rc != 0 && err != EEXIST) return Status::IoError(path + ": cannot create database: " + std::strerror(err));
  return Status::OK();
}
}  // namespace

Result<std::unique_ptr<Db>> Db::Open(const std::string& path, const OpenOptions& options) {
  struct stat st;
  if (options.create && !options.read_only && options.vfs.empty() && path != ":memory:" && !path.empty() &&
      path.rfind("file:", 0) != 0 && !making_aside && ::stat(path.c_str(), &st) != 0 && errno == ENOENT) {
    PULSE_RETURN_IF_ERROR(CreateWhole(path, options));
  }
  int flags = options.read_only ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE;
  if (options.create && !options.read_only) flags |= SQLITE_OPEN_CREATE;
  flags |= SQLITE_OPEN_NOMUTEX;
  sqlite3* raw = nullptr;
  int rc = sqlite3_open_v2(path.c_str(), &raw, flags, options.vfs.empty() ? nullptr : options.vfs.c_str());
  if (rc != SQLITE_OK) {
    std::string msg = raw ? sqlite3_errmsg(raw) : sqlite3_errstr(rc);
    sqlite3_close_v2(raw);
    return MakeStatus(CodeFor(rc), path + ": cannot open database: " + msg);
  }
  std::unique_ptr<Db> db(new Db(raw, path, true));
  g_open_count.fetch_add(1, std::memory_order_relaxed);
  sqlite3_extended_result_codes(raw, 1);
  sqlite3_busy_timeout(raw, options.busy_timeout_ms);
  // Reading the schema is what tells a SQLite file from anything else: a file
  // that is not a database (or is truncated) fails here, before any write.
  Status s = db->Exec("SELECT count(*) FROM sqlite_schema");
  if (!s.ok()) return s;
  if (!options.read_only && options.new_page_size > 0) {
    // Only an empty database (no page yet) takes a page size.
    PULSE_ASSIGN_OR_RETURN(int64_t pages, db->QueryInt64("PRAGMA page_count"));
    if (pages == 0) PULSE_RETURN_IF_ERROR(db->Exec("PRAGMA page_size=" + std::to_string(options.new_page_size)));
  }
  if (options.wal && !options.read_only) {
    Result<Statement> st = db->Prepare("PRAGMA journal_mode=WAL");
    if (!st.ok()) return st.status();
    Result<bool> row = st->Step();
    if (!row.ok()) return row.status();
    PULSE_RETURN_IF_ERROR(db->Exec("PRAGMA wal_autocheckpoint=" + std::to_string(options.wal_checkpoint_pages)));
    PULSE_RETURN_IF_ERROR(db->Exec("PRAGMA journal_size_limit=" + std::to_string(options.wal_size_limit)));
  }
  PULSE_RETURN_IF_ERROR(db->Exec("PRAGMA foreign_keys=ON"));
  return db;
}

std::unique_ptr<Db> Db::Borrow(sqlite3* handle, std::string name) {
  return std::unique_ptr<Db>(new Db(handle, std::move(name), false));
}

void ReportDiskFullOnce(bool on) { g_full_notices.store(on); }

Db::~Db() {
  if (owned_ && db_) sqlite3_close_v2(db_);
}

Status Db::Error(int rc, std::string_view what) const {
  std::string msg = name_ + ": ";
  if (!what.empty()) {
    msg += what;
    msg += ": ";
  }
  const char* err = db_ ? sqlite3_errmsg(db_) : nullptr;
  // sqlite3_errmsg reflects the most recent call; fall back to the code's text.
  if (err && std::strcmp(err, "not an error") != 0) {
    msg += err;
  } else {
    msg += sqlite3_errstr(rc);
  }
  Code code = CodeFor(rc);
  // No room: SQLITE_FULL, an I/O error whose system error is ENOSPC, or the
  // shared-memory file that could not grow (SQLITE_IOERR_SHMSIZE) on a volume
  // with less free than a write needs.
  const int extended = db_ ? sqlite3_extended_errcode(db_) : rc;
  const bool no_space = (rc & 0xff) == SQLITE_FULL || (extended & 0xff) == SQLITE_FULL ||
                        (code == Code::kIoError && db_ && sqlite3_system_errno(db_) == ENOSPC) ||
                        extended == SQLITE_IOERR_SHMSIZE;
  if (no_space) {
    // One line naming the workflow and the room a write needs: the WAL grows
    // by up to one checkpoint's pages (wal_autocheckpoint) before it starts over.
    int64_t page = 4096, pages = 256;
    if (db_) {
      sqlite3_stmt* q = nullptr;
      if (sqlite3_prepare_v2(db_, "SELECT page_size, wal_autocheckpoint FROM pragma_page_size, pragma_wal_autocheckpoint",
                             -1, &q, nullptr) == SQLITE_OK &&
          sqlite3_step(q) == SQLITE_ROW) {
        page = sqlite3_column_int64(q, 0);
        pages = std::max<int64_t>(sqlite3_column_int64(q, 1), 16);
      }
      sqlite3_finalize(q);
    }
    const int64_t free_bytes = FreeBytes(name_);
    const int64_t needed = page * pages + (64 << 10);
    if (extended == SQLITE_IOERR_SHMSIZE && free_bytes >= needed) return MakeStatus(code, std::move(msg));
    std::string line = WhoseDatabase(name_) + ": the disk holding " + name_ + " is full (" +
                       (free_bytes >= 0 ? Bytes(static_cast<uint64_t>(free_bytes)) + " free" : "no room") +
                       "; a write needs about " + Bytes(static_cast<uint64_t>(needed)) +
                       "): nothing was written, and writes go through again by themselves once there is room";
    NoteFull(name_, line);
    return Status::IoError(std::move(line));
  }
  // An I/O error's extended code says which call failed (read, lock, shm, ...).
  if (code == Code::kIoError && db_ && sqlite3_extended_errcode(db_) != (rc & 0xff)) {
    msg += " (extended code " + std::to_string(sqlite3_extended_errcode(db_)) + ")";
  }
  if (code == Code::kCorruption && msg.find("not a database") == std::string::npos) {
    msg += " (the file is not a SQLite database or is damaged)";
  }
  return MakeStatus(code, std::move(msg));
}

Status Db::Exec(std::string_view sql) {
  std::string owned(sql);
  char* err = nullptr;
  int rc = sqlite3_exec(db_, owned.c_str(), nullptr, nullptr, &err);
  if (err) sqlite3_free(err);
  if (rc != SQLITE_OK) return Error(rc);
  return Status::OK();
}

Result<Statement> Db::Prepare(std::string_view sql) {
  sqlite3_stmt* stmt = nullptr;
  int rc = sqlite3_prepare_v2(db_, sql.data(), static_cast<int>(sql.size()), &stmt, nullptr);
  if (rc != SQLITE_OK) return Error(rc, "prepare");
  return Statement(this, stmt);
}

Result<int64_t> Db::QueryInt64(std::string_view sql) {
  PULSE_ASSIGN_OR_RETURN(Statement st, Prepare(sql));
  PULSE_ASSIGN_OR_RETURN(bool row, st.Step());
  if (!row) return Status::NotFound(name_ + ": query returned no row");
  return st.Int64(0);
}

int64_t Db::LastInsertRowId() const { return sqlite3_last_insert_rowid(db_); }
int Db::Changes() const { return sqlite3_changes(db_); }

// ---- Transaction ----

ReadSnapshot::ReadSnapshot(Db& db) : db_(db) {
  if (sqlite3_get_autocommit(db_.handle()) == 0) return;
  began_ = db_.Exec("BEGIN DEFERRED").ok();
}

ReadSnapshot::~ReadSnapshot() {
  // Still the reads' own transaction (a write inside would have been an
  // error of the caller's): nothing to keep, so ROLLBACK.
  if (began_ && sqlite3_get_autocommit(db_.handle()) == 0) (void)db_.Exec("ROLLBACK");
}

Status Transaction::Begin() {
  PULSE_RETURN_IF_ERROR(db_.Exec("BEGIN IMMEDIATE"));
  active_ = true;
  changes_at_begin_ = sqlite3_total_changes64(db_.handle());
  return Status::OK();
}

Status Transaction::Commit() {
  if (!active_) return Status::Internal("commit without begin");
  Status s = db_.Exec("COMMIT");
  if (s.ok()) {
    active_ = false;
    if (sqlite3_total_changes64(db_.handle()) > changes_at_begin_) NoteWritten(db_.name());
  }
  return s;
}

Transaction::~Transaction() {
  if (active_) (void)db_.Exec("ROLLBACK");
}

}  // namespace pulse
