#include "core/goal/goal_facts.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <optional>
#include <set>
#include <tuple>

#include "core/base/json_limits.h"
#include "core/goal/schedule_runs_text.h"
#include "core/store/schema.h"
#include "core/base/time_util.h"

namespace pulse {

using nlohmann::json;

Status EnsureGoalSchema(Db& db) {
  static const std::vector<Migration> kMigrations = {
      {1,
       // Readings. One reading per (metric, time, source, run): recording the
       // same reading twice (a retried hook) replaces it instead of counting
       // it twice.
       "CREATE TABLE IF NOT EXISTS pulse_goal_observations ("
       " id INTEGER PRIMARY KEY,"
       " metric TEXT NOT NULL,"
       " value REAL NOT NULL,"
       " at TEXT NOT NULL,"
       " source TEXT NOT NULL CHECK (source IN ('workflow_run', 'builder_chat', 'manual')),"
       " run_id TEXT NOT NULL DEFAULT '',"
       " recorded_at TEXT NOT NULL,"
       " UNIQUE (metric, at, source, run_id));"
       "CREATE INDEX IF NOT EXISTS pulse_goal_observations_by_source"
       " ON pulse_goal_observations(metric, source, at);"
       "CREATE INDEX IF NOT EXISTS pulse_goal_observations_by_run"
       " ON pulse_goal_observations(run_id) WHERE run_id != '';"
       // After-run facts. The indexes serve exactly the check's questions:
       // the last run, the last completed run of a route, and the runs since
       // a time (by route), so a check reads a few index pages however long
       // the history is.
       "CREATE TABLE IF NOT EXISTS goal_run_facts ("
       " run_id TEXT PRIMARY KEY,"
       " schedule_id TEXT NOT NULL DEFAULT '',"
       " trigger TEXT NOT NULL DEFAULT '',"
       " started_at TEXT NOT NULL,"
       " finished_at TEXT NOT NULL,"
       " status TEXT NOT NULL CHECK (status IN ('completed', 'failed', 'error', 'interrupted')),"
       " error TEXT NOT NULL DEFAULT '',"
       " route TEXT NOT NULL DEFAULT '',"
       " primary_route INTEGER NOT NULL,"
       " completed INTEGER NOT NULL,"
       " primary_reading INTEGER NOT NULL,"
       " origin TEXT NOT NULL CHECK (origin IN ('finalize_run', 'schedule_runs')),"
       " recorded_at TEXT NOT NULL);"
       "CREATE INDEX IF NOT EXISTS goal_run_facts_by_finish ON goal_run_facts(finished_at);"
       "CREATE INDEX IF NOT EXISTS goal_run_facts_by_route ON goal_run_facts(route, finished_at);"
       "CREATE INDEX IF NOT EXISTS goal_run_facts_by_route_done"
       " ON goal_run_facts(route, completed, finished_at);"
       // Recorded goal checks: the document as reported and the fingerprint
       // of what it knew, which decides whether the next check is quiet.
       "CREATE TABLE IF NOT EXISTS pulse_goal_checks ("
       " id INTEGER PRIMARY KEY,"
       " checked_at TEXT NOT NULL,"
       " status TEXT NOT NULL,"
       " fingerprint TEXT NOT NULL,"
       " pause_reported INTEGER NOT NULL,"
       " document TEXT NOT NULL);"
       "CREATE INDEX IF NOT EXISTS pulse_goal_checks_by_time ON pulse_goal_checks(checked_at);"},
  };
  return ApplyMigrations(db, "goal", kMigrations);
}

const char* ReadingSourceName(ReadingSource source) {
  switch (source) {
    case ReadingSource::kWorkflowRun: return "workflow_run";
    case ReadingSource::kBuilderChat: return "builder_chat";
    case ReadingSource::kManual: return "manual";
  }
  return "manual";
}

Result<ReadingSource> ParseReadingSource(const std::string& text) {
  if (text == "workflow_run") return ReadingSource::kWorkflowRun;
  if (text == "builder_chat") return ReadingSource::kBuilderChat;
  if (text == "manual") return ReadingSource::kManual;
  return Status::InvalidArgument("source: expected workflow_run, builder_chat or manual, got \"" + text + "\"");
}

namespace {

bool IsPrimaryMetric(const WorkflowConfig& config, const std::string& metric) {
  return config.primary_metric && config.primary_metric->name == metric;
}

std::string PrimaryRoute(const WorkflowConfig& config) {
  return config.primary_metric ? config.primary_metric->route : std::string();
}

// Whether a workflow-run reading of the primary metric belongs to a run: by
// its run id, or (for a reading that names no run) inside its window. The
// two lookups are prepared once for a batch of runs (an import asks for
// ~1,000; preparing them per run was a third of a first import's time).
class PrimaryReadingLookup {
 public:
  static Result<PrimaryReadingLookup> Prepare(Db& db, const WorkflowConfig& config) {
    PrimaryReadingLookup out;
    if (!config.primary_metric) return out;
    out.metric_ = config.primary_metric->name;
    PULSE_ASSIGN_OR_RETURN(Statement by_id, db.Prepare(
        "SELECT 1 FROM pulse_goal_observations WHERE run_id = ? AND metric = ? AND source = 'workflow_run' LIMIT 1"));
    PULSE_ASSIGN_OR_RETURN(Statement in_window, db.Prepare(
        "SELECT 1 FROM pulse_goal_observations WHERE metric = ? AND source = 'workflow_run'"
        " AND at >= ? AND at <= ? AND run_id = '' LIMIT 1"));
    out.by_id_.emplace(std::move(by_id));
    out.in_window_.emplace(std::move(in_window));
    return out;
  }

  // `started`/`finished`: the run's times as FormatTime writes them.
  Result<bool> Has(const RunRecord& run, const std::string& started, const std::string& finished) {
    if (!by_id_) return false;
    by_id_->Bind(1, run.run_id).Bind(2, metric_);
    Result<bool> has = by_id_->Step();
    by_id_->Reset();
    if (!has.ok() || *has) return has;
    in_window_->Bind(1, metric_).Bind(2, started).Bind(3, finished);
    has = in_window_->Step();
    in_window_->Reset();
    return has;
  }

 private:
  std::string metric_;
  std::optional<Statement> by_id_, in_window_;
};

Status CheckStatus(const std::string& status, const std::string& where) {
  static const std::set<std::string> kStatuses = {"completed", "failed", "error", "interrupted"};
  if (kStatuses.count(status)) return Status::OK();
  return Status::InvalidArgument(where + ": expected completed, failed, error or interrupted, got \"" + status +
                                 "\"");
}

Status ReadString(const json& obj, const char* key, const std::string& where, bool required, std::string* out) {
  auto it = obj.find(key);
  if (it == obj.end() || it->is_null()) {
    if (required) return Status::InvalidArgument(where + "." + key + ": missing");
    return Status::OK();
  }
  if (!it->is_string()) return Status::InvalidArgument(where + "." + key + ": expected a string");
  *out = it->get<std::string>();
  if (required && out->empty()) return Status::InvalidArgument(where + "." + key + ": empty");
  return Status::OK();
}

Status ReadTime(const json& obj, const char* key, const std::string& where, int64_t* out) {
  std::string text;
  PULSE_RETURN_IF_ERROR(ReadString(obj, key, where, true, &text));
  Result<int64_t> t = ParseTime(text);
  if (!t.ok()) return Status::InvalidArgument(where + "." + key + ": " + t.status().message());
  *out = *t;
  return Status::OK();
}

Status ValidateRun(const RunRecord& run, const std::string& where) {
  if (run.run_id.empty()) return Status::InvalidArgument(where + ".run_id: missing");
  PULSE_RETURN_IF_ERROR(CheckStatus(run.status, where + ".status"));
  if (run.finished_at < run.started_at) {
    return Status::InvalidArgument(where + ": finished_at (" + FormatTime(run.finished_at) +
                                   ") is before started_at (" + FormatTime(run.started_at) + ")");
  }
  return Status::OK();
}

// The schedule a trigger like "schedule:daily" names.
std::string ScheduleOfTrigger(const std::string& trigger) {
  const std::string prefix = "schedule:";
  return trigger.rfind(prefix, 0) == 0 ? trigger.substr(prefix.size()) : std::string();
}

Status InsertFacts(Db& db, const WorkflowConfig& config, const RunRecord& run, bool has_reading, const char* origin,
                   int64_t now, bool replace) {
  // Replacing is an upsert, not a REPLACE: the run-day counts' triggers
  // (core/facts/fact_snapshot.cc) see the change.
  PULSE_ASSIGN_OR_RETURN(Statement put, db.Prepare(
      std::string("INSERT INTO goal_run_facts(run_id, schedule_id, trigger, started_at, finished_at, status, error,"
                  " route, primary_route, completed, primary_reading, origin, recorded_at)"
                  " VALUES(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)") +
      (replace ? " ON CONFLICT(run_id) DO UPDATE SET schedule_id = excluded.schedule_id, trigger = excluded.trigger,"
                 " started_at = excluded.started_at, finished_at = excluded.finished_at, status = excluded.status,"
                 " error = excluded.error, route = excluded.route, primary_route = excluded.primary_route,"
                 " completed = excluded.completed, primary_reading = excluded.primary_reading,"
                 " origin = excluded.origin, recorded_at = excluded.recorded_at"
               : "")));
  std::string primary = PrimaryRoute(config);
  put.Bind(1, run.run_id).Bind(2, run.schedule_id).Bind(3, run.trigger).Bind(4, FormatTime(run.started_at))
      .Bind(5, FormatTime(run.finished_at)).Bind(6, run.status).Bind(7, run.error).Bind(8, run.route)
      .Bind(9, static_cast<int64_t>(!primary.empty() && run.route == primary))
      .Bind(10, static_cast<int64_t>(run.status == "completed"))
      .Bind(11, static_cast<int64_t>(has_reading)).Bind(12, origin).Bind(13, FormatTime(now));
  return put.Run();
}

}  // namespace


Status ValidateRunRecord(const RunRecord& run, const std::string& where) { return ValidateRun(run, where); }

Result<json> ParseJsonText(const std::string& text, const std::string& source) {
  return ParseJsonBounded(text, source);
}

Result<json> ReadJsonFile(Env& env, const std::string& path) {
  Result<std::string> text = env.ReadFile(path);
  if (!text.ok()) {
    if (text.status().code() == Code::kNotFound) return Status::InvalidArgument(path + ": missing");
    return text.status();
  }
  return ParseJsonText(*text, path);
}

Result<RunRecord> ReadRunFolder(Env& env, const std::string& run_dir) {
  std::string dir = run_dir;
  while (dir.size() > 1 && dir.back() == '/') dir.pop_back();
  if (!env.IsDirectory(dir)) return Status::InvalidArgument(dir + ": no such run folder");
  const std::string run_path = dir + "/run.json";
  const std::string route_path = dir + "/route_selection.json";
  PULSE_ASSIGN_OR_RETURN(json run_doc, ReadJsonFile(env, run_path));
  PULSE_ASSIGN_OR_RETURN(RunRecord run, ParseRunJson(run_doc, run_path));
  PULSE_ASSIGN_OR_RETURN(json route_doc, ReadJsonFile(env, route_path));
  PULSE_ASSIGN_OR_RETURN(run.route, ParseRouteSelection(route_doc, route_path));
  return run;
}

Result<std::vector<RunRecord>> ReadScheduleRunsFile(Env& env, const std::string& path) {
  if (!env.FileExists(path)) return std::vector<RunRecord>();
  Result<std::string> text = env.ReadFile(path);
  if (!text.ok()) {
    if (text.status().code() == Code::kNotFound) return Status::InvalidArgument(path + ": missing");
    return text.status();
  }
  // Read into runs directly (schedule_runs_text.h): the same runs and errors
  // as ParseScheduleRuns on the parsed tree, without the tree.
  return ParseScheduleRunsText(*text, path);
}

Result<RunRecord> ParseRunJson(const json& doc, const std::string& source) {
  if (!doc.is_object()) return Status::InvalidArgument(source + ": expected a JSON object");
  RunRecord run;
  PULSE_RETURN_IF_ERROR(ReadString(doc, "run_id", source + ": run", true, &run.run_id));
  PULSE_RETURN_IF_ERROR(ReadTime(doc, "started_at", source + ": run", &run.started_at));
  PULSE_RETURN_IF_ERROR(ReadTime(doc, "finished_at", source + ": run", &run.finished_at));
  PULSE_RETURN_IF_ERROR(ReadString(doc, "status", source + ": run", true, &run.status));
  PULSE_RETURN_IF_ERROR(ReadString(doc, "trigger", source + ": run", false, &run.trigger));
  PULSE_RETURN_IF_ERROR(ReadString(doc, "error", source + ": run", false, &run.error));
  run.schedule_id = ScheduleOfTrigger(run.trigger);
  PULSE_RETURN_IF_ERROR(ValidateRun(run, source + ": run"));
  return run;
}

Result<std::string> ParseRouteSelection(const json& doc, const std::string& source) {
  if (!doc.is_object()) return Status::InvalidArgument(source + ": expected a JSON object like {\"route\": \"...\"}");
  std::string route;
  PULSE_RETURN_IF_ERROR(ReadString(doc, "route", source + ": selection", true, &route));
  return route;
}

Result<std::vector<RunRecord>> ParseScheduleRuns(const json& doc, const std::string& source) {
  if (!doc.is_array()) return Status::InvalidArgument(source + ": expected a JSON array of runs");
  std::vector<RunRecord> runs;
  runs.reserve(doc.size());
  for (size_t i = 0; i < doc.size(); ++i) {
    const json& item = doc[i];
    std::string where = source + ": [" + std::to_string(i) + "]";
    if (!item.is_object()) return Status::InvalidArgument(where + ": expected an object");
    RunRecord run;
    PULSE_RETURN_IF_ERROR(ReadString(item, "run_id", where, true, &run.run_id));
    PULSE_RETURN_IF_ERROR(ReadString(item, "schedule_id", where, false, &run.schedule_id));
    PULSE_RETURN_IF_ERROR(ReadTime(item, "started_at", where, &run.started_at));
    PULSE_RETURN_IF_ERROR(ReadTime(item, "finished_at", where, &run.finished_at));
    PULSE_RETURN_IF_ERROR(ReadString(item, "status", where, true, &run.status));
    PULSE_RETURN_IF_ERROR(ReadString(item, "route", where, false, &run.route));
    if (!run.schedule_id.empty()) run.trigger = "schedule:" + run.schedule_id;
    PULSE_RETURN_IF_ERROR(ValidateRun(run, where));
    runs.push_back(std::move(run));
  }
  return runs;
}

Result<double> ParseReadingValue(const std::string& text, const std::string& what) {
  // strtod alone takes "inf", "nan", "0x1p3" and leading spaces, and turns
  // 1e400 into infinity: only the JSON number grammar is a reading here.
  size_t i = 0;
  const auto digits = [&] {
    size_t start = i;
    while (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i]))) ++i;
    return i > start;
  };
  if (i < text.size() && (text[i] == '-' || text[i] == '+')) ++i;
  bool ok = digits();
  if (ok && i < text.size() && text[i] == '.') {
    ++i;
    ok = digits();
  }
  if (ok && i < text.size() && (text[i] == 'e' || text[i] == 'E')) {
    ++i;
    if (i < text.size() && (text[i] == '-' || text[i] == '+')) ++i;
    ok = digits();
  }
  if (text.empty()) return Status::InvalidArgument(what + ": empty: expected a number");
  if (!ok || i != text.size()) return Status::InvalidArgument(what + ": \"" + text + "\" is not a number");
  double value = std::strtod(text.c_str(), nullptr);
  if (!std::isfinite(value)) return Status::InvalidArgument(what + ": " + text + " is out of range");
  return value;
}

Status RecordObservation(Db& db, const WorkflowConfig& config, const Observation& obs, int64_t now) {
  if (obs.metric.empty()) return Status::InvalidArgument("metric: missing");
  if (!std::isfinite(obs.value)) return Status::InvalidArgument("value: not a finite number");
  Transaction tx(db);
  PULSE_RETURN_IF_ERROR(tx.Begin());
  PULSE_ASSIGN_OR_RETURN(Statement put, db.Prepare(
      "INSERT INTO pulse_goal_observations(metric, value, at, source, run_id, recorded_at)"
      " VALUES(?, ?, ?, ?, ?, ?)"
      " ON CONFLICT(metric, at, source, run_id) DO UPDATE SET value = excluded.value"
      " WHERE value IS NOT excluded.value"));
  std::string at = FormatTime(obs.at);
  put.Bind(1, obs.metric).Bind(2, obs.value).Bind(3, at).Bind(4, ReadingSourceName(obs.source))
      .Bind(5, obs.run_id).Bind(6, FormatTime(now));
  PULSE_RETURN_IF_ERROR(put.Run());
  if (obs.source == ReadingSource::kWorkflowRun && IsPrimaryMetric(config, obs.metric)) {
    // The run may have been finalized before its reading arrived.
    PULSE_ASSIGN_OR_RETURN(Statement mark, db.Prepare(
        obs.run_id.empty()
            ? "UPDATE goal_run_facts SET primary_reading = 1"
              " WHERE primary_reading = 0 AND finished_at >= ?1 AND started_at <= ?1"
            : "UPDATE goal_run_facts SET primary_reading = 1 WHERE primary_reading = 0 AND run_id = ?1"));
    mark.Bind(1, obs.run_id.empty() ? at : obs.run_id);
    PULSE_RETURN_IF_ERROR(mark.Run());
  }
  return tx.Commit();
}

namespace {

// The write of one run's own facts; the caller holds the transaction.
Result<RecordOutcome> RecordLocked(Db& db, const WorkflowConfig& config, const RunRecord& run, int64_t now) {
  PULSE_ASSIGN_OR_RETURN(PrimaryReadingLookup readings, PrimaryReadingLookup::Prepare(db, config));
  PULSE_ASSIGN_OR_RETURN(bool has_reading,
                         readings.Has(run, FormatTime(run.started_at), FormatTime(run.finished_at)));
  PULSE_ASSIGN_OR_RETURN(Statement get, db.Prepare(
      "SELECT schedule_id, trigger, started_at, finished_at, status, error, route, primary_route,"
      " primary_reading, origin FROM goal_run_facts WHERE run_id = ?"));
  get.Bind(1, run.run_id);
  PULSE_ASSIGN_OR_RETURN(bool exists, get.Step());
  std::string primary = PrimaryRoute(config);
  if (exists) {
    bool same = get.Text(0) == run.schedule_id && get.Text(1) == run.trigger &&
                get.Text(2) == FormatTime(run.started_at) && get.Text(3) == FormatTime(run.finished_at) &&
                get.Text(4) == run.status && get.Text(5) == run.error && get.Text(6) == run.route &&
                get.Int64(7) == static_cast<int64_t>(!primary.empty() && run.route == primary) &&
                get.Int64(8) == static_cast<int64_t>(has_reading) && get.Text(9) == "finalize_run";
    get.Reset();
    if (same) return RecordOutcome::kUnchanged;
  } else {
    get.Reset();
  }
  PULSE_RETURN_IF_ERROR(InsertFacts(db, config, run, has_reading, "finalize_run", now, /*replace=*/true));
  return exists ? RecordOutcome::kUpdated : RecordOutcome::kInserted;
}

Status ValidateRuns(const std::vector<RunRecord>& runs) {
  for (size_t i = 0; i < runs.size(); ++i) {
    PULSE_RETURN_IF_ERROR(ValidateRun(runs[i], "runs[" + std::to_string(i) + "]"));
  }
  return Status::OK();
}

// Runs not yet known, read-only: the common case (nothing new) then takes no
// write lock at all.
Result<std::vector<const RunRecord*>> FreshRuns(Db& db, const std::vector<RunRecord>& runs, ImportCounts* counts) {
  std::vector<const RunRecord*> fresh;
  if (runs.empty()) return fresh;
  // One read lock for every lookup (a workflow's file holds ~1,000 runs),
  // not one per statement.
  ReadSnapshot snapshot(db);
  PULSE_ASSIGN_OR_RETURN(Statement known, db.Prepare("SELECT 1 FROM goal_run_facts WHERE run_id = ?"));
  std::set<std::string> seen;
  for (const RunRecord& run : runs) {
    if (!seen.insert(run.run_id).second) continue;
    known.Bind(1, run.run_id);
    PULSE_ASSIGN_OR_RETURN(bool has, known.Step());
    known.Reset();
    if (has) ++counts->already;
    else fresh.push_back(&run);
  }
  return fresh;
}

// The import's writes; the caller holds the transaction.
Status ImportLocked(Db& db, const WorkflowConfig& config, const std::vector<const RunRecord*>& fresh, int64_t now,
                    ImportCounts* counts) {
  if (fresh.empty()) return Status::OK();
  PULSE_ASSIGN_OR_RETURN(Statement put, db.Prepare(
      "INSERT OR IGNORE INTO goal_run_facts(run_id, schedule_id, trigger, started_at, finished_at, status, error,"
      " route, primary_route, completed, primary_reading, origin, recorded_at)"
      " VALUES(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'schedule_runs', ?)"));
  PULSE_ASSIGN_OR_RETURN(PrimaryReadingLookup readings, PrimaryReadingLookup::Prepare(db, config));
  const std::string primary = PrimaryRoute(config);
  const std::string recorded_at = FormatTime(now);
  for (const RunRecord* run : fresh) {
    const std::string started = FormatTime(run->started_at), finished = FormatTime(run->finished_at);
    PULSE_ASSIGN_OR_RETURN(bool has_reading, readings.Has(*run, started, finished));
    put.Bind(1, run->run_id).Bind(2, run->schedule_id).Bind(3, run->trigger).Bind(4, started)
        .Bind(5, finished).Bind(6, run->status).Bind(7, run->error).Bind(8, run->route)
        .Bind(9, static_cast<int64_t>(!primary.empty() && run->route == primary))
        .Bind(10, static_cast<int64_t>(run->status == "completed"))
        .Bind(11, static_cast<int64_t>(has_reading)).Bind(12, recorded_at);
    PULSE_RETURN_IF_ERROR(put.Run());
    if (db.Changes() > 0) ++counts->imported;
    else ++counts->already;
    put.Reset();
  }
  return Status::OK();
}

}  // namespace

Result<RecordOutcome> RecordRunFacts(Db& db, const WorkflowConfig& config, const RunRecord& run, int64_t now) {
  PULSE_ASSIGN_OR_RETURN(FinalizeOutcome out, FinalizeRun(db, config, run, {}, now));
  return out.run;
}

Result<ImportCounts> ImportScheduleRuns(Db& db, const WorkflowConfig& config, const std::vector<RunRecord>& runs,
                                        int64_t now, int max_runs) {
  PULSE_RETURN_IF_ERROR(ValidateRuns(runs));
  ImportCounts counts;
  PULSE_ASSIGN_OR_RETURN(std::vector<const RunRecord*> fresh, FreshRuns(db, runs, &counts));
  if (fresh.empty()) return counts;
  if (max_runs > 0 && fresh.size() > static_cast<size_t>(max_runs)) {
    // The newest first: they are what a goal check reads first (the last
    // run, the last completed run of a route, the last days' runs).
    std::sort(fresh.begin(), fresh.end(), [](const RunRecord* a, const RunRecord* b) {
      return std::tie(b->finished_at, b->started_at, a->run_id) < std::tie(a->finished_at, a->started_at, b->run_id);
    });
    counts.remaining = static_cast<int>(fresh.size()) - max_runs;
    fresh.resize(static_cast<size_t>(max_runs));
  }
  Transaction tx(db);
  PULSE_RETURN_IF_ERROR(tx.Begin());
  PULSE_RETURN_IF_ERROR(ImportLocked(db, config, fresh, now, &counts));
  PULSE_RETURN_IF_ERROR(tx.Commit());
  return counts;
}

Result<ImportCounts> ImportScheduleRunsFile(Env& env, Db& db, const WorkflowConfig& config, const std::string& path,
                                            int max_runs) {
  PULSE_ASSIGN_OR_RETURN(std::vector<RunRecord> runs, ReadScheduleRunsFile(env, path));
  if (runs.empty()) return ImportCounts{};
  return ImportScheduleRuns(db, config, runs, env.NowSeconds(), max_runs);
}

Result<FinalizeOutcome> FinalizeRun(Db& db, const WorkflowConfig& config, const RunRecord& run,
                                    const std::vector<RunRecord>& older, int64_t now) {
  PULSE_RETURN_IF_ERROR(ValidateRun(run, "run"));
  PULSE_RETURN_IF_ERROR(ValidateRuns(older));
  FinalizeOutcome out;
  Transaction tx(db);
  PULSE_RETURN_IF_ERROR(tx.Begin());
  PULSE_ASSIGN_OR_RETURN(std::vector<const RunRecord*> fresh, FreshRuns(db, older, &out.imported));
  PULSE_RETURN_IF_ERROR(ImportLocked(db, config, fresh, now, &out.imported));
  PULSE_ASSIGN_OR_RETURN(out.run, RecordLocked(db, config, run, now));
  PULSE_RETURN_IF_ERROR(tx.Commit());
  return out;
}

Result<std::vector<Reading>> ListReadings(Db& db, const std::string& metric) {
  PULSE_ASSIGN_OR_RETURN(Statement q, db.Prepare(
      "SELECT at, value, source, run_id FROM pulse_goal_observations WHERE metric = ? ORDER BY at, id"));
  q.Bind(1, metric);
  std::vector<Reading> out;
  while (true) {
    PULSE_ASSIGN_OR_RETURN(bool row, q.Step());
    if (!row) break;
    Reading r;
    PULSE_ASSIGN_OR_RETURN(r.at, ParseTime(q.Text(0)));
    r.value = q.Double(1);
    r.source = q.Text(2);
    r.run_id = q.Text(3);
    out.push_back(std::move(r));
  }
  return out;
}

Result<std::vector<RouteCount>> RunsByRoute(Db& db, const WorkflowConfig& config, int64_t since, int64_t now) {
  PULSE_ASSIGN_OR_RETURN(Statement q, db.Prepare(
      "SELECT route, count(*), sum(completed), sum(status != 'completed') FROM goal_run_facts"
      " WHERE finished_at >= ? AND finished_at <= ? GROUP BY route ORDER BY route"));
  q.Bind(1, since > 0 ? FormatTime(since) : std::string()).Bind(2, FormatTime(now));
  std::string primary = PrimaryRoute(config);
  std::vector<RouteCount> out;
  while (true) {
    PULSE_ASSIGN_OR_RETURN(bool row, q.Step());
    if (!row) break;
    RouteCount c;
    c.route = q.Text(0);
    c.runs = q.Int64(1);
    c.completed = q.Int64(2);
    c.failed = q.Int64(3);
    c.primary = !primary.empty() && c.route == primary;
    out.push_back(std::move(c));
  }
  return out;
}

namespace {

Result<std::optional<RecordedCheck>> OneCheck(Statement& q) {
  PULSE_ASSIGN_OR_RETURN(bool row, q.Step());
  if (!row) return std::optional<RecordedCheck>();
  RecordedCheck c;
  c.id = q.Int64(0);
  c.checked_at = q.Time(1).value_or(0);
  c.status = q.Text(2);
  c.fingerprint = q.Text(3);
  c.pause_reported = q.Int64(4) != 0;
  return std::optional<RecordedCheck>(std::move(c));
}

constexpr const char kCheckColumns[] = "SELECT id, checked_at, status, fingerprint, pause_reported FROM pulse_goal_checks";

}  // namespace

Result<std::optional<RecordedCheck>> LatestRecordedCheck(Db& db, int64_t now) {
  PULSE_ASSIGN_OR_RETURN(Statement q, db.Prepare(std::string(kCheckColumns) +
                                                 " WHERE checked_at <= ? ORDER BY checked_at DESC, id DESC LIMIT 1"));
  q.Bind(1, FormatTime(now));
  return OneCheck(q);
}

Result<std::optional<RecordedCheck>> PreviousRecordedCheck(Db& db, const RecordedCheck& check) {
  PULSE_ASSIGN_OR_RETURN(Statement q, db.Prepare(std::string(kCheckColumns) +
                                                 " WHERE checked_at < ?1 OR (checked_at = ?1 AND id < ?2)"
                                                 " ORDER BY checked_at DESC, id DESC LIMIT 1"));
  q.Bind(1, FormatTime(check.checked_at)).Bind(2, check.id);
  return OneCheck(q);
}

Status StoreCheck(Db& db, int64_t checked_at, const std::string& status, const std::string& document,
                  const std::string& fingerprint, bool pause_reported) {
  PULSE_ASSIGN_OR_RETURN(Statement put, db.Prepare(
      "INSERT INTO pulse_goal_checks(checked_at, status, fingerprint, pause_reported, document)"
      " VALUES(?, ?, ?, ?, ?)"));
  put.Bind(1, FormatTime(checked_at)).Bind(2, status).Bind(3, fingerprint)
      .Bind(4, static_cast<int64_t>(pause_reported)).Bind(5, document);
  return put.Run();
}

}  // namespace pulse
