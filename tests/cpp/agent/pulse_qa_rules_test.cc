// The built-in rules runner's run_failed, qa_fix and Architecture turns
// (agent/turns/pulse_qa_rules.cc) on a real workflow: each asks the guard before
// its step, a failure on the goal's route requests QA once, one that can
// wait says why, and a closed session's turn is refused rather than run.
#include "agent/turns/pulse_qa.h"

#include "agent/turns/pulse_turns.h"
#include "core/conversation/pulse_requests.h"
#include "tests/cpp/agent/agent_fixture.h"

namespace pulse {
namespace {

using nlohmann::json;
using testing::Workflow;

RulesTurn Turn(Workflow& wf, const std::string& kind, json* session = nullptr) {
  json s = wf.Session(kind);
  if (session) *session = s;
  RulesTurn t;
  t.kind = *ParseTurnKind(kind);
  t.session = s["session"].get<std::string>();
  t.pulse_run_id = "pr-1";
  return t;
}

FailedRunSeen Failed(const std::string& route, const std::string& error = "step fetch: timeout") {
  FailedRunSeen r;
  r.run_id = "r-7";
  r.finished_at = "2026-10-07T09:30:00Z";
  r.status = "failed";
  r.route = route;
  r.error = error;
  return r;
}

std::vector<PulseRequest> QaRequests(Workflow& wf) {
  return *ListRequests(*wf.ctx.db, RequestKind::kQa, "");
}

TEST(QaRules, AFailureOnTheGoalsRouteRequestsQaAfterAskingTheGuard) {
  Workflow wf;
  RulesTurn turn = Turn(wf, "run_failed");
  FailedRunSeen run = Failed("growth_funnel");
  run.concerns = {"CONCERNS: subscribers.json was empty"};
  Result<RulesReport> r = RulesRunFailed(wf.ctx, turn, run);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->outcome, "qa_requested");
  EXPECT_EQ(r->pulse_run_id, "pr-1");
  ASSERT_EQ(r->tools.size(), 1u);
  EXPECT_EQ(r->tools[0].tool, "record_pulse_qa_request");
  EXPECT_TRUE(r->tools[0].allowed);
  std::vector<PulseRequest> qa = QaRequests(wf);
  ASSERT_EQ(qa.size(), 1u);
  EXPECT_EQ(qa[0].what, "Run r-7 failed on growth_funnel: step fetch: timeout | CONCERNS: subscribers.json was empty");
  EXPECT_EQ(qa[0].why.rfind("it threatens the goal: ", 0), 0u) << qa[0].why;
  EXPECT_EQ(qa[0].session, turn.session);
  EXPECT_EQ(r->summary.rfind("Run r-7 failed on growth_funnel: QA requested (request " + std::to_string(qa[0].id) + ")", 0),
            0u)
      << r->summary;
}

TEST(QaRules, AFailureElsewhereCanWaitAndRequestsNothing) {
  Workflow wf;
  Result<RulesReport> r = RulesRunFailed(wf.ctx, Turn(wf, "run_failed"), Failed("weekly_digest"));
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->outcome, "can_wait");
  EXPECT_EQ(r->summary.rfind("Run r-7 failed on weekly_digest: can wait — ", 0), 0u) << r->summary;
  EXPECT_NE(r->summary.find("the next goal check sees it in run_health."), std::string::npos) << r->summary;
  EXPECT_TRUE(r->tools.empty()) << "nothing to ask the guard for";
  EXPECT_TRUE(QaRequests(wf).empty());
}

TEST(QaRules, AClosedSessionsRequestIsRefusedAndAFullQueueIsSaid) {
  Workflow wf;
  json s;
  RulesTurn turn = Turn(wf, "run_failed", &s);
  wf.Call("session.close", {{"session", s["session"]}});
  Result<RulesReport> refused = RulesRunFailed(wf.ctx, turn, Failed("growth_funnel"));
  ASSERT_TRUE(refused.ok()) << refused.status().message();
  EXPECT_EQ(refused->outcome, "refused");
  ASSERT_EQ(refused->tools.size(), 1u);
  EXPECT_FALSE(refused->tools[0].allowed);
  EXPECT_TRUE(QaRequests(wf).empty());

  for (int i = 0; i < kMaxPendingQaRequests; ++i) {
    NewRequest q;
    q.what = "check " + std::to_string(i);
    ASSERT_TRUE(RecordRequest(*wf.ctx.db, wf.env, q).ok());
  }
  Result<RulesReport> full = RulesRunFailed(wf.ctx, Turn(wf, "run_failed"), Failed("growth_funnel"));
  ASSERT_TRUE(full.ok()) << full.status().message();
  EXPECT_EQ(full->outcome, "not_requested");
  EXPECT_NE(full->summary.find("QA was not requested: "), std::string::npos) << full->summary;
  EXPECT_EQ(QaRequests(wf).size(), static_cast<size_t>(kMaxPendingQaRequests));
}

TEST(QaRules, TheRulesFixRunReviewsTheFactsAndRepairsNothing) {
  Workflow wf;
  PulseRequest req;
  req.id = 3;
  req.what = "step-3 writes subscribers.json";
  Result<RulesReport> r = RulesQaFix(wf.ctx, Turn(wf, "qa_fix"), &req);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->outcome, "completed");
  json result = json::parse(r->summary);
  EXPECT_EQ(result["status"], "completed");
  EXPECT_EQ(result["technical_review"].get<std::string>().rfind(
                "Checked \"step-3 writes subscribers.json\" against the facts: ", 0),
            0u)
      << result.dump();
  EXPECT_NE(result["reason"].get<std::string>().find("has no model"), std::string::npos);
  ASSERT_EQ(r->tools.size(), 1u);
  EXPECT_EQ(r->tools[0].tool, "get_pulse_state");

  Result<RulesReport> technical = RulesQaFix(wf.ctx, Turn(wf, "qa_fix"), nullptr);
  ASSERT_TRUE(technical.ok());
  EXPECT_NE(json::parse(technical->summary)["technical_review"].get<std::string>().find("the workflow's runs"),
            std::string::npos);

  json s;
  RulesTurn closed = Turn(wf, "qa_fix", &s);
  wf.Call("session.close", {{"session", s["session"]}});
  Result<RulesReport> failed = RulesQaFix(wf.ctx, closed, &req);
  ASSERT_TRUE(failed.ok());
  EXPECT_EQ(failed->outcome, "failed");
  EXPECT_EQ(json::parse(failed->summary)["reason"].get<std::string>().rfind("the facts could not be read: ", 0), 0u);
}

TEST(QaRules, TheRulesArchitectureTurnNamesTheRoutesWithFailures) {
  Workflow wf;
  testing::WriteFile(wf.w.paths.dir + "/runs/iteration-1/default/run.json",
                     R"({"run_id": "n-1", "started_at": "2026-10-07T08:00:00Z", "finished_at": "2026-10-07T08:10:00Z",
                         "status": "failed", "error": "step fetch: timeout"})");
  testing::WriteFile(wf.w.paths.dir + "/runs/iteration-1/default/route_selection.json", R"({"route": "growth_funnel"})");
  Result<RulesReport> r = RulesArchitecture(wf.ctx, Turn(wf, "goal_work"));
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->outcome, "reviewed");
  EXPECT_EQ(r->summary.rfind("Architecture (rules runner, no model): 0 plan changes and ", 0), 0u) << r->summary;
  EXPECT_NE(r->summary.find("(latest n-1, failed on growth_funnel: step fetch: timeout)"), std::string::npos)
      << r->summary;
  EXPECT_NE(r->summary.find("; routes with failures: growth_funnel. A rules runner cannot judge the structure"),
            std::string::npos)
      << r->summary;
}

}  // namespace
}  // namespace pulse
