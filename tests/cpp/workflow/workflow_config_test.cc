// workflow.json: defaults, the contract example, bad input named.
#include "core/workflow/workflow_config.h"

#include <gtest/gtest.h>


#include "tests/cpp/test_util.h"

namespace pulse {
namespace {

using testing::T;
using testing::TempDir;
using testing::WriteFile;

TEST(WorkflowConfig, DefaultsAndFullContractExample) {
  auto empty = ParseWorkflowConfig("{}", "workflow.json");
  ASSERT_TRUE(empty.ok());
  EXPECT_TRUE(empty->pulse_enabled);
  EXPECT_EQ(empty->autonomy.run, Level::kAsk);
  EXPECT_EQ(empty->autonomy.answer, AnswerLevel::kRecommend);
  EXPECT_EQ(empty->goal_check.not_measured_days, 3);
  EXPECT_EQ(empty->goal_check.no_run_days, 3);
  EXPECT_FALSE(empty->HasGoal());
  EXPECT_FALSE(empty->AllSchedulesPaused());

  auto full = ParseWorkflowConfig(R"({
    "pulse": {"enabled": true, "autonomy": {"run": "auto", "outward": "ask", "change": "auto", "answer": "act"},
              "goal_check": {"not_measured_days": 5, "no_run_days": 2}, "something_new": 1},
    "goal": {"primary_metric": {"name": "subscribers", "route": "growth_funnel", "direction": "decrease",
             "target": 1000, "baseline": 200, "baseline_at": "2026-08-01T00:00:00Z", "deadline": "2026-12-31T00:00:00Z"}},
    "schedules": [{"id": "daily", "cron": "0 9 * * *", "enabled": false}]
  })", "workflow.json");
  ASSERT_TRUE(full.ok()) << full.status().message();
  EXPECT_EQ(full->autonomy.run, Level::kAuto);
  EXPECT_EQ(full->autonomy.change, Level::kAuto);
  EXPECT_EQ(full->autonomy.answer, AnswerLevel::kAct);
  EXPECT_EQ(full->goal_check.not_measured_days, 5);
  ASSERT_TRUE(full->HasGoal());
  EXPECT_FALSE(full->primary_metric->increase);
  EXPECT_EQ(*full->primary_metric->target, 1000);
  EXPECT_EQ(*full->primary_metric->deadline, T("2026-12-31T00:00:00Z"));
  EXPECT_TRUE(full->AllSchedulesPaused());
  EXPECT_EQ(full->raw["pulse"]["something_new"], 1);
}

TEST(WorkflowConfig, BadInputNamesFileAndKey) {
  auto malformed = ParseWorkflowConfig("{\"pulse\": ", "Workflow/x/workflow.json");
  ASSERT_FALSE(malformed.ok());
  EXPECT_EQ(malformed.status().code(), Code::kInvalidArgument);
  EXPECT_EQ(malformed.status().message().rfind("Workflow/x/workflow.json: malformed JSON", 0), 0u)
      << malformed.status().message();
  auto level = ParseWorkflowConfig(R"({"pulse": {"autonomy": {"run": "sometimes"}}})", "wf.json");
  ASSERT_FALSE(level.ok());
  EXPECT_EQ(level.status().message(), "wf.json: pulse.autonomy.run: expected \"ask\" or \"auto\", got \"sometimes\"");
  auto deadline = ParseWorkflowConfig(R"({"goal": {"primary_metric": {"name": "m", "deadline": "soon"}}})", "wf.json");
  ASSERT_FALSE(deadline.ok());
  EXPECT_NE(deadline.status().message().find("goal.primary_metric.deadline"), std::string::npos);
  EXPECT_FALSE(ParseWorkflowConfig("[]", "wf.json").ok());
}

}  // namespace
}  // namespace pulse
