// The foundation: Status, times, the Db layer, workflow.json, the workspace
// layout and versioned schema creation.
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <filesystem>

#include "core/api/api.h"
#include "core/db.h"
#include "core/schema.h"
#include "core/time_util.h"
#include "core/workflow_config.h"
#include "core/workspace.h"
#include "tests/cpp/test_util.h"

namespace pulse {
namespace {

using testing::T;
using testing::TempDir;
using testing::WriteFile;

TEST(Time, ParsesAndFormatsRfc3339) {
  EXPECT_EQ(FormatTime(T("2026-10-07T09:00:00Z")), "2026-10-07T09:00:00Z");
  EXPECT_EQ(FormatTime(T("2026-10-07T11:00:00+02:00")), "2026-10-07T09:00:00Z");
  EXPECT_EQ(FormatTime(T("2026-10-07T09:00:00.123Z")), "2026-10-07T09:00:00Z");
  EXPECT_EQ(FormatTime(T("2026-10-07")), "2026-10-07T00:00:00Z");
  EXPECT_EQ(FormatShortDay(T("2026-09-17T09:30:00Z")), "17 Sep");
  EXPECT_EQ(FormatDate(T("2026-09-17T09:30:00Z")), "2026-09-17");
  EXPECT_FALSE(ParseTime("yesterday").ok());
  EXPECT_FALSE(ParseTime("2026-10-07T09:00:00Zjunk").ok());
  EXPECT_FALSE(ParseTime("").ok());
}

TEST(Time, WholeDays) {
  EXPECT_EQ(WholeDaysBetween(T("2026-09-17T09:30:00Z"), T("2026-10-07T12:00:00Z")), 20);
  EXPECT_EQ(WholeDaysBetween(T("2026-10-07T12:00:00Z"), T("2026-10-07T11:00:00Z")), -1);
  EXPECT_EQ(StartOfDay(T("2026-10-07T12:00:00Z")), T("2026-10-07T00:00:00Z"));
}

TEST(Db, OpensWalAndRoundTrips) {
  TempDir dir;
  auto db = Db::Open(dir.Join("a.sqlite"));
  ASSERT_TRUE(db.ok()) << db.status().message();
  ASSERT_TRUE((*db)->Exec("CREATE TABLE t(a INTEGER, b TEXT)").ok());
  auto st = (*db)->Prepare("INSERT INTO t VALUES(?, ?)");
  ASSERT_TRUE(st.ok());
  st->Bind(1, int64_t{7}).Bind(2, "seven");
  ASSERT_TRUE(st->Run().ok());
  auto mode = (*db)->Prepare("PRAGMA journal_mode");
  ASSERT_TRUE(mode.ok());
  ASSERT_TRUE(*mode->Step());
  EXPECT_EQ(mode->Text(0), "wal");
  auto q = (*db)->Prepare("SELECT a, b FROM t");
  ASSERT_TRUE(q.ok());
  ASSERT_TRUE(*q->Step());
  EXPECT_EQ(q->Int64(0), 7);
  EXPECT_EQ(q->Text(1), "seven");
}

TEST(Db, NotSqliteAndTruncatedFilesAreCorruption) {
  TempDir dir;
  WriteFile(dir.Join("junk.sqlite"), "this is not a database, just some text that is long enough to matter");
  auto junk = Db::Open(dir.Join("junk.sqlite"));
  ASSERT_FALSE(junk.ok());
  EXPECT_EQ(junk.status().code(), Code::kCorruption);
  EXPECT_NE(junk.status().message().find("junk.sqlite"), std::string::npos);
  EXPECT_NE(junk.status().message().find("not a database"), std::string::npos);
  // The junk is left exactly as it was.
  EXPECT_EQ(testing::ReadFileOrDie(dir.Join("junk.sqlite")).substr(0, 12), "this is not ");

  // A real database cut short.
  {
    auto db = Db::Open(dir.Join("full.sqlite"), OpenOptions{true, false, false});
    ASSERT_TRUE(db.ok());
    ASSERT_TRUE((*db)->Exec("CREATE TABLE t(x); WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i+1 FROM c WHERE i<5000)"
                            " INSERT INTO t SELECT randomblob(100) FROM c").ok());
  }
  std::string bytes = testing::ReadFileOrDie(dir.Join("full.sqlite"));
  WriteFile(dir.Join("cut.sqlite"), bytes.substr(0, 1000));
  auto cut = Db::Open(dir.Join("cut.sqlite"));
  if (cut.ok()) {
    // The header survived; reading the data must then fail.
    auto n = (*cut)->QueryInt64("SELECT count(*) FROM t");
    EXPECT_FALSE(n.ok());
  } else {
    EXPECT_EQ(cut.status().code(), Code::kCorruption) << cut.status().message();
  }
}

TEST(Db, SqlErrorsCarrySqliteMessage) {
  TempDir dir;
  auto db = Db::Open(dir.Join("a.sqlite"));
  ASSERT_TRUE(db.ok());
  Status s = (*db)->Exec("SELECT * FROM missing_table");
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message().find("no such table: missing_table"), std::string::npos) << s.message();
}

TEST(Db, TransactionRollsBackUnlessCommitted) {
  TempDir dir;
  auto db = Db::Open(dir.Join("a.sqlite"));
  ASSERT_TRUE(db.ok());
  ASSERT_TRUE((*db)->Exec("CREATE TABLE t(a)").ok());
  {
    Transaction tx(**db);
    ASSERT_TRUE(tx.Begin().ok());
    ASSERT_TRUE((*db)->Exec("INSERT INTO t VALUES(1)").ok());
  }
  EXPECT_EQ(*(*db)->QueryInt64("SELECT count(*) FROM t"), 0);
  {
    Transaction tx(**db);
    ASSERT_TRUE(tx.Begin().ok());
    ASSERT_TRUE((*db)->Exec("INSERT INTO t VALUES(1)").ok());
    ASSERT_TRUE(tx.Commit().ok());
  }
  EXPECT_EQ(*(*db)->QueryInt64("SELECT count(*) FROM t"), 1);
}

TEST(Schema, MigrationsAreIdempotentAndUpgradeInPlace) {
  TempDir dir;
  auto db = Db::Open(dir.Join("a.sqlite"));
  ASSERT_TRUE(db.ok());
  std::vector<Migration> v1 = {{1, "CREATE TABLE widgets(id INTEGER PRIMARY KEY, name TEXT)"}};
  ASSERT_TRUE(ApplyMigrations(**db, "widgets", v1).ok());
  ASSERT_TRUE(ApplyMigrations(**db, "widgets", v1).ok());
  ASSERT_TRUE((*db)->Exec("INSERT INTO widgets(name) VALUES('kept')").ok());
  std::vector<Migration> v2 = v1;
  v2.push_back({2, "ALTER TABLE widgets ADD COLUMN color TEXT NOT NULL DEFAULT 'blue'"});
  ASSERT_TRUE(ApplyMigrations(**db, "widgets", v2).ok());
  auto q = (*db)->Prepare("SELECT name, color FROM widgets");
  ASSERT_TRUE(q.ok());
  ASSERT_TRUE(*q->Step());
  EXPECT_EQ(q->Text(0), "kept");
  EXPECT_EQ(q->Text(1), "blue");
  // A database from a newer Pulse is refused, not damaged.
  Status older = ApplyMigrations(**db, "widgets", v1);
  EXPECT_EQ(older.code(), Code::kConflict);
}

TEST(WorkflowConfig, DefaultsAndFullContractExample) {
  auto empty = ParseWorkflowConfig("{}", "workflow.json");
  ASSERT_TRUE(empty.ok());
  EXPECT_TRUE(empty->pulse_enabled);
  EXPECT_EQ(empty->autonomy.run, Level::kAsk);
  EXPECT_EQ(empty->autonomy.answer, AnswerLevel::kRecommend);
  EXPECT_EQ(empty->goal_check.not_measured_days, 3);
  EXPECT_EQ(empty->goal_check.no_run_days, 3);
  EXPECT_FALSE(empty->HasGoal());
  EXPECT_FALSE(empty->AllSchedulesPaused());

  auto full = ParseWorkflowConfig(R"({
    "pulse": {"enabled": true, "autonomy": {"run": "auto", "outward": "ask", "change": "auto", "answer": "act"},
              "goal_check": {"not_measured_days": 5, "no_run_days": 2}, "something_new": 1},
    "goal": {"primary_metric": {"name": "subscribers", "route": "growth_funnel", "direction": "decrease",
             "target": 1000, "baseline": 200, "baseline_at": "2026-08-01T00:00:00Z", "deadline": "2026-12-31T00:00:00Z"}},
    "schedules": [{"id": "daily", "cron": "0 9 * * *", "enabled": false}]
  })", "workflow.json");
  ASSERT_TRUE(full.ok()) << full.status().message();
  EXPECT_EQ(full->autonomy.run, Level::kAuto);
  EXPECT_EQ(full->autonomy.change, Level::kAuto);
  EXPECT_EQ(full->autonomy.answer, AnswerLevel::kAct);
  EXPECT_EQ(full->goal_check.not_measured_days, 5);
  ASSERT_TRUE(full->HasGoal());
  EXPECT_FALSE(full->primary_metric->increase);
  EXPECT_EQ(*full->primary_metric->target, 1000);
  EXPECT_EQ(*full->primary_metric->deadline, T("2026-12-31T00:00:00Z"));
  EXPECT_TRUE(full->AllSchedulesPaused());
  EXPECT_EQ(full->raw["pulse"]["something_new"], 1);
}

TEST(WorkflowConfig, BadInputNamesFileAndKey) {
  auto malformed = ParseWorkflowConfig("{\"pulse\": ", "Workflow/x/workflow.json");
  ASSERT_FALSE(malformed.ok());
  EXPECT_EQ(malformed.status().code(), Code::kInvalidArgument);
  EXPECT_EQ(malformed.status().message().rfind("Workflow/x/workflow.json: malformed JSON", 0), 0u)
      << malformed.status().message();
  auto level = ParseWorkflowConfig(R"({"pulse": {"autonomy": {"run": "sometimes"}}})", "wf.json");
  ASSERT_FALSE(level.ok());
  EXPECT_EQ(level.status().message(), "wf.json: pulse.autonomy.run: expected \"ask\" or \"auto\", got \"sometimes\"");
  auto deadline = ParseWorkflowConfig(R"({"goal": {"primary_metric": {"name": "m", "deadline": "soon"}}})", "wf.json");
  ASSERT_FALSE(deadline.ok());
  EXPECT_NE(deadline.status().message().find("goal.primary_metric.deadline"), std::string::npos);
  EXPECT_FALSE(ParseWorkflowConfig("[]", "wf.json").ok());
}

TEST(Workspace, RefusesPathTraversalNames) {
  for (const char* bad : {"..", ".", "../etc", "/abs", "a/b", "a%2Fb", "", ".hidden", "a\\b"}) {
    EXPECT_FALSE(ValidateWorkflowName(bad).ok()) << bad;
  }
  EXPECT_TRUE(ValidateWorkflowName("substack-2.v1_x").ok());
}

TEST(Workspace, OpenCreatesDatabaseAndSnapshotsConfig) {
  TempDir dir;
  std::string ws = testing::MakeWorkspace(dir, "substack", R"({"goal": {"primary_metric": {"name": "subscribers"}}})");
  WriteFile(ws + "/Workflow/substack/soul.md", "Grow the newsletter.");
  WriteFile(ws + "/Workflow/notes/readme.txt", "not a workflow");
  FixedClockEnv env(DefaultEnv(), T("2026-10-07T12:00:00Z"));
  auto w = OpenWorkflow(env, ws, "substack");
  ASSERT_TRUE(w.ok()) << w.status().message();
  EXPECT_TRUE(std::filesystem::exists(ws + "/Workflow/substack/db/db.sqlite"));
  auto snap = LoadConfigSnapshot(*w->db);
  ASSERT_TRUE(snap.ok());
  EXPECT_EQ(snap->workflow, "substack");
  EXPECT_EQ(snap->soul_md, "Grow the newsletter.");
  EXPECT_EQ(snap->updated_at, "2026-10-07T12:00:00Z");

  // The database alone gives the same configuration (the browser's path).
  auto ctx = ContextFromDb(*w->db, env);
  ASSERT_TRUE(ctx.ok());
  EXPECT_EQ(ctx->workflow, "substack");
  EXPECT_TRUE(ctx->config.HasGoal());
  auto version = CallApi(*ctx, "pulse.version", nlohmann::json::object());
  ASSERT_TRUE(version.ok());
  EXPECT_EQ((*version)["sqlite"], sqlite3_libversion());
  EXPECT_EQ(CallApi(*ctx, "no.such.method", {}).status().code(), Code::kNotFound);

  auto names = ListWorkflows(env, ws);
  ASSERT_TRUE(names.ok());
  EXPECT_EQ(*names, std::vector<std::string>{"substack"});
}

TEST(Workspace, MissingAndMalformedFilesAreClearErrors) {
  TempDir dir;
  std::string ws = testing::MakeWorkspace(dir, "bad", "{ not json");
  FixedClockEnv env(DefaultEnv(), T("2026-10-07T12:00:00Z"));
  auto bad = OpenWorkflow(env, ws, "bad");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("Workflow/bad/workflow.json: malformed JSON"), std::string::npos);
  // Nothing was created for a workflow whose configuration is unreadable.
  EXPECT_FALSE(std::filesystem::exists(ws + "/Workflow/bad/db"));
  auto missing = OpenWorkflow(env, ws, "nope");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().code(), Code::kNotFound);
}

}  // namespace
}  // namespace pulse
