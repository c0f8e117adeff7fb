// Pulse's turns in its conversation, as the server's turn threads take them:
// which turns run in it, the first generation with the charter, a turn's
// session and what came before it, a turn's end recorded repaired and
// bounded whatever the runner wrote, and the text a turn carries.
#include "agent/pulse_conversation.h"

#include <gtest/gtest.h>

#include "core/conversation.h"
#include "tests/cpp/agent_fixture.h"

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
