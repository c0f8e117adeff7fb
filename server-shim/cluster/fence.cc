// Fencing by claim revision (fence.h).
#include "server-shim/cluster/fence.h"

#include <vector>

#include "core/store/schema.h"
#include "core/base/time_util.h"

namespace pulse::serve {

namespace {

thread_local std::optional<Fence> current_fence;

std::string Quoted(const std::string& name) {
  std::string q = "\"";
  for (char c : name) q += c == '"' ? std::string("\"\"") : std::string(1, c);
  return q + "\"";
}

}  // namespace

Status EnsureFenceSchema(Db& db) {
  static const std::vector<Migration> kMigrations = {
      {1,
       "CREATE TABLE IF NOT EXISTS pulse_fence ("
       " id INTEGER PRIMARY KEY CHECK (id = 1),"
       " revision INTEGER NOT NULL,"
       " holder TEXT NOT NULL,"
       " at TEXT NOT NULL);"
       "CREATE TABLE IF NOT EXISTS pulse_ticks ("
       " id INTEGER PRIMARY KEY,"
       " instance TEXT NOT NULL,"
       " tick INTEGER NOT NULL,"
       " revision INTEGER NOT NULL,"
       " at TEXT NOT NULL);"},
  };
  return ApplyMigrations(db, "claims", kMigrations);
}

Status InstallFenceTriggers(Db& db, int64_t revision) {
  std::vector<std::string> names;
  {
    PULSE_ASSIGN_OR_RETURN(Statement tables,
                           db.Prepare("SELECT name FROM main.sqlite_master WHERE type = 'table'"
                                      " AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' AND name != 'pulse_fence'"
                                      " AND sql NOT LIKE 'CREATE VIRTUAL%' ORDER BY name"));
    for (;;) {
      PULSE_ASSIGN_OR_RETURN(bool row, tables.Step());
      if (!row) break;
      names.push_back(tables.Text(0));
    }
  }
  const std::string rev = std::to_string(revision);
  const std::string when = " WHEN (SELECT revision FROM pulse_fence WHERE id = 1) > " + rev +
                           " BEGIN SELECT RAISE(ABORT, 'fenced: a newer claim than revision " + rev +
                           " ticks this workflow; this holder''s write is refused'); END;";
  std::string sql;
  int n = 0;
  for (const std::string& t : names) {
    for (const char* op : {"INSERT", "UPDATE", "DELETE"}) {
      sql += "CREATE TEMP TRIGGER IF NOT EXISTS pulse_fence_" + std::to_string(n++) + " BEFORE " + op + " ON " +
             Quoted(t) + when;
    }
  }
  return db.Exec(sql);
}

Status RecordFencedTick(Db& db, const Fence& fence, int64_t tick, int64_t now) {
  Transaction tx(db);
  PULSE_RETURN_IF_ERROR(tx.Begin());
  PULSE_ASSIGN_OR_RETURN(Statement get, db.Prepare("SELECT revision, holder FROM pulse_fence WHERE id = 1"));
  PULSE_ASSIGN_OR_RETURN(bool has, get.Step());
  if (has && get.Int64(0) > fence.revision) {
    return Status::Conflict(fence.workflow + ": fenced: claim revision " + std::to_string(fence.revision) +
                            " is older than revision " + std::to_string(get.Int64(0)) + " held by " + get.Text(1) +
                            "; not ticked");
  }
  get.Reset();
  PULSE_ASSIGN_OR_RETURN(Statement set,
                         db.Prepare("INSERT INTO pulse_fence(id, revision, holder, at) VALUES(1, ?, ?, ?)"
                                    " ON CONFLICT(id) DO UPDATE SET revision = excluded.revision,"
                                    " holder = excluded.holder, at = excluded.at"));
  set.Bind(1, fence.revision).Bind(2, fence.instance).BindTime(3, now);
  PULSE_RETURN_IF_ERROR(set.Run());
  PULSE_ASSIGN_OR_RETURN(Statement row,
                         db.Prepare("INSERT INTO pulse_ticks(instance, tick, revision, at) VALUES(?, ?, ?, ?)"));
  row.Bind(1, fence.instance).Bind(2, tick).Bind(3, fence.revision).BindTime(4, now);
  PULSE_RETURN_IF_ERROR(row.Run());
  PULSE_ASSIGN_OR_RETURN(Statement trim, db.Prepare("DELETE FROM pulse_ticks WHERE id <= ?"));
  trim.Bind(1, db.LastInsertRowId() - kTickRowsKept);
  PULSE_RETURN_IF_ERROR(trim.Run());
  return tx.Commit();
}

Result<nlohmann::json> ReadFencedTicks(Db& db, int64_t limit) {
  nlohmann::json out = {{"fence", nullptr}, {"ticks", nlohmann::json::array()}};
  PULSE_ASSIGN_OR_RETURN(int64_t has, db.QueryInt64("SELECT count(*) FROM sqlite_master WHERE name = 'pulse_fence'"));
  if (!has) return out;
  PULSE_ASSIGN_OR_RETURN(Statement f, db.Prepare("SELECT revision, holder, at FROM pulse_fence WHERE id = 1"));
  PULSE_ASSIGN_OR_RETURN(bool row, f.Step());
  if (row) out["fence"] = {{"revision", f.Int64(0)}, {"holder", f.Text(1)}, {"at", f.Text(2)}};
  PULSE_ASSIGN_OR_RETURN(Statement t, db.Prepare("SELECT instance, tick, revision, at FROM"
                                                 " (SELECT * FROM pulse_ticks ORDER BY id DESC LIMIT ?) ORDER BY id"));
  t.Bind(1, limit);
  for (;;) {
    PULSE_ASSIGN_OR_RETURN(bool more, t.Step());
    if (!more) break;
    out["ticks"].push_back({{"instance", t.Text(0)}, {"tick", t.Int64(1)}, {"revision", t.Int64(2)}, {"at", t.Text(3)}});
  }
  return out;
}

FenceScope::FenceScope(std::optional<Fence> fence) : previous_(std::move(current_fence)) {
  current_fence = std::move(fence);
}

FenceScope::~FenceScope() { current_fence = std::move(previous_); }

std::optional<Fence> CurrentFence() { return current_fence; }

Status ApplyCurrentFence(Db& db, const std::string& workflow) {
  if (!current_fence || current_fence->workflow != workflow) return Status::OK();
  PULSE_RETURN_IF_ERROR(EnsureFenceSchema(db));
  return InstallFenceTriggers(db, current_fence->revision);
}

}  // namespace pulse::serve
