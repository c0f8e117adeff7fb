// A snapshot of a live workflow database: a new, self-contained database
// file holding one consistent state of it, for the Pulse tab's Inspect
// (GET /api/workflows/<wf>/snapshot).
//
// Made with SQLite's online backup API in a single step, so the whole copy
// is read in one read transaction: other connections keep writing (a WAL
// reader blocks no writer), and the copy is the database as it was when the
// step began, never a mix of two states. Never a copy of the file itself:
// a WAL database's latest commits live in its -wal file until a checkpoint,
// and bytes copied while a checkpoint runs can be half old, half new.
#pragma once

#include <cstdint>
#include <string>

#include "core/base/status.h"
#include "core/store/db.h"

namespace pulse {

struct SnapshotInfo {
  int64_t bytes = 0;      // the copy's size
  int64_t pages = 0;      // its page count
  int page_size = 0;
};

// Copies `source` into a new database at `dest_path`, in rollback-journal
// mode (no -wal, no -shm beside it), synced. REQUIRES: nothing exists at
// `dest_path` (the caller makes a unique name, and removes the file when
// this fails). `source` is only read; its busy timeout applies while the
// copy waits for a lock. The Status names the database and the problem.
Result<SnapshotInfo> SnapshotDatabase(Db& source, const std::string& dest_path);

}  // namespace pulse
