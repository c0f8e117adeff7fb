#include "core/store/snapshot.h"

#include <sqlite3.h>

#include <memory>

namespace pulse {

namespace {

struct Closer {
  void operator()(sqlite3* db) const { sqlite3_close_v2(db); }
};

}  // namespace

Result<SnapshotInfo> SnapshotDatabase(Db& source, const std::string& dest_path) {
  sqlite3* raw = nullptr;
  int rc = sqlite3_open_v2(dest_path.c_str(), &raw, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX,
                           nullptr);
  std::unique_ptr<sqlite3, Closer> dest(raw);
  auto fail = [&](const std::string& what) {
    return Status::IoError(source.name() + ": snapshot to " + dest_path + ": " + what);
  };
  if (rc != SQLITE_OK) return fail(raw ? sqlite3_errmsg(raw) : sqlite3_errstr(rc));
  sqlite3_backup* backup = sqlite3_backup_init(dest.get(), "main", source.handle(), "main");
  if (!backup) return fail(sqlite3_errmsg(dest.get()));
  // -1: every page in one step, under one read transaction on the source
  // (a lock it must wait for goes through the source's busy timeout).
  rc = sqlite3_backup_step(backup, -1);
  int finished = sqlite3_backup_finish(backup);
  if (rc != SQLITE_DONE) return fail(sqlite3_errstr(rc));
  if (finished != SQLITE_OK) return fail(sqlite3_errmsg(dest.get()));
  // The source's header says WAL when it is in WAL mode; the copy is a
  // single file, so it is switched to rollback mode (which rewrites it).
  char* err = nullptr;
  rc = sqlite3_exec(dest.get(), "PRAGMA journal_mode=DELETE", nullptr, nullptr, &err);
  if (rc != SQLITE_OK) {
    std::string what = err ? err : sqlite3_errstr(rc);
    sqlite3_free(err);
    return fail(what);
  }
  SnapshotInfo info;
  sqlite3_stmt* st = nullptr;
  if (sqlite3_prepare_v2(dest.get(), "SELECT page_count, page_size FROM pragma_page_count, pragma_page_size", -1, &st,
                         nullptr) == SQLITE_OK &&
      sqlite3_step(st) == SQLITE_ROW) {
    info.pages = sqlite3_column_int64(st, 0);
    info.page_size = sqlite3_column_int(st, 1);
    info.bytes = info.pages * info.page_size;
  }
  sqlite3_finalize(st);
  if (info.page_size == 0) return fail("the copy could not be read back");
  return info;
}

}  // namespace pulse
