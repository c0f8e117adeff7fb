#include "core/asks/ask_builder.h"

#include <gtest/gtest.h>

#include "core/asks/asks.h"
#include "core/autonomy/autonomy.h"
#include "tests/cpp/test_util.h"

namespace pulse {
namespace {

using nlohmann::json;
using testing::T;
using testing::TempDir;

ChatRow Chat(const std::string& id, const std::string& kind, const std::string& account, const std::string& at,
             bool live, bool busy = false) {
  ChatRow c;
  c.session_id = id;
  c.kind = kind;
  c.account = account;
  c.last_active_at = T(at);
  c.live = live;
  c.busy = busy;
  return c;
}

WorkflowConfig WithAccess(const json& access) {
  WorkflowConfig c;
  c.raw = json{{"access", access}};
  return c;
}

TEST(SelectBuilderChat, TheOwnersLiveChatFirstThenTheLatestAndNeverARunChatOrAnotherAccount) {
  WorkflowConfig config = WithAccess({{{"account", "ana"}, {"role", "owner"}}, {{"account", "bo"}, {"role", "editor"}}});
  std::vector<ChatRow> chats = {Chat("b-old", "builder", "ana", "2026-10-07T11:59:00Z", false),
                                Chat("b-live", "builder", "ana", "2026-10-06T09:00:00Z", true),
                                Chat("b-bo", "builder", "bo", "2026-10-07T12:00:00Z", true),
                                Chat("run-1", "run", "ana", "2026-10-07T12:00:00Z", true)};
  Result<std::optional<ChatRow>> pick = SelectBuilderChat(chats, config, "");
  ASSERT_TRUE(pick.ok());
  ASSERT_TRUE(pick->has_value());
  EXPECT_EQ((*pick)->session_id, "b-live");
  chats[1].live = false;
  EXPECT_EQ((*SelectBuilderChat(chats, config, ""))->session_id, "b-old");
  EXPECT_EQ((*SelectBuilderChat(chats, config, "b-old"))->session_id, "b-old");
  EXPECT_EQ(SelectBuilderChat(chats, config, "run-1").status().code(), Code::kRefused);
  EXPECT_EQ(SelectBuilderChat(chats, config, "b-bo").status().code(), Code::kRefused);
  EXPECT_FALSE(SelectBuilderChat({chats[3]}, config, "")->has_value());
  // No access list: every Builder chat is the owner's.
  EXPECT_EQ((*SelectBuilderChat(chats, WorkflowConfig{}, ""))->session_id, "b-bo");
}

TEST(IsOwnerRelay, OnlyAnAttendedBuilderChatOfAnAccountWithWriteAccess) {
  WorkflowConfig config = WithAccess({{{"account", "ana"}, {"role", "owner"}}, {{"account", "cy"}, {"role", "reader"}}});
  std::vector<ChatRow> chats = {Chat("b-1", "builder", "ana", "2026-10-07T11:00:00Z", true),
                                Chat("b-2", "builder", "cy", "2026-10-07T11:00:00Z", true),
                                Chat("run-1", "run", "ana", "2026-10-07T11:00:00Z", true)};
  EXPECT_TRUE(IsOwnerRelay(chats, config, "builder", "b-1", "ana"));
  EXPECT_FALSE(IsOwnerRelay(chats, config, "builder", "b-1", "cy"));   // not that account's chat
  EXPECT_FALSE(IsOwnerRelay(chats, config, "builder", "b-2", "cy"));   // a reader
  EXPECT_FALSE(IsOwnerRelay(chats, config, "run", "run-1", "ana"));    // a Run chat asks for a recommendation
  EXPECT_FALSE(IsOwnerRelay(chats, config, "builder", "b-9", "ana"));  // not in chats.json
  chats.push_back(Chat("schedule-builder-x", "builder", "ana", "2026-10-07T11:00:00Z", true));
  EXPECT_FALSE(IsOwnerRelay(chats, config, "builder", "schedule-builder-x", "ana"));  // unattended
}

TEST(ApplyMessage, AFixCarriesItsTextOtherAnswersTheChoiceAndDoNothingSendsNothing) {
  Decision d;
  d.id = 4;
  d.question = "Pulse asks for a fix: Measure subscribers";
  d.status = DecisionStatus::kAnswered;
  d.answer_option = "Make this fix";
  json fix = {{"message", "Add a record_subscribers step"}, {"title", "Measure subscribers"}, {"why", "unmeasured"}};
  std::optional<std::string> m = ApplyMessageFor(d, fix);
  ASSERT_TRUE(m.has_value());
  EXPECT_NE(m->find("The owner accepted Pulse's fix \"Measure subscribers\" (decision 4)"), std::string::npos) << *m;
  EXPECT_NE(m->find("Add a record_subscribers step"), std::string::npos);
  EXPECT_NE(m->find("Why: unmeasured"), std::string::npos);
  d.answer_option = "Not now";
  EXPECT_FALSE(ApplyMessageFor(d, fix).has_value());
  d.question = "Resume the paused schedules?";
  d.answer_option.reset();
  d.answer_text = "Resume only daily";
  m = ApplyMessageFor(d, json());
  ASSERT_TRUE(m.has_value());
  EXPECT_NE(m->find("The owner answered decision 4 (Resume the paused schedules?): Resume only daily."), std::string::npos);
  d.status = DecisionStatus::kDismissed;
  EXPECT_FALSE(ApplyMessageFor(d, json()).has_value());
}

TEST(BuilderStdin, SaysWhatIsHeld) {
  BuilderTurnRequest q;
  q.chat_session = "b-1";
  q.kind = "question";
  q.message = "why?";
  q.turn = TurnKind::kBuilderQuestion;
  json in = BuilderStdin(q);
  EXPECT_EQ(in["held"], json::array({"run", "outward", "change"}));
  EXPECT_EQ(in["session_id"], "b-1");
  q.turn = TurnKind::kBuilderFix;
  EXPECT_EQ(BuilderStdin(q)["held"], json::array({"run", "outward"}));
  EXPECT_EQ(BuilderStdin(q)["turn"], "builder_fix");
}

class ChainTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto db = testing::OpenWithSchema(dir_.Join("db.sqlite"));
    ASSERT_TRUE(db.ok());
    db_ = std::move(db).value();
  }
  std::string Asked(const std::string& caller, const std::string& session, const std::string& pulse_session) {
    Asks asks(*db_, "substack");
    NewAskPulse a;
    a.caller = caller;
    a.session = session;
    a.message = "why?";
    Result<AskRecord> r = asks.OpenAskPulse(a, T("2026-10-07T12:00:00Z"));
    EXPECT_TRUE(r.ok());
    EXPECT_TRUE(asks.BindTurnSession(r->call_id, pulse_session).ok());
    return r->call_id;
  }
  TempDir dir_;
  std::unique_ptr<Db> db_;
};

TEST_F(ChainTest, ABuilderChatsAskCannotBeAskedBackAStepsMayBeFollowedByAQuestion) {
  Asked("builder", "b-1", "schedule-goallead--x-g1");
  EXPECT_NE(AskBuilderChainRefusal(*db_, "schedule-goallead--x-g1", "").value().find("no ping-pong"), std::string::npos);
  EXPECT_EQ(*AskBuilderChainRefusal(*db_, "schedule-goallead--x-g2", ""), "");
  std::string step = Asked("step", "step-3", "schedule-goallead--x-g2");
  EXPECT_EQ(*AskBuilderChainRefusal(*db_, "schedule-goallead--x-g2", "b-1"), "");
  EXPECT_NE(AskBuilderChainRefusal(*db_, "schedule-goallead--x-g2", "step-3")->find("the chat that asked"), std::string::npos);
  // Once the ask ended, its session no longer binds the chain.
  ASSERT_TRUE(Asks(*db_, "substack").FinishAskPulse(step, 1, "decision: x\nowner_needed: no (y)", T("2026-10-07T12:01:00Z")).ok());
  EXPECT_EQ(*AskBuilderChainRefusal(*db_, "schedule-goallead--x-g2", "step-3"), "");
}

TEST_F(ChainTest, TheGuardRefusesAskBuilderInAnAskPulseTurnABuilderChatStarted) {
  ASSERT_TRUE(EnsureAutonomySchema(*db_).ok());
  Result<OpenedSession> s = OpenToolSession(*db_, "substack", TurnKind::kAskPulse, "", T("2026-10-07T12:00:00Z"));
  ASSERT_TRUE(s.ok());
  WorkflowConfig config;
  json question = {{"kind", "question"}, {"message", "why?"}};
  EXPECT_TRUE(GuardSessionCall(*db_, config, s->session, "ask_builder", question, T("2026-10-07T12:00:00Z"))->allowed);
  Asked("builder", "b-1", s->session.id);
  Result<GuardDecision> d = GuardSessionCall(*db_, config, s->session, "ask_builder", question, T("2026-10-07T12:00:00Z"));
  ASSERT_TRUE(d.ok());
  EXPECT_FALSE(d->allowed);
  EXPECT_STREQ(GuardRuleName(d->rule), "no_ping_pong");
}

}  // namespace
}  // namespace pulse
