// finalize-run's after-run options carried out (agent/outbox/after_run_actions.cc)
// on a real workflow folder and database: the run's summary to the channels
// or the dashboard, backup and publish asked for once per source, skipped
// when the source is unchanged, and a second call for a run changing nothing.
#include "agent/outbox/after_run_actions.h"

#include "agent/outbox/outbox.h"
#include "core/workflow/after_run.h"
#include "tests/cpp/agent/agent_fixture.h"

namespace pulse {
namespace {

using nlohmann::json;
using testing::T;

const char kConfig[] = R"({"pulse": {"enabled": true},
  "schedules": [{"id": "daily", "cron": "0 9 * * *", "enabled": true,
                 "after_run": {"backup": true, "publish": true, "notify": true}}],
  "after_manual_run": {"backup": false, "publish": false, "notify": true}})";

class AfterRunActions : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string ws = testing::MakeWorkspace(dir_, "substack", kConfig);
    auto opened = OpenWorkflow(env_, ws, "substack");
    ASSERT_TRUE(opened.ok()) << opened.status().message();
    w_ = std::move(*opened);
    ctx_ = ServerContext(w_, env_);
  }
  // A run recorded as the goal facts have it, finished `minutes` after 09:00.
  RunRecord Run(const std::string& id, const std::string& status, int minutes,
                const std::string& trigger = "schedule:daily") {
    RunRecord r;
    r.run_id = id;
    r.status = status;
    r.trigger = trigger;
    r.route = "growth_funnel";
    r.error = status == "completed" ? "" : "step fetch: timeout";
    r.started_at = T("2026-10-07T09:00:00Z");
    r.finished_at = r.started_at + minutes * 60;
    json run = {{"run_id", id}, {"started_at", FormatTime(r.started_at)}, {"finished_at", FormatTime(r.finished_at)},
                {"status", status}, {"trigger", trigger}, {"error", r.error}};
    auto recorded = CallApi(ctx_, "goal.record_run", {{"run", run}, {"route", r.route}});
    EXPECT_TRUE(recorded.ok()) << recorded.status().message();
    return r;
  }
  json CarryOut(const RunRecord& r) {
    Result<json> out = CarryOutAfterRun(ctx_, r);
    EXPECT_TRUE(out.ok()) << out.status().message();
    return out.ok() ? *out : json();
  }
  std::string Hash() { return *WorkflowSourceHash(env_, ctx_.workflow_dir); }
  testing::TempDir dir_;
  FixedClockEnv env_{DefaultEnv(), T("2026-10-07T12:00:00Z")};
  OpenedWorkflow w_;
  ApiContext ctx_;
};

TEST_F(AfterRunActions, AFirstRoutineSuccessGoesToTheDashboardAndAsksForBackupAndPublishOnce) {
  json out = CarryOut(Run("r-1", "completed", 10));
  EXPECT_EQ(out["source"], "schedule daily");
  EXPECT_EQ(out["notify"]["state"], "dashboard");
  EXPECT_EQ(out["notify"]["why"], "routine success");
  EXPECT_FALSE(out["notify"].contains("outbox_id"));
  EXPECT_EQ(out["backup"], (json{{"state", "requested"}, {"why", "never done"}}));
  EXPECT_EQ(out["publish"], (json{{"state", "requested"}, {"why", "never done"}}));
  EXPECT_EQ(out["source_hash"], Hash());
  Result<std::vector<HousekeepingRequest>> asked = ListHousekeeping(*ctx_.db, "", 10);
  ASSERT_TRUE(asked.ok());
  ASSERT_EQ(asked->size(), 1u);
  EXPECT_EQ((*asked)[0].id, out["housekeeping_request"].get<int64_t>());
  EXPECT_EQ((*asked)[0].actions, (std::vector<std::string>{"backup", "publish"}));
  EXPECT_TRUE(ListOutbox(*ctx_.db, OutboxQuery{})->empty());

  // finalize-run twice for one run: the first summary, nothing new.
  json again = CarryOut(Run("r-1", "completed", 10));
  EXPECT_EQ(again["already"], true);
  EXPECT_EQ(again["notify"]["why"], "routine success");
  EXPECT_FALSE(again.contains("backup"));
  EXPECT_EQ(ListHousekeeping(*ctx_.db, "", 10)->size(), 1u);
}

TEST_F(AfterRunActions, AFailureAndTheRecoveryAfterItGoToTheChannels) {
  CarryOut(Run("r-1", "completed", 10));
  json failed = CarryOut(Run("r-2", "failed", 20));
  EXPECT_EQ(failed["notify"]["state"], "channels");
  EXPECT_EQ(failed["notify"]["why"], "the run failed");
  EXPECT_EQ(failed["backup"], (json{{"state", "skipped"}, {"why", "the run did not complete"}}));
  EXPECT_EQ(failed["publish"]["why"], "the run did not complete");
  EXPECT_FALSE(failed.contains("housekeeping_request"));

  json back = CarryOut(Run("r-3", "completed", 30));
  EXPECT_EQ(back["notify"]["why"], "status changed from failed to completed");
  std::vector<OutboxMessage> out = *ListOutbox(*ctx_.db, OutboxQuery{});
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0].kind, "run_summary");
  EXPECT_EQ(out[0].id, failed["notify"]["outbox_id"].get<int64_t>());
  EXPECT_EQ(out[0].text, "Run r-2 (route growth_funnel) failed; the run before completed. Error: step fetch: timeout.");
  EXPECT_EQ(out[0].payload["previous_status"], "completed");
  EXPECT_EQ(out[1].payload["status"], "completed");
  // The source of r-3 is r-1's, whose request is still pending.
  EXPECT_EQ(back["backup"]["state"], "skipped");
  EXPECT_EQ(back["backup"]["why"], "already asked for this source (run r-1, pending)");
}

TEST_F(AfterRunActions, ADoneBackupSkipsTheSameSourceAndAFailedRequestIsAskedAgain) {
  json first = CarryOut(Run("r-1", "completed", 10));
  ASSERT_TRUE(RecordHousekeepingDone(*ctx_.db, "backup", Hash(), "r-1", "copied", env_.NowSeconds()).ok());
  ASSERT_TRUE(SetHousekeepingState(*ctx_.db, first["housekeeping_request"].get<int64_t>(), "failed",
                                   env_.NowSeconds()).ok());
  json second = CarryOut(Run("r-2", "completed", 20));
  EXPECT_EQ(second["backup"], (json{{"state", "skipped"}, {"why", "the source is unchanged since the last backup"}}));
  EXPECT_EQ(second["publish"], (json{{"state", "requested"}, {"why", "never done"}}));
  Result<std::vector<HousekeepingRequest>> pending = ListHousekeeping(*ctx_.db, "pending", 10);
  ASSERT_EQ(pending->size(), 1u);
  EXPECT_EQ((*pending)[0].actions, std::vector<std::string>{"publish"});

  testing::WriteFile(ctx_.workflow_dir + "/soul.md", "Grow the newsletter.");
  json third = CarryOut(Run("r-3", "completed", 30));
  EXPECT_EQ(third["backup"], (json{{"state", "requested"}, {"why", "the source changed"}}));
  EXPECT_NE(third["source_hash"], second["source_hash"]);
}

TEST_F(AfterRunActions, AManualRunUsesItsOwnOptionsAndAGoneScheduleNone) {
  json manual = CarryOut(Run("r-1", "completed", 10, "manual"));
  EXPECT_EQ(manual["source"], "after a manual run");
  EXPECT_EQ(manual["backup"], (json{{"state", "off"}}));
  EXPECT_EQ(manual["publish"], (json{{"state", "off"}}));
  EXPECT_EQ(manual["notify"]["state"], "dashboard");
  json gone = CarryOut(Run("r-2", "failed", 20, "schedule:weekly"));
  EXPECT_EQ(gone["source"], "schedule weekly is not in workflow.json");
  EXPECT_EQ(gone["notify"], (json{{"state", "off"}}));
  EXPECT_TRUE(ListOutbox(*ctx_.db, OutboxQuery{})->empty());
}

TEST_F(AfterRunActions, WithoutTheWorkflowFolderItRefuses) {
  ctx_.workflow_dir.clear();
  Result<json> out = CarryOutAfterRun(ctx_, Run("r-1", "completed", 10));
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.status().message(), "after-run options: need the workflow folder and database");
}

}  // namespace
}  // namespace pulse
