// Db and Statement: a thin RAII layer over one SQLite connection.
// Every SQLite return code becomes a Status carrying sqlite3_errmsg and the
// database's name, so an error names the input and the problem.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "core/base/status.h"

struct sqlite3;
struct sqlite3_stmt;

namespace pulse {

class Db;

class Statement {
 public:
  Statement() = default;
  Statement(Statement&& other) noexcept;
  Statement& operator=(Statement&& other) noexcept;
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;
  ~Statement();

  // Parameters are 1-based, as in SQLite.
  Statement& Bind(int index, int64_t value);
  Statement& Bind(int index, int value) { return Bind(index, static_cast<int64_t>(value)); }
  Statement& Bind(int index, double value);
  Statement& Bind(int index, std::string_view value);
  Statement& Bind(int index, const char* value) { return Bind(index, std::string_view(value)); }
  Statement& Bind(int index, const std::string& value) { return Bind(index, std::string_view(value)); }
  Statement& BindNull(int index);
  // A time as stored: FormatTime's text, so text order is time order.
  Statement& BindTime(int index, int64_t seconds);
  // Binds by name (":name"); a name the statement does not use is ignored.
  Statement& Bind(const char* name, std::string_view value);
  Statement& Bind(const char* name, int64_t value);

  // true: a row is ready; false: done.
  Result<bool> Step();
  // Runs to completion, ignoring rows.
  Status Run();
  void Reset();

  bool IsNull(int col) const;
  int64_t Int64(int col) const;
  double Double(int col) const;
  std::string Text(int col) const;
  // A time column (FormatTime's text): nullopt for NULL, '' (not yet) and
  // text that is not a time (a row another writer left), so one odd row
  // never fails a read.
  std::optional<int64_t> Time(int col) const;

  sqlite3_stmt* handle() const { return stmt_; }

 private:
  friend class Db;
  Statement(Db* db, sqlite3_stmt* stmt) : db_(db), stmt_(stmt) {}
  Status bind_status_;  // first bind error, reported by Step()
  Db* db_ = nullptr;
  sqlite3_stmt* stmt_ = nullptr;
};

struct OpenOptions {
  bool create = true;        // create the file when missing
  bool read_only = false;
  bool wal = true;           // journal_mode=WAL where the VFS supports it
  int busy_timeout_ms = 5000;
  std::string vfs;           // empty: the default VFS
  // The WAL is checkpointed every wal_checkpoint_pages pages and cut back to
  // wal_size_limit bytes after each checkpoint: on a small volume a WAL left
  // to grow to SQLite's default (4 MiB, never shrunk) fills the disk.
  int wal_checkpoint_pages = 256;
  int64_t wal_size_limit = 1 << 20;
  // The page size of a database this call creates (an existing file keeps
  // its own). Every committed write puts each page it touched into the WAL
  // whole; an agent-log event touches about seven b-trees (the table and its
  // indexes), so 1 KiB pages write about a quarter of what 4 KiB pages do.
  int new_page_size = 1024;
};

class Db {
 public:
  // Opens (or creates) the database file at `path`. Fails with Corruption when
  // the file exists but is not a SQLite database (or is truncated).
  static Result<std::unique_ptr<Db>> Open(const std::string& path, const OpenOptions& options = {});
  // Borrows a connection owned elsewhere (the WASM Database); never closes it.
  static std::unique_ptr<Db> Borrow(sqlite3* handle, std::string name = "database");
  ~Db();
  Db(const Db&) = delete;
  Db& operator=(const Db&) = delete;

  Status Exec(std::string_view sql);
  Result<Statement> Prepare(std::string_view sql);
  // Runs `sql` and returns the first column of the first row (or NotFound).
  Result<int64_t> QueryInt64(std::string_view sql);

  int64_t LastInsertRowId() const;
  int Changes() const;

  // Turns an SQLite return code into a Status naming this database.
  Status Error(int rc, std::string_view what = {}) const;

  sqlite3* handle() const { return db_; }
  const std::string& name() const { return name_; }

 private:
  Db(sqlite3* db, std::string name, bool owned) : db_(db), name_(std::move(name)), owned_(owned) {}
  sqlite3* db_;
  std::string name_;
  bool owned_;
};

// A deferred BEGIN for a run of reads, so they take the database's read lock
// (and, in WAL, its snapshot) once rather than once per statement; ended in
// the destructor. Does nothing inside a transaction already open, or when
// BEGIN fails (the reads then run one by one as before).
class ReadSnapshot {
 public:
  explicit ReadSnapshot(Db& db);
  ReadSnapshot(const ReadSnapshot&) = delete;
  ReadSnapshot& operator=(const ReadSnapshot&) = delete;
  ~ReadSnapshot();

 private:
  Db& db_;
  bool began_ = false;
};

// BEGIN IMMEDIATE ... COMMIT; rolls back in the destructor unless committed.
class Transaction {
 public:
  explicit Transaction(Db& db) : db_(db) {}
  Transaction(const Transaction&) = delete;
  Transaction& operator=(const Transaction&) = delete;
  ~Transaction();
  Status Begin();
  Status Commit();

 private:
  Db& db_;
  bool active_ = false;
  int64_t changes_at_begin_ = 0;
};

// A write that finds no room on its disk fails with one line naming the
// workflow (or the database), the room free and the room a write needs
// (SQLITE_FULL, ENOSPC, a shared-memory file that cannot grow). With `on`
// (the server) that line also goes to the log once per database, until a
// write to it goes through again, which is logged too; off (the default),
// callers report the failures they see.
void ReportDiskFullOnce(bool on);

}  // namespace pulse
