// The turns around a run (agent/turns/review_turns.cc) on a real workflow folder
// and database: what the review and housekeeping runners are told, one
// claim per review, the rules runners recording through the guarded tools,
// the review's own conversation, and the chats told when a review ends.
#include "agent/turns/review_turns.h"

#include "agent/outbox/outbox.h"
#include "agent/tools/pulse_tools.h"
#include "core/workflow/after_run.h"
#include "core/review/workflow_review.h"
#include "tests/cpp/agent/agent_fixture.h"

namespace pulse {
namespace {

using nlohmann::json;
using testing::Workflow;

class ReviewTurns : public ::testing::Test {
 protected:
  void SetUp() override { Plan(R"({"steps": [{"id": "a"}, {"id": "b", "depends_on": ["a"]}]})"); }
  void Plan(const std::string& text) { testing::WriteFile(wf_.w.paths.dir + "/planning/plan.json", text); }
  std::string Claimed(const json& input = json{{"trigger", "cli"}}) {
    std::string s = wf_.Session("workflow_review")["session"].get<std::string>();
    Status claimed = ClaimReviewTurn(wf_.ctx, s, "pr-1", input);
    EXPECT_TRUE(claimed.ok()) << claimed.message();
    return s;
  }
  std::vector<OutboxMessage> Outbox() { return *ListOutbox(*wf_.ctx.db, OutboxQuery{}); }
  Workflow wf_;
};

TEST_F(ReviewTurns, TheReviewRunnerIsToldTheDueSetAndThePlan) {
  Claimed();
  Result<json> turn = AroundRunTurnContext(wf_.ctx, TurnKind::kWorkflowReview, json::object());
  ASSERT_TRUE(turn.ok()) << turn.status().message();
  EXPECT_EQ((*turn)["charter"].get<std::string>().rfind("You are the Workflow Review of workflow \"substack\"", 0), 0u);
  const json& c = (*turn)["context"];
  EXPECT_EQ(c["workflow"], "substack");
  ASSERT_EQ(c["due"].size(), 1u);
  EXPECT_EQ(c["due"][0]["kind"], "no_review");
  EXPECT_NE(c["plan_json"].get<std::string>().find("depends_on"), std::string::npos);
  EXPECT_EQ(c["step_config_json"], "");
  EXPECT_EQ((*turn)["tools"], PulseToolDefinitions());

  Result<json> other = AroundRunTurnContext(wf_.ctx, TurnKind::kGoalCheck, json::object());
  ASSERT_FALSE(other.ok());
  EXPECT_EQ(other.status().message(), "not a turn around a run: goal_check");
}

TEST_F(ReviewTurns, OneClaimPerReviewAndTheRulesReviewRecordsItsVerdict) {
  std::string s = Claimed(json{{"trigger", "chat"}, {"notify", {"chat-1", 7, "chat-2"}}});
  std::string second = wf_.Session("workflow_review")["session"].get<std::string>();
  EXPECT_EQ(ClaimReviewTurn(wf_.ctx, second, "pr-2", json::object()).code(), Code::kBusy);

  Result<std::string> summary = RunRulesReview(wf_.ctx, s);
  ASSERT_TRUE(summary.ok()) << summary.status().message();
  EXPECT_EQ(*summary, "The plan's 2 steps and their references hold.");
  EXPECT_EQ(EndReviewTurn(wf_.ctx, s, ""), "clean");
  std::vector<OutboxMessage> out = Outbox();
  ASSERT_EQ(out.size(), 2u) << "one message per waiting chat (a non-string is no chat)";
  EXPECT_EQ(out[0].kind, "workflow_review_done");
  EXPECT_EQ(out[0].title, "substack Workflow Review: clean");
  EXPECT_EQ(out[0].text, "The Workflow Review finished (clean). Run again.");
  EXPECT_EQ(out[0].payload["chat_session"], "chat-1");
  EXPECT_EQ(out[1].payload["chat_session"], "chat-2");
  EXPECT_EQ(out[0].pulse_run_id, "pr-1");
}

TEST_F(ReviewTurns, ABrokenPlanIsRecordedBrokenAndTheChatsAreToldItStaysStopped) {
  Plan(R"({"steps": [{"id": "a"}, {"id": "c", "depends_on": ["zz"]}]})");
  std::string s = Claimed(json{{"notify", {"chat-1"}}});
  Result<std::string> summary = RunRulesReview(wf_.ctx, s);
  ASSERT_TRUE(summary.ok()) << summary.status().message();
  EXPECT_EQ(*summary, "1 broken: c — depends on \"zz\", which is not a step of the plan");
  EXPECT_EQ(EndReviewTurn(wf_.ctx, s, ""), "broken");
  std::vector<OutboxMessage> out = Outbox();
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].text, "The Workflow Review found a break (" + *summary + "); runs that touch it stay stopped.");
}

TEST_F(ReviewTurns, AReviewWithoutAReceiptIsUnfinishedAndAnUnclaimedSessionSaysSo) {
  std::string s = Claimed();
  EXPECT_EQ(EndReviewTurn(wf_.ctx, s, "runner timed out"), "unfinished");
  Result<ReviewRecord> r = FindReviewBySession(wf_.env, wf_.w.paths.dir, s);
  ASSERT_TRUE(r.ok());
  EXPECT_NE(r->summary.find("runner timed out"), std::string::npos) << r->summary;
  EXPECT_EQ(EndReviewTurn(wf_.ctx, "never-claimed", ""), "unclaimed");
  EXPECT_TRUE(Outbox().empty());
}

TEST_F(ReviewTurns, TheReviewHasItsOwnConversationContinuedFromEarlierReviews) {
  std::string s = Claimed();
  Result<ReviewConversationTurn> first = BeginReviewConversationTurn(wf_.ctx, s);
  ASSERT_TRUE(first.ok()) << first.status().message();
  const json& c = first->continuity;
  EXPECT_EQ(c["conversation"], "workflow_review");
  EXPECT_EQ(c["session_id"], s);
  EXPECT_TRUE(c["transcript"].empty());
  const std::string text = c["text"].get<std::string>();
  EXPECT_EQ(text.rfind("WORKFLOW REVIEW of substack, plan revision ", 0), 0u) << text;
  EXPECT_NE(text.find("(trigger cli). Due:\n- no_review: "), std::string::npos) << text;
  ASSERT_TRUE(RunRulesReview(wf_.ctx, s).ok());
  EndReviewConversationTurn(wf_.ctx, first->turn_id, "clean", "", EndReviewTurn(wf_.ctx, s, ""));

  Plan(R"({"steps": [{"id": "a"}]})");
  std::string next = Claimed();
  Result<ReviewConversationTurn> second = BeginReviewConversationTurn(wf_.ctx, next);
  ASSERT_TRUE(second.ok()) << second.status().message();
  const json& t = second->continuity["transcript"];
  ASSERT_EQ(t.size(), 1u) << second->continuity.dump();
  EXPECT_EQ(t[0]["session"], s);
  EXPECT_EQ(t[0]["reply"], "clean");
  EXPECT_EQ(t[0]["state"], "completed");
  EXPECT_EQ(t[0]["outcome"], "clean");
  EXPECT_EQ(BeginReviewConversationTurn(wf_.ctx, "never-claimed").status().ok(), false);
}

TEST_F(ReviewTurns, HousekeepingIsToldItsActionsAndTheRulesRunnerDoesNone) {
  std::string s = wf_.Session("housekeeping")["session"].get<std::string>();
  EXPECT_EQ(AroundRunTurnContext(wf_.ctx, TurnKind::kHousekeeping, json::object()).status().code(), Code::kNotFound);
  testing::WriteFile(wf_.w.paths.dir + "/backup-strategy.md", "Copy the folder to the NAS.");
  HousekeepingRequest req;
  req.run_id = "r-1";
  req.actions = {"backup", "publish"};
  req.source_hash = "hash-1";
  Result<int64_t> id = RequestHousekeeping(*wf_.ctx.db, req, wf_.env.NowSeconds());
  ASSERT_TRUE(id.ok());
  ASSERT_TRUE(SetHousekeepingState(*wf_.ctx.db, *id, "running", wf_.env.NowSeconds()).ok());

  Result<json> turn = AroundRunTurnContext(wf_.ctx, TurnKind::kHousekeeping, json::object());
  ASSERT_TRUE(turn.ok()) << turn.status().message();
  EXPECT_EQ((*turn)["context"]["actions"], (json{"backup", "publish"}));
  EXPECT_EQ((*turn)["context"]["backup_strategy_md"], "Copy the folder to the NAS.");
  EXPECT_EQ((*turn)["context"]["publish_strategy_md"], "");
  EXPECT_NE((*turn)["charter"].get<std::string>().find("housekeeping turn of workflow \"substack\""), std::string::npos);

  Result<std::string> summary = RunRulesHousekeeping(wf_.ctx, s);
  ASSERT_TRUE(summary.ok()) << summary.status().message();
  EXPECT_EQ(summary->rfind("Not done: [\"backup\",\"publish\"] need an agent runner", 0), 0u) << *summary;
  EXPECT_EQ(*LastHousekeepingHash(*wf_.ctx.db, "backup"), "");
  EXPECT_EQ(*LastHousekeepingHash(*wf_.ctx.db, "publish"), "");
}

}  // namespace
}  // namespace pulse
