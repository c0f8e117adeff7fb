// The durable background-agent log: one row per
// agent, the workflow-only boundary, best-effort writes under real faults,
// read-back, versioned schema, retention, and a writer killed mid-stream.
#include <gtest/gtest.h>
#include <signal.h>
#include <sqlite3.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <set>
#include <string>
#include <vector>

#include "core/agent_log/agent_log.h"
#include "core/workflow/handle.h"
#include "core/api/api.h"
#include "core/store/db.h"
#include "core/store/schema.h"
#include "core/store/workspace.h"
#include "tests/cpp/test_util.h"

namespace pulse {
namespace {

namespace fs = std::filesystem;
using testing::T;
using testing::TempDir;
using testing::WriteFile;

constexpr const char* kWorkflow = "demo";

// A workspace holding one workflow folder (no database yet).
struct Fixture {
  TempDir dir;
  std::string workspace = testing::MakeWorkspace(dir, kWorkflow, "{}");
  std::string db_path = workspace + "/Workflow/demo/db/db.sqlite";
  CapturingEnv env{DefaultEnv(), T("2026-10-07T12:00:00Z")};
  std::optional<AgentLogScope> scope = AgentLogScopeFor(workspace, kWorkflow);
};

AgentStart Start(const std::string& session, const std::string& agent, const std::string& at = "") {
  AgentStart s;
  s.session_id = session;
  s.agent_id = agent;
  if (!at.empty()) s.at = T(at);
  return s;
}

AgentCompletion Done(const std::string& session, const std::string& agent, const std::string& status = "completed",
                     const std::string& at = "") {
  AgentCompletion d;
  d.session_id = session;
  d.agent_id = agent;
  d.status = status;
  if (!at.empty()) d.at = T(at);
  return d;
}

std::unique_ptr<Db> OpenOrDie(const std::string& path) {
  fs::create_directories(fs::path(path).parent_path());
  auto db = Db::Open(path);
  EXPECT_TRUE(db.ok()) << db.status().message();
  if (!db.ok()) return nullptr;
  EXPECT_TRUE(EnsureSchema(**db).ok());
  return std::move(db).value();
}

std::vector<AgentLogRow> ReadAll(Db& db, AgentLogQuery q = {}, int64_t now = T("2026-10-07T12:00:00Z")) {
  auto rows = ReadAgentLog(db, q, now);
  EXPECT_TRUE(rows.ok()) << rows.status().message();
  return rows.ok() ? *rows : std::vector<AgentLogRow>{};
}

std::vector<std::string> Agents(const std::vector<AgentLogRow>& rows) {
  std::vector<std::string> out;
  for (const auto& r : rows) out.push_back(r.agent_id);
  return out;
}

std::vector<std::string> FilesUnder(const std::string& dir) {
  std::vector<std::string> out;
  for (auto& e : fs::recursive_directory_iterator(dir)) out.push_back(e.path().string());
  return out;
}

// ---- the log's first three rules ----

TEST(AgentLog, StartThenCompletionIsOneDurableRowOnDisk) {
  Fixture f;
  {
    BackgroundAgentLog log(f.env, f.scope);
    AgentStart s = Start("sess-1", "agent-1", "2026-10-07T09:00:00Z");
    s.name = "Gate";
    s.kind = "gate";
    s.parent_execution_id = "exec-7";
    s.pulse_run_id = "pulse-run-3";
    ASSERT_TRUE(log.Started(s));
    AgentCompletion d = Done("sess-1", "agent-1", "completed", "2026-10-07T09:04:00Z");
    d.result = "changed";
    d.duration = "4m0s";
    ASSERT_TRUE(log.Completed(d));
    EXPECT_TRUE(f.env.lines.empty());
  }
  // The write is on disk: a fresh connection to the file sees one row.
  ASSERT_TRUE(fs::exists(f.db_path));
  auto db = OpenOrDie(f.db_path);
  auto rows = ReadAll(*db);
  ASSERT_EQ(rows.size(), 1u);
  const AgentLogRow& r = rows[0];
  EXPECT_EQ(r.workspace_path, "Workflow/demo");
  EXPECT_EQ(r.session_id, "sess-1");
  EXPECT_EQ(r.agent_id, "agent-1");
  EXPECT_EQ(r.name, "Gate");
  EXPECT_EQ(r.kind, "gate");
  EXPECT_EQ(r.parent_execution_id, "exec-7");
  EXPECT_EQ(r.pulse_run_id, "pulse-run-3");
  EXPECT_EQ(r.status, "completed");
  EXPECT_EQ(r.result, "changed");
  EXPECT_EQ(r.duration, "4m0s");
  EXPECT_EQ(r.started_at, T("2026-10-07T09:00:00Z"));
  EXPECT_EQ(r.completed_at, T("2026-10-07T09:04:00Z"));
  EXPECT_EQ(r.updated_at, T("2026-10-07T12:00:00Z"));
  EXPECT_FALSE(r.stuck);
  EXPECT_EQ(*db->QueryInt64("SELECT count(*) FROM background_agent_log"), 1);
}

TEST(AgentLog, WorkspacePathRequiresAWorkflowScopedSession) {
  EXPECT_FALSE(AgentLogScopeFor("", "").has_value());
  EXPECT_FALSE(AgentLogScopeFor("/ws", "").has_value());   // plain chat in a workspace
  EXPECT_FALSE(AgentLogScopeFor("", "demo").has_value());  // no workspace named: never guessed
  auto scope = AgentLogScopeFor("/ws", "demo");
  ASSERT_TRUE(scope.has_value());
  EXPECT_EQ(scope->workspace, "/ws");
  EXPECT_EQ(scope->workflow, "demo");
  EXPECT_EQ(AgentLogWorkspacePath("demo"), "Workflow/demo");
}

// Fails the test if anything asks it for a file: the no-workspace path must
// never get as far as opening (or looking for) a database.
class TripwireEnv : public FixedClockEnv {
 public:
  TripwireEnv() : FixedClockEnv(DefaultEnv(), 0) {}
  void Log(LogLevel, const std::string& m) override { ADD_FAILURE() << "logged: " << m; }
  Result<std::string> ReadFile(const std::string& p) override { return Trip(p); }
  Status WriteFileAtomic(const std::string& p, const std::string&) override { return Trip(p); }
  bool FileExists(const std::string& p) override { return !Trip(p).ok(); }
  bool IsDirectory(const std::string& p) override { return !Trip(p).ok(); }
  Status CreateDirs(const std::string& p) override { return Trip(p); }
  Result<std::vector<std::string>> ListDir(const std::string& p) override { return Trip(p); }
  Result<int64_t> ModifiedAt(const std::string& p) override { return Trip(p); }

 private:
  Status Trip(const std::string& p) {
    ADD_FAILURE() << "touched a file: " << p;
    return Status::IoError(p);
  }
};

TEST(AgentLog, SkipsSessionsWithNoWorkspaceAndNeverOpensADatabase) {
  TempDir dir;
  TripwireEnv env;
  const std::string cwd = fs::current_path().string();
  fs::current_path(dir.path());  // a database made "here" would show up below
  {
    BackgroundAgentLog log(env, AgentLogScopeFor("", ""));
    EXPECT_FALSE(log.enabled());
    EXPECT_FALSE(log.Started(Start("chat-1", "a1")));
    EXPECT_FALSE(log.Completed(Done("chat-1", "a1")));
    EXPECT_TRUE(log.last_error().ok());
    EXPECT_EQ(log.failures(), 0);
    BackgroundAgentLog in_workspace(env, AgentLogScopeFor(dir.path(), ""));
    EXPECT_FALSE(in_workspace.Started(Start("chat-2", "a1")));
  }
  fs::current_path(cwd);
  EXPECT_TRUE(FilesUnder(dir.path()).empty());
}

// ---- upsert rules ----

TEST(AgentLog, CompletionWithoutStartStillMakesOneRow) {
  Fixture f;
  BackgroundAgentLog log(f.env, f.scope);
  AgentCompletion d = Done("s", "orphan", "failed", "2026-10-07T10:00:00Z");
  d.error = "killed";
  ASSERT_TRUE(log.Completed(d));
  auto db = OpenOrDie(f.db_path);
  auto rows = ReadAll(*db);
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].status, "failed");
  EXPECT_EQ(rows[0].error, "killed");
  EXPECT_FALSE(rows[0].started_at);
  EXPECT_EQ(rows[0].completed_at, T("2026-10-07T10:00:00Z"));
}

TEST(AgentLog, LateOrRepeatedStartNeverReopensOrBlanksAFinishedRow) {
  Fixture f;
  BackgroundAgentLog log(f.env, f.scope);
  AgentStart s = Start("s", "a", "2026-10-07T09:00:00Z");
  s.name = "Reviewer";
  s.pulse_run_id = "run-1";
  ASSERT_TRUE(log.Started(s));
  AgentCompletion d = Done("s", "a", "completed", "2026-10-07T09:10:00Z");
  d.result = "ok";
  ASSERT_TRUE(log.Completed(d));
  // A late start (different name, no run id) and a repeat of the first.
  AgentStart late = Start("s", "a", "2026-10-07T09:20:00Z");
  late.name = "Renamed";
  late.kind = "reviewer";
  ASSERT_TRUE(log.Started(late));
  ASSERT_TRUE(log.Started(s));
  auto db = OpenOrDie(f.db_path);
  auto rows = ReadAll(*db);
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].status, "completed");
  EXPECT_EQ(rows[0].name, "Reviewer");
  EXPECT_EQ(rows[0].kind, "reviewer");  // a blank is filled
  EXPECT_EQ(rows[0].pulse_run_id, "run-1");
  EXPECT_EQ(rows[0].result, "ok");
  EXPECT_EQ(rows[0].started_at, T("2026-10-07T09:00:00Z"));
  EXPECT_EQ(rows[0].completed_at, T("2026-10-07T09:10:00Z"));

  // Completion first, then the late start: still finished, start filled in.
  ASSERT_TRUE(log.Completed(Done("s", "b", "cancelled", "2026-10-07T09:30:00Z")));
  AgentStart b = Start("s", "b", "2026-10-07T09:25:00Z");
  b.name = "Fixer";
  ASSERT_TRUE(log.Started(b));
  auto rb = ReadAll(*db, AgentLogQuery{std::nullopt, std::nullopt, std::string("cancelled")});
  ASSERT_EQ(rb.size(), 1u);
  EXPECT_EQ(rb[0].name, "Fixer");
  EXPECT_EQ(rb[0].started_at, T("2026-10-07T09:25:00Z"));

  // A second completion with empty fields never blanks the first's.
  ASSERT_TRUE(log.Completed(Done("s", "a", "completed", "2026-10-07T09:40:00Z")));
  auto ra = ReadAll(*db, AgentLogQuery{std::string("s")});
  ASSERT_EQ(ra[0].agent_id, "a");
  EXPECT_EQ(ra[0].result, "ok");
}

TEST(AgentLog, InvalidEventsAreRefusedNotWritten) {
  Fixture f;
  auto db = OpenOrDie(f.db_path);
  AgentLogWriter w(*db);
  EXPECT_EQ(w.Started("Workflow/demo", Start("", "a"), 0).code(), Code::kInvalidArgument);
  EXPECT_EQ(w.Started("Workflow/demo", Start("s", ""), 0).code(), Code::kInvalidArgument);
  Status running = w.Completed("Workflow/demo", Done("s", "a", "running"), 0);
  EXPECT_EQ(running.code(), Code::kInvalidArgument);
  EXPECT_NE(running.message().find("not a finished status"), std::string::npos);
  EXPECT_EQ(*db->QueryInt64("SELECT count(*) FROM background_agent_log"), 0);
}

// ---- read back ----

TEST(AgentLog, ReadsBackOldestFirstBySessionRunStatusAndSince) {
  Fixture f;
  BackgroundAgentLog log(f.env, f.scope);
  // Recorded out of order on purpose.
  AgentStart a3 = Start("s2", "a3", "2026-10-07T09:30:00Z");
  a3.pulse_run_id = "run-B";
  ASSERT_TRUE(log.Started(a3));
  AgentStart a1 = Start("s1", "a1", "2026-10-07T09:00:00Z");
  a1.pulse_run_id = "run-A";
  ASSERT_TRUE(log.Started(a1));
  AgentStart a2 = Start("s1", "a2", "2026-10-07T09:10:00Z");
  a2.pulse_run_id = "run-A";
  ASSERT_TRUE(log.Started(a2));
  ASSERT_TRUE(log.Completed(Done("s1", "a1", "completed", "2026-10-07T09:20:00Z")));
  ASSERT_TRUE(log.Completed(Done("s2", "a0", "failed", "2026-10-07T09:05:00Z")));  // no start
  ASSERT_TRUE(log.Started(Start("s2", "a4", "2026-10-07T11:50:00Z")));

  auto db = OpenOrDie(f.db_path);
  EXPECT_EQ(Agents(ReadAll(*db)), (std::vector<std::string>{"a1", "a0", "a2", "a3", "a4"}));
  AgentLogQuery q;
  q.session_id = "s1";
  EXPECT_EQ(Agents(ReadAll(*db, q)), (std::vector<std::string>{"a1", "a2"}));
  q = {};
  q.pulse_run_id = "run-A";
  EXPECT_EQ(Agents(ReadAll(*db, q)), (std::vector<std::string>{"a1", "a2"}));
  q = {};
  q.status = "running";
  EXPECT_EQ(Agents(ReadAll(*db, q)), (std::vector<std::string>{"a2", "a3", "a4"}));
  q = {};
  q.since = T("2026-10-07T09:15:00Z");  // a1 completed after it; a0 and a2 did nothing since
  EXPECT_EQ(Agents(ReadAll(*db, q)), (std::vector<std::string>{"a1", "a3", "a4"}));
  q.include_running = true;  // a2 still runs: it is shown however old
  EXPECT_EQ(Agents(ReadAll(*db, q)), (std::vector<std::string>{"a1", "a2", "a3", "a4"}));
  q = {};
  q.session_id = "s2";
  q.status = "running";
  EXPECT_EQ(Agents(ReadAll(*db, q)), (std::vector<std::string>{"a3", "a4"}));
}

TEST(AgentLog, RowsRunningLongerThanTheConfiguredAgeAreStuck) {
  Fixture f;
  BackgroundAgentLog log(f.env, f.scope);
  ASSERT_TRUE(log.Started(Start("s", "old", "2026-10-07T10:00:00Z")));    // 120 min before now
  ASSERT_TRUE(log.Started(Start("s", "young", "2026-10-07T11:45:00Z")));  // 15 min
  ASSERT_TRUE(log.Started(Start("s", "done", "2026-10-07T08:00:00Z")));
  ASSERT_TRUE(log.Completed(Done("s", "done")));
  auto db = OpenOrDie(f.db_path);

  AgentLogQuery q;  // default age: 60 minutes
  auto rows = ReadAll(*db, q);
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_EQ(rows[0].agent_id, "done");
  EXPECT_FALSE(rows[0].stuck);  // finished rows are never stuck
  EXPECT_TRUE(rows[1].stuck);
  EXPECT_FALSE(rows[2].stuck);
  q.status = "stuck";
  EXPECT_EQ(Agents(ReadAll(*db, q)), std::vector<std::string>{"old"});
  q.stuck_after_minutes = 10;
  EXPECT_EQ(Agents(ReadAll(*db, q)), (std::vector<std::string>{"old", "young"}));
  q.stuck_after_minutes = 180;
  EXPECT_TRUE(ReadAll(*db, q).empty());
  q.stuck_after_minutes = -1;
  EXPECT_EQ(ReadAgentLog(*db, q, 0).status().code(), Code::kInvalidArgument);
}

// ---- schema ----

// The original table exactly as it was first created, with no version record.
constexpr const char* kSeedTable =
    "CREATE TABLE IF NOT EXISTS background_agent_log (\n"
    "\tworkspace_path TEXT NOT NULL,\n"
    "\tsession_id TEXT NOT NULL,\n"
    "\tagent_id TEXT NOT NULL,\n"
    "\tname TEXT NOT NULL DEFAULT '',\n"
    "\tkind TEXT NOT NULL DEFAULT '',\n"
    "\tparent_execution_id TEXT NOT NULL DEFAULT '',\n"
    "\tstatus TEXT NOT NULL DEFAULT '',\n"
    "\tresult TEXT NOT NULL DEFAULT '',\n"
    "\terror TEXT NOT NULL DEFAULT '',\n"
    "\tduration TEXT NOT NULL DEFAULT '',\n"
    "\tstarted_at TEXT NOT NULL DEFAULT '',\n"
    "\tcompleted_at TEXT NOT NULL DEFAULT '',\n"
    "\tupdated_at TEXT NOT NULL,\n"
    "\tPRIMARY KEY (workspace_path, session_id, agent_id)\n"
    ")";

TEST(AgentLog, UpgradesASeedVersionDatabaseInPlaceLosingNothing) {
  Fixture f;
  fs::create_directories(fs::path(f.db_path).parent_path());
  {
    auto raw = Db::Open(f.db_path);
    ASSERT_TRUE(raw.ok());
    ASSERT_TRUE((*raw)->Exec(kSeedTable).ok());
    ASSERT_TRUE((*raw)->Exec(
        "INSERT INTO background_agent_log VALUES"
        " ('Workflow/demo','s-old','gate','Gate','gate','','completed','changed','','2m','2026-08-12T09:00:00Z',"
        "  '2026-08-12T09:02:00Z','2026-08-12T09:02:00Z'),"
        " ('Workflow/demo','s-old','fixer','Fixer','fixer','','running','','','','2026-08-12T09:03:00Z','',"
        "  '2026-08-12T09:03:00Z')").ok());
  }
  auto db = OpenOrDie(f.db_path);  // EnsureSchema: the upgrade
  EXPECT_EQ(*db->QueryInt64("SELECT version FROM pulse_schema_versions WHERE component = 'agent_log'"), 4);
  EXPECT_EQ(*db->QueryInt64("SELECT count(*) FROM pragma_table_info('background_agent_log')"
                            " WHERE name = 'pulse_run_id'"), 1);
  EXPECT_EQ(*db->QueryInt64("SELECT count(*) FROM sqlite_schema WHERE type = 'index'"
                            " AND tbl_name = 'background_agent_log' AND name LIKE 'background_agent_log_by_%'"), 9);
  auto rows = ReadAll(*db);
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0].agent_id, "gate");
  EXPECT_EQ(rows[0].result, "changed");
  EXPECT_EQ(rows[0].pulse_run_id, "");
  EXPECT_EQ(rows[1].status, "running");
  // The original running row completes in place, on the same key.
  db.reset();
  BackgroundAgentLog log(f.env, f.scope);
  ASSERT_TRUE(log.Completed(Done("s-old", "fixer")));
  auto again = OpenOrDie(f.db_path);  // idempotent: nothing due the second time
  rows = ReadAll(*again);
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[1].status, "completed");
  EXPECT_EQ(*again->QueryInt64("SELECT version FROM pulse_schema_versions WHERE component = 'agent_log'"), 4);
}

TEST(AgentLog, SchemaIsIdempotentAndUsesTheIndexes) {
  Fixture f;
  auto db = OpenOrDie(f.db_path);
  ASSERT_TRUE(EnsureAgentLogSchema(*db).ok());
  ASSERT_TRUE(EnsureSchema(*db).ok());
  auto plan = [&](const std::string& where) {
    auto st = db->Prepare("EXPLAIN QUERY PLAN SELECT * FROM background_agent_log WHERE " + where);
    EXPECT_TRUE(st.ok());
    std::string out;
    while (*st->Step()) out += st->Text(3) + "\n";
    return out;
  };
  EXPECT_NE(plan("session_id = 'x'").find("background_agent_log_by_session"), std::string::npos);
  EXPECT_NE(plan("pulse_run_id = 'x'").find("background_agent_log_by_run"), std::string::npos);
  EXPECT_NE(plan("status = 'running'").find("background_agent_log_by_status"), std::string::npos);
}

// ---- retention ----

TEST(AgentLog, PruneRemovesOnlyOldFinishedRowsAndKeepsTheNewestPerSession) {
  Fixture f;
  BackgroundAgentLog log(f.env, f.scope);
  // s1: four finished rows 40, 30, 20 and 1 days old, one running 50 days old.
  const char* s1[][2] = {{"d40", "2026-08-28T09:00:00Z"}, {"d30", "2026-09-07T09:00:00Z"},
                         {"d20", "2026-09-17T09:00:00Z"}, {"d1", "2026-10-06T09:00:00Z"}};
  for (auto& r : s1) {
    ASSERT_TRUE(log.Started(Start("s1", r[0], r[1])));
    ASSERT_TRUE(log.Completed(Done("s1", r[0], "completed", r[1])));
  }
  ASSERT_TRUE(log.Started(Start("s1", "hung", "2026-08-18T09:00:00Z")));
  // s2: one finished row 35 days old.
  ASSERT_TRUE(log.Completed(Done("s2", "x35", "failed", "2026-09-02T09:00:00Z")));
  auto db = OpenOrDie(f.db_path);
  const int64_t now = T("2026-10-07T12:00:00Z");

  AgentLogPruneOptions o;
  o.older_than_days = 10;
  o.keep_last = 2;
  o.dry_run = true;
  auto dry = PruneAgentLog(*db, o, now);
  ASSERT_TRUE(dry.ok()) << dry.status().message();
  // s1's newest two (d1 and d20) stay; "hung" is running; s2's only row is its newest.
  EXPECT_EQ(Agents(dry->removed), (std::vector<std::string>{"d40", "d30"}));
  EXPECT_EQ(ReadAll(*db).size(), 6u);  // a dry run removes nothing

  o.dry_run = false;
  auto done = PruneAgentLog(*db, o, now);
  ASSERT_TRUE(done.ok());
  EXPECT_EQ(Agents(done->removed), (std::vector<std::string>{"d40", "d30"}));
  // Oldest first; x35 has no start, so its completion places it.
  EXPECT_EQ(Agents(ReadAll(*db)), (std::vector<std::string>{"hung", "x35", "d20", "d1"}));

  // No keep_last: every finished row past the age goes, running rows never.
  o.keep_last.reset();
  o.older_than_days = 0;
  auto all = PruneAgentLog(*db, o, now);
  ASSERT_TRUE(all.ok());
  EXPECT_EQ(Agents(all->removed), (std::vector<std::string>{"x35", "d20", "d1"}));
  EXPECT_EQ(Agents(ReadAll(*db)), std::vector<std::string>{"hung"});

  o.older_than_days = -1;
  EXPECT_EQ(PruneAgentLog(*db, o, now).status().code(), Code::kInvalidArgument);
}

// ---- best-effort under real faults ----

// Each fault: the write returns false, the reason is logged once (a second
// failure for the same reason is not logged again), nothing is thrown or
// returned to the agent.
void ExpectSwallowedOnce(Fixture& f, BackgroundAgentLog& log, const std::string& reason_part) {
  EXPECT_FALSE(log.Started(Start("s", "a1")));
  EXPECT_FALSE(log.Completed(Done("s", "a1")));
  EXPECT_EQ(log.failures(), 2);
  ASSERT_EQ(f.env.lines.size(), 1u) << ::testing::PrintToString(f.env.lines);
  EXPECT_NE(f.env.lines[0].find("could not record"), std::string::npos) << f.env.lines[0];
  EXPECT_NE(f.env.lines[0].find(reason_part), std::string::npos) << f.env.lines[0];
  EXPECT_NE(log.last_error().message().find(reason_part), std::string::npos);
}

void MakeLogWithOneRow(Fixture& f) {
  BackgroundAgentLog log(f.env, f.scope);
  ASSERT_TRUE(log.Started(Start("s", "seed-row")));
}

TEST(AgentLogFaults, CorruptFileIsLoggedOnceAndLeftAsItWas) {
  Fixture f;
  const std::string junk(8192, 'x');
  WriteFile(f.db_path, junk);
  BackgroundAgentLog log(f.env, f.scope);
  ExpectSwallowedOnce(f, log, "not a database");
  EXPECT_EQ(testing::ReadFileOrDie(f.db_path), junk);
}

TEST(AgentLogFaults, ReadOnlyDatabaseIsLoggedOnceAndStillReadable) {
  Fixture f;
  MakeLogWithOneRow(f);
  {
    // Switch the file back to rollback journaling, then raise its write
    // version above 2: SQLite must treat such a file as read-only (file
    // format, header bytes 18-19). Unlike chmod, this holds for root too.
    auto db = Db::Open(f.db_path);
    ASSERT_TRUE(db.ok());
    ASSERT_TRUE((*db)->Exec("PRAGMA journal_mode=DELETE").ok());
  }
  {
    std::fstream file(f.db_path, std::ios::in | std::ios::out | std::ios::binary);
    file.seekp(18);
    const char versions[2] = {3, 1};
    file.write(versions, 2);
  }
  BackgroundAgentLog log(f.env, f.scope);
  ExpectSwallowedOnce(f, log, "readonly");
  OpenOptions ro;
  ro.read_only = true;
  auto db = Db::Open(f.db_path, ro);
  ASSERT_TRUE(db.ok()) << db.status().message();
  EXPECT_EQ(Agents(ReadAll(**db)), std::vector<std::string>{"seed-row"});
}

TEST(AgentLogFaults, DatabasePathThatIsADirectoryIsLoggedOnce) {
  Fixture f;
  fs::create_directories(f.db_path);
  BackgroundAgentLog log(f.env, f.scope);
  ExpectSwallowedOnce(f, log, "unable to open");
}

TEST(AgentLogFaults, DiskFullIsLoggedOnce) {
  Fixture f;
  MakeLogWithOneRow(f);
  int64_t pages = 0;
  {
    auto db = OpenOrDie(f.db_path);
    pages = *db->QueryInt64("PRAGMA page_count");
  }
  BackgroundAgentLog::Options options;
  options.max_page_count = pages;  // not one page more
  BackgroundAgentLog log(f.env, f.scope, options);
  AgentStart big = Start("s", "big");
  big.name = std::string(200000, 'n');
  EXPECT_FALSE(log.Started(big));
  AgentCompletion bigger = Done("s", "bigger");
  bigger.result = std::string(300000, 'r');
  EXPECT_FALSE(log.Completed(bigger));
  ASSERT_EQ(f.env.lines.size(), 1u);
  EXPECT_NE(f.env.lines[0].find("full"), std::string::npos) << f.env.lines[0];
  auto db = OpenOrDie(f.db_path);
  EXPECT_EQ(Agents(ReadAll(*db)), std::vector<std::string>{"seed-row"});
}

TEST(AgentLogFaults, DatabaseLockedByAnotherProcessIsLoggedOnceThenRecovers) {
  Fixture f;
  MakeLogWithOneRow(f);  // closed again: no connection crosses the fork
  int hold[2], release[2];
  ASSERT_EQ(pipe(hold), 0);
  ASSERT_EQ(pipe(release), 0);
  pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    // The other process: takes the write lock and keeps it until told.
    sqlite3* db = nullptr;
    char c = 'x';
    if (sqlite3_open(f.db_path.c_str(), &db) != SQLITE_OK ||
        sqlite3_exec(db, "BEGIN EXCLUSIVE", nullptr, nullptr, nullptr) != SQLITE_OK) {
      c = 'e';
    }
    if (write(hold[1], &c, 1) != 1) _exit(3);
    if (read(release[0], &c, 1) != 1) _exit(4);
    sqlite3_exec(db, "ROLLBACK", nullptr, nullptr, nullptr);
    sqlite3_close(db);
    _exit(0);
  }
  char c = 0;
  ASSERT_EQ(read(hold[0], &c, 1), 1);
  ASSERT_EQ(c, 'x');
  BackgroundAgentLog::Options options;
  options.busy_timeout_ms = 150;
  BackgroundAgentLog log(f.env, f.scope, options);
  ExpectSwallowedOnce(f, log, "locked");
  ASSERT_EQ(write(release[1], "g", 1), 1);
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  // The lock is gone: the same recorder writes again.
  EXPECT_TRUE(log.Completed(Done("s", "a1")));
  EXPECT_TRUE(log.last_error().ok());
  auto db = OpenOrDie(f.db_path);
  EXPECT_EQ(ReadAll(*db).size(), 2u);
  for (int fd : {hold[0], hold[1], release[0], release[1]}) close(fd);
}

TEST(AgentLogFaults, MissingWorkflowFolderIsLoggedAndNothingIsCreated) {
  Fixture f;
  BackgroundAgentLog log(f.env, AgentLogScopeFor(f.workspace, "no-such-flow"));
  EXPECT_FALSE(log.Started(Start("s", "a")));
  ASSERT_EQ(f.env.lines.size(), 1u);
  EXPECT_NE(f.env.lines[0].find("no such workflow"), std::string::npos);
  EXPECT_FALSE(fs::exists(f.workspace + "/Workflow/no-such-flow"));
  BackgroundAgentLog bad(f.env, AgentLogScopeFor(f.workspace, "../escape"));
  EXPECT_FALSE(bad.Started(Start("s", "a")));
  EXPECT_FALSE(fs::exists(f.dir.Join("escape")));
}

// ---- durability ----

TEST(AgentLogDurability, WriterKilledMidStreamLosesNoAcknowledgedRow) {
  Fixture f;
  MakeLogWithOneRow(f);
  int acks[2];
  ASSERT_EQ(pipe(acks), 0);
  pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    close(acks[0]);
    CapturingEnv env(DefaultEnv(), T("2026-10-07T12:00:00Z"));
    BackgroundAgentLog log(env, AgentLogScopeFor(f.workspace, kWorkflow));
    for (int i = 0;; ++i) {
      std::string id = "agent-" + std::to_string(i);
      AgentStart s = Start("load", id);
      s.name = std::string(300, 'n');  // rows big enough to span pages
      if (!log.Started(s)) _exit(5);
      AgentCompletion d = Done("load", id);
      d.result = std::string(500, 'r');
      if (!log.Completed(d)) _exit(6);
      // Acknowledged only once both events are committed.
      std::string line = std::to_string(i) + "\n";
      if (write(acks[1], line.data(), line.size()) != static_cast<ssize_t>(line.size())) _exit(7);
    }
  }
  close(acks[1]);
  std::string got;
  char buf[4096];
  size_t lines = 0;
  while (lines < 400) {
    ssize_t n = read(acks[0], buf, sizeof buf);
    ASSERT_GT(n, 0) << "the writer stopped early";
    got.append(buf, static_cast<size_t>(n));
    lines = static_cast<size_t>(std::count(got.begin(), got.end(), '\n'));
  }
  ASSERT_EQ(kill(child, SIGKILL), 0);
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
  // Whatever else was in flight, read every acknowledgement that made it out.
  for (ssize_t n; (n = read(acks[0], buf, sizeof buf)) > 0;) got.append(buf, static_cast<size_t>(n));
  close(acks[0]);
  std::set<std::string> acked;
  size_t start = 0;
  for (size_t nl; (nl = got.find('\n', start)) != std::string::npos; start = nl + 1) {
    acked.insert("agent-" + got.substr(start, nl - start));
  }
  ASSERT_GE(acked.size(), 400u);

  auto db = OpenOrDie(f.db_path);
  auto check = db->Prepare("PRAGMA integrity_check");
  ASSERT_TRUE(check.ok());
  ASSERT_TRUE(*check->Step());
  EXPECT_EQ(check->Text(0), "ok");
  AgentLogQuery q;
  q.session_id = "load";
  std::set<std::string> complete;
  for (const auto& r : ReadAll(*db, q)) {
    if (r.status == "completed" && r.result.size() == 500) complete.insert(r.agent_id);
  }
  for (const std::string& id : acked) EXPECT_TRUE(complete.count(id)) << id << " was acknowledged but is missing";
}

// ---- the API methods ----

TEST(AgentLogApi, MethodsRecordShowAndPruneThroughTheRegistry) {
  Fixture f;
  auto opened = OpenWorkflow(f.env, f.workspace, kWorkflow);
  ASSERT_TRUE(opened.ok()) << opened.status().message();
  ApiContext ctx{opened->db.get(), &f.env, kWorkflow, opened->config, opened->paths.dir};
  using nlohmann::json;
  auto started = CallApi(ctx, "agent_log.started",
                         json{{"session", "s"}, {"agent", "a"}, {"name", "Gate"}, {"pulse_run_id", "r1"},
                              {"at", "2026-10-07T09:00:00Z"}});
  ASSERT_TRUE(started.ok()) << started.status().message();
  EXPECT_EQ((*started)["recorded"], true);
  EXPECT_EQ((*started)["workspace_path"], "Workflow/demo");
  auto done = CallApi(ctx, "agent_log.completed",
                      json{{"session", "s"}, {"agent", "a"}, {"duration", 12.5}, {"at", "2026-10-07T09:01:00Z"}});
  ASSERT_TRUE(done.ok());
  ASSERT_TRUE(CallApi(ctx, "agent_log.started", json{{"session", "s"}, {"agent", "b"}, {"at", "2026-10-07T09:02:00Z"}}).ok());
  auto shown = CallApi(ctx, "agent_log.show", json{{"pulse_run_id", "r1"}});
  ASSERT_TRUE(shown.ok());
  ASSERT_EQ((*shown)["rows"].size(), 1u);
  const json& row = (*shown)["rows"][0];
  for (const char* key : {"workspace_path", "session_id", "agent_id", "name", "kind", "parent_execution_id",
                          "pulse_run_id", "status", "result", "error", "duration", "started_at", "completed_at",
                          "updated_at", "stuck"}) {
    EXPECT_TRUE(row.contains(key)) << key;
  }
  EXPECT_EQ(row["duration"], "12.5s");
  EXPECT_EQ(row["status"], "completed");
  EXPECT_EQ((*shown)["stuck_after_minutes"], 60);
  auto stuck = CallApi(ctx, "agent_log.show", json{{"status", "running"}, {"stuck_after_minutes", 5}});
  ASSERT_TRUE(stuck.ok());
  ASSERT_EQ((*stuck)["rows"].size(), 1u);
  EXPECT_EQ((*stuck)["rows"][0]["stuck"], true);

  EXPECT_EQ(CallApi(ctx, "agent_log.started", json{{"agent", "a"}}).status().code(), Code::kInvalidArgument);
  EXPECT_EQ(CallApi(ctx, "agent_log.started", json{{"session", 5}, {"agent", "a"}}).status().code(),
            Code::kInvalidArgument);
  EXPECT_EQ(CallApi(ctx, "agent_log.show", json{{"since", "soon"}}).status().code(), Code::kInvalidArgument);
  EXPECT_EQ(CallApi(ctx, "agent_log.prune", json::object()).status().code(), Code::kInvalidArgument);
  auto pruned = CallApi(ctx, "agent_log.prune", json{{"older_than_days", 0}, {"dry_run", true}});
  ASSERT_TRUE(pruned.ok());
  EXPECT_EQ((*pruned)["count"], 1);
  EXPECT_EQ((*pruned)["dry_run"], true);

  // A database with no workflow (the browser's bare database): no-op.
  ApiContext bare{opened->db.get(), &f.env, "", WorkflowConfig{}, ""};
  auto skipped = CallApi(bare, "agent_log.started", json{{"session", "s"}, {"agent", "z"}});
  ASSERT_TRUE(skipped.ok());
  EXPECT_EQ((*skipped)["recorded"], false);
  auto all = CallApi(ctx, "agent_log.show", json::object());
  EXPECT_EQ((*all)["rows"].size(), 2u);
}

TEST(AgentLogApi, AModelsTokensStayOnTheRow) {
  Fixture f;
  auto handle = WorkflowHandle::Open(f.env, f.workspace, kWorkflow);
  ASSERT_TRUE(handle.ok()) << handle.status().message();
  ApiContext ctx = ContextFor(**handle);
  using nlohmann::json;
  AgentLogWriter writer = (*handle)->agent_log();
  const std::string where = (*handle)->agent_log_key();
  ASSERT_TRUE(writer.Started(where, Start("s", "t"), f.env.NowSeconds()).ok());
  AgentCompletion done = Done("s", "t");
  done.tokens_in = 3500;
  done.tokens_out = 120;
  ASSERT_TRUE(writer.Completed(where, done, f.env.NowSeconds()).ok());
  // A later completion without counts keeps them.
  ASSERT_TRUE(CallApi(ctx, "agent_log.completed", json{{"session", "s"}, {"agent", "t"}, {"result", "again"}}).ok());
  auto shown = CallApi(ctx, "agent_log.show", json::object());
  ASSERT_TRUE(shown.ok());
  ASSERT_EQ((*shown)["rows"].size(), 1u);
  EXPECT_EQ((*shown)["rows"][0]["tokens"], json({{"in", 3500}, {"out", 120}}));
  EXPECT_EQ((*shown)["rows"][0]["result"], "again");
  // A row with no model has no tokens field.
  ASSERT_TRUE(CallApi(ctx, "agent_log.completed", json{{"session", "s"}, {"agent", "u"}}).ok());
  shown = CallApi(ctx, "agent_log.show", json{{"status", "completed"}});
  ASSERT_EQ((*shown)["rows"].size(), 2u);
  EXPECT_FALSE((*shown)["rows"][1].contains("tokens")) << (*shown)["rows"].dump();
}

TEST(AgentLogApi, AFailedWriteIsReportedAsDataAndLoggedNotReturnedAsAnError) {
  Fixture f;
  MakeLogWithOneRow(f);
  OpenOptions ro;
  ro.read_only = true;
  auto db = Db::Open(f.db_path, ro);  // the write will fail: attempt to write a readonly database
  ASSERT_TRUE(db.ok());
  ApiContext ctx{db->get(), &f.env, kWorkflow, WorkflowConfig{}, ""};
  auto out = CallApi(ctx, "agent_log.completed", nlohmann::json{{"session", "s"}, {"agent", "seed-row"}});
  ASSERT_TRUE(out.ok()) << out.status().message();
  EXPECT_EQ((*out)["recorded"], false);
  EXPECT_NE((*out)["warning"].get<std::string>().find("readonly"), std::string::npos);
  ASSERT_EQ(f.env.lines.size(), 1u);
  EXPECT_NE(f.env.lines[0].find("agent_log.completed: not recorded"), std::string::npos);
  auto shown = CallApi(ctx, "agent_log.show", nlohmann::json::object());
  ASSERT_TRUE(shown.ok());
  EXPECT_EQ((*shown)["rows"][0]["status"], "running");  // unchanged
}

TEST(AgentLogApi, RecordTakesManyEventsInOneCall) {
  Fixture f;
  auto opened = OpenWorkflow(f.env, f.workspace, kWorkflow);
  ASSERT_TRUE(opened.ok());
  ApiContext ctx{opened->db.get(), &f.env, kWorkflow, opened->config, opened->paths.dir};
  using nlohmann::json;
  json events = json::array();
  for (int i = 0; i < 50; ++i) {
    events.push_back({{"event", "started"}, {"session", "s"}, {"agent", "a" + std::to_string(i)}});
    events.push_back({{"event", "completed"}, {"session", "s"}, {"agent", "a" + std::to_string(i)}, {"result", "r"}});
  }
  auto out = CallApi(ctx, "agent_log.record", json{{"events", events}});
  ASSERT_TRUE(out.ok()) << out.status().message();
  EXPECT_EQ((*out)["recorded"], 100);
  EXPECT_EQ((*out)["failed"], 0);
  auto shown = CallApi(ctx, "agent_log.show", json{{"status", "completed"}});
  EXPECT_EQ((*shown)["rows"].size(), 50u);
  // One bad event: nothing written, the error names it.
  json bad = json::array({{{"event", "started"}, {"session", "s"}, {"agent", "new"}},
                          {{"event", "started"}, {"session", "s"}}});
  auto refused = CallApi(ctx, "agent_log.record", json{{"events", bad}});
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.status().message().find("events[1]"), std::string::npos) << refused.status().message();
  EXPECT_EQ(CallApi(ctx, "agent_log.show", json::object())->at("rows").size(), 50u);
  EXPECT_EQ(CallApi(ctx, "agent_log.record", json::object()).status().code(), Code::kInvalidArgument);
}

TEST(AgentLogApi, StuckAgeComesFromWorkflowJsonWhenNotGiven) {
  TempDir dir;
  std::string ws = testing::MakeWorkspace(dir, kWorkflow, R"({"pulse": {"agent_log": {"stuck_after_minutes": 5}}})");
  CapturingEnv env(DefaultEnv(), T("2026-10-07T12:00:00Z"));
  auto opened = OpenWorkflow(env, ws, kWorkflow);
  ASSERT_TRUE(opened.ok());
  ApiContext ctx{opened->db.get(), &env, kWorkflow, opened->config, opened->paths.dir};
  ASSERT_TRUE(CallApi(ctx, "agent_log.started",
                      nlohmann::json{{"session", "s"}, {"agent", "a"}, {"at", "2026-10-07T11:50:00Z"}}).ok());
  auto shown = CallApi(ctx, "agent_log.show", nlohmann::json::object());
  ASSERT_TRUE(shown.ok());
  EXPECT_EQ((*shown)["stuck_after_minutes"], 5);
  EXPECT_EQ((*shown)["rows"][0]["stuck"], true);
}

}  // namespace
}  // namespace pulse
