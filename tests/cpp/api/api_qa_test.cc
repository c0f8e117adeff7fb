// QA owned by Pulse at the API edge (core/api/qa.cc) on a real workflow
// database: pass.worklist (the latest pass or one named, the order for a
// goal workflow, the rules that make a module due) and qa.failed_runs (the
// failed runs Pulse was woken for, newest first, with what came of each).
#include "core/api/api.h"

#include "core/conversation/pass_worklist.h"
#include "core/conversation/run_failures.h"
#include "tests/cpp/agent/agent_fixture.h"

namespace pulse {
namespace {

using nlohmann::json;
using testing::Workflow;

TEST(ApiQa, TheWorklistOfTheLatestPassOrOneNamed) {
  Workflow wf;
  json none = wf.Call("pass.worklist", json::object());
  EXPECT_EQ(none["pass_id"], 0);
  EXPECT_TRUE(none["worklist"].empty());
  EXPECT_EQ(none["order"], (json{"gate", "goal_work", "finalize"})) << "the workflow has a goal";

  ASSERT_TRUE(WriteGateWorklist(*wf.ctx.db, 1, true, wf.env.NowSeconds()).ok());
  ASSERT_TRUE(WriteGateWorklist(*wf.ctx.db, 2, true, wf.env.NowSeconds()).ok());
  ASSERT_TRUE(FinishModule(*wf.ctx.db, 2, "goal_work", true, "turn 7", wf.env.NowSeconds()).ok());
  ASSERT_TRUE(MarkModuleDue(*wf.ctx.db, ModuleDue{"technical", "recovery", "a failed fix run", ""},
                            wf.env.NowSeconds()).ok());
  json latest = wf.Call("pass.worklist", json::object());
  EXPECT_EQ(latest["pass_id"], 2);
  ASSERT_EQ(latest["worklist"].size(), 3u);
  EXPECT_EQ(latest["worklist"][0]["module"], "goal_work");
  EXPECT_EQ(latest["worklist"][0]["state"], "completed");
  ASSERT_EQ(latest["module_due"].size(), 1u);
  EXPECT_EQ(latest["module_due"][0]["module"], "technical");
  EXPECT_EQ(latest["module_due"][0]["rule"], "recovery");
  json first = wf.Call("pass.worklist", {{"pass_id", 1}});
  EXPECT_EQ(first["pass_id"], 1);
  EXPECT_EQ(first["worklist"][0]["state"], "pending");

  Result<json> bad = CallApi(wf.ctx, "pass.worklist", {{"pass_id", -1}});
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().message(), "pass.worklist: \"pass_id\" must be between 0 and 1073741824, not -1");
}

TEST(ApiQa, TheFailedRunsPulseWasWokenForNewestFirst) {
  Workflow wf;
  EXPECT_TRUE(wf.Call("qa.failed_runs", json::object())["failed_runs"].empty());
  FailedRunSeen a{"r-1", "2026-10-07T08:00:00Z", "failed", "step fetch: timeout", "growth_funnel", {}};
  FailedRunSeen b{"r-2", "2026-10-07T09:00:00Z", "error", "", "weekly_digest", {"CONCERNS: slow"}};
  ASSERT_TRUE(*ClaimFailedRun(*wf.ctx.db, a, "pr-1", wf.env.NowSeconds()));
  wf.env.Advance(60);
  ASSERT_TRUE(*ClaimFailedRun(*wf.ctx.db, b, "pr-2", wf.env.NowSeconds()));
  ASSERT_TRUE(RecordFailedRunOutcome(*wf.ctx.db, "r-1", "completed: QA requested").ok());
  json seen = wf.Call("qa.failed_runs", json::object());
  ASSERT_EQ(seen["failed_runs"].size(), 2u);
  EXPECT_EQ(seen["failed_runs"][0]["run_id"], "r-2");
  EXPECT_EQ(seen["failed_runs"][0]["concerns"], json{"CONCERNS: slow"});
  EXPECT_EQ(seen["failed_runs"][0]["pulse_run_id"], "pr-2");
  EXPECT_EQ(seen["failed_runs"][1]["run_id"], "r-1");
  EXPECT_EQ(seen["failed_runs"][1]["outcome"], "completed: QA requested");
  EXPECT_EQ(CoreApi().AccessFor("qa.failed_runs", json::object()), Access::kRead);
}

}  // namespace
}  // namespace pulse
