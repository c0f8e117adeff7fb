#include "core/facts/fact_snapshot.h"

#include <algorithm>
#include <cmath>
#include <initializer_list>

#include <nlohmann/json.hpp>

#include "core/facts/fact_snapshot_util.h"
#include "core/goal/goal_facts.h"
#include "core/review/workflow_review.h"
#include "core/base/json_limits.h"
#include "core/store/schema.h"
#include "core/base/time_util.h"
#include "core/base/utf8.h"

namespace pulse {

using nlohmann::json;

const char kChangelogFile[] = "planning/changelog.jsonl";
const char kPlanFile[] = "planning/plan.json";
const char kLedgerFile[] = "costs/costs.sqlite";
const char kChatsFile[] = "chats.json";
const char kRunsDir[] = "runs";
const char kReviewFile[] = "planning/workflow_review.json";

namespace {

// A ledger event's amount in micro-dollars, as every query of the facts
// rounds it (per event, then summed as integers).
#define PULSE_MICROS(usd) "CAST(round(" usd " * 1000000) AS INTEGER)"

// What the goal check reads instead of a year of raw rows: the ledger by
// hour (spend over whole hours) and by run (each run's cost and its first
// and last event), kept by triggers so every writer keeps them true, and
// covering indexes for the runs of the last 14 days. The ledger's copy
// upserts (INSERT OR REPLACE would delete without firing the trigger).
const char kFactAggregatesSql[] =
    "CREATE TABLE IF NOT EXISTS pulse_fact_cost_hours ("
    " hour TEXT PRIMARY KEY,"  // substr(at, 1, 13): "2026-10-07T12"
    " events INTEGER NOT NULL,"
    " micros INTEGER NOT NULL);"
    "CREATE TABLE IF NOT EXISTS pulse_fact_run_costs ("
    " run_id TEXT PRIMARY KEY,"
    " events INTEGER NOT NULL,"
    " micros INTEGER NOT NULL,"
    " first_at TEXT NOT NULL,"
    " last_at TEXT NOT NULL);"
    "CREATE INDEX IF NOT EXISTS pulse_fact_run_costs_by_last"
    " ON pulse_fact_run_costs(last_at, first_at, micros, run_id);"
    "INSERT INTO pulse_fact_cost_hours(hour, events, micros)"
    " SELECT substr(at, 1, 13), count(*), sum(" PULSE_MICROS("usd") ") FROM pulse_fact_costs GROUP BY 1;"
    "INSERT INTO pulse_fact_run_costs(run_id, events, micros, first_at, last_at)"
    " SELECT run_id, count(*), sum(" PULSE_MICROS("usd") "), min(at), max(at) FROM pulse_fact_costs"
    " WHERE run_id IS NOT NULL GROUP BY run_id;"
    "CREATE TRIGGER IF NOT EXISTS pulse_fact_costs_added AFTER INSERT ON pulse_fact_costs BEGIN"
    " INSERT INTO pulse_fact_cost_hours(hour, events, micros)"
    "  VALUES(substr(NEW.at, 1, 13), 1, " PULSE_MICROS("NEW.usd") ")"
    "  ON CONFLICT(hour) DO UPDATE SET events = events + 1, micros = micros + excluded.micros;"
    " INSERT INTO pulse_fact_run_costs(run_id, events, micros, first_at, last_at)"
    "  SELECT NEW.run_id, 1, " PULSE_MICROS("NEW.usd") ", NEW.at, NEW.at WHERE NEW.run_id IS NOT NULL"
    "  ON CONFLICT(run_id) DO UPDATE SET events = events + 1, micros = micros + excluded.micros,"
    "  first_at = min(first_at, excluded.first_at), last_at = max(last_at, excluded.last_at);"
    " END;"
    // A removed or changed event: the hour loses it; its run is counted
    // again from the rows left (first and last cannot be taken back).
    "CREATE TRIGGER IF NOT EXISTS pulse_fact_costs_removed AFTER DELETE ON pulse_fact_costs BEGIN"
    " UPDATE pulse_fact_cost_hours SET events = events - 1, micros = micros - " PULSE_MICROS("OLD.usd")
    "  WHERE hour = substr(OLD.at, 1, 13);"
    " DELETE FROM pulse_fact_cost_hours WHERE hour = substr(OLD.at, 1, 13) AND events <= 0;"
    " DELETE FROM pulse_fact_run_costs WHERE run_id = OLD.run_id;"
    " INSERT INTO pulse_fact_run_costs(run_id, events, micros, first_at, last_at)"
    "  SELECT run_id, count(*), sum(" PULSE_MICROS("usd") "), min(at), max(at) FROM pulse_fact_costs"
    "  WHERE run_id = OLD.run_id GROUP BY run_id;"
    " END;"
    "CREATE TRIGGER IF NOT EXISTS pulse_fact_costs_changed AFTER UPDATE ON pulse_fact_costs BEGIN"
    " UPDATE pulse_fact_cost_hours SET events = events - 1, micros = micros - " PULSE_MICROS("OLD.usd")
    "  WHERE hour = substr(OLD.at, 1, 13);"
    " DELETE FROM pulse_fact_cost_hours WHERE hour = substr(OLD.at, 1, 13) AND events <= 0;"
    " INSERT INTO pulse_fact_cost_hours(hour, events, micros)"
    "  VALUES(substr(NEW.at, 1, 13), 1, " PULSE_MICROS("NEW.usd") ")"
    "  ON CONFLICT(hour) DO UPDATE SET events = events + 1, micros = micros + excluded.micros;"
    " DELETE FROM pulse_fact_run_costs WHERE run_id IN (OLD.run_id, NEW.run_id);"
    " INSERT INTO pulse_fact_run_costs(run_id, events, micros, first_at, last_at)"
    "  SELECT run_id, count(*), sum(" PULSE_MICROS("usd") "), min(at), max(at) FROM pulse_fact_costs"
    "  WHERE run_id IN (OLD.run_id, NEW.run_id) GROUP BY run_id;"
    " END;"
    "CREATE INDEX IF NOT EXISTS pulse_fact_runs_by_finish_status ON pulse_fact_runs(finished_at, status, run_id);"
    "CREATE INDEX IF NOT EXISTS goal_run_facts_by_finish_run"
    " ON goal_run_facts(finished_at, run_id, status, schedule_id, trigger);";

#undef PULSE_MICROS

// The runs counted by UTC day (the error rate's 14-day median reads 14 rows,
// not two weeks of runs). A run is a pulse_fact_runs row, or a goal_run_facts
// row no pulse_fact_runs row has the run_id of, as the goal check's facts
// count them (core/facts/goal_context_runs.h); `day` is the first ten characters of
// its finished_at. Kept by triggers on both tables: a run.json row that
// arrives takes its run's after-run row out of the count, one that goes
// puts it back. Both writers upsert (a REPLACE deletes without firing the
// delete triggers). A count back at zero keeps its row; readers skip it.
#define PULSE_DAYS_UPSERT \
  " ON CONFLICT(day) DO UPDATE SET runs = runs + excluded.runs, failed = failed + excluded.failed;"
#define PULSE_DAY_OF(row, sign) \
  "VALUES(substr(" row ".finished_at, 1, 10), " sign "1, " sign "(" row ".status != 'completed'))" PULSE_DAYS_UPSERT
// The after-run row of `id`, counted with `sign` when `when` holds.
#define PULSE_GOAL_DAY(id, sign, when)                                                                   \
  "INSERT INTO pulse_fact_run_days SELECT substr(finished_at, 1, 10), " sign "1, " sign                  \
  "(status != 'completed') FROM goal_run_facts WHERE run_id = " id " AND " when PULSE_DAYS_UPSERT
#define PULSE_NO_RUN_ROW(id, also) "NOT EXISTS (SELECT 1 FROM pulse_fact_runs WHERE run_id = " id also ")"
const char kRunDaysSql[] =
    "CREATE TABLE IF NOT EXISTS pulse_fact_run_days ("
    " day TEXT PRIMARY KEY,"
    " runs INTEGER NOT NULL,"
    " failed INTEGER NOT NULL);"
    "INSERT INTO pulse_fact_run_days(day, runs, failed)"
    " SELECT d, count(*), sum(f) FROM ("
    "  SELECT substr(finished_at, 1, 10) AS d, status != 'completed' AS f FROM pulse_fact_runs"
    "  UNION ALL SELECT substr(finished_at, 1, 10), status != 'completed' FROM goal_run_facts g"
    "  WHERE NOT EXISTS (SELECT 1 FROM pulse_fact_runs p WHERE p.run_id = g.run_id))"
    " GROUP BY d;"
    "CREATE TRIGGER IF NOT EXISTS pulse_fact_runs_day_added AFTER INSERT ON pulse_fact_runs BEGIN"
    " INSERT INTO pulse_fact_run_days " PULSE_DAY_OF("NEW", "")
    PULSE_GOAL_DAY("NEW.run_id", "-", PULSE_NO_RUN_ROW("NEW.run_id", " AND folder IS NOT NEW.folder"))
    " END;"
    "CREATE TRIGGER IF NOT EXISTS pulse_fact_runs_day_removed AFTER DELETE ON pulse_fact_runs BEGIN"
    " INSERT INTO pulse_fact_run_days " PULSE_DAY_OF("OLD", "-")
    PULSE_GOAL_DAY("OLD.run_id", "", PULSE_NO_RUN_ROW("OLD.run_id", ""))
    " END;"
    "CREATE TRIGGER IF NOT EXISTS pulse_fact_runs_day_changed"
    " AFTER UPDATE OF run_id, finished_at, status ON pulse_fact_runs BEGIN"
    " INSERT INTO pulse_fact_run_days " PULSE_DAY_OF("OLD", "-")
    " INSERT INTO pulse_fact_run_days " PULSE_DAY_OF("NEW", "")
    PULSE_GOAL_DAY("OLD.run_id", "", "OLD.run_id IS NOT NEW.run_id AND " PULSE_NO_RUN_ROW("OLD.run_id", ""))
    PULSE_GOAL_DAY("NEW.run_id", "-", "OLD.run_id IS NOT NEW.run_id AND "
                   PULSE_NO_RUN_ROW("NEW.run_id", " AND folder IS NOT NEW.folder"))
    " END;"
    "CREATE TRIGGER IF NOT EXISTS goal_run_facts_day_added AFTER INSERT ON goal_run_facts"
    " WHEN " PULSE_NO_RUN_ROW("NEW.run_id", "") " BEGIN"
    " INSERT INTO pulse_fact_run_days " PULSE_DAY_OF("NEW", "")
    " END;"
    "CREATE TRIGGER IF NOT EXISTS goal_run_facts_day_removed AFTER DELETE ON goal_run_facts"
    " WHEN " PULSE_NO_RUN_ROW("OLD.run_id", "") " BEGIN"
    " INSERT INTO pulse_fact_run_days " PULSE_DAY_OF("OLD", "-")
    " END;"
    "CREATE TRIGGER IF NOT EXISTS goal_run_facts_day_changed"
    " AFTER UPDATE OF run_id, finished_at, status ON goal_run_facts BEGIN"
    " INSERT INTO pulse_fact_run_days SELECT substr(OLD.finished_at, 1, 10), -1, -(OLD.status != 'completed')"
    "  WHERE " PULSE_NO_RUN_ROW("OLD.run_id", "") PULSE_DAYS_UPSERT
    " INSERT INTO pulse_fact_run_days SELECT substr(NEW.finished_at, 1, 10), 1, NEW.status != 'completed'"
    "  WHERE " PULSE_NO_RUN_ROW("NEW.run_id", "") PULSE_DAYS_UPSERT
    " END;";

#undef PULSE_DAYS_UPSERT
#undef PULSE_DAY_OF
#undef PULSE_GOAL_DAY
#undef PULSE_NO_RUN_ROW

// The latest Workflow Review record (planning/workflow_review.json), so a
// break that stops runs is known from the database alone.
constexpr char kFactReviewSql[] =
    "CREATE TABLE IF NOT EXISTS pulse_fact_review ("
    " id INTEGER PRIMARY KEY CHECK (id = 1),"
    " outcome TEXT NOT NULL,"
    " broken_json TEXT NOT NULL DEFAULT '[]',"
    " finished_at TEXT NOT NULL DEFAULT '');";

}  // namespace

Status EnsureFactsSchema(Db& db) {
  static const std::vector<Migration> kMigrations = {
      {1,
       // What became of the latest read of each outside file. `mark` is
       // per file: the ledger's last copied rowid, the runs folder's highest
       // iteration seen.
       "CREATE TABLE IF NOT EXISTS pulse_fact_sources ("
       " file TEXT PRIMARY KEY,"
       " state TEXT NOT NULL CHECK (state IN ('ok', 'missing', 'unreadable')),"
       " reason TEXT NOT NULL DEFAULT '',"
       " skipped INTEGER NOT NULL DEFAULT 0,"
       " read_at TEXT NOT NULL,"
       " mtime INTEGER NOT NULL DEFAULT 0,"
       " size INTEGER NOT NULL DEFAULT 0,"
       " mark INTEGER NOT NULL DEFAULT 0);"
       // One plan change a row; the same line read twice is one row.
       "CREATE TABLE IF NOT EXISTS pulse_fact_changelog ("
       " id INTEGER PRIMARY KEY,"
       " at TEXT NOT NULL,"
       " tool TEXT NOT NULL,"
       " reason TEXT NOT NULL DEFAULT '',"
       " steps_json TEXT NOT NULL DEFAULT '[]',"
       " who TEXT NOT NULL DEFAULT '',"
       " session TEXT NOT NULL DEFAULT '',"
       " UNIQUE (at, tool, session, steps_json, reason));"
       "CREATE INDEX IF NOT EXISTS pulse_fact_changelog_by_time ON pulse_fact_changelog(at);"
       "CREATE TABLE IF NOT EXISTS pulse_fact_route_steps ("
       " route TEXT NOT NULL,"
       " step TEXT NOT NULL,"
       " PRIMARY KEY (route, step));"
       // The ledger's rows by the ledger's own rowid, so a row copied twice
       // is one row and two equal events stay two.
       "CREATE TABLE IF NOT EXISTS pulse_fact_costs ("
       " ledger_rowid INTEGER PRIMARY KEY,"
       " at TEXT NOT NULL,"
       " run_id TEXT,"
       " source TEXT NOT NULL DEFAULT '',"
       " usd REAL NOT NULL CHECK (usd >= 0));"
       "CREATE INDEX IF NOT EXISTS pulse_fact_costs_by_time ON pulse_fact_costs(at);"
       "CREATE INDEX IF NOT EXISTS pulse_fact_costs_by_run ON pulse_fact_costs(run_id, at) WHERE run_id IS NOT NULL;"
       "CREATE TABLE IF NOT EXISTS pulse_fact_chats ("
       " session_id TEXT PRIMARY KEY,"
       " kind TEXT NOT NULL DEFAULT '',"
       " account TEXT NOT NULL DEFAULT '',"
       " last_active_at TEXT NOT NULL DEFAULT '',"
       " live INTEGER NOT NULL DEFAULT 0,"
       " busy INTEGER NOT NULL DEFAULT 0);"
       // run.json as the run left it: what goal_run_facts does not keep
       // (the CONCERNS: lines, the cost) and runs nobody finalized.
       "CREATE TABLE IF NOT EXISTS pulse_fact_runs ("
       " folder TEXT PRIMARY KEY,"
       " run_id TEXT NOT NULL,"
       " started_at TEXT NOT NULL,"
       " finished_at TEXT NOT NULL,"
       " status TEXT NOT NULL,"
       " error TEXT NOT NULL DEFAULT '',"
       " concerns_json TEXT NOT NULL DEFAULT '[]',"
       " cost_usd REAL,"
       " route TEXT NOT NULL DEFAULT '');"
       "CREATE INDEX IF NOT EXISTS pulse_fact_runs_by_finish ON pulse_fact_runs(finished_at);"
       "CREATE INDEX IF NOT EXISTS pulse_fact_runs_by_run ON pulse_fact_runs(run_id);"},
      {2,
       // Run folders whose run.json could not be read (malformed, too
       // large, or missing while a later run finished): run_health names
       // them; a folder read fine later loses its row.
       "CREATE TABLE IF NOT EXISTS pulse_fact_run_problems ("
       " folder TEXT PRIMARY KEY,"
       " reason TEXT NOT NULL,"
       " seen_at TEXT NOT NULL);"},
      {3, kFactAggregatesSql},
      {4, kRunDaysSql},
      {5, kFactReviewSql},
  };
  // Migration 3 indexes the goal's run facts (goal_run_facts), so those
  // tables come first: a database holding only the facts is still one the
  // snapshot can fill. Cheap when nothing is due.
  PULSE_RETURN_IF_ERROR(EnsureGoalSchema(db));
  return ApplyMigrations(db, "facts", kMigrations);
}

namespace {

// A text field of an outside document, valid UTF-8 and at most `max` bytes.
std::string CleanText(const std::string& s, size_t max) {
  std::string ok = IsValidUtf8(s) ? s : RepairUtf8(s);
  if (ok.size() > max) ok = std::string(Utf8Prefix(ok, max)) + "…";
  return ok;
}

std::string StringField(const json& obj, const char* key, size_t max) {
  auto it = obj.find(key);
  if (it == obj.end() || !it->is_string()) return "";
  return CleanText(it->get<std::string>(), max);
}

// One changelog line as a row; InvalidArgument naming what is wrong.
Status ParseChangelogLine(const std::string& line, const std::string& where, json* row) {
  PULSE_ASSIGN_OR_RETURN(json doc, ParseJsonBounded(line, where, 8));
  if (!doc.is_object()) return Status::InvalidArgument(where + ": expected a JSON object");
  auto at = doc.find("at");
  if (at == doc.end() || !at->is_string()) return Status::InvalidArgument(where + ": \"at\" is missing");
  PULSE_ASSIGN_OR_RETURN(std::string when, NormalizeTime(at->get<std::string>(), where + ": at"));
  std::string tool = StringField(doc, "tool", 200);
  if (tool.empty()) return Status::InvalidArgument(where + ": \"tool\" is missing");
  json steps = json::array();
  auto s = doc.find("steps");
  if (s != doc.end() && !s->is_null()) {
    if (!s->is_array()) return Status::InvalidArgument(where + ": \"steps\" must be a list of step ids");
    for (const json& step : *s) {
      if (!step.is_string()) return Status::InvalidArgument(where + ": \"steps\" must be a list of step ids");
      if (steps.size() < 100) steps.push_back(CleanText(step.get<std::string>(), 200));
    }
  }
  *row = {{"at", when}, {"tool", tool}, {"reason", StringField(doc, "reason", 2000)}, {"steps", steps},
          {"who", StringField(doc, "who", 200)}, {"session", StringField(doc, "session", 200)}};
  return Status::OK();
}

void SnapshotChangelog(SnapshotRun& run) {
  SourceRead src;
  if (!run.OpenTextFile(kChangelogFile, run.limits.max_changelog_bytes, &src)) return;
  std::vector<json> rows;
  int64_t skipped = 0;
  size_t pos = 0;
  int64_t line_no = 0;
  while (pos < src.text.size()) {
    size_t end = src.text.find('\n', pos);
    if (end == std::string::npos) end = src.text.size();
    std::string line = src.text.substr(pos, end - pos);
    pos = end + 1;
    ++line_no;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.find_first_not_of(" \t") == std::string::npos) continue;
    std::string where = std::string(kChangelogFile) + ":" + std::to_string(line_no);
    json row;
    Status s = static_cast<int64_t>(line.size()) > run.limits.max_line_bytes
                   ? Status::InvalidArgument(where + ": line over " + std::to_string(run.limits.max_line_bytes) +
                                             " bytes")
                   : ParseChangelogLine(line, where, &row);
    if (!s.ok()) {
      ++skipped;
      run.Skip(kChangelogFile, s.message());
      continue;
    }
    rows.push_back(std::move(row));
  }
  run.Store(kChangelogFile, src, skipped, [&](Db& db) -> Status {
    PULSE_ASSIGN_OR_RETURN(Statement put, db.Prepare(
        "INSERT OR IGNORE INTO pulse_fact_changelog(at, tool, reason, steps_json, who, session)"
        " VALUES(?, ?, ?, ?, ?, ?)"));
    for (const json& r : rows) {
      put.Bind(1, r["at"].get<std::string>()).Bind(2, r["tool"].get<std::string>())
          .Bind(3, r["reason"].get<std::string>()).Bind(4, r["steps"].dump())
          .Bind(5, r["who"].get<std::string>()).Bind(6, r["session"].get<std::string>());
      PULSE_RETURN_IF_ERROR(put.Run());
      put.Reset();
    }
    return Status::OK();
  });
}

// plan.json's routes: {"routes": {"<route>": {"steps": [...]}}} or
// {"routes": [{"id" | "name": "<route>", "steps": [...]}]}; a step is an id
// or an object with an "id".
Status ParsePlanRoutes(const json& doc, std::vector<std::pair<std::string, std::string>>* out) {
  if (!doc.is_object()) return Status::InvalidArgument(std::string(kPlanFile) + ": expected a JSON object");
  auto routes = doc.find("routes");
  if (routes == doc.end() || routes->is_null()) return Status::OK();
  auto add = [&](const std::string& route, const json& r) {
    if (!r.is_object() || !r.contains("steps") || !r["steps"].is_array()) return;
    for (const json& step : r["steps"]) {
      std::string id = step.is_string() ? step.get<std::string>()
                       : step.is_object() && step.contains("id") && step["id"].is_string() ? step["id"].get<std::string>()
                                                                                            : "";
      if (!id.empty() && out->size() < 10000) out->emplace_back(CleanText(route, 200), CleanText(id, 200));
    }
  };
  if (routes->is_object()) {
    for (auto& [name, r] : routes->items()) add(name, r);
  } else if (routes->is_array()) {
    for (const json& r : *routes) {
      std::string name = StringField(r.is_object() ? r : json::object(), "id", 200);
      if (name.empty() && r.is_object()) name = StringField(r, "name", 200);
      if (!name.empty()) add(name, r);
    }
  } else {
    return Status::InvalidArgument(std::string(kPlanFile) + ": \"routes\" must be an object or a list");
  }
  return Status::OK();
}

void SnapshotPlan(SnapshotRun& run) {
  SourceRead src;
  if (!run.OpenTextFile(kPlanFile, run.limits.max_plan_bytes, &src)) return;
  std::vector<std::pair<std::string, std::string>> steps;
  Result<json> doc = ParseJsonBounded(src.text, kPlanFile);
  Status s = doc.ok() ? ParsePlanRoutes(*doc, &steps) : doc.status();
  if (!s.ok()) return run.Unreadable(kPlanFile, src, s.message());
  // The plan is one document: its routes replace the stored ones (a plan
  // that no longer parses keeps them, above).
  run.Store(kPlanFile, src, 0, [&](Db& db) -> Status {
    PULSE_RETURN_IF_ERROR(db.Exec("DELETE FROM pulse_fact_route_steps"));
    PULSE_ASSIGN_OR_RETURN(Statement put, db.Prepare(
        "INSERT OR IGNORE INTO pulse_fact_route_steps(route, step) VALUES(?, ?)"));
    for (auto& [route, step] : steps) {
      put.Bind(1, route).Bind(2, step);
      PULSE_RETURN_IF_ERROR(put.Run());
      put.Reset();
    }
    return Status::OK();
  });
}

void SnapshotChats(SnapshotRun& run) {
  SourceRead src;
  // chats.json is the platform's current list of chats: a missing file is no
  // chats (its stored rows go), not "unchanged".
  if (!run.OpenTextFile(kChatsFile, run.limits.max_chats_bytes, &src, "pulse_fact_chats")) return;
  Result<json> doc = ParseJsonBounded(src.text, kChatsFile, 8);
  if (!doc.ok()) return run.Unreadable(kChatsFile, src, doc.status().message());
  if (!doc->is_array()) return run.Unreadable(kChatsFile, src, std::string(kChatsFile) + ": expected a JSON array");
  std::vector<json> chats;
  int64_t skipped = 0;
  for (size_t i = 0; i < doc->size(); ++i) {
    const json& c = (*doc)[i];
    std::string where = std::string(kChatsFile) + ": [" + std::to_string(i) + "]";
    std::string session = c.is_object() ? StringField(c, "session_id", 200) : "";
    if (session.empty()) {
      ++skipped;
      run.Skip(kChatsFile, where + ": no session_id");
      continue;
    }
    std::string last = StringField(c, "last_active_at", 64);
    Result<std::string> when = NormalizeTime(last, where + ": last_active_at");
    auto flag = [&](const char* k) { return c.contains(k) && c[k].is_boolean() && c[k].get<bool>(); };
    chats.push_back({{"session_id", session}, {"kind", StringField(c, "kind", 40)},
                     {"account", StringField(c, "account", 200)}, {"last", when.ok() ? *when : ""},
                     {"live", flag("live")}, {"busy", flag("busy")}});
  }
  // chats.json is the platform's current list: it replaces the stored one.
  run.Store(kChatsFile, src, skipped, [&](Db& db) -> Status {
    PULSE_RETURN_IF_ERROR(db.Exec("DELETE FROM pulse_fact_chats"));
    PULSE_ASSIGN_OR_RETURN(Statement put, db.Prepare(
        "INSERT OR REPLACE INTO pulse_fact_chats(session_id, kind, account, last_active_at, live, busy)"
        " VALUES(?, ?, ?, ?, ?, ?)"));
    for (const json& c : chats) {
      put.Bind(1, c["session_id"].get<std::string>()).Bind(2, c["kind"].get<std::string>())
          .Bind(3, c["account"].get<std::string>()).Bind(4, c["last"].get<std::string>())
          .Bind(5, static_cast<int64_t>(c["live"].get<bool>())).Bind(6, static_cast<int64_t>(c["busy"].get<bool>()));
      PULSE_RETURN_IF_ERROR(put.Run());
      put.Reset();
    }
    return Status::OK();
  });
}

void SnapshotReview(SnapshotRun& run) {
  SourceRead src;
  if (!run.OpenTextFile(kReviewFile, run.limits.max_plan_bytes, &src)) return;
  ReviewFile file = ParseReviewFile(src.text, kReviewFile);
  if (!file.rebuilt_reason.empty()) return run.Unreadable(kReviewFile, src, file.rebuilt_reason);
  if (file.reviews.empty()) return run.Store(kReviewFile, src, 0, [](Db& db) { return db.Exec("DELETE FROM pulse_fact_review"); });
  const ReviewRecord& r = file.reviews.back();
  json broken = json::array();
  for (const BrokenStep& b : r.broken) broken.push_back(b.ToJson());
  run.Store(kReviewFile, src, 0, [&](Db& db) -> Status {
    PULSE_ASSIGN_OR_RETURN(Statement put, db.Prepare(
        "INSERT OR REPLACE INTO pulse_fact_review(id, outcome, broken_json, finished_at) VALUES(1, ?, ?, ?)"));
    put.Bind(1, r.outcome).Bind(2, broken.dump()).Bind(3, r.finished_at ? FormatTime(*r.finished_at) : "");
    return put.Run();
  });
}

// One run of `steps` (REQUIRES: the schema ensured, as every opened
// workflow has it).
SnapshotReport RunSnapshot(Env& env, Db& db, const std::string& workflow_dir, int64_t now,
                           const SnapshotLimits& limits, std::initializer_list<void (*)(SnapshotRun&)> steps) {
  SnapshotRun run(env, db, workflow_dir, now, limits);
  for (auto step : steps) step(run);
  return std::move(run.report);
}

}  // namespace

SnapshotReport SnapshotChatsFile(Env& env, Db& db, const std::string& workflow_dir, int64_t now,
                                 const SnapshotLimits& limits) {
  return RunSnapshot(env, db, workflow_dir, now, limits, {SnapshotChats});
}

SnapshotReport SnapshotOutsideFiles(Env& env, Db& db, const std::string& workflow_dir, int64_t now,
                                    const SnapshotLimits& limits) {
  return RunSnapshot(env, db, workflow_dir, now, limits,
                     {SnapshotChangelog, SnapshotPlan, SnapshotChats, SnapshotLedger, SnapshotRunFolders, SnapshotReview});
}

void ReadOutsideFiles(Env& env, Db& db, const std::string& workflow_dir, int64_t now) {
  (void)SnapshotOutsideFiles(env, db, workflow_dir, now);
}

}  // namespace pulse
