#include "core/agent_log/agent_log.h"
#include "core/agent_log/agent_log_page.h"

#include <sqlite3.h>

#include <cstdlib>
#include <utility>

#include "core/base/observe.h"
#include "core/base/time_util.h"
#include "core/store/workspace.h"

namespace pulse {

namespace {

constexpr const char* kColumns =
    "workspace_path, session_id, agent_id, name, kind, parent_execution_id, pulse_run_id, status,"
    " result, error, duration, started_at, completed_at, updated_at, tokens_in, tokens_out";

// A row's place in time (agent_log_schema.h): its start, or (a completion
// with no start) its completion, stored in placed_at, which the indexes hold.
constexpr const char* kSortKey = "placed_at";

AgentLogRow RowFrom(const Statement& st) {
  AgentLogRow r;
  r.workspace_path = st.Text(0);
  r.session_id = st.Text(1);
  r.agent_id = st.Text(2);
  r.name = st.Text(3);
  r.kind = st.Text(4);
  r.parent_execution_id = st.Text(5);
  r.pulse_run_id = st.Text(6);
  r.status = st.Text(7);
  r.result = st.Text(8);
  r.error = st.Text(9);
  r.duration = st.Text(10);
  r.started_at = st.Time(11);
  r.completed_at = st.Time(12);
  r.updated_at = st.Time(13).value_or(0);
  r.tokens_in = st.Int64(14);
  r.tokens_out = st.Int64(15);
  return r;
}

bool IsStuck(const AgentLogRow& r, int64_t cutoff) {
  return r.status == "running" && r.started_at && *r.started_at <= cutoff;
}

// Rows selected as kColumns followed by completed_seq and rowid.
Result<std::vector<FinishedAgentRow>> ReadFinished(Statement& st) {
  std::vector<FinishedAgentRow> out;
  const int extra = sqlite3_column_count(st.handle()) - 2;
  for (;;) {
    PULSE_ASSIGN_OR_RETURN(bool has, st.Step());
    if (!has) break;
    FinishedAgentRow f;
    f.row = RowFrom(st);
    f.seq = st.IsNull(extra) ? 0 : st.Int64(extra);
    f.rowid = st.Int64(extra + 1);
    out.push_back(std::move(f));
  }
  return out;
}

}  // namespace

std::string AgentLogWorkspacePath(const std::string& workflow) { return "Workflow/" + workflow; }

Status ValidateAgentStart(const AgentStart& start) {
  if (start.session_id.empty()) return Status::InvalidArgument("agent start: session is required");
  if (start.agent_id.empty()) return Status::InvalidArgument("agent start: agent is required");
  return Status::OK();
}

Status ValidateAgentCompletion(const AgentCompletion& done) {
  if (done.session_id.empty()) return Status::InvalidArgument("agent completion: session is required");
  if (done.agent_id.empty()) return Status::InvalidArgument("agent completion: agent is required");
  if (done.status.empty() || done.status == "running") {
    return Status::InvalidArgument("agent completion: status \"" + done.status +
                                   "\" is not a finished status (like completed or failed)");
  }
  return Status::OK();
}

// ---- AgentLogWriter ----

namespace {

// A start fills only blanks and moves only an unset status to running: a
// late or repeated start never reopens a finished row or erases what an
// earlier event recorded. Each statement places a new row (placed_at: the
// start, or a completion's time when no start came first) and leaves the
// place of an existing one alone, so its indexes are not written again; the
// update trigger moves a completion-only row to its start when one comes.
constexpr const char* kStartedSql =
    "INSERT INTO background_agent_log(workspace_path, session_id, agent_id, name, kind,"
    " parent_execution_id, pulse_run_id, status, started_at, updated_at, placed_at)"
    " VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, 'running', ?8, ?9, ?8)"
    " ON CONFLICT(workspace_path, session_id, agent_id) DO UPDATE SET"
    " name = CASE WHEN name = '' THEN excluded.name ELSE name END,"
    " kind = CASE WHEN kind = '' THEN excluded.kind ELSE kind END,"
    " parent_execution_id = CASE WHEN parent_execution_id = '' THEN excluded.parent_execution_id"
    "   ELSE parent_execution_id END,"
    " pulse_run_id = CASE WHEN pulse_run_id = '' THEN excluded.pulse_run_id ELSE pulse_run_id END,"
    " status = CASE WHEN status = '' THEN 'running' ELSE status END,"
    " started_at = CASE WHEN started_at = '' THEN excluded.started_at ELSE started_at END,"
    " updated_at = excluded.updated_at";

// A completion sets the outcome; an empty field in it never blanks one a
// previous completion recorded. It takes the next completion number (read
// inside the write, so two writers never take the same one).
constexpr const char* kCompletedSql =
    "INSERT INTO background_agent_log(workspace_path, session_id, agent_id, status, result, error,"
    " duration, completed_at, updated_at, tokens_in, tokens_out, completed_seq, placed_at)"
    " VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, 1 + IFNULL((SELECT completed_seq FROM background_agent_log"
    "   WHERE completed_seq IS NOT NULL ORDER BY completed_seq DESC LIMIT 1), 0), ?8)"
    " ON CONFLICT(workspace_path, session_id, agent_id) DO UPDATE SET"
    " status = excluded.status, completed_seq = excluded.completed_seq,"
    " tokens_in = max(tokens_in, excluded.tokens_in), tokens_out = max(tokens_out, excluded.tokens_out),"
    " result = CASE WHEN excluded.result <> '' THEN excluded.result ELSE result END,"
    " error = CASE WHEN excluded.error <> '' THEN excluded.error ELSE error END,"
    " duration = CASE WHEN excluded.duration <> '' THEN excluded.duration ELSE duration END,"
    " completed_at = excluded.completed_at, updated_at = excluded.updated_at";

void Observed(const char* event) {
  if (ObserveSink* sink = CurrentObserveSink()) sink->AgentLogEvent(event);
}

}  // namespace

Status AgentLogWriter::Started(const std::string& workspace_path, const AgentStart& s, int64_t now) {
  PULSE_RETURN_IF_ERROR(ValidateAgentStart(s));
  if (!started_) {
    PULSE_ASSIGN_OR_RETURN(Statement st, db_.Prepare(kStartedSql));
    started_.emplace(std::move(st));
  }
  Statement& st = *started_;
  const std::string now_text = FormatTime(now);
  st.Bind(1, workspace_path).Bind(2, s.session_id).Bind(3, s.agent_id).Bind(4, s.name).Bind(5, s.kind);
  st.Bind(6, s.parent_execution_id).Bind(7, s.pulse_run_id);
  st.Bind(8, s.at ? FormatTime(*s.at) : now_text).Bind(9, now_text);
  Status result = st.Run();
  st.Reset();
  if (result.ok()) Observed("started");
  return result;
}

Status AgentLogWriter::Completed(const std::string& workspace_path, const AgentCompletion& d, int64_t now) {
  PULSE_RETURN_IF_ERROR(ValidateAgentCompletion(d));
  if (!completed_) {
    PULSE_ASSIGN_OR_RETURN(Statement st, db_.Prepare(kCompletedSql));
    completed_.emplace(std::move(st));
  }
  Statement& st = *completed_;
  const std::string now_text = FormatTime(now);
  st.Bind(1, workspace_path).Bind(2, d.session_id).Bind(3, d.agent_id).Bind(4, d.status);
  st.Bind(5, d.result).Bind(6, d.error).Bind(7, d.duration);
  st.Bind(8, d.at ? FormatTime(*d.at) : now_text).Bind(9, now_text);
  st.Bind(10, d.tokens_in).Bind(11, d.tokens_out);
  Status result = st.Run();
  st.Reset();
  if (result.ok()) Observed("completed");
  return result;
}

// ---- reading ----

namespace {

// The filters asked for, and only those, so SQLite can use the index that
// matches each; `sql` ends in a WHERE clause.
void AddFilters(const AgentLogQuery& q, std::string* sql) {
  if (q.session_id) *sql += " AND session_id = :session";
  if (q.pulse_run_id) *sql += " AND pulse_run_id = :run";
  if (q.status) {
    if (*q.status == "stuck") {
      // The sort key is started_at on such a row: its range narrows the walk.
      *sql += std::string(" AND status = 'running' AND started_at <> '' AND started_at <= :cutoff AND ") + kSortKey +
              " <= :cutoff";
    } else {
      *sql += " AND status = :status";
    }
  }
  if (q.since) {
    *sql += q.include_running ? " AND (started_at >= :since OR completed_at >= :since OR status = 'running')"
                              : " AND (started_at >= :since OR completed_at >= :since)";
  }
}

void BindFilters(const AgentLogQuery& q, int64_t cutoff, Statement* st) {
  if (q.session_id) st->Bind(":session", *q.session_id);
  if (q.pulse_run_id) st->Bind(":run", *q.pulse_run_id);
  if (q.status) {
    st->Bind(":status", *q.status);
    st->Bind(":cutoff", FormatTime(cutoff));
  }
  if (q.since) st->Bind(":since", FormatTime(*q.since));
}

Result<int64_t> StuckCutoff(const AgentLogQuery& q, int64_t now) {
  if (q.stuck_after_minutes < 0) {
    return Status::InvalidArgument("stuck_after_minutes must be 0 or more, not " +
                                   std::to_string(q.stuck_after_minutes));
  }
  return now - q.stuck_after_minutes * 60;
}

}  // namespace

std::string AgentLogShowSql(const AgentLogQuery& q) {
  const std::string select = std::string("SELECT ") + kColumns + ", placed_at AS place, rowid AS rid FROM background_agent_log";
  std::string filters;
  AddFilters(q, &filters);
  const std::string base = select + " WHERE 1" + filters;
  if (!q.since) return base + " ORDER BY placed_at, rowid";
  // Three index walks, disjoint, merged in order: the rows placed at or
  // after `since` (a range of the place's index, or of a filter's), the
  // earlier ones completed since (the completions' index, unless a session
  // or run narrows them first, as in the lower bound of a page) and, with
  // include_running, the earlier ones still running (the status index).
  const bool narrowed = q.session_id || q.pulse_run_id;
  std::string sql = base + " AND placed_at >= :since UNION ALL " + select +
                    (narrowed ? "" : " INDEXED BY background_agent_log_by_completion") + " WHERE 1" + filters +
                    " AND placed_at < :since AND completed_at <> '' AND completed_at >= :since";
  if (q.include_running) {
    sql += " UNION ALL " + base +
           " AND placed_at < :since AND status = 'running' AND NOT (completed_at <> '' AND completed_at >= :since)";
  }
  return sql + " ORDER BY place, rid";
}

Result<std::vector<AgentLogRow>> ReadAgentLog(Db& db, const AgentLogQuery& q, int64_t now) {
  PULSE_ASSIGN_OR_RETURN(const int64_t cutoff, StuckCutoff(q, now));
  PULSE_ASSIGN_OR_RETURN(Statement st, db.Prepare(AgentLogShowSql(q)));
  BindFilters(q, cutoff, &st);
  std::vector<AgentLogRow> rows;
  for (;;) {
    PULSE_ASSIGN_OR_RETURN(bool has, st.Step());
    if (!has) break;
    AgentLogRow r = RowFrom(st);
    r.stuck = IsStuck(r, cutoff);
    rows.push_back(std::move(r));
  }
  return rows;
}

Result<RunningAgents> CountRunningAgents(Db& db, int64_t stuck_after_minutes, int64_t now) {
  AgentLogQuery q;
  q.stuck_after_minutes = stuck_after_minutes;
  PULSE_ASSIGN_OR_RETURN(const int64_t cutoff, StuckCutoff(q, now));
  PULSE_ASSIGN_OR_RETURN(Statement st, db.Prepare(
      "SELECT COUNT(*), IFNULL(SUM(started_at <> '' AND started_at <= ?1), 0) FROM background_agent_log"
      " WHERE status = 'running'"));
  st.Bind(1, FormatTime(cutoff));
  PULSE_ASSIGN_OR_RETURN(bool has, st.Step());
  if (!has) return RunningAgents{};
  return RunningAgents{st.Int64(0), st.Int64(1)};
}

// ---- following completions ----

Result<int64_t> LatestCompletedSeq(Db& db) {
  return db.QueryInt64(
      "SELECT IFNULL((SELECT completed_seq FROM background_agent_log WHERE completed_seq IS NOT NULL"
      " ORDER BY completed_seq DESC LIMIT 1), 0)");
}

Result<std::vector<FinishedAgentRow>> ReadCompletedAfter(Db& db, int64_t after_seq, int64_t limit) {
  PULSE_ASSIGN_OR_RETURN(Statement st, db.Prepare(std::string("SELECT ") + kColumns +
                                                  ", completed_seq, rowid FROM background_agent_log WHERE completed_seq"
                                                  " IS NOT NULL AND completed_seq > ?1 ORDER BY completed_seq LIMIT ?2"));
  st.Bind(1, after_seq).Bind(2, limit);
  return ReadFinished(st);
}

Result<std::vector<FinishedAgentRow>> ReadFinishedHistory(Db& db, int64_t max_seq, int64_t since,
                                                           std::optional<int64_t> not_since, int64_t after_rowid,
                                                           int64_t limit) {
  std::string sql = std::string("SELECT ") + kColumns +
                    ", completed_seq, rowid FROM background_agent_log"
                    " WHERE rowid > :after AND status NOT IN ('running', '')"
                    " AND (completed_seq IS NULL OR completed_seq <= :max)"
                    " AND (started_at >= :since OR completed_at >= :since)";
  if (not_since) sql += " AND NOT (started_at >= :sent OR completed_at >= :sent)";
  sql += " ORDER BY rowid LIMIT :limit";
  PULSE_ASSIGN_OR_RETURN(Statement st, db.Prepare(sql));
  st.Bind(":after", after_rowid).Bind(":max", max_seq).Bind(":since", FormatTime(since));
  if (not_since) st.Bind(":sent", FormatTime(*not_since));
  st.Bind(":limit", limit);
  return ReadFinished(st);
}

Result<std::optional<AgentLogRow>> AgentRunningAt(Db& db, const std::string& session, int64_t at) {
  PULSE_ASSIGN_OR_RETURN(Statement st,
                         db.Prepare(std::string("SELECT ") + kColumns +
                                    " FROM background_agent_log WHERE session_id = ?1 AND started_at <> ''"
                                    " AND started_at <= ?2 AND (completed_at = '' OR completed_at >= ?2)"
                                    " ORDER BY started_at DESC, rowid DESC LIMIT 1"));
  st.Bind(1, session).Bind(2, FormatTime(at));
  PULSE_ASSIGN_OR_RETURN(bool has, st.Step());
  if (!has) return std::optional<AgentLogRow>();
  return std::optional<AgentLogRow>(RowFrom(st));
}

// ---- pages ----

namespace {

// A cursor is a row's place: its sort key and rowid ("<time>/<rowid>").
struct Cursor {
  std::string key;
  int64_t rowid = 0;
};

Result<Cursor> ParseCursor(const std::string& text) {
  const size_t slash = text.rfind('/');
  Cursor c;
  if (slash != std::string::npos && slash > 0 && slash + 1 < text.size()) {
    c.key = text.substr(0, slash);
    const std::string id = text.substr(slash + 1);
    char* end = nullptr;
    c.rowid = std::strtoll(id.c_str(), &end, 10);
    if (end && *end == '\0' && c.rowid > 0 && ParseTime(c.key).ok()) return c;
  }
  return Status::InvalidArgument("cursor \"" + text.substr(0, 80) +
                                 "\" is not one this log gave (pass next_cursor from the previous page)");
}

Result<std::string> LowerBound(Db& db, const AgentLogQuery& q, int64_t cutoff) {
  PULSE_ASSIGN_OR_RETURN(Statement st, db.Prepare(AgentLogLowerBoundSql(q)));
  BindFilters(q, cutoff, &st);
  std::string lower = FormatTime(*q.since);
  for (;;) {
    PULSE_ASSIGN_OR_RETURN(bool has, st.Step());
    if (!has) break;
    if (!st.IsNull(0) && st.Text(0) < lower) lower = st.Text(0);
  }
  return lower;
}

// One walk down the filter's index, from below `from` (none: the newest
// row) to `lower` (with since), adding rows to `page` until it holds
// `limit`; one row more sets next_cursor to `*last`, the cursor of the last
// row added. True when the walk ended before that.
Result<bool> Walk(Db& db, const AgentLogQuery& q, int64_t cutoff, const std::string& lower, int64_t limit,
                  const std::optional<Cursor>& from, std::string* last, AgentLogPage* page) {
  PULSE_ASSIGN_OR_RETURN(Statement st, db.Prepare(AgentLogPageSql(q, from.has_value())));
  BindFilters(q, cutoff, &st);
  if (q.since) st.Bind(":lower", lower);
  if (from) {
    st.Bind(":after_key", from->key);
    st.Bind(":after_id", from->rowid);
  }
  st.Bind(":limit", limit - static_cast<int64_t>(page->rows.size()) + 1);
  for (;;) {
    PULSE_ASSIGN_OR_RETURN(bool has, st.Step());
    if (!has) return true;
    if (static_cast<int64_t>(page->rows.size()) == limit) {
      page->next_cursor = *last;
      return false;
    }
    AgentLogRow r = RowFrom(st);
    r.stuck = IsStuck(r, cutoff);
    page->rows.push_back(std::move(r));
    *last = st.Text(16) + "/" + std::to_string(st.Int64(17));
  }
}

}  // namespace

std::string AgentLogLowerBoundSql(const AgentLogQuery& q) {
  const std::string key = kSortKey;
  // The completions since `since` through their own index, unless a session
  // or run narrows them first (or the status is one a completion never has).
  const bool narrowed = q.session_id || q.pulse_run_id || (q.status && (*q.status == "running" || *q.status == "stuck"));
  std::string sql = "SELECT MIN(" + key + ") FROM background_agent_log" +
                    (narrowed ? "" : " INDEXED BY background_agent_log_by_completion") +
                    " WHERE completed_at <> '' AND completed_at >= :since AND " + key + " < :since";
  AddFilters(q, &sql);
  if (q.include_running) {
    sql += " UNION ALL SELECT MIN(" + key + ") FROM background_agent_log WHERE status = 'running' AND " + key +
           " < :since";
    AddFilters(q, &sql);
  }
  return sql;
}

std::string AgentLogPageSql(const AgentLogQuery& q, bool after_cursor) {
  const std::string key = kSortKey;
  std::string sql = "SELECT " + std::string(kColumns) + ", " + key + ", rowid FROM background_agent_log WHERE 1";
  AddFilters(q, &sql);
  if (q.since) sql += " AND " + key + " >= :lower";
  if (after_cursor) sql += " AND (" + key + ", rowid) < (:after_key, :after_id)";
  return sql + " ORDER BY " + key + " DESC, rowid DESC LIMIT :limit";
}

Result<AgentLogPage> ReadAgentLogPage(Db& db, const AgentLogQuery& q, int64_t limit, const std::string& cursor,
                                      int64_t now) {
  PULSE_ASSIGN_OR_RETURN(const int64_t cutoff, StuckCutoff(q, now));
  if (limit < 1 || limit > kMaxAgentLogPage) {
    return Status::InvalidArgument("limit must be 1 to " + std::to_string(kMaxAgentLogPage) + ", not " +
                                   std::to_string(limit));
  }
  std::optional<Cursor> after;
  if (!cursor.empty()) {
    PULSE_ASSIGN_OR_RETURN(Cursor c, ParseCursor(cursor));
    after = c;
  }
  AgentLogPage page;
  // With since, the walk first goes down to `since` itself (a row whose
  // place is at or after it is in by its own time): a page of a busy period
  // never looks further. Only a page still not full there goes on to the
  // rows that started before and ran past `since`.
  const std::string since = q.since ? FormatTime(*q.since) : "";
  std::string last;
  PULSE_ASSIGN_OR_RETURN(bool ended, Walk(db, q, cutoff, since, limit, after, &last, &page));
  if (!ended || !q.since) return page;
  PULSE_ASSIGN_OR_RETURN(std::string lower, LowerBound(db, q, cutoff));
  if (lower >= since) return page;
  // Every match at or after `since` was walked: the rest lie below it (a
  // rowid is never 0, so (since, 0) is just below every row placed at since).
  if (!after || after->key >= since) after = Cursor{since, 0};
  PULSE_ASSIGN_OR_RETURN(ended, Walk(db, q, cutoff, lower, limit, after, &last, &page));
  return page;
}

// ---- retention ----

Result<AgentLogPruneReport> PruneAgentLog(Db& db, const AgentLogPruneOptions& o, int64_t now) {
  if (o.older_than_days < 0) {
    return Status::InvalidArgument("older_than_days must be 0 or more, not " + std::to_string(o.older_than_days));
  }
  if (o.keep_last && *o.keep_last < 0) {
    return Status::InvalidArgument("keep_last must be 0 or more, not " + std::to_string(*o.keep_last));
  }
  AgentLogPruneReport report;
  report.dry_run = o.dry_run;
  Transaction tx(db);
  PULSE_RETURN_IF_ERROR(tx.Begin());
  // Rank each session's rows newest first; a row is removable when it is
  // finished, finished before the cutoff, and not among the newest keep_last.
  std::string sql = std::string("SELECT ") + kColumns + ", rid FROM (SELECT *, rowid AS rid, " + kSortKey +
                    " AS sort_key, ROW_NUMBER() OVER (PARTITION BY workspace_path, session_id ORDER BY " +
                    kSortKey + " DESC, rowid DESC) AS rn FROM background_agent_log)"
                    " WHERE status NOT IN ('running', '')"
                    " AND (CASE WHEN completed_at <> '' THEN completed_at ELSE updated_at END) < :cutoff"
                    " AND rn > :keep ORDER BY sort_key, rid";
  PULSE_ASSIGN_OR_RETURN(Statement pick, db.Prepare(sql));
  pick.Bind(":cutoff", FormatTime(now - o.older_than_days * kSecondsPerDay));
  pick.Bind(":keep", o.keep_last.value_or(0));
  std::vector<int64_t> rowids;
  for (;;) {
    PULSE_ASSIGN_OR_RETURN(bool has, pick.Step());
    if (!has) break;
    AgentLogRow row = RowFrom(pick);
    std::string why = o.evidence ? o.evidence(row) : "";
    if (!why.empty()) {
      report.kept.push_back({std::move(row), std::move(why)});
      continue;
    }
    report.removed.push_back(std::move(row));
    rowids.push_back(pick.Int64(16));
  }
  if (o.dry_run) return report;  // the transaction rolls back: nothing changed
  PULSE_ASSIGN_OR_RETURN(Statement del, db.Prepare("DELETE FROM background_agent_log WHERE rowid = ?"));
  for (int64_t id : rowids) {
    del.Bind(1, id);
    PULSE_RETURN_IF_ERROR(del.Run());
    del.Reset();
  }
  PULSE_RETURN_IF_ERROR(tx.Commit());
  return report;
}

// ---- BackgroundAgentLog ----

std::optional<AgentLogScope> AgentLogScopeFor(const std::string& workspace, const std::string& workflow) {
  if (workspace.empty() || workflow.empty()) return std::nullopt;
  return AgentLogScope{workspace, workflow};
}

BackgroundAgentLog::BackgroundAgentLog(Env& env, std::optional<AgentLogScope> scope)
    : BackgroundAgentLog(env, std::move(scope), Options()) {}

BackgroundAgentLog::BackgroundAgentLog(Env& env, std::optional<AgentLogScope> scope, Options options)
    : env_(env), scope_(std::move(scope)), options_(options) {
  if (scope_) workspace_path_ = AgentLogWorkspacePath(scope_->workflow);
}

BackgroundAgentLog::~BackgroundAgentLog() {
  writer_.reset();  // statements go before their connection
  db_.reset();
}

Status BackgroundAgentLog::EnsureOpen() {
  if (writer_) return Status::OK();
  // Several processes creating (or switching to WAL) one new database at once
  // can see "locked" where SQLite does not wait (a journal-mode change, a
  // schema read racing a schema write). Those races end within moments, so
  // they get the same patience as an ordinary lock: retried up to the busy
  // timeout. Any other failure is final for this event.
  constexpr int kRetryMs = 10;
  Status s;
  for (int waited = 0;; waited += kRetryMs) {
    s = OpenOnce();
    if (s.ok() || s.code() != Code::kBusy || waited >= options_.busy_timeout_ms) return s;
    sqlite3_sleep(kRetryMs);
  }
}

Status BackgroundAgentLog::OpenOnce() {
  PULSE_ASSIGN_OR_RETURN(WorkflowPaths paths, ResolveWorkflow(scope_->workspace, scope_->workflow));
  // Only ever inside an existing workflow folder: a wrong name must not
  // create a stray workflow.
  if (!env_.IsDirectory(paths.dir)) return Status::NotFound(paths.dir + ": no such workflow");
  if (!env_.FileExists(paths.db)) PULSE_RETURN_IF_ERROR(env_.CreateDirs(paths.db_dir));
  OpenOptions open;
  open.busy_timeout_ms = options_.busy_timeout_ms;
  PULSE_ASSIGN_OR_RETURN(std::unique_ptr<Db> db, Db::Open(paths.db, open));
  if (options_.max_page_count > 0) {
    PULSE_RETURN_IF_ERROR(db->Exec("PRAGMA max_page_count=" + std::to_string(options_.max_page_count)));
  }
  PULSE_RETURN_IF_ERROR(EnsureAgentLogSchema(*db));
  writer_ = std::make_unique<AgentLogWriter>(*db);
  db_ = std::move(db);
  return Status::OK();
}

bool BackgroundAgentLog::Finish(Status s, const char* event, const std::string& session,
                                const std::string& agent) {
  if (s.ok()) {
    last_error_ = Status::OK();
    last_logged_.clear();
    return true;
  }
  ++failures_;
  last_error_ = s;
  // Reopen on the next write: the lock may be gone, the file repaired.
  writer_.reset();
  db_.reset();
  if (s.message() != last_logged_) {
    last_logged_ = s.message();
    env_.Log(LogLevel::kWarn, std::string("agent log: could not record ") + event + " of agent \"" + agent +
                                  "\" in session \"" + session + "\" (workflow " + scope_->workflow +
                                  "): " + s.message() + "; the agent is not affected");
  }
  return false;
}

bool BackgroundAgentLog::Started(const AgentStart& start) {
  if (!scope_) return false;  // plain chat: nothing to record, nothing touched
  Status s = EnsureOpen();
  if (s.ok()) s = writer_->Started(workspace_path_, start, env_.NowSeconds());
  return Finish(std::move(s), "the start", start.session_id, start.agent_id);
}

bool BackgroundAgentLog::Completed(const AgentCompletion& done) {
  if (!scope_) return false;
  Status s = EnsureOpen();
  if (s.ok()) s = writer_->Completed(workspace_path_, done, env_.NowSeconds());
  return Finish(std::move(s), "the completion", done.session_id, done.agent_id);
}

}  // namespace pulse
