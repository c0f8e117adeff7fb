// The review and after-run methods at the API edge (core/api/review.cc) on a
// real workflow folder: review.state with and without the folder at hand,
// the owner's after-run checkboxes written into workflow.json (all three
// given, a second identical click changing nothing), and pulse_mode migrated
// to after_run once.
#include "core/api/api.h"

#include "tests/cpp/agent/agent_fixture.h"

namespace pulse {
namespace {

using nlohmann::json;
using testing::Workflow;

std::string Refusal(ApiContext& ctx, const std::string& method, const json& args) {
  Result<json> r = CallApi(ctx, method, args);
  return r.ok() ? "ok: " + r->dump() : r.status().message();
}

TEST(ApiReview, TheStateReadsTheFolderWhereItIsAtHand) {
  Workflow wf;
  testing::WriteFile(wf.w.paths.dir + "/planning/plan.json", R"({"steps": [{"id": "a"}]})");
  json state = wf.Call("review.state", json::object());
  EXPECT_EQ(state["workflow"], "substack");
  const json& review = state["workflow_review"];
  EXPECT_EQ(review["available"], true);
  EXPECT_TRUE(review.contains("verdict"));
  ASSERT_EQ(state["after_run"]["schedules"].size(), 1u);
  EXPECT_EQ(state["after_run"]["schedules"][0]["id"], "daily");
  EXPECT_EQ(state["after_run"]["schedules"][0]["from"], "default");
  EXPECT_TRUE(state["run_summaries"].empty());
  EXPECT_EQ(state["review_conversation"]["total"], 0);

  Result<ApiContext> browser = ContextFromDb(*wf.w.db, wf.env);
  ASSERT_TRUE(browser.ok());
  Result<json> db_only = CallApi(*browser, "review.state", json::object());
  ASSERT_TRUE(db_only.ok()) << db_only.status().message();
  EXPECT_EQ((*db_only)["workflow_review"]["available"], false);
  EXPECT_EQ(Refusal(*browser, "schedule.after_run",
                    {{"schedule", "daily"}, {"backup", true}, {"publish", true}, {"notify", true}}),
            "schedule.after_run: needs the workflow folder (workflow.json)");
  EXPECT_EQ(Refusal(*browser, "workflow.migrate", json::object()),
            "workflow.migrate: needs the workflow folder (workflow.json)");
}

TEST(ApiReview, TheOwnersCheckboxesAreWrittenIntoWorkflowJsonAllThreeAtOnce) {
  Workflow wf;
  EXPECT_EQ(Refusal(wf.ctx, "schedule.after_run", {{"schedule", "daily"}, {"backup", false}, {"publish", true}}),
            "schedule.after_run: \"notify\" is required (true or false)");
  EXPECT_EQ(Refusal(wf.ctx, "schedule.after_run",
                    {{"schedule", "weekly"}, {"backup", false}, {"publish", true}, {"notify", true}}),
            "schedule \"weekly\": no such schedule in workflow.json");
  json args = {{"schedule", "daily"}, {"backup", false}, {"publish", true}, {"notify", true}};
  json set = wf.Call("schedule.after_run", args);
  EXPECT_EQ(set["changed"], true);
  EXPECT_EQ(set["schedules"][0]["after_run"], (json{{"backup", false}, {"publish", true}, {"notify", true}}));
  EXPECT_EQ(set["schedules"][0]["from"], "after_run");
  json doc = json::parse(testing::ReadFileOrDie(wf.w.paths.workflow_json));
  EXPECT_EQ(doc["schedules"][0]["after_run"], (json{{"backup", false}, {"publish", true}, {"notify", true}}));
  EXPECT_EQ(doc["goal"]["primary_metric"]["name"], "subscribers") << "the rest of workflow.json is kept";
  EXPECT_EQ(wf.Call("schedule.after_run", args)["changed"], false);
  EXPECT_EQ(wf.ctx.config.schedules[0].after_run.backup, false) << "the context reads the new options";

  json manual = wf.Call("schedule.after_run", {{"schedule", "manual"}, {"backup", true}, {"publish", false},
                                               {"notify", false}});
  EXPECT_EQ(manual["after_manual_run"], (json{{"backup", true}, {"publish", false}, {"notify", false}}));
  EXPECT_EQ(CoreApi().AccessFor("schedule.after_run", json::object()), Access::kOwner);
}

TEST(ApiReview, PulseModeIsMigratedToAfterRunOnce) {
  Workflow wf;
  json doc = json::parse(testing::ReadFileOrDie(wf.w.paths.workflow_json));
  doc["schedules"][0]["pulse_mode"] = "off";
  testing::WriteFile(wf.w.paths.workflow_json, doc.dump(2));
  json first = wf.Call("workflow.migrate", json::object());
  EXPECT_EQ(first["workflow"], "substack");
  EXPECT_EQ(first["written"], true);
  EXPECT_EQ(first["after_run"]["schedules"][0]["from"], "after_run");
  json again = wf.Call("workflow.migrate", json::object());
  EXPECT_EQ(again["written"], false);
  json after = json::parse(testing::ReadFileOrDie(wf.w.paths.workflow_json));
  EXPECT_TRUE(after["schedules"][0].contains("after_run")) << after.dump();
}

}  // namespace
}  // namespace pulse
