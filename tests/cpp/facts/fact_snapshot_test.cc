// The snapshot of a workflow's outside files (core/facts/fact_snapshot.cc) into a
// real database file: the changelog, the plan's routes and chats.json read
// under their bounds, a bad line skipped and named, a file that cannot be
// read marked so, and nothing stored lost when a file goes bad.
#include "core/facts/fact_snapshot.h"

#include <gtest/gtest.h>
#include <sqlite3.h>

#include <cstdio>

#include "core/api/api.h"
#include "core/workflow/handle.h"
#include "tests/cpp/test_util.h"

namespace pulse {
namespace {

using testing::T;
using testing::WriteFile;

class Snapshot : public ::testing::Test {
 protected:
  void SetUp() override {
    auto db = testing::OpenWithSchema(dir_.Join("db.sqlite"));
    ASSERT_TRUE(db.ok()) << db.status().message();
    db_ = std::move(*db);
  }
  std::string Wf() const { return dir_.Join("wf"); }
  void Write(const std::string& rel, const std::string& text) { WriteFile(Wf() + "/" + rel, text); }
  SnapshotReport All() { return SnapshotOutsideFiles(env_, *db_, Wf(), T("2026-10-07T12:00:00Z"), limits_); }
  // One text column of `sql`, every row.
  std::vector<std::string> Column(const std::string& sql) {
    std::vector<std::string> out;
    auto q = db_->Prepare(sql);
    EXPECT_TRUE(q.ok()) << q.status().message();
    if (!q.ok()) return out;
    while (true) {
      Result<bool> row = q->Step();
      EXPECT_TRUE(row.ok());
      if (!row.ok() || !*row) break;
      out.push_back(q->Text(0));
    }
    return out;
  }
  std::string Source(const std::string& file) {
    auto rows = Column("SELECT state || '|' || skipped || '|' || reason FROM pulse_fact_sources WHERE file = '" +
                       file + "'");
    return rows.empty() ? "<none>" : rows[0];
  }
  testing::TempDir dir_;
  CapturingEnv env_{DefaultEnv(), T("2026-10-07T12:00:00Z")};
  SnapshotLimits limits_;
  std::unique_ptr<Db> db_;
};

TEST_F(Snapshot, AFolderWithoutOutsideFilesRecordsEachAsMissingWithoutAWarning) {
  SnapshotReport r = All();
  EXPECT_TRUE(r.warnings.empty());
  EXPECT_EQ(Column("SELECT file || '=' || state FROM pulse_fact_sources ORDER BY file"),
            (std::vector<std::string>{"chats.json=missing", "costs/costs.sqlite=missing",
                                      "planning/changelog.jsonl=missing", "planning/plan.json=missing",
                                      "planning/workflow_review.json=missing", "runs=missing"}));
}

// planning/workflow_review.json: its latest record is kept (a break that
// stops runs is known from the database alone); a record file Pulse cannot
// trust is named and keeps what was stored.
TEST_F(Snapshot, TheLatestWorkflowReviewRecordIsKeptAndACorruptFileLosesNothing) {
  const std::string rev(64, 'b');
  Write("planning/workflow_review.json", R"({"reviews": [{"revision": ")" + rev + R"(", "outcome": "clean",
    "started_at": "2026-10-05T09:00:00Z", "finished_at": "2026-10-05T09:01:00Z"}, {"revision": ")" + rev +
    R"(", "outcome": "broken", "started_at": "2026-10-06T16:00:00Z", "finished_at": "2026-10-06T16:05:00Z",
    "broken": [{"step": "growth_funnel", "reason": "depends on subscriber_export_v1"}]}]})");
  All();
  EXPECT_EQ(Column("SELECT outcome || '|' || finished_at || '|' || broken_json FROM pulse_fact_review"),
            std::vector<std::string>{"broken|2026-10-06T16:05:00Z|[{\"reason\":\"depends on subscriber_export_v1\",\"step\":\"growth_funnel\"}]"});
  Write("planning/workflow_review.json", "{\"reviews\": [{\"outcome\": 1}");
  env_.Set(T("2026-10-07T12:00:05Z"));
  All();
  EXPECT_EQ(Column("SELECT outcome FROM pulse_fact_review"), std::vector<std::string>{"broken"}) << "nothing stored is lost";
  EXPECT_EQ(Column("SELECT state FROM pulse_fact_sources WHERE file = 'planning/workflow_review.json'"),
            std::vector<std::string>{"unreadable"});
}

TEST_F(Snapshot, ChangelogLinesAreStoredOnceAndBadOnesSkippedByLine) {
  Write(kChangelogFile,
        "{\"at\": \"2026-10-06T09:00:00Z\", \"tool\": \"add_step\", \"steps\": [\"step-3\"], \"who\": \"ana\"}\r\n"
        "\n"
        "{\"at\": \"2026-10-06T09:00:00Z\"\n"
        "{\"at\": \"2026-10-06T10:00:00Z\"}\n"
        "{\"at\": \"2026-10-06T11:00:00Z\", \"tool\": \"edit\", \"steps\": \"step-3\"}\n"
        "{\"at\": \"2026-10-06T09:00:00Z\", \"tool\": \"add_step\", \"steps\": [\"step-3\"], \"who\": \"ana\"}\n"
        "{\"at\": \"2026-10-06T12:00:00Z\", \"tool\": \"remove_step\", \"reason\": \"unused\"}");
  SnapshotReport r = All();
  ASSERT_EQ(r.warnings.size(), 3u);
  EXPECT_EQ(r.warnings[0].rfind("planning/changelog.jsonl:3: malformed JSON", 0), 0u) << r.warnings[0];
  EXPECT_EQ(r.warnings[1], "planning/changelog.jsonl:4: \"tool\" is missing, skipped");
  EXPECT_EQ(r.warnings[2], "planning/changelog.jsonl:5: \"steps\" must be a list of step ids, skipped");
  EXPECT_EQ(env_.lines, r.warnings) << "each warning is also logged";
  EXPECT_EQ(Column("SELECT at || ' ' || tool || ' ' || steps_json || ' ' || who || ' ' || reason"
                   " FROM pulse_fact_changelog ORDER BY at"),
            (std::vector<std::string>{"2026-10-06T09:00:00Z add_step [\"step-3\"] ana ",
                                      "2026-10-06T12:00:00Z remove_step []  unused"}));
  EXPECT_EQ(Source(kChangelogFile).rfind("ok|3|planning/changelog.jsonl:3: malformed JSON", 0), 0u)
      << Source(kChangelogFile);

  // Unchanged (same time and size): not read again, so no warnings.
  EXPECT_TRUE(All().warnings.empty());
  // Truncated: the rows already stored stay.
  Write(kChangelogFile, "{\"at\": \"2026-10-07T08:00:00Z\", \"tool\": \"edit\"}\n");
  EXPECT_TRUE(All().warnings.empty());
  EXPECT_EQ(Column("SELECT tool FROM pulse_fact_changelog ORDER BY at"),
            (std::vector<std::string>{"add_step", "remove_step", "edit"}));
  EXPECT_EQ(Source(kChangelogFile), "ok|0|");
}

TEST_F(Snapshot, BoundsMakeAFileUnreadableOrALineSkippedAndWarningsStopAtTheirLimit) {
  limits_.max_line_bytes = 80;
  limits_.max_warnings = 2;
  std::string text;
  for (int i = 0; i < 4; ++i) text += "{\"at\": \"2026-10-06T09:00:00Z\", \"tool\": \"" + std::string(80, 'x') + "\"}\n";
  Write(kChangelogFile, text);
  SnapshotReport r = All();
  ASSERT_EQ(r.warnings.size(), 3u);
  EXPECT_EQ(r.warnings[0], "planning/changelog.jsonl:1: line over 80 bytes, skipped");
  EXPECT_EQ(r.warnings[2], "planning/changelog.jsonl: more skipped (counted in the facts, not listed)");
  EXPECT_EQ(Source(kChangelogFile), "ok|4|planning/changelog.jsonl:1: line over 80 bytes");

  limits_.max_plan_bytes = 10;
  Write(kPlanFile, "{\"routes\": {}}");
  r = All();
  ASSERT_EQ(r.warnings.size(), 1u);
  EXPECT_EQ(r.warnings[0], "planning/plan.json: too large (14 bytes; the bound is 10)");
  EXPECT_EQ(Source(kPlanFile), "unreadable|0|planning/plan.json: too large (14 bytes; the bound is 10)");
}

TEST_F(Snapshot, ThePlansRoutesReplaceTheStoredOnesAndABadPlanKeepsThem) {
  Write(kPlanFile, R"({"routes": {"growth_funnel": {"steps": ["step-1", {"id": "step-2"}, 7]}, "empty": {}}})");
  EXPECT_TRUE(All().warnings.empty());
  EXPECT_EQ(Column("SELECT route || ':' || step FROM pulse_fact_route_steps ORDER BY route, step"),
            (std::vector<std::string>{"growth_funnel:step-1", "growth_funnel:step-2"}));
  Write(kPlanFile, R"({"routes": [{"name": "publish", "steps": ["step-9"]}, {"steps": ["nameless"]}]})");
  EXPECT_TRUE(All().warnings.empty());
  EXPECT_EQ(Column("SELECT route || ':' || step FROM pulse_fact_route_steps"),
            (std::vector<std::string>{"publish:step-9"}));
  Write(kPlanFile, R"({"routes": "publish"})");
  SnapshotReport r = All();
  ASSERT_EQ(r.warnings.size(), 1u);
  EXPECT_EQ(r.warnings[0], "planning/plan.json: \"routes\" must be an object or a list");
  EXPECT_EQ(Source(kPlanFile), "unreadable|0|planning/plan.json: \"routes\" must be an object or a list");
  EXPECT_EQ(Column("SELECT route || ':' || step FROM pulse_fact_route_steps"),
            (std::vector<std::string>{"publish:step-9"}));
}

TEST_F(Snapshot, ChatsJsonIsThePlatformsCurrentListReadAloneForAnAsk) {
  Write(kChatsFile, R"([{"session_id": "b-1", "kind": "builder", "account": "ana", "live": true,
                         "last_active_at": "2026-10-07T11:00:00Z"},
                        {"kind": "run"},
                        {"session_id": "r-1", "kind": "run", "busy": true, "live": "yes", "last_active_at": "soon"}])");
  SnapshotReport r = SnapshotChatsFile(env_, *db_, Wf(), T("2026-10-07T12:00:00Z"));
  ASSERT_EQ(r.warnings.size(), 1u);
  EXPECT_EQ(r.warnings[0], "chats.json: [1]: no session_id, skipped");
  EXPECT_EQ(Column("SELECT session_id || ' ' || kind || ' ' || account || ' ' || last_active_at || ' ' || live ||"
                   " busy FROM pulse_fact_chats ORDER BY session_id"),
            (std::vector<std::string>{"b-1 builder ana 2026-10-07T11:00:00Z 10", "r-1 run   01"}));
  EXPECT_EQ(Column("SELECT file FROM pulse_fact_sources"), std::vector<std::string>{"chats.json"});

  Write(kChatsFile, R"([{"session_id": "b-2", "kind": "builder"}])");
  EXPECT_TRUE(SnapshotChatsFile(env_, *db_, Wf(), T("2026-10-07T12:00:00Z")).warnings.empty());
  EXPECT_EQ(Column("SELECT session_id FROM pulse_fact_chats"), std::vector<std::string>{"b-2"});

  Write(kChatsFile, R"({"session_id": "b-3"})");
  r = SnapshotChatsFile(env_, *db_, Wf(), T("2026-10-07T12:00:00Z"));
  ASSERT_EQ(r.warnings.size(), 1u);
  EXPECT_EQ(r.warnings[0], "chats.json: expected a JSON array");
  EXPECT_EQ(Column("SELECT session_id FROM pulse_fact_chats"), std::vector<std::string>{"b-2"});

  // Missing means empty (the contract's rule for every optional file): the
  // stored chats go with the file, through the ask's read and the goal
  // check's alike; an absence already recorded writes nothing again.
  ASSERT_EQ(std::remove((Wf() + "/" + kChatsFile).c_str()), 0);
  EXPECT_TRUE(SnapshotChatsFile(env_, *db_, Wf(), T("2026-10-07T12:00:00Z")).warnings.empty());
  EXPECT_TRUE(Column("SELECT session_id FROM pulse_fact_chats").empty());
  EXPECT_EQ(Source(kChatsFile), "missing|0|");
  Write(kChatsFile, R"([{"session_id": "b-4", "kind": "builder"}])");
  All();
  EXPECT_EQ(Column("SELECT session_id FROM pulse_fact_chats"), std::vector<std::string>{"b-4"});
  ASSERT_EQ(std::remove((Wf() + "/" + kChatsFile).c_str()), 0);
  All();
  EXPECT_TRUE(Column("SELECT session_id FROM pulse_fact_chats").empty());
  const int64_t changes = sqlite3_total_changes64(db_->handle());
  All();
  SnapshotChatsFile(env_, *db_, Wf(), T("2026-10-07T12:00:00Z"));
  EXPECT_EQ(sqlite3_total_changes64(db_->handle()), changes);
}

// Who reads the folder: a workflow opened from its folder carries the reader
// into its API context, so a goal check on the command line or the server
// sees a run.json written since; a borrowed database (the browser's, with no
// folder) has none, which is why the WASM module carries no file readers.
TEST(SnapshotReader, AnOpenedWorkflowReadsItsFolderABorrowedDatabaseDoesNot) {
  testing::TempDir dir;
  const std::string ws = testing::MakeWorkspace(dir, "wf", R"({"schedules": []})");
  FixedClockEnv env(DefaultEnv(), T("2026-10-07T12:00:00Z"));
  WriteFile(ws + "/Workflow/wf/runs/iteration-1/default/run.json",
            R"({"run_id": "r-1", "started_at": "2026-10-07T08:00:00Z", "finished_at": "2026-10-07T08:10:00Z",
                "status": "failed", "error": "gmail: invalid_grant"})");
  auto opened = WorkflowHandle::Open(env, ws, "wf");
  ASSERT_TRUE(opened.ok()) << opened.status().message();
  EXPECT_EQ((*opened)->outside_files(), &ReadOutsideFiles);
  ApiContext ctx = ContextFor(**opened);
  EXPECT_EQ(ctx.outside_files, &ReadOutsideFiles);
  auto facts = CallApi(ctx, "goal.facts", nlohmann::json::object());
  ASSERT_TRUE(facts.ok()) << facts.status().message();
  ASSERT_EQ((*facts)["login_hints"].size(), 1u) << facts->dump();
  EXPECT_EQ((*facts)["login_hints"][0]["run_id"], "r-1");

  auto copy = testing::OpenWithSchema(dir.Join("copy.sqlite"));
  ASSERT_TRUE(copy.ok());
  auto borrowed = WorkflowHandle::Borrow(**copy, env);
  ASSERT_TRUE(borrowed.ok()) << borrowed.status().message();
  EXPECT_EQ((*borrowed)->outside_files(), nullptr);
  ApiContext read = ContextFor(**borrowed);
  EXPECT_EQ(read.outside_files, nullptr);
  EXPECT_TRUE(read.workflow_dir.empty());
}

}  // namespace
}  // namespace pulse
