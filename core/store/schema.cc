#include "core/store/schema.h"

#include <map>
#include <mutex>
#include <optional>
#include <string>

namespace pulse {

namespace {

using Versions = std::map<std::string, int64_t>;

// Every component's version in `db`; nullopt when the table is not there yet.
std::optional<Versions> ReadVersions(Db& db) {
  Result<Statement> st = db.Prepare("SELECT component, version FROM pulse_schema_versions");
  if (!st.ok()) return std::nullopt;
  Versions v;
  for (;;) {
    Result<bool> row = st->Step();
    if (!row.ok()) return std::nullopt;
    if (!*row) return v;
    v[st->Text(0)] = st->Int64(1);
  }
}

// What a database holds once EnsureSchema has run on it with this build:
// learnt from the first database this process brought up to date. A
// database holding exactly these versions has nothing to migrate, so it
// costs one query instead of every component's own check.
std::mutex g_current_mu;
std::optional<Versions> g_current;

}  // namespace

Status ApplyMigrations(Db& db, const char* component, const std::vector<Migration>& migrations) {
  PULSE_RETURN_IF_ERROR(db.Exec(
      "CREATE TABLE IF NOT EXISTS pulse_schema_versions ("
      " component TEXT PRIMARY KEY,"
      " version INTEGER NOT NULL)"));
  PULSE_ASSIGN_OR_RETURN(Statement get, db.Prepare("SELECT version FROM pulse_schema_versions WHERE component = ?"));
  get.Bind(1, component);
  PULSE_ASSIGN_OR_RETURN(bool has, get.Step());
  int current = has ? static_cast<int>(get.Int64(0)) : 0;
  get.Reset();
  int latest = migrations.empty() ? 0 : migrations.back().version;
  if (current > latest) {
    return Status::Conflict(db.name() + ": schema component " + component + " is at version " +
                            std::to_string(current) + ", newer than this Pulse knows (" +
                            std::to_string(latest) + "); upgrade Pulse");
  }
  for (const Migration& m : migrations) {
    if (m.version <= current) continue;
    Transaction tx(db);
    PULSE_RETURN_IF_ERROR(tx.Begin());
    // Another process may have migrated while we waited for the lock.
    get.Bind(1, component);
    PULSE_ASSIGN_OR_RETURN(bool again, get.Step());
    int now_at = again ? static_cast<int>(get.Int64(0)) : 0;
    get.Reset();
    if (now_at >= m.version) continue;
    PULSE_RETURN_IF_ERROR(db.Exec(m.sql).WithContext(std::string("migrating ") + component));
    PULSE_ASSIGN_OR_RETURN(Statement set, db.Prepare(
        "INSERT INTO pulse_schema_versions(component, version) VALUES(?, ?)"
        " ON CONFLICT(component) DO UPDATE SET version = excluded.version"));
    set.Bind(1, component).Bind(2, static_cast<int64_t>(m.version));
    PULSE_RETURN_IF_ERROR(set.Run());
    PULSE_RETURN_IF_ERROR(tx.Commit());
  }
  return Status::OK();
}

// The outbox table is in every workflow database (the Pulse tab reads it
// from the browser copy too); only the server writes to it (agent/outbox/outbox.h).
Status EnsureOutboxSchema(Db& db) {
  static const std::vector<Migration> kMigrations = {
      {1,
       "CREATE TABLE IF NOT EXISTS pulse_outbox ("
       " id INTEGER PRIMARY KEY AUTOINCREMENT,"
       " kind TEXT NOT NULL,"
       " title TEXT NOT NULL DEFAULT '',"
       " text TEXT NOT NULL,"
       " payload_json TEXT NOT NULL DEFAULT '{}',"
       " pulse_run_id TEXT NOT NULL DEFAULT '',"
       " created_at TEXT NOT NULL,"
       " delivered_at TEXT NOT NULL DEFAULT '',"
       " delivery_error TEXT NOT NULL DEFAULT '',"
       " attempts INTEGER NOT NULL DEFAULT 0);"
       "CREATE INDEX IF NOT EXISTS pulse_outbox_undelivered ON pulse_outbox(delivered_at, id);"
       "CREATE INDEX IF NOT EXISTS pulse_outbox_run ON pulse_outbox(pulse_run_id, id);"},
  };
  return ApplyMigrations(db, "outbox", kMigrations);
}

// One row per message and target (core/notify/delivery.h): what became of each
// delivery, so the tab shows queued / delivered / retrying at / failed with
// the reason, and a restart retries only what is due.
Status EnsureOutboxDeliverySchema(Db& db) {
  static const std::vector<Migration> kMigrations = {
      {1,
       "CREATE TABLE IF NOT EXISTS pulse_outbox_delivery ("
       " message_id INTEGER NOT NULL,"
       " target TEXT NOT NULL,"
       " state TEXT NOT NULL DEFAULT 'queued',"
       " attempts INTEGER NOT NULL DEFAULT 0,"
       " error TEXT NOT NULL DEFAULT '',"
       " last_attempt_at TEXT NOT NULL DEFAULT '',"
       " next_attempt_at TEXT NOT NULL DEFAULT '',"
       " delivered_at TEXT NOT NULL DEFAULT '',"
       " remote_id TEXT NOT NULL DEFAULT '',"
       " PRIMARY KEY(message_id, target));"
       "CREATE INDEX IF NOT EXISTS pulse_outbox_delivery_due ON pulse_outbox_delivery(state, next_attempt_at);"
       // What the notifications last saw (core/goal/goal_recovery.h).
       "CREATE TABLE IF NOT EXISTS pulse_notify_state (key TEXT PRIMARY KEY, value TEXT NOT NULL, at TEXT NOT NULL);"},
  };
  return ApplyMigrations(db, "outbox_delivery", kMigrations);
}

Status EnsureSchema(Db& db) {
  {
    std::optional<Versions> have = ReadVersions(db);
    std::lock_guard<std::mutex> l(g_current_mu);
    if (have && g_current && *have == *g_current) return Status::OK();
  }
  PULSE_RETURN_IF_ERROR(EnsureEveryComponent(db));
  std::optional<Versions> now = ReadVersions(db);
  std::lock_guard<std::mutex> l(g_current_mu);
  if (now && !g_current) g_current = std::move(now);
  return Status::OK();
}

Status EnsureEveryComponent(Db& db) {
  // Every component's tables, in order (a later one may index an earlier
  // one's). Modules add their EnsureXxxSchema here, one entry each.
  static Status (*const kComponents[])(Db&) = {
      EnsureConfigSchema,  EnsureAutonomySchema,       EnsureAgentLogSchema, EnsureGoalSchema,
      EnsureOutboxSchema,  EnsureOutboxDeliverySchema, EnsureSlackSchema,    EnsureDecisionsSchema,
      EnsureConversationSchema, EnsurePassSchema,      EnsureFactsSchema,    EnsureRequestsSchema,
      EnsureWorklistSchema, EnsureRunFailuresSchema,   EnsureAsksSchema,     EnsureAfterRunSchema,
      EnsureOtlpExportSchema,
      EnsureAttentionSchema,
  };
  for (auto ensure : kComponents) PULSE_RETURN_IF_ERROR(ensure(db));
  return Status::OK();
}

}  // namespace pulse
