#include "server-shim/tick/tick_import.h"

#include <functional>
#include <string_view>

#include "core/goal/schedule_runs_text.h"
#include "core/store/schema.h"
#include "core/base/time_util.h"

namespace pulse::serve {

namespace {

// The key is the database's own, so a database put back from a backup
// carries the mark of what it had imported.
Status EnsureImportMarkSchema(Db& db) {
  static const std::vector<Migration> kMigrations = {
      {1,
       "CREATE TABLE IF NOT EXISTS pulse_schedule_runs_import ("
       " id INTEGER PRIMARY KEY CHECK (id = 1),"
       " size INTEGER NOT NULL,"
       " hash TEXT NOT NULL,"
       " at TEXT NOT NULL);"},
  };
  return ApplyMigrations(db, "schedule_runs_import", kMigrations);
}

bool SameAsLast(Db& db, int64_t size, const std::string& digest) {
  Result<Statement> st = db.Prepare("SELECT size, hash FROM pulse_schedule_runs_import WHERE id = 1");
  if (!st.ok()) return false;
  Result<bool> row = st->Step();
  return row.ok() && *row && st->Int64(0) == size && st->Text(1) == digest;
}

Status RecordImport(Db& db, int64_t size, const std::string& digest, int64_t now) {
  PULSE_ASSIGN_OR_RETURN(Statement st, db.Prepare(
      "INSERT INTO pulse_schedule_runs_import(id, size, hash, at) VALUES(1, ?, ?, ?)"
      " ON CONFLICT(id) DO UPDATE SET size = excluded.size, hash = excluded.hash, at = excluded.at"));
  st.Bind(1, size).Bind(2, digest).Bind(3, FormatTime(now));
  return st.Run();
}

}  // namespace

Result<ImportCounts> ImportScheduleRunsOnChange(Env& env, Db& db, const WorkflowConfig& config,
                                                const std::string& path, int max_runs) {
  if (!env.FileExists(path)) return ImportCounts{};
  Result<std::string> text = env.ReadFile(path);
  // Unreadable: the import names the file and the problem.
  if (!text.ok()) return ImportScheduleRunsFile(env, db, config, path);
  // A content hash, not the file's mtime: a rewrite of the same size within
  // the file system's timestamp granularity must not pass for the same file.
  // std::hash (not SHA-256, five times slower here) is enough: a collision
  // costs one missed import until the file changes again.
  const std::string digest = std::to_string(std::hash<std::string_view>{}(*text));
  const int64_t size = static_cast<int64_t>(text->size());
  PULSE_RETURN_IF_ERROR(EnsureImportMarkSchema(db));
  if (SameAsLast(db, size, digest)) return ImportCounts{};
  if (max_runs < 0) {
    ImportCounts later;
    later.remaining = 1;  // at least: the file is not read now
    return later;
  }
  // The text already read is parsed, not the file read a second time.
  PULSE_ASSIGN_OR_RETURN(std::vector<RunRecord> runs, ParseScheduleRunsText(*text, path));
  PULSE_ASSIGN_OR_RETURN(ImportCounts counts, ImportScheduleRuns(db, config, runs, env.NowSeconds(), max_runs));
  if (counts.remaining == 0) PULSE_RETURN_IF_ERROR(RecordImport(db, size, digest, env.NowSeconds()));
  return counts;
}

}  // namespace pulse::serve
