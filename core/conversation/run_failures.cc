#include "core/conversation/run_failures.h"

#include "core/store/db_rows.h"
#include "core/facts/fact_snapshot.h"
#include "core/goal/goal_facts.h"
#include "core/base/json_limits.h"
#include "core/store/schema.h"
#include "core/base/time_util.h"
#include "core/base/utf8.h"

namespace pulse {

using nlohmann::json;

namespace {

// The workflow's runs: run.json as snapshotted, and the runs only the
// after-run hook (or schedule-runs.json) recorded. Runs a Pulse pass or turn
// started are not workflow runs (their trigger names Pulse).
const char kFailedRunsSql[] =
    "WITH runs AS ("
    " SELECT run_id, finished_at, status, error, route, concerns_json FROM pulse_fact_runs"
    " UNION ALL"
    " SELECT run_id, finished_at, status, error, route, '[]' FROM goal_run_facts g"
    "  WHERE trigger NOT LIKE 'pulse%'"
    "   AND NOT EXISTS (SELECT 1 FROM pulse_fact_runs f WHERE f.run_id = g.run_id)) "
    "SELECT run_id, MAX(finished_at), status, error, route, concerns_json FROM runs"
    " WHERE status IN ('error', 'failed', 'interrupted') AND finished_at > ? AND finished_at <= ?"
    "  AND run_id NOT IN (SELECT run_id FROM pulse_run_failures)"
    " GROUP BY run_id ORDER BY MAX(finished_at), run_id LIMIT ?";

std::vector<std::string> Concerns(const std::string& text) {
  std::vector<std::string> out;
  Result<json> doc = ParseJsonBounded(text, "concerns", 4);
  if (!doc.ok() || !doc->is_array()) return out;
  for (const json& c : *doc) {
    if (c.is_string() && out.size() < 20) out.push_back(std::string(Utf8Prefix(c.get<std::string>(), 400)));
  }
  return out;
}

FailedRunSeen ReadSeen(const Statement& q) {
  FailedRunSeen r;
  r.run_id = q.Text(0);
  r.finished_at = q.Text(1);
  r.status = q.Text(2);
  r.error = q.Text(3);
  r.route = q.Text(4);
  r.concerns = Concerns(q.Text(5));
  r.seen_at = q.Text(6);
  r.pulse_run_id = q.Text(7);
  r.outcome = q.Text(8);
  return r;
}

}  // namespace

Status EnsureRunFailuresSchema(Db& db) {
  static const std::vector<Migration> kMigrations = {
      {1,
       "CREATE TABLE IF NOT EXISTS pulse_run_failures ("
       " run_id TEXT PRIMARY KEY,"
       " finished_at TEXT NOT NULL,"
       " status TEXT NOT NULL,"
       " error TEXT NOT NULL DEFAULT '',"
       " route TEXT NOT NULL DEFAULT '',"
       " concerns_json TEXT NOT NULL DEFAULT '[]',"
       " seen_at TEXT NOT NULL,"
       " pulse_run_id TEXT NOT NULL DEFAULT '',"
       " outcome TEXT NOT NULL DEFAULT '');"},
  };
  return ApplyMigrations(db, "run_failures", kMigrations);
}

json FailedRunSeen::ToJson() const {
  json out = {{"run_id", run_id}, {"finished_at", finished_at}, {"status", status}, {"error", error},
              {"route", route},   {"concerns", concerns}};
  if (!seen_at.empty()) out["seen_at"] = seen_at;
  if (!pulse_run_id.empty()) out["pulse_run_id"] = pulse_run_id;
  if (!outcome.empty()) out["outcome"] = outcome;
  return out;
}

Result<std::vector<FailedRunSeen>> UnseenFailedRuns(Db& db, int64_t now, int limit) {
  PULSE_ASSIGN_OR_RETURN(Statement q, db.Prepare(kFailedRunsSql));
  q.Bind(1, FormatTime(now - kFailedRunWindowSeconds)).Bind(2, FormatTime(now)).Bind(3, static_cast<int64_t>(limit));
  std::vector<FailedRunSeen> out;
  for (;;) {
    PULSE_ASSIGN_OR_RETURN(bool row, q.Step());
    if (!row) break;
    FailedRunSeen r;
    r.run_id = q.Text(0);
    r.finished_at = q.Text(1);
    r.status = q.Text(2);
    r.error = std::string(Utf8Prefix(RepairUtf8(q.Text(3)), 600));
    r.route = q.Text(4);
    r.concerns = Concerns(q.Text(5));
    out.push_back(std::move(r));
  }
  return out;
}

Result<bool> ClaimFailedRun(Db& db, const FailedRunSeen& run, const std::string& pulse_run_id, int64_t now) {
  PULSE_ASSIGN_OR_RETURN(Statement put, db.Prepare(
      "INSERT OR IGNORE INTO pulse_run_failures(run_id, finished_at, status, error, route, concerns_json, seen_at,"
      " pulse_run_id) VALUES(?, ?, ?, ?, ?, ?, ?, ?)"));
  put.Bind(1, run.run_id).Bind(2, run.finished_at).Bind(3, run.status).Bind(4, run.error).Bind(5, run.route)
      .Bind(6, json(run.concerns).dump()).Bind(7, FormatTime(now)).Bind(8, pulse_run_id);
  PULSE_RETURN_IF_ERROR(put.Run());
  return db.Changes() == 1;
}

Status ReleaseFailedRun(Db& db, const std::string& run_id) {
  PULSE_ASSIGN_OR_RETURN(Statement del, db.Prepare("DELETE FROM pulse_run_failures WHERE run_id = ? AND outcome = ''"));
  del.Bind(1, run_id);
  return del.Run();
}

Status AttachFailedRunTurn(Db& db, const std::string& run_id, const std::string& pulse_run_id) {
  PULSE_ASSIGN_OR_RETURN(Statement up, db.Prepare("UPDATE pulse_run_failures SET pulse_run_id = ? WHERE run_id = ?"));
  up.Bind(1, pulse_run_id).Bind(2, run_id);
  return up.Run();
}

Status RecordFailedRunOutcome(Db& db, const std::string& run_id, const std::string& outcome) {
  PULSE_ASSIGN_OR_RETURN(Statement up, db.Prepare("UPDATE pulse_run_failures SET outcome = ? WHERE run_id = ?"));
  up.Bind(1, std::string(Utf8Prefix(RepairUtf8(outcome), 600))).Bind(2, run_id);
  return up.Run();
}

Result<std::vector<FailedRunSeen>> ListSeenFailedRuns(Db& db, int limit) {
  PULSE_ASSIGN_OR_RETURN(Statement q, db.Prepare(
      "SELECT run_id, finished_at, status, error, route, concerns_json, seen_at, pulse_run_id, outcome"
      " FROM pulse_run_failures ORDER BY seen_at DESC, run_id LIMIT ?"));
  q.Bind(1, static_cast<int64_t>(limit));
  return ReadRows(q, ReadSeen);
}

std::string DescribeFailedRun(const FailedRunSeen& run) {
  std::string s = "run " + run.run_id + " (" + run.status + (run.route.empty() ? "" : ", route " + run.route) +
                  ", finished " + run.finished_at + ")";
  s += run.error.empty() ? ": no error text" : ": " + run.error;
  for (const std::string& c : run.concerns) s += "\n" + c;
  return s;
}

}  // namespace pulse
