// The recommendation rule (core/decisions/recommendation.h): which fix for
// which alarm, batched into one decision, and how sure Pulse is.
#include "core/decisions/recommendation.h"

#include <gtest/gtest.h>

#include "core/base/time_util.h"
#include "tests/cpp/test_util.h"

namespace pulse {
namespace {

int64_t T(const char* text) { return *ParseTime(text); }

WorkflowConfig Config(const std::string& text) {
  auto c = ParseWorkflowConfig(text, "workflow.json");
  EXPECT_TRUE(c.ok()) << c.status().message();
  return c.ok() ? *c : WorkflowConfig{};
}

const char* kSubstack = R"({"goal": {"primary_metric": {"name": "subscribers", "route": "growth_funnel", "target": 1000}},
  "schedules": [{"id": "daily", "cron": "0 9 * * *", "enabled": true}]})";

Alarm MakeAlarm(AlarmKind kind, const std::string& message) {
  Alarm a;
  a.kind = kind;
  a.message = message;
  return a;
}

TEST(Recommendation, RecommendationBatchesTheAlarmsIntoOneDecision) {
  GoalCheck check;
  check.workflow = "substack";
  check.checked_at = T("2026-10-07T12:00:00Z");
  check.status = GoalStatus::kNotMeasured;
  check.has_goal = true;
  check.metric_name = "subscribers";
  check.value = 412;
  check.target = 1000;
  check.last_measured_at = T("2026-10-07T08:10:00Z");
  check.last_measured_by_run_at = T("2026-09-17T09:30:00Z");
  check.alarms = {
      MakeAlarm(AlarmKind::kNotMeasured, "not measured by a workflow run for 20 days (last reading 17 Sep)"),
      MakeAlarm(AlarmKind::kGoalWorkWithoutReading, "growth_funnel ran 6 times since 17 Sep without a reading"),
      MakeAlarm(AlarmKind::kGoalWorkNotCompleted, "growth work has not completed for 11 days"),
      MakeAlarm(AlarmKind::kNoRun, "no run for 7 days")};
  GoalRecommendation rec = BuildGoalRecommendation(check, Config(kSubstack), "substack");
  EXPECT_EQ(rec.question, "Substack Pulse: the goal is not measured. Which fix should come first?");
  ASSERT_EQ(rec.options.size(), 4u);
  EXPECT_EQ(rec.options[0], "Add a step to growth_funnel that records subscribers on every run");
  EXPECT_EQ(rec.options[1], "Make growth_funnel the next scheduled run and fix what stops it");
  // Nothing is paused in this configuration: a silence is looked into, never "resumed".
  EXPECT_EQ(rec.options[2], "Find out why no scheduled run started and fix it");
  EXPECT_EQ(rec.options[3], "Leave it as it is for now");
  EXPECT_EQ(rec.option, rec.options[0]);
  EXPECT_EQ(rec.confidence, Confidence::kHigh);
  check.alarms.push_back(MakeAlarm(AlarmKind::kSchedulesPaused, "schedules paused"));
  EXPECT_EQ(BuildGoalRecommendation(check, Config(kSubstack), "substack").options[2], "Resume the paused schedules");
  EXPECT_NE(rec.why.find("not measured by a workflow run for 20 days (last reading 17 Sep); "
                         "growth_funnel ran 6 times"),
            std::string::npos);
  EXPECT_EQ(rec.evidence, "subscribers 412 of 1000 (last measured 7 Oct; by a workflow run 17 Sep)");
}

TEST(Recommendation, APausedWorkflowOrNoAlarmsGetsLessConfidence) {
  GoalCheck check;
  check.status = GoalStatus::kOffTrack;
  check.has_goal = true;
  check.metric_name = "subscribers";
  check.value = 300;
  check.target = 1000;
  GoalRecommendation rec = BuildGoalRecommendation(check, Config(kSubstack), "substack");
  EXPECT_EQ(rec.confidence, Confidence::kMedium);
  EXPECT_EQ(rec.options[0], "Review the plan for growth_funnel with Pulse and change what does not move subscribers");
  EXPECT_NE(rec.why.find("off track"), std::string::npos);

  GoalCheck paused;
  paused.status = GoalStatus::kNotMeasured;
  paused.alarms = {MakeAlarm(AlarmKind::kNotMeasured, "m")};
  WorkflowConfig c = Config(R"({"goal": {"primary_metric": {"name": "subscribers"}},
    "schedules": [{"id": "daily", "enabled": false}]})");
  EXPECT_EQ(BuildGoalRecommendation(paused, c, "substack").confidence, Confidence::kMedium);
}

TEST(Recommendation, PulseNameAndKeyNumber) {
  EXPECT_EQ(PulseName("substack"), "Substack Pulse");
  GoalCheck none;
  EXPECT_EQ(GoalKeyNumber(none), "");
  GoalCheck unmeasured;
  unmeasured.has_goal = true;
  unmeasured.metric_name = "subscribers";
  unmeasured.target = 1000;
  EXPECT_EQ(GoalKeyNumber(unmeasured), "subscribers unmeasured of 1000");
}

}  // namespace
}  // namespace pulse
