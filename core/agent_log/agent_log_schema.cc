#include "core/agent_log/agent_log_schema.h"

#include <string>
#include <utility>
#include <vector>

#include "core/store/schema.h"

namespace pulse {
namespace {

constexpr const char* kSortKeyOf =
    "(CASE WHEN %1started_at <> '' THEN %1started_at WHEN %1completed_at <> '' THEN %1completed_at"
    " ELSE %1updated_at END)";

// The indexes a page walks: the place, alone and after each equality filter.
constexpr std::pair<const char*, const char*> kPlaceIndexes[] = {
    {"by_time", ""}, {"by_status_time", "status, "}, {"by_session_time", "session_id, "}, {"by_run_time", "pulse_run_id, "}};

// The place of the row `prefix` names ("" or "new.") as an expression.
std::string SortKeyOf(const std::string& prefix) {
  std::string out = kSortKeyOf;
  for (size_t at = out.find("%1"); at != std::string::npos; at = out.find("%1", at + prefix.size())) {
    out.replace(at, 2, prefix);
  }
  return out;
}

// Version 3: pages newest first (ReadAgentLogPage), the place as an
// expression, alone and after each equality filter.
std::string PageIndexesSql() {
  std::string sql;
  for (const auto& [name, cols] : kPlaceIndexes) {
    sql += std::string("CREATE INDEX IF NOT EXISTS background_agent_log_") + name + " ON background_agent_log(" + cols +
           SortKeyOf("") + ");";
  }
  return sql;
}

// Version 6: the place stored in its own column, and only the indexes
// the reads walk. An index on an expression of completed_at was written
// again by every completion (SQLite rewrites an index whose expression
// reads a column an UPDATE sets, even when its value stays the same); an
// index on placed_at is written when a row is placed and never again, so
// a completion writes the row, its status and its completion time only.
// Version 2's indexes duplicated version 3's (show walks those upward).
std::string PlacedSql() {
  std::string sql =
      "ALTER TABLE background_agent_log ADD COLUMN placed_at TEXT NOT NULL DEFAULT '';"
      "UPDATE background_agent_log SET placed_at = " + SortKeyOf("") + ";";
  for (const char* old : {"by_session", "by_run", "by_status", "by_start", "by_completion", "by_time",
                          "by_status_time", "by_session_time", "by_run_time"}) {
    sql += std::string("DROP INDEX IF EXISTS background_agent_log_") + old + ";";
  }
  for (const auto& [name, cols] : kPlaceIndexes) {
    sql += std::string("CREATE INDEX background_agent_log_") + name + " ON background_agent_log(" + cols + "placed_at);";
  }
  // Only finished rows have a completion time to look up.
  sql += "CREATE INDEX background_agent_log_by_completion ON background_agent_log(completed_at)"
         " WHERE completed_at <> '';";
  // Any writer (an older program, a shell, a test's raw INSERT) keeps
  // placed_at right; Pulse's writers set it themselves, so for them the
  // WHEN is false and nothing more is written.
  for (const char* event : {"INSERT", "UPDATE"}) {
    sql += std::string("CREATE TRIGGER background_agent_log_place_on_") + (event[0] == 'I' ? "insert" : "update") +
           " AFTER " + event + " ON background_agent_log WHEN new.placed_at IS NOT " + SortKeyOf("new.") +
           " BEGIN UPDATE background_agent_log SET placed_at = " + SortKeyOf("new.") +
           " WHERE rowid = new.rowid; END;";
  }
  return sql;
}

}  // namespace

Status EnsureAgentLogSchema(Db& db) {
  static const std::string kPageIndexes = PageIndexesSql();
  static const std::string kPlaced = PlacedSql();
  static const std::vector<Migration> kMigrations = {
      // The original table, exactly: a database made before versions is adopted as is.
      {1,
       "CREATE TABLE IF NOT EXISTS background_agent_log ("
       " workspace_path TEXT NOT NULL,"
       " session_id TEXT NOT NULL,"
       " agent_id TEXT NOT NULL,"
       " name TEXT NOT NULL DEFAULT '',"
       " kind TEXT NOT NULL DEFAULT '',"
       " parent_execution_id TEXT NOT NULL DEFAULT '',"
       " status TEXT NOT NULL DEFAULT '',"
       " result TEXT NOT NULL DEFAULT '',"
       " error TEXT NOT NULL DEFAULT '',"
       " duration TEXT NOT NULL DEFAULT '',"
       " started_at TEXT NOT NULL DEFAULT '',"
       " completed_at TEXT NOT NULL DEFAULT '',"
       " updated_at TEXT NOT NULL,"
       " PRIMARY KEY (workspace_path, session_id, agent_id))"},
      // Run correlation (pulse_run_id) and the indexes behind
      // show's filters and prune.
      {2,
       "ALTER TABLE background_agent_log ADD COLUMN pulse_run_id TEXT NOT NULL DEFAULT '';"
       "CREATE INDEX IF NOT EXISTS background_agent_log_by_session ON background_agent_log(session_id, started_at);"
       "CREATE INDEX IF NOT EXISTS background_agent_log_by_run ON background_agent_log(pulse_run_id, started_at);"
       "CREATE INDEX IF NOT EXISTS background_agent_log_by_status ON background_agent_log(status, started_at);"
       "CREATE INDEX IF NOT EXISTS background_agent_log_by_start ON background_agent_log(started_at);"
       "CREATE INDEX IF NOT EXISTS background_agent_log_by_completion ON background_agent_log(completed_at);"},
      // Pages newest first (ReadAgentLogPage): the sort key itself, and
      // each equality filter followed by it, so a filtered page is a walk
      // down one index with no sort.
      {3, kPageIndexes.c_str()},
      // Completions numbered in the order they are written, for readers that follow the log
      // from a durable cursor (core/agent_log/otlp_export.h); rows finished before have none.
      {4,
       "ALTER TABLE background_agent_log ADD COLUMN completed_seq INTEGER;"
       "CREATE INDEX IF NOT EXISTS background_agent_log_by_completed_seq ON background_agent_log(completed_seq)"
       " WHERE completed_seq IS NOT NULL;"},
      // A model's tokens on the turn's row (Pulse's own model turns).
      {5,
       "ALTER TABLE background_agent_log ADD tokens_in INTEGER NOT NULL DEFAULT 0;"
       "ALTER TABLE background_agent_log ADD tokens_out INTEGER NOT NULL DEFAULT 0"},
      {6, kPlaced.c_str()},
  };
  return ApplyMigrations(db, "agent_log", kMigrations);
}

}  // namespace pulse
