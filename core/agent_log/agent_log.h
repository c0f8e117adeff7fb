// The durable background-agent log: one row per
// background agent of a workflow-scoped session, in the workflow's
// db/db.sqlite table background_agent_log, keyed by
// (workspace_path, session_id, agent_id).
//
// Start and completion upsert the same row, so a row left at
// status 'running' is itself the signal that an agent started and nothing
// recorded it finishing ("stuck" once it has run longer than a configurable
// age). A late or repeated start never turns a finished row back to running
// and never blanks a field already recorded; a completion with no start still
// makes its row.
//
// Two layers:
//  - AgentLogWriter / ReadAgentLog / PruneAgentLog work on an open Db and
//    return Status: the API methods and tests use them.
//  - BackgroundAgentLog is the recorder a server or runner holds per session:
//    workflow-scoped (a no-op that never touches a file without a workflow)
//    and best-effort (a failed write is logged once and swallowed, never
//    returned to the agent it describes).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/agent_log/agent_log_schema.h"
#include "core/store/db.h"
#include "core/base/env.h"
#include "core/base/status.h"

namespace pulse {

// Default age after which a row still 'running' is reported as stuck.
constexpr int64_t kDefaultStuckAfterMinutes = 60;

struct AgentStart {
  std::string session_id;           // required
  std::string agent_id;             // required
  std::string name;
  std::string kind;
  std::string parent_execution_id;
  std::string pulse_run_id;         // the active Pulse pass, empty when none
  std::optional<int64_t> at;        // when it started; default: the clock
};

struct AgentCompletion {
  std::string session_id;           // required
  std::string agent_id;             // required
  std::string status = "completed"; // anything but "running" / empty
  std::string result;
  std::string error;
  std::string duration;             // as the runner reports it ("1m32s")
  std::optional<int64_t> at;        // when it finished; default: the clock
  int64_t tokens_in = 0;            // a model's tokens, when the agent counted them (0 or more;
  int64_t tokens_out = 0;           // a completion keeps the larger of the row's and its own)
};

struct AgentLogRow {
  std::string workspace_path;
  std::string session_id;
  std::string agent_id;
  std::string name;
  std::string kind;
  std::string parent_execution_id;
  std::string pulse_run_id;
  std::string status;
  std::string result;
  std::string error;
  std::string duration;
  int64_t tokens_in = 0;   // a model's tokens in and out (0: not counted)
  int64_t tokens_out = 0;
  // Seconds since the epoch; nullopt for a start or completion not recorded
  // yet (or text in the column that is not a time, from another writer).
  std::optional<int64_t> started_at;
  std::optional<int64_t> completed_at;
  int64_t updated_at = 0;
  bool stuck = false;  // running, and started longer ago than the stuck age
};

// The key a workflow's rows carry in workspace_path: "Workflow/<slug>", the
// workflow's path inside its workspace. Relative on purpose, so the key is
// the same natively and in the browser and survives moving the workspace.
std::string AgentLogWorkspacePath(const std::string& workflow);

// Validates the required fields (InvalidArgument naming the field).
Status ValidateAgentStart(const AgentStart& start);
Status ValidateAgentCompletion(const AgentCompletion& done);

// Upserts on one connection with statements prepared once, so a long-lived
// recorder pays only the SQLite step per event.
// REQUIRES: EnsureAgentLogSchema(db) succeeded; `db` outlives the writer.
class AgentLogWriter {
 public:
  // Each statement is prepared on its first use (a one-off API call pays for
  // one, not two), so constructing cannot fail.
  explicit AgentLogWriter(Db& db) : db_(db) {}
  // `workspace_path` is AgentLogWorkspacePath(workflow); `now` is the record
  // time (updated_at) and the default event time.
  Status Started(const std::string& workspace_path, const AgentStart& start, int64_t now);
  Status Completed(const std::string& workspace_path, const AgentCompletion& done, int64_t now);

 private:
  Db& db_;
  std::optional<Statement> started_;
  std::optional<Statement> completed_;
};

struct AgentLogQuery {
  std::optional<std::string> session_id;
  std::optional<std::string> pulse_run_id;
  // A row status ("running", "completed", "failed", ...) or "stuck" (running
  // longer than the stuck age).
  std::optional<std::string> status;
  // Rows that started or completed at or after this time.
  std::optional<int64_t> since;
  // With `since`: every row still running as well, however long ago it
  // started (an agent that never finished is what a reader of a recent
  // period looks for first).
  bool include_running = false;
  int64_t stuck_after_minutes = kDefaultStuckAfterMinutes;
};

// Oldest first: by start time (a row with no start by its completion), then
// by the order the rows were first written.
Result<std::vector<AgentLogRow>> ReadAgentLog(Db& db, const AgentLogQuery& query, int64_t now);

// Rows running now, and of them those started more than the stuck age ago.
struct RunningAgents {
  int64_t running = 0;
  int64_t stuck = 0;
};
Result<RunningAgents> CountRunningAgents(Db& db, int64_t stuck_after_minutes, int64_t now);

// ---- following completions (the OTLP export, core/agent_log/otlp_export.h) ----

// A finished row with its place in the order rows finished (completed_seq;
// 0 for a row finished before the log numbered completions) and its rowid.
struct FinishedAgentRow {
  int64_t seq = 0;
  int64_t rowid = 0;
  AgentLogRow row;
};
// The latest completion's number (0: none yet).
Result<int64_t> LatestCompletedSeq(Db& db);
// Rows whose completion number is after `after_seq`, in that order, at most
// `limit`.
Result<std::vector<FinishedAgentRow>> ReadCompletedAfter(Db& db, int64_t after_seq, int64_t limit);
// Finished rows numbered up to `max_seq` (or not numbered), that started or
// completed at or after `since` and, with `not_since`, did neither at or
// after it; by rowid after `after_rowid`, at most `limit`.
Result<std::vector<FinishedAgentRow>> ReadFinishedHistory(Db& db, int64_t max_seq, int64_t since,
                                                           std::optional<int64_t> not_since, int64_t after_rowid,
                                                           int64_t limit);
// The row of `session` that was running at `at`: started then or before,
// not completed before it; the latest such start.
Result<std::optional<AgentLogRow>> AgentRunningAt(Db& db, const std::string& session, int64_t at);

struct AgentLogPruneOptions {
  int64_t older_than_days = 0;       // finished at least this many days ago
  std::optional<int64_t> keep_last;  // keep the newest N rows of each session regardless
  bool dry_run = false;
  // Why a row old enough to go must stay ("" when nothing needs it): the
  // goal check's evidence (core/agent_log/evidence.h). Null: none is kept for it.
  std::function<std::string(const AgentLogRow&)> evidence;
};

struct KeptAgentLogRow {
  AgentLogRow row;
  std::string why;
};

struct AgentLogPruneReport {
  std::vector<AgentLogRow> removed;   // removed, or that would be (dry run)
  std::vector<KeptAgentLogRow> kept;  // old enough, kept as evidence
  bool dry_run = false;
};

// Opt-in retention: deletes finished rows (status neither 'running' nor
// empty) whose completion (or last update) is older than the age, except the
// newest `keep_last` rows of each session and the rows `evidence` keeps.
// Never deletes a running row. One transaction: all or nothing.
Result<AgentLogPruneReport> PruneAgentLog(Db& db, const AgentLogPruneOptions& options, int64_t now);

// ---- the recorder ----

// Where a session's background agents are recorded: a workflow in a
// workspace. A plain chat session has none.
struct AgentLogScope {
  std::string workspace;  // the workspace root, named explicitly (never discovered)
  std::string workflow;   // the workflow's slug
};

// The scope of a session, or nullopt for a session with no workflow (plain
// chat): the recorder then does nothing at all.
std::optional<AgentLogScope> AgentLogScopeFor(const std::string& workspace, const std::string& workflow);

class BackgroundAgentLog {
 public:
  struct Options {
    int busy_timeout_ms = 5000;
    // A ceiling on the database's size in pages for this connection (0: none),
    // so a runaway log cannot fill the disk; past it a write fails as "full"
    // and is swallowed like any other failure.
    int64_t max_page_count = 0;
  };

  // `scope` nullopt: every call is a silent no-op that never opens, creates
  // or looks at any file. Otherwise the database (<workflow>/db/db.sqlite) is
  // opened on the first write and kept open; it is created when missing, but
  // only inside an existing workflow folder.
  BackgroundAgentLog(Env& env, std::optional<AgentLogScope> scope);
  BackgroundAgentLog(Env& env, std::optional<AgentLogScope> scope, Options options);
  ~BackgroundAgentLog();
  BackgroundAgentLog(const BackgroundAgentLog&) = delete;
  BackgroundAgentLog& operator=(const BackgroundAgentLog&) = delete;

  // Best-effort: true when the row was written; false for a no-op or a
  // failure. A failure is logged (Env::Log, warning) once with its reason —
  // the same reason again is not repeated until a write succeeds — and is
  // never returned: the agent goes on.
  bool Started(const AgentStart& start);
  bool Completed(const AgentCompletion& done);

  bool enabled() const { return scope_.has_value(); }
  // The last failure (OK when the last write succeeded or nothing failed).
  const Status& last_error() const { return last_error_; }
  int64_t failures() const { return failures_; }

 private:
  Status EnsureOpen();
  Status OpenOnce();
  bool Finish(Status s, const char* event, const std::string& session, const std::string& agent);

  Env& env_;
  std::optional<AgentLogScope> scope_;
  Options options_;
  std::string workspace_path_;
  std::unique_ptr<Db> db_;
  std::unique_ptr<AgentLogWriter> writer_;
  Status last_error_;
  std::string last_logged_;  // the reason last logged, to log each reason once
  int64_t failures_ = 0;
};

}  // namespace pulse
