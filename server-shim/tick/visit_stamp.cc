#include "server-shim/tick/visit_stamp.h"

#include <sqlite3.h>

namespace pulse::serve {

namespace {

std::optional<int64_t> DataVersion(Db& db) {
  Result<int64_t> v = db.QueryInt64("PRAGMA data_version");
  if (!v.ok()) return std::nullopt;
  return *v;
}

}  // namespace

void OwnWrites::Begin(Db& db) { version_ = DataVersion(db); }

std::optional<DbStamp> StampIfQuiet(Db& db, const std::string& db_path, const std::function<bool()>& quiet) {
  Transaction lock(db);
  if (!lock.Begin().ok()) return std::nullopt;
  if (!quiet()) return std::nullopt;
  DbStamp stamp = StampDatabase(db_path);
  int off = 0;
  if (sqlite3_db_config(db.handle(), SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, 1, &off) != SQLITE_OK) return std::nullopt;
  if (!lock.Commit().ok()) return std::nullopt;
  return stamp;
}

std::optional<DbStamp> OwnWrites::End(Db& db, const std::string& db_path) {
  if (!version_) return std::nullopt;
  const int64_t began = *version_;
  return StampIfQuiet(db, db_path, [&] { return DataVersion(db) == began; });
}

std::string WorkflowDbPath(const std::string& workspace, const std::string& workflow) {
  return workspace + "/Workflow/" + workflow + "/db/db.sqlite";
}

}  // namespace pulse::serve
