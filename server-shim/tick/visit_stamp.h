// The database part of a quiet visit's stamp. A visit (the tick's, the
// outbox deliverer's) may itself write to the database it visits; those
// writes are what the visit found to do, not a reason to visit again. What
// must send it in again is a commit by any other connection. SQLite's
// PRAGMA data_version tells them apart: it changes on a connection only when
// another connection committed.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>

#include "core/store/db.h"
#include "server-shim/db_stamp.h"

namespace pulse::serve {

class OwnWrites {
 public:
  // Right after the database opened, before anything the visit decides on
  // is read.
  void Begin(Db& db);
  // With the database still open, as the visit's last use of it: when no
  // other connection committed since Begin, the database's stamp, taken while
  // the write lock is held so nothing can commit between the check and the
  // stamp. The connection is then set not to checkpoint on close, so its
  // close leaves the files as stamped (a later checkpoint by another
  // connection moves them, and costs one more visit). nullopt otherwise.
  std::optional<DbStamp> End(Db& db, const std::string& db_path);

 private:
  std::optional<int64_t> version_;
};

// For a writer that holds the workflow open and made its last write (a turn,
// a tick visit): with the write lock held, so nothing commits between the
// two, the database's stamp when `quiet` holds of the database as it then
// is; the connection is then set not to checkpoint on close, as End does.
// nullopt when the lock cannot be had or `quiet` is false.
std::optional<DbStamp> StampIfQuiet(Db& db, const std::string& db_path, const std::function<bool()>& quiet);

// <dir>/db/db.sqlite, as StampWorkflow stamps it.
std::string WorkflowDbPath(const std::string& workspace, const std::string& workflow);

}  // namespace pulse::serve
