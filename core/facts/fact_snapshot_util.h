// The shared steps of a snapshot of outside files (core/facts/fact_snapshot.h):
// opening one file under its bound, skipping an unchanged one, storing its
// rows and its source row in one transaction, and the warnings.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>

#include "core/store/db.h"
#include "core/base/env.h"
#include "core/facts/fact_snapshot.h"
#include "core/base/status.h"

namespace pulse {

struct SourceRead {
  std::string text;
  int64_t mtime = 0;
  int64_t size = 0;
};

class SnapshotRun {
 public:
  SnapshotRun(Env& env, Db& db, std::string workflow_dir, int64_t now, SnapshotLimits limits)
      : env(env), db(db), dir(std::move(workflow_dir)), now(now), limits(limits) {}

  // Reads `file` (relative to the workflow folder) when it changed since the
  // last snapshot. False when there is nothing to do: missing (recorded as
  // missing, see Missing), unchanged, over `max_bytes` or unreadable
  // (recorded so).
  bool OpenTextFile(const char* file, int64_t max_bytes, SourceRead* out, const char* rows_table = nullptr);
  // `write` and the source row (ok, `skipped`) in one transaction; a failure
  // is a warning and stores nothing.
  void Store(const char* file, const SourceRead& src, int64_t skipped, const std::function<Status(Db&)>& write);
  void Unreadable(const char* file, const SourceRead& src, const std::string& reason);
  // Records `file` missing. With `rows_table` (a file that is the whole
  // current list, such as chats.json: missing means empty) its stored rows
  // go in the same transaction; a table already empty is not written.
  void Missing(const char* file, const char* rows_table = nullptr);
  // One warning line; past limits.max_warnings per file, one line says more
  // were skipped (their count is in the facts).
  void Warn(const std::string& file, const std::string& message);
  // A line or row of `file` skipped: warned as "<message>, skipped"; the
  // first one of this read is the reason its source row keeps, so the facts
  // can say what could not be read ("unreadable: <file>:<line>: ...").
  void Skip(const std::string& file, const std::string& message);

  // The stored source row's per-file mark (0 when none).
  int64_t Mark(const char* file);
  // The stored source row already says "ok" for this size, time and mark:
  // a read with nothing new then writes nothing (not even takes the lock).
  bool StoredOk(const char* file, const SourceRead& src, int64_t mark);
  // An "ok" row with no reason given takes the first skip of this read; with
  // none this read but rows skipped before (the ledger counts across reads),
  // the stored reason stays. Unless `copied` (this read stored rows), a row
  // that would stay the same is not written, its read_at included.
  Status PutSource(const char* file, const char* state, const std::string& reason, int64_t skipped,
                   const SourceRead& src, const int64_t* mark = nullptr, bool copied = false);

  std::string Path(const char* file) const { return dir + "/" + file; }

  Env& env;
  Db& db;
  std::string dir;
  int64_t now;
  SnapshotLimits limits;
  SnapshotReport report;

 private:
  std::map<std::string, int> warned_;
  std::map<std::string, std::string> first_skip_;
};

// The ledger and the run folders (core/facts/fact_snapshot_ledger.cc).
void SnapshotLedger(SnapshotRun& run);
void SnapshotRunFolders(SnapshotRun& run);

}  // namespace pulse
