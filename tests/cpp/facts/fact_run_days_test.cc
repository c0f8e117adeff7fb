// The run-day counts (pulse_fact_run_days, core/facts/fact_snapshot.cc) in a real
// database file: after every kind of write to pulse_fact_runs and
// goal_run_facts they equal the runs counted again from the two tables (a
// run.json row, or an after-run row no run.json row has the run_id of), and
// the migration that brings them counts a database written without them.
#include "core/facts/fact_snapshot.h"

#include <gtest/gtest.h>

#include "core/goal/goal_facts.h"
#include "tests/cpp/test_util.h"

namespace pulse {
namespace {

using testing::T;

// The runs counted from scratch, by day, as the goal check's facts count them.
const char kRecount[] =
    "SELECT group_concat(d || ' ' || n || ' ' || f, '; ') FROM (SELECT d, count(*) AS n, sum(fl) AS f FROM ("
    " SELECT substr(finished_at, 1, 10) AS d, status != 'completed' AS fl FROM pulse_fact_runs"
    " UNION ALL SELECT substr(finished_at, 1, 10), status != 'completed' FROM goal_run_facts g"
    "  WHERE NOT EXISTS (SELECT 1 FROM pulse_fact_runs p WHERE p.run_id = g.run_id))"
    " GROUP BY d ORDER BY d)";
const char kKept[] =
    "SELECT group_concat(day || ' ' || runs || ' ' || failed, '; ') FROM"
    " (SELECT * FROM pulse_fact_run_days WHERE runs > 0 ORDER BY day)";

class RunDays : public ::testing::Test {
 protected:
  void SetUp() override {
    auto db = Db::Open(dir_.Join("db.sqlite"));
    ASSERT_TRUE(db.ok()) << db.status().message();
    db_ = std::move(*db);
    ASSERT_TRUE(EnsureFactsSchema(*db_).ok());
    auto config = ParseWorkflowConfig(R"({"goal":{"primary_metric":{"name":"subs","route":"grow"}}})", "wf");
    ASSERT_TRUE(config.ok()) << config.status().message();
    config_ = *config;
  }
  std::string One(const char* sql) {
    auto q = db_->Prepare(sql);
    EXPECT_TRUE(q.ok()) << q.status().message();
    if (!q.ok()) return "<error>";
    Result<bool> row = q->Step();
    return row.ok() && *row ? q->Text(0) : "<none>";
  }
  // The kept counts, checked against the recount.
  std::string Days() {
    std::string kept = One(kKept);
    EXPECT_EQ(kept, One(kRecount));
    return kept;
  }
  void Exec(const std::string& sql) { ASSERT_TRUE(db_->Exec(sql).ok()) << sql; }
  // A run.json row as the snapshot stores it (an upsert by folder).
  void RunJson(const std::string& folder, const std::string& id, const std::string& finished,
               const std::string& status) {
    Exec("INSERT INTO pulse_fact_runs(folder, run_id, started_at, finished_at, status) VALUES('" + folder + "', '" +
         id + "', '" + finished + "', '" + finished + "', '" + status + "') ON CONFLICT(folder) DO UPDATE SET"
         " run_id = excluded.run_id, finished_at = excluded.finished_at, status = excluded.status");
  }
  void Finalize(const std::string& id, const std::string& finished, const std::string& status) {
    RunRecord run{id, "daily", "schedule:daily", T(finished) - 60, T(finished), status, "", "grow"};
    ASSERT_TRUE(RecordRunFacts(*db_, config_, run, T("2026-10-07T12:00:00Z")).ok());
  }
  testing::TempDir dir_;
  std::unique_ptr<Db> db_;
  WorkflowConfig config_;
};

TEST_F(RunDays, EveryWriteKeepsTheCountsOfTheUnion) {
  Finalize("r-1", "2026-10-05T09:00:00Z", "completed");
  Finalize("r-2", "2026-10-05T10:00:00Z", "failed");
  EXPECT_EQ(Days(), "2026-10-05 2 1");
  // The after-run hook again with another finish and status: an upsert moves it.
  Finalize("r-2", "2026-10-06T10:00:00Z", "completed");
  EXPECT_EQ(Days(), "2026-10-05 1 0; 2026-10-06 1 0");
  // r-1's run.json arrives, a day later than its after-run row: the run moves there.
  RunJson("iteration-1", "r-1", "2026-10-06T09:00:00Z", "failed");
  EXPECT_EQ(Days(), "2026-10-06 2 1");
  // A second folder of the same run counts as its own run; the after-run row stays out.
  RunJson("iteration-9", "r-1", "2026-10-06T11:00:00Z", "completed");
  EXPECT_EQ(Days(), "2026-10-06 3 1");
  Exec("DELETE FROM pulse_fact_runs WHERE folder = 'iteration-9'");
  EXPECT_EQ(Days(), "2026-10-06 2 1");
  // The folder is read again and now names another run: r-1's after-run row counts again, r-2's leaves.
  RunJson("iteration-1", "r-2", "2026-10-07T08:00:00Z", "completed");
  EXPECT_EQ(Days(), "2026-10-05 1 0; 2026-10-07 1 0");
  Exec("UPDATE pulse_fact_runs SET status = 'error' WHERE folder = 'iteration-1'");
  EXPECT_EQ(Days(), "2026-10-05 1 0; 2026-10-07 1 1");
  // The older runs of schedule-runs.json, one already known.
  std::vector<RunRecord> older = {
      {"r-3", "daily", "schedule:daily", T("2026-10-04T08:00:00Z"), T("2026-10-04T09:00:00Z"), "failed", "", "grow"},
      {"r-1", "daily", "schedule:daily", T("2026-10-04T08:00:00Z"), T("2026-10-04T09:00:00Z"), "failed", "", "grow"}};
  ASSERT_TRUE(ImportScheduleRuns(*db_, config_, older, T("2026-10-07T12:00:00Z")).ok());
  EXPECT_EQ(Days(), "2026-10-04 1 1; 2026-10-05 1 0; 2026-10-07 1 1");
  // A reading marks a run without touching the counts; deletes take runs out.
  Exec("UPDATE goal_run_facts SET primary_reading = 1");
  Exec("DELETE FROM goal_run_facts WHERE run_id = 'r-3'");
  Exec("DELETE FROM pulse_fact_runs");
  EXPECT_EQ(Days(), "2026-10-05 1 0; 2026-10-06 1 0");
}

TEST_F(RunDays, TheMigrationCountsADatabaseWrittenWithoutThem) {
  Exec("DROP TRIGGER pulse_fact_runs_day_added; DROP TRIGGER pulse_fact_runs_day_removed;"
       " DROP TRIGGER pulse_fact_runs_day_changed; DROP TRIGGER goal_run_facts_day_added; DROP TRIGGER goal_run_facts_day_removed;"
       " DROP TRIGGER goal_run_facts_day_changed; DROP TABLE pulse_fact_run_days;"
       " UPDATE pulse_schema_versions SET version = 3 WHERE component = 'facts'");
  Finalize("r-1", "2026-10-05T09:00:00Z", "failed");
  Finalize("r-2", "2026-10-05T10:00:00Z", "completed");
  RunJson("iteration-2", "r-2", "2026-10-06T10:00:00Z", "completed");
  ASSERT_TRUE(EnsureFactsSchema(*db_).ok());
  EXPECT_EQ(Days(), "2026-10-05 1 1; 2026-10-06 1 0");
  Finalize("r-3", "2026-10-06T11:00:00Z", "failed");
  EXPECT_EQ(Days(), "2026-10-05 1 1; 2026-10-06 2 1");
}

}  // namespace
}  // namespace pulse
