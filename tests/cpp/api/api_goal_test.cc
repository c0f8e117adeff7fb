// The goal methods at the API edge (core/api/goal.cc) on a real workflow:
// readings observed and refused by name, runs recorded once (a second
// finalize changes nothing), schedule runs imported, and the goal check read
// or recorded; what each answers is what the CLI, the server and the browser
// all get.
#include "core/api/api.h"

#include "tests/cpp/agent/agent_fixture.h"

namespace pulse {
namespace {

using nlohmann::json;
using testing::Workflow;

std::string Refusal(Workflow& wf, const std::string& method, const json& args) {
  Result<json> r = CallApi(wf.ctx, method, args);
  return r.ok() ? "ok: " + r->dump() : r.status().message();
}

json RunDoc(const std::string& id, const std::string& status, const std::string& finished) {
  return {{"run_id", id}, {"started_at", "2026-10-06T09:00:00Z"}, {"finished_at", finished}, {"status", status},
          {"trigger", "schedule:daily"}, {"error", ""}};
}

TEST(ApiGoal, AReadingIsObservedAndEachBadArgumentNamed) {
  Workflow wf;
  json r = wf.Call("goal.observe", {{"metric", "subscribers"}, {"value", 380.0}, {"source", "manual"}});
  EXPECT_EQ(r["value"], 380);
  EXPECT_TRUE(r["value"].is_number_integer()) << "a whole reading reads back whole";
  EXPECT_EQ(r["at"], "2026-10-07T12:00:00Z") << "no time: now";
  EXPECT_EQ(r["primary_metric"], true);
  EXPECT_EQ(r["by_run"], false);
  json other = wf.Call("goal.observe", {{"metric", "open_rate"}, {"value", 0.42}, {"source", "workflow_run"},
                                        {"at", "2026-10-07T09:00:00Z"}, {"run_id", "r-9"}});
  EXPECT_EQ(other["value"], 0.42);
  EXPECT_EQ(other["primary_metric"], false);
  EXPECT_EQ(other["by_run"], true);

  EXPECT_EQ(Refusal(wf, "goal.observe", {{"value", 1}, {"source", "manual"}}), "goal.observe: \"metric\" is required");
  EXPECT_EQ(Refusal(wf, "goal.observe", {{"metric", "subscribers"}, {"value", "many"}, {"source", "manual"}}),
            "goal.observe: \"value\" must be a number");
  EXPECT_EQ(Refusal(wf, "goal.observe", {{"metric", "subscribers"}, {"value", 1}, {"source", "slack"}}),
            "goal.observe: source: expected workflow_run, builder_chat or manual, got \"slack\"");
  EXPECT_EQ(Refusal(wf, "goal.observe", {{"metric", "subscribers"}, {"value", 1}}),
            "goal.observe: \"source\" is required");
  EXPECT_EQ(wf.Call("goal.readings", json::object())["readings"].size(), 1u)
      << wf.Call("goal.readings", json::object()).dump();
}

TEST(ApiGoal, ARunIsRecordedOnceAndAChangedStatusUpdatesIt) {
  Workflow wf;
  json args = {{"run", RunDoc("r-1", "completed", "2026-10-06T09:30:00Z")}, {"route", "growth_funnel"}};
  json first = wf.Call("goal.record_run", args);
  EXPECT_EQ(first["outcome"], "inserted");
  EXPECT_EQ(first["primary_route"], true);
  EXPECT_EQ(first["completed"], true);
  EXPECT_EQ(first["primary_reading"], false);
  EXPECT_EQ(wf.Call("goal.record_run", args)["outcome"], "unchanged");
  args["run"]["status"] = "failed";
  json changed = wf.Call("goal.record_run", args);
  EXPECT_EQ(changed["outcome"], "updated");
  EXPECT_EQ(changed["completed"], false);

  json off_route = wf.Call("goal.record_run", {{"run", RunDoc("r-2", "completed", "2026-10-06T10:00:00Z")},
                                               {"route", "weekly_digest"}});
  EXPECT_EQ(off_route["primary_route"], false);
  EXPECT_EQ(Refusal(wf, "goal.record_run", {{"route", "growth_funnel"}}), "goal.record_run: \"run\" is required");
  EXPECT_EQ(Refusal(wf, "goal.record_run", {{"run", RunDoc("r-3", "completed", "2026-10-06T10:00:00Z")}}),
            "goal.record_run: \"route\" is required");
  EXPECT_NE(Refusal(wf, "goal.record_run", {{"run", json::array()}, {"route", "x"}}).rfind("ok", 0), 0u);
}

TEST(ApiGoal, ScheduleRunsAreImportedOnceWithARunOrOnTheirOwn) {
  Workflow wf;
  json older = json::array({{{"run_id", "s-1"}, {"schedule_id", "daily"}, {"started_at", "2026-10-05T09:00:00Z"},
                             {"finished_at", "2026-10-05T09:30:00Z"}, {"status", "completed"},
                             {"route", "growth_funnel"}}});
  json with_run = wf.Call("goal.record_run", {{"run", RunDoc("r-1", "completed", "2026-10-06T09:30:00Z")},
                                              {"route", "growth_funnel"}, {"schedule_runs", older}});
  EXPECT_EQ(with_run["schedule_runs"], (json{{"imported", 1}, {"already", 0}}));
  json again = wf.Call("goal.import_schedule_runs", {{"runs", older}});
  EXPECT_EQ(again, (json{{"imported", 0}, {"already", 1}}));
  EXPECT_EQ(Refusal(wf, "goal.import_schedule_runs", json::object()), "goal.import_schedule_runs: \"runs\" is required");
  EXPECT_EQ(Refusal(wf, "goal.import_schedule_runs", {{"runs", {{{"run_id", 1}}}}, {"source", "schedule-runs.json"}})
                .rfind("schedule-runs.json: [0]", 0),
            0u);
}

TEST(ApiGoal, TheCheckIsReadUnlessRecordedAndAsksTheOwnerToRecord) {
  Workflow wf;
  wf.OnTrack();
  json look = wf.Call("goal.check", json::object());
  EXPECT_EQ(look["status"], "on_track");
  EXPECT_TRUE(look.contains("facts"));
  json bare = wf.Call("goal.check", {{"facts", false}});
  EXPECT_EQ(bare["status"], "on_track");
  EXPECT_FALSE(bare.contains("facts"));
  EXPECT_TRUE(wf.Call("goal.last_check", json::object())["status"].is_null());
  wf.Call("goal.check", {{"record", true}});
  EXPECT_EQ(wf.Call("goal.last_check", json::object())["status"], "on_track");

  EXPECT_EQ(CoreApi().AccessFor("goal.check", json::object()), Access::kRead);
  EXPECT_EQ(CoreApi().AccessFor("goal.check", json{{"record", true}}), Access::kOwner);
  EXPECT_EQ(Refusal(wf, "goal.check", {{"record", "yes"}}), "goal.check: \"record\" must be true or false");
  EXPECT_EQ(Refusal(wf, "goal.runs_by_route", {{"since", "last week"}}).rfind("goal.runs_by_route: \"since\" is not", 0),
            0u);
  EXPECT_EQ(Refusal(wf, "goal.check_due", {{"cap", 0}}), "goal.check_due: \"cap\" must be between 1 and 1000000, not 0");
}

TEST(ApiGoal, TheRecommendationFollowsTheGoalAsItStands) {
  Workflow wf;
  wf.NotMeasured();
  json rec = wf.Call("goal.recommendation", json::object())["recommendation"];
  ASSERT_TRUE(rec.is_object()) << rec.dump();
  EXPECT_EQ(rec["question"], "Substack Pulse: the goal is not measured. Which fix should come first?");
  EXPECT_EQ(rec["option"], "Add a step to growth_funnel that records subscribers on every run");
  EXPECT_EQ(rec["options"][0], rec["option"]);
  EXPECT_EQ(rec["options"].back(), "Leave it as it is for now");
  EXPECT_EQ(CoreApi().AccessFor("goal.recommendation", json::object()), Access::kRead);
  // Nothing was recorded: reading the recommendation is a read.
  EXPECT_TRUE(wf.Call("goal.last_check", json::object())["status"].is_null());

  Workflow on_track;
  on_track.OnTrack();
  EXPECT_TRUE(on_track.Call("goal.recommendation", json::object())["recommendation"].is_null());
}

}  // namespace
}  // namespace pulse
