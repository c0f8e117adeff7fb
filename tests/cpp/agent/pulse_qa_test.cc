// QA owned by Pulse, the pure rules: which failed runs threaten the goal, a
// fix run's result from whatever its runner printed, the conversation's
// line, and what the next turn reads of the results.
#include "agent/turns/pulse_qa.h"

#include <gtest/gtest.h>

#include "agent/turns/skills.h"
#include "core/store/schema.h"
#include "tests/cpp/test_util.h"

namespace pulse {
namespace {

using nlohmann::json;

WorkflowConfig GoalConfig() {
  WorkflowConfig c;
  PrimaryMetric m;
  m.name = "subscribers";
  m.route = "growth_funnel";
  c.primary_metric = m;
  return c;
}

FailedRunSeen Failed(const std::string& route, const std::string& error, std::vector<std::string> concerns = {}) {
  FailedRunSeen r;
  r.run_id = "r-9";
  r.status = "failed";
  r.route = route;
  r.error = error;
  r.concerns = std::move(concerns);
  return r;
}

TEST(PulseQa, AFailureOnTheGoalRouteOrALoginThreatensTheGoal) {
  WorkflowConfig c = GoalConfig();
  std::string why;
  EXPECT_TRUE(FailureThreatensGoal(Failed("growth_funnel", "timeout"), c, &why));
  EXPECT_NE(why.find("goal's route growth_funnel"), std::string::npos);
  EXPECT_TRUE(FailureThreatensGoal(Failed("", "timeout"), c, &why));
  EXPECT_TRUE(FailureThreatensGoal(Failed("research", "gmail: token refresh failed: invalid_grant"), c, &why));
  EXPECT_NE(why.find("expired login"), std::string::npos);
  EXPECT_TRUE(FailureThreatensGoal(Failed("research", "", {"CONCERNS: please re-authenticate Gmail"}), c, &why));
  EXPECT_FALSE(FailureThreatensGoal(Failed("research", "step summarize: timed out"), c, &why));
  EXPECT_NE(why.find("not the goal's route growth_funnel"), std::string::npos);
}

TEST(PulseQa, AFixRunsResultFromWhatTheRunnerPrinted) {
  QaResult r = QaResultFromRunner(
      "looked at the export\n{\"status\": \"completed\", \"technical_review\": \"the API key expired\", \"reason\": \"rotated\"}", "");
  EXPECT_EQ(r.status, "completed");
  EXPECT_EQ(r.technical_review, "the API key expired");
  EXPECT_EQ(r.reason, "rotated");
  r = QaResultFromRunner("{\"status\": \"failed\", \"technical_review\": \"could not reach it\"}", "");
  EXPECT_EQ(r.status, "failed");
  r = QaResultFromRunner("plain words only", "");
  EXPECT_EQ(r.status, "completed");
  EXPECT_EQ(r.technical_review, "plain words only");
  r = QaResultFromRunner("half a reply", "runner exited with status 3");
  EXPECT_EQ(r.status, "failed");
  EXPECT_EQ(r.reason, "runner exited with status 3");
  // A reply that only looks like JSON is text.
  r = QaResultFromRunner("{\"status\": ", "");
  EXPECT_EQ(r.status, "completed");
  EXPECT_EQ(r.technical_review, "{\"status\": ");
}

TEST(PulseQa, ResultsReachTheNextTurnNewestFirst) {
  testing::TempDir dir;
  auto db = Db::Open(dir.Join("db.sqlite"));
  ASSERT_TRUE(db.ok());
  ASSERT_TRUE(EnsureSchema(**db).ok());
  FixedClockEnv env(DefaultEnv(), testing::T("2026-10-07T12:00:00Z"));
  for (const char* what : {"first", "second", "third"}) {
    NewRequest q;
    q.kind = RequestKind::kQa;
    q.what = what;
    ASSERT_TRUE(RecordRequest(**db, env, q).ok());
  }
  ASSERT_TRUE(FinishQaRequest(**db, 1, QaResult{"completed", "export fixed", "key rotated", "pr-1", "t"}).ok());
  ASSERT_TRUE(FinishQaRequest(**db, 2, QaResult{"failed", "", "runner timed out", "pr-2", "t"}).ok());
  json results = QaResultsJson(**db);
  ASSERT_EQ(results.size(), 2u) << "the open request has no result yet";
  EXPECT_EQ(results[0]["request_id"], 2);
  EXPECT_EQ(results[0]["status"], "failed");
  EXPECT_EQ(results[0]["reason"], "runner timed out");
  EXPECT_EQ(results[1]["technical_review"], "export fixed");
  PulseRequest req;
  req.id = 1;
  req.what = "first";
  EXPECT_EQ(QaResultLine(req, QaResult{"completed", "export fixed", "key rotated", "", ""}),
            "QA request 1 (first): completed — technical review: export fixed — reason: key rotated");
}

TEST(PulseQa, TheSkillsAreHandedToTheRunner) {
  ASSERT_EQ(PulseSkills().size(), 3u);
  std::string check = SkillText("goal-lead-check.md");
  EXPECT_NE(check.find("## Failed runs"), std::string::npos);
  EXPECT_NE(SkillText("goal-lead-architecture.md").find("only architecture review"), std::string::npos);
  json work = SkillsForTurn(TurnKind::kGoalWork);
  ASSERT_EQ(work.size(), 3u);
  EXPECT_EQ(work[0]["name"], "goal-lead-work.md");
  json failed = SkillsForTurn(TurnKind::kRunFailed);
  ASSERT_EQ(failed.size(), 1u);
  EXPECT_EQ(failed[0]["name"], "goal-lead-check.md");
  EXPECT_TRUE(SkillsForTurn(TurnKind::kBuilderQuestion).empty());
}

}  // namespace
}  // namespace pulse
