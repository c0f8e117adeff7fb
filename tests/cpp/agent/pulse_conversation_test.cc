// Pulse's turns in its conversation, as the server's turn threads take them:
// which turns run in it, the first generation with the charter, a turn's
// session and what came before it, a turn's end recorded repaired and
// bounded whatever the runner wrote, and the text a turn carries.
#include "agent/turns/pulse_conversation.h"

#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

#include "core/conversation/conversation.h"
#include "tests/cpp/agent/agent_fixture.h"

namespace pulse {
namespace {

using nlohmann::json;
using testing::Workflow;

TurnStart Start(const std::string& turn, const std::string& text) {
  TurnStart s;
  s.turn = turn;
  s.text = text;
  return s;
}

TEST(PulseConversation, TheCharterNamesTheWorkflowAndTheRollover) {
  std::string charter = ConversationCharter("substack");
  EXPECT_NE(charter.find("\"substack\""), std::string::npos) << charter;
  EXPECT_NE(charter.find(std::to_string(kRolloverDays) + " days or " + std::to_string(kRolloverTurns) + " turns"),
            std::string::npos)
      << charter;
}

TEST(PulseConversation, OnlyPulsesGoalTurnsRunInItAndOnlyWithAGoal) {
  Workflow f;
  for (TurnKind k : {TurnKind::kGoalCheck, TurnKind::kGoalWork, TurnKind::kAskPulse, TurnKind::kRunFailed}) {
    EXPECT_TRUE(RunsInConversation(f.ctx, k)) << TurnKindName(k);
  }
  for (TurnKind k : {TurnKind::kQaFix, TurnKind::kBuilderFix, TurnKind::kWorkflowReview, TurnKind::kHousekeeping}) {
    EXPECT_FALSE(RunsInConversation(f.ctx, k)) << TurnKindName(k);
  }
  ApiContext no_goal = f.ctx;
  no_goal.config = WorkflowConfig();
  EXPECT_FALSE(RunsInConversation(no_goal, TurnKind::kGoalCheck));
}

TEST(PulseConversation, PrepareMakesGenerationOneWithTheCharterOnce) {
  Workflow f;
  Result<std::string> first = PrepareConversationTurn(f.ctx, TurnKind::kGoalCheck);
  ASSERT_TRUE(first.ok()) << first.status().message();
  Result<std::string> again = PrepareConversationTurn(f.ctx, TurnKind::kAskPulse);
  ASSERT_TRUE(again.ok()) << again.status().message();
  EXPECT_EQ(*first, *again);
  Conversation conversation(*f.ctx.db, "substack");
  Result<Generation> g = conversation.Current();
  ASSERT_TRUE(g.ok()) << g.status().message();
  EXPECT_EQ(g->number, 1);
  EXPECT_EQ(g->session_id, *first);
  Result<std::vector<ConversationTurn>> turns = conversation.Transcript(1);
  ASSERT_TRUE(turns.ok());
  ASSERT_FALSE(turns->empty());
  EXPECT_EQ(turns->front().text, ConversationCharter("substack"));
}

TEST(PulseConversation, ATurnGetsItsSessionAndTheTranscriptAndHoldsTheConversation) {
  Workflow f;
  Result<ConversationTurnHandle> h = BeginConversationTurn(f.ctx, TurnKind::kGoalCheck, Start("goal_check", "check"));
  ASSERT_TRUE(h.ok()) << h.status().message();
  EXPECT_EQ(h->turn.generation, 1);
  EXPECT_FALSE(h->session.token.empty());
  ASSERT_FALSE(h->transcript.empty());
  EXPECT_EQ(h->transcript.front().text, ConversationCharter("substack"));
  json continuity = h->ContinuityJson();
  EXPECT_EQ(continuity["session_id"], h->session.session.id);
  EXPECT_EQ(continuity["restored_conversation_session_id"], h->session.session.id);
  EXPECT_EQ(continuity["turn_id"], h->turn.id);
  EXPECT_EQ(continuity["transcript"].size(), h->transcript.size());

  Result<ConversationTurnHandle> busy = BeginConversationTurn(f.ctx, TurnKind::kAskPulse, Start("ask_pulse", "hi"));
  EXPECT_EQ(busy.status().code(), Code::kBusy);
}

TEST(PulseConversation, TheEndIsRecordedRepairedAndBoundedAndFreesTheConversation) {
  Workflow f;
  Result<ConversationTurnHandle> h = BeginConversationTurn(f.ctx, TurnKind::kGoalCheck, Start("goal_check", "check"));
  ASSERT_TRUE(h.ok()) << h.status().message();
  std::string reply = "ok \xff" + std::string(kMaxReplyBytes * 2, 'x');
  ASSERT_TRUE(EndConversationTurn(f.ctx, h->turn.id, TurnState::kCompleted, reply, "").ok());

  Result<ConversationTurnHandle> next = BeginConversationTurn(f.ctx, TurnKind::kAskPulse, Start("ask_pulse", "hi"));
  ASSERT_TRUE(next.ok()) << next.status().message();
  const ConversationTurn& before = next->transcript.back();
  EXPECT_EQ(before.id, h->turn.id);
  EXPECT_EQ(before.state, TurnState::kCompleted);
  EXPECT_LE(before.reply.size(), kMaxReplyBytes);
  EXPECT_EQ(before.reply.rfind("ok \xEF\xBF\xBD", 0), 0u) << "invalid UTF-8 becomes U+FFFD";
  ASSERT_TRUE(EndConversationTurn(f.ctx, next->turn.id, TurnState::kFailed, "", "runner \xc3 died").ok());
}

// `pulse session open --turn goal_work` (session.open) hands out ids of
// their own: after several opened sessions a 30-day rollover and a 90-turn
// one still start their generation in the generation's own session id.
TEST(PulseConversation, SessionsOpenedForAgentsNeverHoldAGenerationsIdSoRolloversStillStart) {
  Workflow f;
  Result<ConversationTurnHandle> first =
      BeginConversationTurn(f.ctx, TurnKind::kGoalCheck, Start("goal_check", "check"));
  ASSERT_TRUE(first.ok()) << first.status().message();
  EXPECT_EQ(first->session.session.id, ConversationSessionId("substack", 1));
  ASSERT_TRUE(EndConversationTurn(f.ctx, first->turn.id, TurnState::kCompleted, "ok", "").ok());
  std::vector<std::string> opened, tokens;
  for (const char* turn : {"goal_work", "goal_work", "goal_check", "ask_pulse", "goal_work"}) {
    json s = f.Call("session.open", {{"turn", turn}});
    std::string id = s.value("session", "");
    tokens.push_back(s.value("token", ""));
    EXPECT_EQ(id.rfind("schedule-goallead--", 0), 0u) << id << ": unattended, Pulse's own";
    EXPECT_TRUE(HasUnattendedPrefix(id)) << id;
    for (int g = 1; g <= 10; ++g) EXPECT_NE(id, ConversationSessionId("substack", g));
    opened.push_back(id);
  }
  EXPECT_EQ(std::set<std::string>(opened.begin(), opened.end()).size(), opened.size());

  // The goal check that rolls over: generation `n` begins and its turn runs
  // in the generation's own session.
  auto check_in_generation = [&](int n) {
    Result<std::string> id = PrepareConversationTurn(f.ctx, TurnKind::kGoalCheck);
    ASSERT_TRUE(id.ok()) << id.status().message();
    EXPECT_EQ(*id, ConversationSessionId("substack", n));
    Result<ConversationTurnHandle> h = BeginConversationTurn(f.ctx, TurnKind::kGoalCheck, Start("goal_check", "check"));
    ASSERT_TRUE(h.ok()) << "generation " << n << ": " << h.status().message();
    EXPECT_EQ(h->turn.generation, n);
    EXPECT_EQ(h->session.session.id, *id);
    ASSERT_TRUE(EndConversationTurn(f.ctx, h->turn.id, TurnState::kCompleted, "ok", "").ok());
  };
  // 30 days on, the goal check starts generation 2.
  f.env.Advance(int64_t{kRolloverDays} * 86400);
  check_in_generation(2);

  // Another session opened, then 90 turns: generation 3 starts as well.
  EXPECT_NE(f.Call("session.open", {{"turn", "goal_work"}}).value("session", ""), ConversationSessionId("substack", 3));
  for (int i = 0; i < kRolloverTurns; ++i) {
    f.env.Advance(60);
    Result<ConversationTurnHandle> t = BeginConversationTurn(f.ctx, TurnKind::kAskPulse, Start("ask_pulse", "hi"));
    ASSERT_TRUE(t.ok()) << t.status().message();
    ASSERT_TRUE(EndConversationTurn(f.ctx, t->turn.id, TurnState::kCompleted, "ok", "").ok());
  }
  check_in_generation(3);

  // The opened sessions are still open under their own ids, and none may
  // answer for the owner.
  for (size_t i = 0; i < opened.size(); ++i) {
    json s = f.Call("session.resolve", {{"token", tokens[i]}});
    EXPECT_EQ(s.value("session", ""), opened[i]);
    EXPECT_EQ(s.value("open", false), true) << opened[i];
  }
  json made = f.Call("decision.create", {{"question", "Measure in growth_funnel?"}});
  Result<json> answered = CallApi(f.ctx, "decision.answer", {{"id", made["id"]}, {"accept", true}, {"session", opened[0]}});
  EXPECT_FALSE(answered.ok()) << opened[0] << " answered for the owner";
}

TEST(PulseConversation, ATurnsTextIsItsKindTriggerInstructionAndTheOwnersWordsBounded) {
  std::string text = ConversationTurnText(TurnKind::kAskPulse, "How are we doing?", "owner", "owner");
  EXPECT_EQ(text.rfind("PULSE TURN ask_pulse (owner)", 0), 0u) << text;
  EXPECT_NE(text.find("\n\nThe owner wrote:\nHow are we doing?"), std::string::npos) << text;
  EXPECT_EQ(ConversationTurnText(TurnKind::kGoalCheck, "", "").rfind("PULSE TURN goal_check\n", 0), 0u);
  EXPECT_LE(ConversationTurnText(TurnKind::kAskPulse, std::string(kMaxTurnTextBytes * 2, 'y'), "").size(),
            kMaxTurnTextBytes);
  // An editor's Slack message: their words, not the owner's.
  std::string editor = ConversationTurnText(TurnKind::kAskPulse, "Drop the weekly digest", "slack", "bot", "ed@x.com");
  EXPECT_EQ(editor.find("The owner wrote"), std::string::npos) << editor;
  EXPECT_EQ(editor.find("owner relay."), std::string::npos) << editor;
  EXPECT_NE(editor.find("\n\ned@x.com (not the owner; caller bot) wrote:\nDrop the weekly digest"), std::string::npos)
      << editor;
}

}  // namespace
}  // namespace pulse
