// The snapshot's cost ledger and run folders (core/facts/fact_snapshot_ledger.cc)
// in real database files: only new ledger rows are copied, under a per-check
// bound, a shrunk ledger is read again, skipped rows add up across reads;
// run folders are read once, the newest without run.json waits, an older
// one without it is a problem until it is read.
#include "core/facts/fact_snapshot.h"

#include <gtest/gtest.h>

#include "core/facts/fact_snapshot_util.h"
#include "tests/cpp/test_util.h"

namespace pulse {
namespace {

using testing::T;
using testing::WriteFile;

class LedgerSnapshot : public ::testing::Test {
 protected:
  void SetUp() override {
    auto db = Db::Open(dir_.Join("db.sqlite"));
    ASSERT_TRUE(db.ok()) << db.status().message();
    db_ = std::move(*db);
    ASSERT_TRUE(EnsureFactsSchema(*db_).ok());
    WriteFile(Wf() + "/costs/.keep", "");  // the ledger's folder
  }
  std::string Wf() const { return dir_.Join("wf"); }
  void Write(const std::string& rel, const std::string& text) { WriteFile(Wf() + "/" + rel, text); }
  std::unique_ptr<Db> OpenLedger() {
    OpenOptions rollback;  // the ledger's journal mode is the platform's
    rollback.wal = false;
    auto db = Db::Open(Wf() + "/" + kLedgerFile, rollback);
    EXPECT_TRUE(db.ok()) << db.status().message();
    EXPECT_TRUE((*db)->Exec("CREATE TABLE IF NOT EXISTS cost_events(at TEXT, run_id TEXT, source TEXT, usd REAL)").ok());
    return std::move(*db);
  }
  void AddCosts(const std::string& values) {
    ASSERT_TRUE(OpenLedger()->Exec("INSERT INTO cost_events(at, run_id, source, usd) VALUES " + values).ok());
  }
  // One step of the snapshot, as SnapshotOutsideFiles runs it.
  SnapshotReport Run(void (*step)(SnapshotRun&)) {
    SnapshotRun run(env_, *db_, Wf(), T("2026-10-07T12:00:00Z"), limits_);
    step(run);
    return run.report;
  }
  std::vector<std::string> Column(const std::string& sql) {
    std::vector<std::string> out;
    auto q = db_->Prepare(sql);
    EXPECT_TRUE(q.ok()) << q.status().message();
    while (q.ok()) {
      Result<bool> row = q->Step();
      if (!row.ok() || !*row) break;
      out.push_back(q->Text(0));
    }
    return out;
  }
  std::string Source(const std::string& file) {
    auto rows = Column("SELECT state || '|' || skipped || '|' || mark || '|' || reason FROM pulse_fact_sources"
                       " WHERE file = '" + file + "'");
    return rows.empty() ? "<none>" : rows[0];
  }
  void RunJson(int iteration, const std::string& extra = "") {
    std::string n = std::to_string(iteration);
    Write("runs/iteration-" + n + "/default/run.json",
          "{\"run_id\": \"r-" + n + "\", \"started_at\": \"2026-10-07T09:00:00Z\","
          " \"finished_at\": \"2026-10-07T09:10:00Z\", \"status\": \"completed\", \"error\": \"\"" + extra + "}");
  }
  testing::TempDir dir_;
  CapturingEnv env_{DefaultEnv(), T("2026-10-07T12:00:00Z")};
  SnapshotLimits limits_;
  std::unique_ptr<Db> db_;
};

TEST_F(LedgerSnapshot, OnlyNewRowsAreCopiedUnderTheBoundAndTheSumsFollow) {
  AddCosts("('2026-10-07T09:10:00Z', 'r-1', 'run', 0.5), ('2026-10-07T09:20:00Z', 'r-1', 'run', 0.25),"
           " ('2026-10-07T10:00:00Z', NULL, 'chat', 1)");
  limits_.max_ledger_rows = 2;
  EXPECT_TRUE(Run(SnapshotLedger).warnings.empty());
  EXPECT_EQ(Source(kLedgerFile), "ok|0|2|");
  EXPECT_EQ(Column("SELECT ledger_rowid FROM pulse_fact_costs ORDER BY 1"), (std::vector<std::string>{"1", "2"}));
  EXPECT_TRUE(Run(SnapshotLedger).warnings.empty());  // the rest, next check
  EXPECT_EQ(Source(kLedgerFile), "ok|0|3|");
  EXPECT_EQ(Column("SELECT hour || ' ' || events || ' ' || micros FROM pulse_fact_cost_hours ORDER BY hour"),
            (std::vector<std::string>{"2026-10-07T09 2 750000", "2026-10-07T10 1 1000000"}));
  EXPECT_EQ(Column("SELECT run_id || ' ' || events || ' ' || micros || ' ' || first_at || ' ' || last_at"
                   " FROM pulse_fact_run_costs"),
            std::vector<std::string>{"r-1 2 750000 2026-10-07T09:10:00Z 2026-10-07T09:20:00Z"});
  EXPECT_TRUE(Run(SnapshotLedger).warnings.empty());
  EXPECT_EQ(Column("SELECT count(*) FROM pulse_fact_costs"), std::vector<std::string>{"3"});
}

TEST_F(LedgerSnapshot, AShrunkLedgerIsReadAgainFromTheStart) {
  AddCosts("('2026-10-07T09:10:00Z', 'r-1', 'run', 0.5), ('2026-10-07T09:20:00Z', 'r-2', 'run', 2)");
  ASSERT_TRUE(Run(SnapshotLedger).warnings.empty());
  ASSERT_TRUE(OpenLedger()->Exec("DELETE FROM cost_events; INSERT INTO cost_events(rowid, at, run_id, source, usd)"
                                 " VALUES (1, '2026-10-07T09:10:00Z', 'r-1', 'run', 0.75)").ok());
  SnapshotReport r = Run(SnapshotLedger);
  ASSERT_EQ(r.warnings.size(), 1u);
  EXPECT_EQ(r.warnings[0],
            "costs/costs.sqlite: the ledger shrank (last row 1, 2 copied before); reading it again from the start");
  // Row 1 is upserted (its run's sum follows); row 2, stored before, stays.
  EXPECT_EQ(Column("SELECT run_id || ' ' || micros FROM pulse_fact_run_costs ORDER BY run_id"),
            (std::vector<std::string>{"r-1 750000", "r-2 2000000"}));
  EXPECT_EQ(Source(kLedgerFile), "ok|0|1|");
}

TEST_F(LedgerSnapshot, SkippedRowsAddUpAcrossReadsAndKeepTheirReason) {
  AddCosts("('2026-10-07T09:10:00Z', 'r-1', 'run', 0.5), ('2026-10-07T09:20:00Z', 'r-1', 'run', -1)");
  SnapshotReport r = Run(SnapshotLedger);
  ASSERT_EQ(r.warnings.size(), 1u);
  EXPECT_EQ(r.warnings[0], "costs/costs.sqlite: row 2: usd -1.000000 is negative, skipped");
  AddCosts("('yesterday', 'r-2', 'run', 1)");
  r = Run(SnapshotLedger);
  ASSERT_EQ(r.warnings.size(), 1u);
  EXPECT_EQ(r.warnings[0].rfind("costs/costs.sqlite: row 3: at", 0), 0u) << r.warnings[0];
  EXPECT_EQ(Source(kLedgerFile).rfind("ok|2|3|costs/costs.sqlite: row 3: at", 0), 0u) << Source(kLedgerFile);
  // A read with nothing new keeps the count and the reason.
  EXPECT_TRUE(Run(SnapshotLedger).warnings.empty());
  EXPECT_EQ(Source(kLedgerFile).rfind("ok|2|3|costs/costs.sqlite: row 3: at", 0), 0u) << Source(kLedgerFile);
  EXPECT_EQ(Column("SELECT count(*) FROM pulse_fact_costs"), std::vector<std::string>{"1"});
}

TEST_F(LedgerSnapshot, ALedgerWithoutItsTableIsUnreadableNamedRelativeToTheWorkflow) {
  OpenOptions plain;
  plain.wal = false;
  auto other = Db::Open(Wf() + "/" + kLedgerFile, plain);
  ASSERT_TRUE(other.ok());
  ASSERT_TRUE((*other)->Exec("CREATE TABLE spend(at TEXT)").ok());
  SnapshotReport r = Run(SnapshotLedger);
  ASSERT_EQ(r.warnings.size(), 1u);
  EXPECT_EQ(r.warnings[0].find(dir_.path()), std::string::npos) << r.warnings[0];
  EXPECT_NE(r.warnings[0].find("cost_events"), std::string::npos) << r.warnings[0];
  EXPECT_EQ(Source(kLedgerFile).rfind("unreadable|0|0|", 0), 0u) << Source(kLedgerFile);
}

TEST_F(LedgerSnapshot, RunFoldersAreReadOnceAndAMissingRunJsonWaitsOnlyWhileNewest) {
  EXPECT_TRUE(Run(SnapshotRunFolders).warnings.empty());
  EXPECT_EQ(Source(kRunsDir), "missing|0|0|");
  RunJson(1, ", \"cost_usd\": -3, \"concerns\": [\"CONCERNS: slow\", 4]");
  Write("runs/iteration-1/default/route_selection.json", R"({"route": "growth_funnel"})");
  Write("runs/iteration-2/default/log.txt", "started");
  Write("runs/iteration-3/default/log.txt", "started");
  Write("runs/iteration-x/default/run.json", "{}");
  Write("runs/notes.txt", "not a run");
  SnapshotReport r = Run(SnapshotRunFolders);
  ASSERT_EQ(r.warnings.size(), 1u);
  EXPECT_EQ(r.warnings[0], "runs/iteration-1/default/run.json: cost_usd is not a finite amount of zero or more, ignored");
  EXPECT_EQ(Column("SELECT folder || ' ' || run_id || ' ' || status || ' ' || concerns_json || ' ' || route ||"
                   " ' ' || coalesce(cost_usd, 'null') FROM pulse_fact_runs"),
            std::vector<std::string>{"iteration-1 r-1 completed [\"CONCERNS: slow\"] growth_funnel null"});
  // iteration-3 is the newest: a run still going. iteration-2 is older.
  EXPECT_EQ(Column("SELECT folder || ': ' || reason FROM pulse_fact_run_problems"),
            std::vector<std::string>{"iteration-2: runs/iteration-2/default/run.json: missing (a later run has finished)"});
  EXPECT_EQ(Source(kRunsDir), "ok|0|1|");

  RunJson(2);
  RunJson(3);
  Write("runs/iteration-4/default/run.json", "{\"run_id\": ");
  r = Run(SnapshotRunFolders);
  ASSERT_EQ(r.warnings.size(), 1u);
  EXPECT_EQ(r.warnings[0].rfind("runs/iteration-4/default/run.json: malformed JSON", 0), 0u) << r.warnings[0];
  EXPECT_EQ(Column("SELECT folder FROM pulse_fact_runs ORDER BY folder"),
            (std::vector<std::string>{"iteration-1", "iteration-2", "iteration-3"}));
  EXPECT_EQ(Column("SELECT folder FROM pulse_fact_run_problems"), std::vector<std::string>{"iteration-4"});
  EXPECT_EQ(Source(kRunsDir).rfind("ok|1|3|runs/iteration-4/default/run.json: malformed JSON", 0), 0u)
      << Source(kRunsDir);
}

TEST_F(LedgerSnapshot, AtMostMaxRunFoldersAreReadPerCheckNewestFirst) {
  limits_.max_run_folders = 2;
  for (int i = 1; i <= 3; ++i) RunJson(i);
  ASSERT_TRUE(Run(SnapshotRunFolders).warnings.empty());
  EXPECT_EQ(Column("SELECT folder FROM pulse_fact_runs ORDER BY folder"),
            (std::vector<std::string>{"iteration-2", "iteration-3"}));
  ASSERT_TRUE(Run(SnapshotRunFolders).warnings.empty());
  EXPECT_EQ(Column("SELECT folder FROM pulse_fact_runs ORDER BY folder"),
            (std::vector<std::string>{"iteration-1", "iteration-2", "iteration-3"}));
}

TEST_F(LedgerSnapshot, WarningsPastTheLimitAreOneLineAndTheFirstSkipIsTheReason) {
  limits_.max_warnings = 1;
  SnapshotRun run(env_, *db_, Wf(), T("2026-10-07T12:00:00Z"), limits_);
  run.Skip("runs", Wf() + "/runs/iteration-7/default/run.json: malformed JSON");
  run.Skip("runs", "runs/iteration-8/default/run.json: malformed JSON");
  run.Skip("runs", "runs/iteration-9/default/run.json: malformed JSON");
  run.Warn("chats.json", "chats.json: [0]: no session_id");
  EXPECT_EQ(run.report.warnings,
            (std::vector<std::string>{"runs/iteration-7/default/run.json: malformed JSON, skipped",
                                      "runs: more skipped (counted in the facts, not listed)",
                                      "chats.json: [0]: no session_id"}));
  ASSERT_TRUE(run.PutSource("runs", "ok", "", 3, SourceRead{}).ok());
  EXPECT_EQ(Source("runs"), "ok|3|0|runs/iteration-7/default/run.json: malformed JSON");
  EXPECT_EQ(run.Mark("runs"), 0);
  int64_t mark = 9;
  ASSERT_TRUE(run.PutSource("runs", "ok", "", 3, SourceRead{}, &mark).ok());
  EXPECT_EQ(run.Mark("runs"), 9);
}

}  // namespace
}  // namespace pulse
