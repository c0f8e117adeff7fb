// Pulse's tools and turn rules: the tool catalogue offered over MCP, the
// rules runner's one batched recommendation, and the charters.
#include <gtest/gtest.h>

#include "core/api.h"
#include "core/api_access.h"
#include "core/pulse_tools.h"
#include "core/pulse_turns.h"
#include "core/tool_catalog.h"
#include "core/workflow_config.h"
#include "tests/cpp/test_util.h"

namespace pulse {
namespace {

using nlohmann::json;

WorkflowConfig Config(const std::string& text) {
  auto c = ParseWorkflowConfig(text, "workflow.json");
  EXPECT_TRUE(c.ok()) << c.status().message();
  return c.ok() ? *c : WorkflowConfig{};
}

const char* kSubstack = R"({"goal": {"primary_metric": {"name": "subscribers", "route": "growth_funnel", "target": 1000}},
  "schedules": [{"id": "daily", "cron": "0 9 * * *", "enabled": true}]})";

TEST(PulseTools, OffersExactlyPulsesOwnToolsWithObjectSchemas) {
  std::vector<std::string> names;
  for (const json& t : PulseToolDefinitions()) {
    names.push_back(t["name"]);
    EXPECT_EQ(t["inputSchema"]["type"], "object") << t["name"];
    EXPECT_FALSE(t["description"].get<std::string>().empty());
  }
  EXPECT_EQ(names, (std::vector<std::string>{"get_pulse_state", "record_pulse_goal_check", "record_pulse_recommendation",
                                             "record_pulse_goal_memory", "record_pulse_decision_outcome"}));
  EXPECT_TRUE(IsPulseTool("  Record_Pulse_Goal_Check "));
  EXPECT_FALSE(IsPulseTool("update_step"));
  // The guard's own normaliser: the name the guard decided on is the tool that runs.
  EXPECT_EQ(NormalizeToolName(" Get_Pulse\tState"), "get_pulse_state");
  EXPECT_TRUE(IsPulseTool("mcp__pulse__record_pulse_goal_check"));
}

TEST(PulseTools, ToolsMethodFindsOneByName) {
  ApiContext ctx;
  auto one = CallApi(ctx, "pulse.tools", json{{"name", "GET_PULSE_STATE"}});
  ASSERT_TRUE(one.ok());
  ASSERT_EQ((*one)["tools"].size(), 1u);
  auto none = CallApi(ctx, "pulse.tools", json{{"name", "update_step"}});
  ASSERT_TRUE(none.ok());
  EXPECT_TRUE((*none)["tools"].empty());
  auto all = CallApi(ctx, "pulse.tools", json::object());
  EXPECT_EQ((*all)["tools"].size(), 5u);
  EXPECT_EQ(CallApi(ctx, "pulse.tool_call", json{{"tool", "get_pulse_state"}}).status().code(), Code::kInvalidArgument);
}

TEST(PulseTurns, RecommendationBatchesTheAlarmsIntoOneDecision) {
  json check = json::parse(R"J({
    "workflow": "substack", "checked_at": "2026-10-07T12:00:00Z", "status": "not_measured",
    "metric": {"name": "subscribers", "value": 412, "target": 1000,
               "last_measured_at": "2026-10-07T08:10:00Z", "last_measured_by_run_at": "2026-09-17T09:30:00Z"},
    "alarms": [
      {"kind": "not_measured", "days": 20, "message": "not measured by a workflow run for 20 days (last reading 17 Sep)"},
      {"kind": "goal_work_without_reading", "runs": 6, "message": "growth_funnel ran 6 times since 17 Sep without a reading"},
      {"kind": "goal_work_not_completed", "days": 11, "message": "growth work has not completed for 11 days"},
      {"kind": "no_run", "days": 7, "schedules_paused": true, "message": "no run for 7 days with schedules paused"}]})J");
  json rec = BuildGoalRecommendation(check, Config(kSubstack), "substack");
  EXPECT_EQ(rec["question"], "Substack Pulse: the goal is not measured. Which fix should come first?");
  ASSERT_EQ(rec["options"].size(), 4u);
  EXPECT_EQ(rec["options"][0], "Add a step to growth_funnel that records subscribers on every run");
  EXPECT_EQ(rec["options"][1], "Make growth_funnel the next scheduled run and fix what stops it");
  EXPECT_EQ(rec["options"][2], "Resume the paused schedules");
  EXPECT_EQ(rec["options"][3], "Leave it as it is for now");
  EXPECT_EQ(rec["option"], rec["options"][0]);
  EXPECT_EQ(rec["confidence"], "high");
  EXPECT_NE(rec["why"].get<std::string>().find("not measured by a workflow run for 20 days (last reading 17 Sep); "
                                               "growth_funnel ran 6 times"),
            std::string::npos);
  EXPECT_EQ(rec["evidence"], "subscribers 412 of 1000 (last measured 7 Oct; by a workflow run 17 Sep)");
}

TEST(PulseTurns, APausedWorkflowOrNoAlarmsGetsLessConfidence) {
  json check = json::parse(R"({"status": "off_track", "alarms": [],
    "metric": {"name": "subscribers", "value": 300, "target": 1000}})");
  json rec = BuildGoalRecommendation(check, Config(kSubstack), "substack");
  EXPECT_EQ(rec["confidence"], "medium");
  EXPECT_EQ(rec["options"][0], "Review the plan for growth_funnel with Pulse and change what does not move subscribers");
  EXPECT_NE(rec["why"].get<std::string>().find("off track"), std::string::npos);

  json paused = json::parse(R"({"status": "not_measured", "alarms": [{"kind": "not_measured", "message": "m"}]})");
  WorkflowConfig c = Config(R"({"goal": {"primary_metric": {"name": "subscribers"}},
    "schedules": [{"id": "daily", "enabled": false}]})");
  EXPECT_EQ(BuildGoalRecommendation(paused, c, "substack")["confidence"], "medium");
}

TEST(PulseTurns, ChartersPerTurnKind) {
  auto check = TurnCharter("goal_check", false);
  ASSERT_TRUE(check.ok());
  EXPECT_NE(check->find("record_pulse_goal_check(verdict=\"on_track\") and stop"), std::string::npos);
  EXPECT_EQ(check->find("report-only"), std::string::npos);
  auto paused = TurnCharter("goal_check", true);
  EXPECT_NE(paused->find("report-only"), std::string::npos);
  EXPECT_NE(TurnCharter("goal_work", false)->find("Goal Work"), std::string::npos);
  EXPECT_NE(TurnCharter("ask_pulse", false)->find("owner wrote"), std::string::npos);
  EXPECT_EQ(TurnCharter("run_anything", false).status().code(), Code::kNotFound);
  EXPECT_EQ(PulseName("substack"), "Substack Pulse");
  EXPECT_EQ(StatusWords("not_measured"), "not measured");
}

}  // namespace
}  // namespace pulse

namespace pulse {
namespace {

TEST(ApiAccess, ReadsAreNamedAndEverythingElseIsAWrite) {
  EXPECT_TRUE(IsReadOnlyCall("goal.check", json::object()));
  EXPECT_TRUE(IsReadOnlyCall("goal.check", json{{"record", false}}));
  EXPECT_FALSE(IsReadOnlyCall("goal.check", json{{"record", true}}));
  EXPECT_FALSE(IsReadOnlyCall("goal.check", json{{"record", "yes"}}));
  EXPECT_TRUE(IsReadOnlyCall("memory.show", json::object()));
  EXPECT_TRUE(IsReadOnlyCall("decision.list", json{{"status", "all"}}));
  EXPECT_FALSE(IsReadOnlyCall("decision.answer", json::object()));
  EXPECT_FALSE(IsReadOnlyCall("memory.save", json::object()));
  EXPECT_FALSE(IsReadOnlyCall("goal.observe", json::object()));
  EXPECT_FALSE(IsReadOnlyCall("some.future_method", json::object()));
  EXPECT_TRUE(IsServerOnlyMethod("session.open"));
  EXPECT_TRUE(IsServerOnlyMethod("pulse.tool_call"));
  EXPECT_TRUE(IsServerOnlyMethod("agent_log.started"));
  EXPECT_FALSE(IsServerOnlyMethod("decision.answer"));
  EXPECT_FALSE(IsServerOnlyMethod("goal.readings"));
}

}  // namespace
}  // namespace pulse
