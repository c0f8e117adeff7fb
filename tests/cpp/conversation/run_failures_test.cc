// The failed-run safety net's memory in a real database file: only workflow
// runs that failed within the last day, oldest first; a claimed run is never
// offered again (two claims, a reopened database); a claim given back is.
#include "core/conversation/run_failures.h"

#include <gtest/gtest.h>

#include "core/store/schema.h"
#include "tests/cpp/test_util.h"

namespace pulse {
namespace {

class RunFailures : public ::testing::Test {
 protected:
  void SetUp() override { Open(); }
  void Open() {
    db_.reset();
    auto db = Db::Open(dir_.Join("db.sqlite"));
    ASSERT_TRUE(db.ok()) << db.status().message();
    db_ = std::move(*db);
    ASSERT_TRUE(EnsureSchema(*db_).ok());
  }
  void Run(const std::string& id, const std::string& finished, const std::string& status, const std::string& trigger,
           const std::string& route = "growth_funnel") {
    auto st = db_->Prepare(
        "INSERT INTO goal_run_facts(run_id, trigger, started_at, finished_at, status, error, route, primary_route,"
        " completed, primary_reading, origin, recorded_at) VALUES(?, ?, ?, ?, ?, ?, ?, 1, 0, 0, 'finalize_run', ?)");
    ASSERT_TRUE(st.ok());
    st->Bind(1, id).Bind(2, trigger).Bind(3, finished).Bind(4, finished).Bind(5, status).Bind(6, "boom " + id)
        .Bind(7, route).Bind(8, finished);
    ASSERT_TRUE(st->Run().ok());
  }
  void Folder(const std::string& id, const std::string& finished, const std::string& status) {
    auto st = db_->Prepare(
        "INSERT INTO pulse_fact_runs(folder, run_id, started_at, finished_at, status, error, concerns_json, route)"
        " VALUES(?, ?, ?, ?, ?, 'interrupted by a restart', '[\"CONCERNS: export half done\"]', 'growth_funnel')");
    ASSERT_TRUE(st.ok());
    st->Bind(1, "iteration-" + id).Bind(2, id).Bind(3, finished).Bind(4, finished).Bind(5, status);
    ASSERT_TRUE(st->Run().ok());
  }
  testing::TempDir dir_;
  int64_t now_ = testing::T("2026-10-07T12:00:00Z");
  std::unique_ptr<Db> db_;
};

TEST_F(RunFailures, OnlyFailuresOfTheLastDayOldestFirst) {
  Run("r-old", "2026-10-06T11:59:00Z", "failed", "schedule:daily");
  Run("r-ok", "2026-10-07T08:00:00Z", "completed", "schedule:daily");
  Run("r-err", "2026-10-07T09:00:00Z", "error", "schedule:daily");
  Run("r-pass", "2026-10-07T09:30:00Z", "failed", "pulse:pass");
  Run("r-later", "2026-10-07T13:00:00Z", "failed", "schedule:daily");
  Folder("r-int", "2026-10-07T10:00:00Z", "interrupted");
  Result<std::vector<FailedRunSeen>> runs = UnseenFailedRuns(*db_, now_);
  ASSERT_TRUE(runs.ok()) << runs.status().message();
  ASSERT_EQ(runs->size(), 2u);
  EXPECT_EQ((*runs)[0].run_id, "r-err");
  EXPECT_EQ((*runs)[1].run_id, "r-int");
  EXPECT_EQ((*runs)[1].status, "interrupted");
  ASSERT_EQ((*runs)[1].concerns.size(), 1u);
  EXPECT_EQ((*runs)[1].concerns[0], "CONCERNS: export half done");
  EXPECT_NE(DescribeFailedRun((*runs)[1]).find("CONCERNS: export half done"), std::string::npos);
}

TEST_F(RunFailures, AClaimedRunIsNeverOfferedAgainEvenAfterReopening) {
  Run("r-err", "2026-10-07T09:00:00Z", "error", "schedule:daily");
  Result<std::vector<FailedRunSeen>> runs = UnseenFailedRuns(*db_, now_);
  ASSERT_TRUE(runs.ok());
  ASSERT_EQ(runs->size(), 1u);
  Result<bool> first = ClaimFailedRun(*db_, (*runs)[0], "", now_);
  ASSERT_TRUE(first.ok());
  EXPECT_TRUE(*first);
  Result<bool> second = ClaimFailedRun(*db_, (*runs)[0], "", now_);
  ASSERT_TRUE(second.ok());
  EXPECT_FALSE(*second) << "a second claim of the same run loses";
  ASSERT_TRUE(AttachFailedRunTurn(*db_, "r-err", "pr-1").ok());
  ASSERT_TRUE(RecordFailedRunOutcome(*db_, "r-err", "completed: can wait").ok());
  Open();  // a restart
  runs = UnseenFailedRuns(*db_, now_ + 3600);
  ASSERT_TRUE(runs.ok());
  EXPECT_TRUE(runs->empty());
  Result<std::vector<FailedRunSeen>> seen = ListSeenFailedRuns(*db_);
  ASSERT_TRUE(seen.ok());
  ASSERT_EQ(seen->size(), 1u);
  EXPECT_EQ((*seen)[0].pulse_run_id, "pr-1");
  EXPECT_EQ((*seen)[0].outcome, "completed: can wait");
  // A finished claim is not given back.
  ASSERT_TRUE(ReleaseFailedRun(*db_, "r-err").ok());
  runs = UnseenFailedRuns(*db_, now_);
  ASSERT_TRUE(runs.ok());
  EXPECT_TRUE(runs->empty());
}

TEST_F(RunFailures, AClaimWhoseTurnNeverStartedIsGivenBack) {
  Run("r-err", "2026-10-07T09:00:00Z", "error", "schedule:daily");
  Result<std::vector<FailedRunSeen>> runs = UnseenFailedRuns(*db_, now_);
  ASSERT_TRUE(runs.ok() && runs->size() == 1);
  ASSERT_TRUE(ClaimFailedRun(*db_, (*runs)[0], "", now_).ok());
  ASSERT_TRUE(ReleaseFailedRun(*db_, "r-err").ok());
  runs = UnseenFailedRuns(*db_, now_);
  ASSERT_TRUE(runs.ok());
  EXPECT_EQ(runs->size(), 1u);
}

}  // namespace
}  // namespace pulse
