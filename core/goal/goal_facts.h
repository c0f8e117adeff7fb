// Goal facts: the rows the goal check reads.
//  - pulse_goal_observations: metric readings with their source. Only
//    readings whose source is `workflow_run` count as the workflow measuring
//    its goal; builder-chat and manual readings are kept and reported as
//    readings from outside a run.
//  - goal_run_facts: one row per finished run (the after-run hook, or the
//    older runs imported from schedule-runs.json): its route, whether that is
//    the primary metric's route, whether it completed, and whether a primary
//    reading by a workflow run was recorded during it.
//  - pulse_goal_checks: recorded goal checks with the fingerprint that decides
//    "said once, then quiet".
// Every writer is idempotent and all-or-nothing (one transaction per call).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/store/db.h"
#include "core/base/env.h"
#include "core/base/status.h"
#include "core/workflow/workflow_config.h"

namespace pulse {

Status EnsureGoalSchema(Db& db);

enum class ReadingSource { kWorkflowRun, kBuilderChat, kManual };
const char* ReadingSourceName(ReadingSource source);
Result<ReadingSource> ParseReadingSource(const std::string& text);

struct Observation {
  std::string metric;
  double value = 0;
  int64_t at = 0;
  ReadingSource source = ReadingSource::kManual;
  std::string run_id;  // empty: not tied to a run
};

// A reading's value as text (a command-line flag): a finite decimal number.
// Empty text, "inf", "nan", hex, trailing junk and numbers out of double's
// range (1e400) are InvalidArgument naming `what`; nothing would mean them.
Result<double> ParseReadingValue(const std::string& text, const std::string& what);

// Records a reading (InvalidArgument for a non-finite value). When it is a workflow-run reading of the primary metric,
// the facts of the run it belongs to (by run id, or by its start–finish
// window) are marked as having a primary reading, whichever came first.
Status RecordObservation(Db& db, const WorkflowConfig& config, const Observation& obs, int64_t now);

// A finished run as run.json (or schedule-runs.json) describes it.
struct RunRecord {
  std::string run_id;
  std::string schedule_id;
  std::string trigger;
  int64_t started_at = 0;
  int64_t finished_at = 0;
  std::string status;  // completed | failed | error | interrupted
  std::string error;
  std::string route;
};

// Parses run.json's object ({run_id, started_at, finished_at, status,
// trigger, error}); `source` names the input in error messages.
Result<RunRecord> ParseRunJson(const nlohmann::json& doc, const std::string& source);
// Parses route_selection.json ({"route": "..."}).
Result<std::string> ParseRouteSelection(const nlohmann::json& doc, const std::string& source);
// The checks every run passes (a run id, a known status, finished not before
// started); `where` names it in the error.
Status ValidateRunRecord(const RunRecord& run, const std::string& where);
// Parses schedule-runs.json (an array of {run_id, schedule_id, started_at,
// finished_at, status, route}); every entry is checked before anything is
// used, so one bad entry rejects the file.
Result<std::vector<RunRecord>> ParseScheduleRuns(const nlohmann::json& doc, const std::string& source);
// Parses JSON text from a workspace file (ParseJsonBounded: never throws,
// nesting and numbers bounded); errors name `source` and the byte.
Result<nlohmann::json> ParseJsonText(const std::string& text, const std::string& source);

// ---- the workspace files (read through Env; errors name the file) ----

// A missing file is InvalidArgument ("<path>: missing"): it is bad input.
Result<nlohmann::json> ReadJsonFile(Env& env, const std::string& path);
// A finished run's folder: run.json and route_selection.json, both required.
Result<RunRecord> ReadRunFolder(Env& env, const std::string& run_dir);
// schedule-runs.json when the workflow has one (an empty list otherwise).
Result<std::vector<RunRecord>> ReadScheduleRunsFile(Env& env, const std::string& path);

enum class RecordOutcome { kInserted, kUpdated, kUnchanged };

// The after-run hook's write. Running it twice for one run changes nothing;
// a run first imported from schedule-runs.json is replaced by its own facts.
Result<RecordOutcome> RecordRunFacts(Db& db, const WorkflowConfig& config, const RunRecord& run, int64_t now);

struct ImportCounts {
  int imported = 0;
  int already = 0;
  int remaining = 0;  // runs not yet known and left for a later import (max_runs)
};
// Imports older runs; runs already known (from either source) are left alone.
// `max_runs` > 0: at most that many of the runs not yet known, the newest
// first (by finished_at, then started_at, then run_id); the rest are counted
// in `remaining` and come in with a later import of the same runs.
Result<ImportCounts> ImportScheduleRuns(Db& db, const WorkflowConfig& config, const std::vector<RunRecord>& runs,
                                        int64_t now, int max_runs = 0);
// schedule-runs.json at `path` when the workflow has one (nothing otherwise),
// imported before a goal check reads, so the command line's `pulse check`
// and the server's goal check turn see the same runs.
Result<ImportCounts> ImportScheduleRunsFile(Env& env, Db& db, const WorkflowConfig& config, const std::string& path,
                                            int max_runs = 0);

// The whole after-run hook in one transaction: the older runs of
// schedule-runs.json (if any) and this run's own facts are recorded together
// or not at all.
struct FinalizeOutcome {
  RecordOutcome run = RecordOutcome::kUnchanged;
  ImportCounts imported;
};
Result<FinalizeOutcome> FinalizeRun(Db& db, const WorkflowConfig& config, const RunRecord& run,
                                    const std::vector<RunRecord>& older, int64_t now);

// ---- readings back ----
struct Reading {
  int64_t at = 0;
  double value = 0;
  std::string source;
  std::string run_id;
  bool by_run() const { return source == "workflow_run"; }
};
Result<std::vector<Reading>> ListReadings(Db& db, const std::string& metric);

struct RouteCount {
  std::string route;
  int64_t runs = 0;
  int64_t completed = 0;
  int64_t failed = 0;
  bool primary = false;
};
// Runs per route finished at or after `since` (0: all) and not after `now`.
Result<std::vector<RouteCount>> RunsByRoute(Db& db, const WorkflowConfig& config, int64_t since, int64_t now);

// ---- recorded checks ----
struct RecordedCheck {
  int64_t id = 0;
  int64_t checked_at = 0;
  std::string status;
  std::string fingerprint;
  bool pause_reported = false;
};
// The latest recorded check at or before `now` (nullopt when none).
Result<std::optional<RecordedCheck>> LatestRecordedCheck(Db& db, int64_t now);
// The recorded check just before `check` (nullopt when it is the first).
Result<std::optional<RecordedCheck>> PreviousRecordedCheck(Db& db, const RecordedCheck& check);
Status StoreCheck(Db& db, int64_t checked_at, const std::string& status, const std::string& document,
                  const std::string& fingerprint, bool pause_reported);

}  // namespace pulse
