#include "core/workflow/after_run.h"

#include "core/store/db_rows.h"
#include "core/base/json_limits.h"
#include "core/store/schema.h"
#include "core/base/sha256.h"
#include "core/base/time_util.h"

namespace pulse {

using nlohmann::json;

json AfterRunToJson(const AfterRun& a) {
  return json{{"backup", a.backup}, {"publish", a.publish}, {"notify", a.notify}};
}

json AfterRunMigration::ToJson() const {
  return json{{"changed", changed()}, {"migrated", migrated}, {"in_step", in_step}, {"pulse_kept_on", pulse_kept_on}};
}

std::string PulseModeInStep(const AfterRun& after, const std::string& previous) {
  if (!after.backup && !after.publish && !after.notify) return "off";
  return previous == "full" ? "full" : "basic";
}

namespace {

bool BoolOr(const json& obj, const char* key, bool fallback) {
  auto it = obj.find(key);
  return it != obj.end() && it->is_boolean() ? it->get<bool>() : fallback;
}

AfterRun ReadAfter(const json& obj) {
  return AfterRun{BoolOr(obj, "backup", true), BoolOr(obj, "publish", true), BoolOr(obj, "notify", true)};
}

std::string StringOr(const json& obj, const char* key) {
  auto it = obj.find(key);
  return it != obj.end() && it->is_string() ? it->get<std::string>() : "";
}

}  // namespace

Status MigrateAfterRunDoc(json& doc, AfterRunMigration* report) {
  AfterRunMigration local;
  AfterRunMigration& r = report ? *report : local;
  auto schedules = doc.find("schedules");
  if (schedules == doc.end() || !schedules->is_array()) return Status::OK();
  bool legacy_full = false;
  for (json& s : *schedules) {
    if (!s.is_object()) continue;
    const std::string id = StringOr(s, "id");
    const std::string mode = StringOr(s, "pulse_mode");
    legacy_full = legacy_full || mode == "full";
    auto after = s.find("after_run");
    if (after == s.end() || !after->is_object()) {
      if (mode.empty()) continue;  // nothing chosen: the platform's default holds
      s["after_run"] = AfterRunToJson(AfterRunForPulseMode(mode));
      r.migrated.push_back(id);
      // "full" stays "full" (it reads as all three on), so it is in step.
      continue;
    }
    if (mode.empty()) continue;
    std::string in_step = PulseModeInStep(ReadAfter(*after), mode);
    if (in_step != mode) {
      s["pulse_mode"] = in_step;
      r.in_step.push_back(id);
    }
  }
  if (legacy_full) {
    // Full Pulse used to start from pulse_mode; it starts from
    // pulse.enabled now, so a workflow that had it keeps it.
    if (!doc.contains("pulse") || !doc["pulse"].is_object()) doc["pulse"] = json::object();
    json& pulse = doc["pulse"];
    if (!pulse.contains("enabled") || pulse["enabled"] != true) {
      pulse["enabled"] = true;
      r.pulse_kept_on = true;
    }
  }
  return Status::OK();
}

Status SetAfterRunDoc(json& doc, const std::string& schedule_id, const AfterRun& after) {
  if (schedule_id == "manual") {
    doc["after_manual_run"] = AfterRunToJson(after);
    return Status::OK();
  }
  auto schedules = doc.find("schedules");
  if (schedules != doc.end() && schedules->is_array()) {
    for (json& s : *schedules) {
      if (!s.is_object() || StringOr(s, "id") != schedule_id) continue;
      s["after_run"] = AfterRunToJson(after);
      std::string mode = StringOr(s, "pulse_mode");
      if (!mode.empty()) s["pulse_mode"] = PulseModeInStep(after, mode);
      return Status::OK();
    }
  }
  return Status::NotFound("schedule \"" + schedule_id + "\": no such schedule in workflow.json");
}

AppliedAfterRun AfterRunForTrigger(const WorkflowConfig& config, const std::string& trigger) {
  const std::string prefix = "schedule:";
  if (trigger.rfind(prefix, 0) == 0) {
    const std::string id = trigger.substr(prefix.size());
    for (const Schedule& s : config.schedules) {
      if (s.id == id) return AppliedAfterRun{s.after_run, "schedule " + id};
    }
    // A schedule since removed: nothing the owner chose applies.
    return AppliedAfterRun{AfterRun{false, false, false}, "schedule " + id + " is not in workflow.json"};
  }
  return AppliedAfterRun{config.after_manual_run, "after a manual run"};
}

RunNotice DecideRunNotice(const std::string& workflow, const std::string& run_id, const std::string& status,
                          const std::string& previous_status, const std::string& error, const std::string& route) {
  RunNotice n;
  if (status != "completed") {
    n.to_channels = true;
    n.why = "the run " + status;
  } else if (!previous_status.empty() && previous_status != status) {
    n.to_channels = true;
    n.why = "status changed from " + previous_status + " to " + status;
  } else {
    n.why = "routine success";
  }
  n.title = workflow + " run " + run_id + ": " + status;
  n.text = "Run " + run_id + (route.empty() ? "" : " (route " + route + ")") + " " + status +
           (previous_status.empty() || previous_status == status ? "" : "; the run before " + previous_status) +
           (error.empty() ? "" : ". Error: " + error) + ".";
  return n;
}

Result<std::string> WorkflowSourceHash(Env& env, const std::string& dir) {
  std::string all;
  for (const char* rel : {"workflow.json", "soul.md", "planning/plan.json", "planning/step_config.json"}) {
    std::string path = dir + "/" + rel;
    std::string text;
    if (env.FileExists(path)) {
      PULSE_ASSIGN_OR_RETURN(text, env.ReadFile(path));
    }
    all += std::string(rel) + "\n" + std::to_string(text.size()) + "\n" + text + "\n";
  }
  return Sha256Hex(all);
}

Result<std::string> PreviousRunStatus(Db& db, const std::string& run_id, int64_t finished_at) {
  PULSE_ASSIGN_OR_RETURN(Statement st, db.Prepare(
      "SELECT status FROM goal_run_facts WHERE run_id != ? AND finished_at <= ?"
      " ORDER BY finished_at DESC, run_id DESC LIMIT 1"));
  st.Bind(1, run_id).Bind(2, FormatTime(finished_at));
  PULSE_ASSIGN_OR_RETURN(bool row, st.Step());
  return row ? st.Text(0) : std::string();
}

Status EnsureAfterRunSchema(Db& db) {
  static const std::vector<Migration> kMigrations = {
      {1,
       "CREATE TABLE IF NOT EXISTS pulse_housekeeping_done ("
       " action TEXT PRIMARY KEY CHECK (action IN ('backup', 'publish')),"
       " source_hash TEXT NOT NULL,"
       " run_id TEXT NOT NULL DEFAULT '',"
       " note TEXT NOT NULL DEFAULT '',"
       " at TEXT NOT NULL);"
       "CREATE TABLE IF NOT EXISTS pulse_housekeeping_requests ("
       " id INTEGER PRIMARY KEY AUTOINCREMENT,"
       " run_id TEXT NOT NULL UNIQUE,"
       " actions TEXT NOT NULL,"
       " source_hash TEXT NOT NULL,"
       " state TEXT NOT NULL DEFAULT 'pending',"
       " created_at TEXT NOT NULL,"
       " updated_at TEXT NOT NULL);"
       "CREATE TABLE IF NOT EXISTS pulse_run_summaries ("
       " run_id TEXT PRIMARY KEY,"
       " status TEXT NOT NULL,"
       " to_channels INTEGER NOT NULL,"
       " why TEXT NOT NULL,"
       " text TEXT NOT NULL,"
       " outbox_id INTEGER,"
       " at TEXT NOT NULL);"},
      // The Workflow Review's own conversation (core/review/review_conversation.h).
      {2,
       "CREATE TABLE IF NOT EXISTS pulse_review_turns ("
       " id INTEGER PRIMARY KEY AUTOINCREMENT,"
       " session TEXT NOT NULL,"
       " revision TEXT NOT NULL DEFAULT '',"
       " trigger TEXT NOT NULL DEFAULT '',"
       " pulse_run_id TEXT NOT NULL DEFAULT '',"
       " text TEXT NOT NULL,"
       " reply TEXT NOT NULL DEFAULT '',"
       " state TEXT NOT NULL DEFAULT 'running',"
       " outcome TEXT NOT NULL DEFAULT '',"
       " error TEXT NOT NULL DEFAULT '',"
       " started_at TEXT NOT NULL,"
       " finished_at TEXT NOT NULL DEFAULT '');"},
  };
  return ApplyMigrations(db, "after_run", kMigrations);
}

Result<std::string> LastHousekeepingHash(Db& db, const std::string& action) {
  PULSE_ASSIGN_OR_RETURN(Statement st, db.Prepare("SELECT source_hash FROM pulse_housekeeping_done WHERE action = ?"));
  st.Bind(1, action);
  PULSE_ASSIGN_OR_RETURN(bool row, st.Step());
  return row ? st.Text(0) : std::string();
}

Status RecordHousekeepingDone(Db& db, const std::string& action, const std::string& hash, const std::string& run_id,
                              const std::string& note, int64_t now) {
  if (action != "backup" && action != "publish") {
    return Status::InvalidArgument("action: expected backup or publish, got \"" + action + "\"");
  }
  PULSE_ASSIGN_OR_RETURN(Statement st, db.Prepare(
      "INSERT INTO pulse_housekeeping_done(action, source_hash, run_id, note, at) VALUES(?, ?, ?, ?, ?)"
      " ON CONFLICT(action) DO UPDATE SET source_hash = excluded.source_hash, run_id = excluded.run_id,"
      " note = excluded.note, at = excluded.at"));
  st.Bind(1, action).Bind(2, hash).Bind(3, run_id).Bind(4, note).BindTime(5, now);
  return st.Run();
}

json HousekeepingRequest::ToJson() const {
  return json{{"id", id},       {"run_id", run_id}, {"actions", actions}, {"source_hash", source_hash},
              {"state", state}, {"created_at", FormatTime(created_at)}};
}

Result<int64_t> RequestHousekeeping(Db& db, const HousekeepingRequest& r, int64_t now) {
  PULSE_ASSIGN_OR_RETURN(Statement find, db.Prepare("SELECT id FROM pulse_housekeeping_requests WHERE run_id = ?"));
  find.Bind(1, r.run_id);
  PULSE_ASSIGN_OR_RETURN(bool exists, find.Step());
  if (exists) return find.Int64(0);
  PULSE_ASSIGN_OR_RETURN(Statement st, db.Prepare(
      "INSERT INTO pulse_housekeeping_requests(run_id, actions, source_hash, state, created_at, updated_at)"
      " VALUES(?, ?, ?, 'pending', ?, ?)"));
  st.Bind(1, r.run_id).Bind(2, json(r.actions).dump()).Bind(3, r.source_hash).BindTime(4, now).BindTime(5, now);
  PULSE_RETURN_IF_ERROR(st.Run());
  return db.LastInsertRowId();
}

Result<std::vector<HousekeepingRequest>> ListHousekeeping(Db& db, const std::string& state, int limit) {
  PULSE_ASSIGN_OR_RETURN(Statement st, db.Prepare(
      "SELECT id, run_id, actions, source_hash, state, created_at FROM pulse_housekeeping_requests"
      " WHERE (?1 = '' OR state = ?1) ORDER BY id LIMIT ?2"));
  st.Bind(1, state).Bind(2, static_cast<int64_t>(limit));
  std::vector<HousekeepingRequest> out;
  for (;;) {
    PULSE_ASSIGN_OR_RETURN(bool row, st.Step());
    if (!row) break;
    HousekeepingRequest r;
    r.id = st.Int64(0);
    r.run_id = st.Text(1);
    json actions = ParseJsonOrDiscarded(st.Text(2));
    if (actions.is_array()) {
      for (const json& a : actions) if (a.is_string()) r.actions.push_back(a.get<std::string>());
    }
    r.source_hash = st.Text(3);
    r.state = st.Text(4);
    r.created_at = st.Time(5).value_or(0);
    out.push_back(std::move(r));
  }
  return out;
}

Status SetHousekeepingState(Db& db, int64_t id, const std::string& state, int64_t now) {
  PULSE_ASSIGN_OR_RETURN(Statement st, db.Prepare(
      "UPDATE pulse_housekeeping_requests SET state = ?, updated_at = ? WHERE id = ?"));
  st.Bind(1, state).BindTime(2, now).Bind(3, id);
  PULSE_RETURN_IF_ERROR(st.Run());
  if (db.Changes() == 0) return Status::NotFound("housekeeping request " + std::to_string(id) + " does not exist");
  return Status::OK();
}

json RunSummaryRecord::ToJson() const {
  json out = {{"run_id", run_id}, {"status", status}, {"to_channels", to_channels},
              {"why", why},       {"text", text},     {"at", FormatTime(at)}};
  out["outbox_id"] = outbox_id ? json(*outbox_id) : json();
  return out;
}

Result<bool> RecordRunSummary(Db& db, const RunSummaryRecord& r) {
  PULSE_ASSIGN_OR_RETURN(Statement st, db.Prepare(
      "INSERT INTO pulse_run_summaries(run_id, status, to_channels, why, text, outbox_id, at)"
      " VALUES(?, ?, ?, ?, ?, ?, ?) ON CONFLICT(run_id) DO NOTHING"));
  st.Bind(1, r.run_id).Bind(2, r.status).Bind(3, static_cast<int64_t>(r.to_channels ? 1 : 0)).Bind(4, r.why)
      .Bind(5, r.text);
  if (r.outbox_id) st.Bind(6, *r.outbox_id); else st.BindNull(6);
  st.BindTime(7, r.at);
  PULSE_RETURN_IF_ERROR(st.Run());
  return db.Changes() > 0;
}

namespace {
const char kSummaryColumns[] = "SELECT run_id, status, to_channels, why, text, outbox_id, at FROM pulse_run_summaries";

RunSummaryRecord ReadSummary(const Statement& st) {
  RunSummaryRecord r;
  r.run_id = st.Text(0);
  r.status = st.Text(1);
  r.to_channels = st.Int64(2) != 0;
  r.why = st.Text(3);
  r.text = st.Text(4);
  if (!st.IsNull(5)) r.outbox_id = st.Int64(5);
  r.at = st.Time(6).value_or(0);
  return r;
}
}  // namespace

Result<std::optional<RunSummaryRecord>> LoadRunSummary(Db& db, const std::string& run_id) {
  PULSE_ASSIGN_OR_RETURN(Statement st, db.Prepare(std::string(kSummaryColumns) + " WHERE run_id = ?"));
  st.Bind(1, run_id);
  PULSE_ASSIGN_OR_RETURN(bool row, st.Step());
  if (!row) return std::optional<RunSummaryRecord>();
  return std::optional<RunSummaryRecord>(ReadSummary(st));
}

Result<std::vector<RunSummaryRecord>> ListRunSummaries(Db& db, int limit) {
  PULSE_ASSIGN_OR_RETURN(Statement st, db.Prepare(std::string(kSummaryColumns) + " ORDER BY at DESC, run_id DESC LIMIT ?"));
  st.Bind(1, static_cast<int64_t>(limit));
  return ReadRows(st, ReadSummary);
}

}  // namespace pulse
