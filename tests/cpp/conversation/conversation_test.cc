#include "core/conversation/conversation.h"

#include <gtest/gtest.h>

#include "core/base/cron.h"
#include "core/conversation/pass.h"
#include "core/conversation/pulse_requests.h"
#include "core/base/sha256.h"
#include "core/autonomy/tool_sessions.h"
#include "tests/cpp/test_util.h"

namespace pulse {
namespace {

using testing::T;
using testing::TempDir;

class ConversationTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto db = testing::OpenWithSchema(dir_.Join("db.sqlite"));
    ASSERT_TRUE(db.ok()) << db.status().message();
    db_ = std::move(db).value();
  }
  ConversationTurn Turn(Conversation& c, const std::string& kind, int64_t at, Caller caller = Caller::kTick) {
    TurnStart s;
    s.turn = kind;
    s.caller = caller;
    s.text = "PULSE TURN " + kind;
    Result<ConversationTurn> t = c.BeginTurn(s, at);
    EXPECT_TRUE(t.ok()) << t.status().message();
    EXPECT_TRUE(c.FinishTurn(t->id, TurnEnd{TurnState::kCompleted, "reply to " + kind, ""}, at + 5).ok());
    return *t;
  }
  TempDir dir_;
  std::unique_ptr<Db> db_;
  int64_t now_ = T("2026-10-07T09:00:00Z");
};

TEST_F(ConversationTest, FirstTurnCreatesGenerationOneWithTheCharterAndAStableSession) {
  Conversation c(*db_, "substack");
  EXPECT_EQ(c.Current().status().code(), Code::kNotFound);
  Result<Generation> g = c.Ensure("the charter", now_);
  ASSERT_TRUE(g.ok()) << g.status().message();
  EXPECT_EQ(g->number, 1);
  EXPECT_EQ(g->session_id, "schedule-goallead--" + Sha256Hex("substack").substr(0, 16) + "-g1");
  Turn(c, "goal_check", now_);
  Turn(c, "ask_pulse", now_ + 60, Caller::kOwner);
  Result<Generation> again = c.Ensure("another charter", now_ + 120);
  EXPECT_EQ(again->session_id, g->session_id);
  Result<std::vector<ConversationTurn>> t = c.Transcript(1);
  ASSERT_EQ(t->size(), 3u);
  EXPECT_EQ((*t)[0].turn, "charter");
  EXPECT_EQ((*t)[0].text, "the charter");
  EXPECT_EQ((*t)[2].caller, Caller::kOwner);
  EXPECT_EQ((*t)[2].reply, "reply to ask_pulse");
  EXPECT_EQ(again->turns, 2);
}

TEST_F(ConversationTest, RolloverAfterNinetyTurnsStartsGenerationTwoAndLogsIt) {
  Conversation c(*db_, "substack");
  ASSERT_TRUE(c.Ensure("charter", now_).ok());
  for (int i = 0; i < kRolloverTurns - 1; ++i) Turn(c, "goal_check", now_ + i * 60);
  EXPECT_FALSE(c.RolloverDueAt(now_ + 100 * 60)->due);
  Turn(c, "ask_pulse", now_ + 95 * 60, Caller::kOwner);
  Result<RolloverDue> due = c.RolloverDueAt(now_ + 100 * 60);
  ASSERT_TRUE(due->due);
  EXPECT_EQ(due->reason, "90 turns");
  Result<Generation> g2 = c.Rollover("charter", due->reason, now_ + 100 * 60);
  ASSERT_TRUE(g2.ok()) << g2.status().message();
  EXPECT_EQ(g2->number, 2);
  EXPECT_NE(g2->session_id.find("-g2"), std::string::npos);
  EXPECT_EQ(g2->turns, 0);
  std::vector<ConversationTurn> old = *c.Transcript(1);
  EXPECT_EQ(old.back().turn, "generation");
  EXPECT_NE(old.back().text.find("after 90 turns"), std::string::npos);
  std::vector<ConversationTurn> fresh = *c.Transcript(2);
  ASSERT_EQ(fresh.size(), 2u);
  EXPECT_EQ(fresh[0].turn, "generation");
  EXPECT_EQ(fresh[1].turn, "charter");
  // Only the current generation's turns are read by default.
  Result<ConversationView> v = c.View(0);
  EXPECT_EQ(v->generations.size(), 2u);
  EXPECT_EQ(v->shown_generation, 2);
  EXPECT_EQ(v->turns.size(), 2u);
  EXPECT_EQ(c.View(1)->turns.size(), 92u);
}

TEST_F(ConversationTest, RolloverAfterThirtyDaysEvenWithFewTurns) {
  Conversation c(*db_, "substack");
  ASSERT_TRUE(c.Ensure("charter", now_).ok());
  Turn(c, "goal_check", now_);
  EXPECT_FALSE(c.RolloverDueAt(now_ + 29 * kSecondsPerDay)->due);
  Result<RolloverDue> due = c.RolloverDueAt(now_ + 30 * kSecondsPerDay);
  ASSERT_TRUE(due->due);
  EXPECT_EQ(due->reason, "30 days");
}

TEST_F(ConversationTest, OneTurnAtATimeAndAStaleClaimIsTakenOver) {
  Conversation c(*db_, "substack");
  ASSERT_TRUE(c.Ensure("charter", now_).ok());
  TurnStart s{"goal_check", Caller::kTick, "", "check", "pr-1", "", 0};
  Result<ConversationTurn> first = c.BeginTurn(s, now_);
  ASSERT_TRUE(first.ok());
  Result<ConversationTurn> second = c.BeginTurn(s, now_ + 10);
  EXPECT_EQ(second.status().code(), Code::kBusy);
  EXPECT_EQ(c.Rollover("charter", "test", now_ + 20).status().code(), Code::kBusy);
  // A claim older than the lease belongs to a process that is gone.
  Result<ConversationTurn> later = c.BeginTurn(s, now_ + kTurnLeaseSeconds + 1);
  EXPECT_TRUE(later.ok()) << later.status().message();
}

TEST_F(ConversationTest, TheRunningTurnOfASessionIsOnlyItsGenerationsOwnWhileItRuns) {
  Conversation c(*db_, "substack");
  Result<Generation> g = c.Ensure("the charter", now_);
  ASSERT_TRUE(g.ok());
  auto none = c.RunningTurnOf(g->session_id);
  ASSERT_TRUE(none.ok()) << none.status().message();
  EXPECT_FALSE(none->has_value()) << "no turn runs";
  TurnStart s;
  s.turn = "ask_pulse";
  s.caller = Caller::kOwner;
  s.account = "ana";
  s.text = "weekly posts only";
  Result<ConversationTurn> t = c.BeginTurn(s, now_);
  ASSERT_TRUE(t.ok());
  auto running = c.RunningTurnOf(g->session_id);
  ASSERT_TRUE(running.ok() && running->has_value());
  EXPECT_EQ((*running)->id, t->id);
  EXPECT_EQ((*running)->caller, Caller::kOwner);
  EXPECT_EQ((*running)->account, "ana");
  EXPECT_FALSE(c.RunningTurnOf(g->session_id + "x")->has_value()) << "another session";
  EXPECT_FALSE(c.RunningTurnOf("")->has_value());
  ASSERT_TRUE(c.FinishTurn(t->id, TurnEnd{TurnState::kCompleted, "noted", ""}, now_ + 5).ok());
  EXPECT_FALSE(c.RunningTurnOf(g->session_id)->has_value()) << "finished";
  // A turn of the next generation is not the old session's.
  ASSERT_TRUE(c.Rollover("the charter", "30 days", now_ + 10).ok());
  Result<ConversationTurn> next = c.BeginTurn(s, now_ + 20);
  ASSERT_TRUE(next.ok());
  EXPECT_FALSE(c.RunningTurnOf(g->session_id)->has_value());
  EXPECT_EQ(c.RunningTurnOf(c.Current()->session_id).value()->id, next->id);
}

TEST_F(ConversationTest, AStopIsClearedByTheNextTurnAndInterruptedTurnsAreRecorded) {
  Conversation c(*db_, "substack");
  ASSERT_TRUE(c.Ensure("charter", now_).ok());
  TurnStart s{"goal_work", Caller::kTick, "", "work", "pr-1", "", 0};
  Result<ConversationTurn> t = c.BeginTurn(s, now_);
  EXPECT_TRUE(*c.Stop(now_ + 1));
  EXPECT_TRUE(c.View(0)->stopped);
  // The runner's late reply does not undo the Stop.
  ASSERT_TRUE(c.FinishTurn(t->id, TurnEnd{TurnState::kCompleted, "done anyway", ""}, now_ + 2).ok());
  EXPECT_EQ(c.Transcript(1)->back().state, TurnState::kStopped);
  Result<ConversationTurn> next = c.BeginTurn(s, now_ + 3);
  ASSERT_TRUE(next.ok());
  EXPECT_FALSE(c.View(0)->stopped);
  EXPECT_EQ(*c.RecoverInterrupted("interrupted: restart", now_ + 4), 1);
  EXPECT_EQ(c.Transcript(1)->back().state, TurnState::kInterrupted);
  EXPECT_FALSE(c.View(0)->running);
  EXPECT_TRUE(c.BeginTurn(s, now_ + 5).ok());
}

TEST_F(ConversationTest, AReadGivesTheNewestTurnsAndARunnerReplaysTheCharterAndABoundedTail) {
  Conversation c(*db_, "substack");
  ASSERT_TRUE(c.Ensure("the charter", now_).ok());
  // Asks between two goal checks can swell one generation past the rollover count.
  for (int i = 0; i < 250; ++i) Turn(c, "ask_pulse", now_ + i * 60, Caller::kOwner);
  Result<ConversationView> v = c.View(0);
  ASSERT_TRUE(v.ok()) << v.status().message();
  ASSERT_EQ(v->turns.size(), static_cast<size_t>(kViewTurns));
  EXPECT_EQ(v->earlier_turns, 51);  // the charter and 50 turns
  EXPECT_EQ(v->ToJson()["earlier_turns"], 51);
  Result<ConversationView> page = c.View(0, kViewTurns, v->turns.front().id);
  ASSERT_EQ(page->turns.size(), 51u);
  EXPECT_EQ(page->turns.front().turn, "charter");
  EXPECT_EQ(page->earlier_turns, 0);
  EXPECT_EQ(page->turns.back().id + 1, v->turns.front().id);
  Result<std::vector<ConversationTurn>> replay = c.ReplayTranscript(1);
  ASSERT_EQ(replay->size(), static_cast<size_t>(kReplayTurns) + 1);
  EXPECT_EQ(replay->front().turn, "charter");
  EXPECT_EQ(replay->back().id, v->turns.back().id);
  EXPECT_EQ(c.Transcript(1)->size(), 251u);
}

TEST_F(ConversationTest, BadTextIsRefusedAndNothingIsStored) {
  Conversation c(*db_, "substack");
  ASSERT_TRUE(c.Ensure("charter", now_).ok());
  TurnStart s{"ask_pulse", Caller::kOwner, "", std::string("bad \xff byte"), "", "", 0};
  EXPECT_EQ(c.BeginTurn(s, now_).status().code(), Code::kInvalidArgument);
  s.text = std::string(kMaxTurnTextBytes + 1, 'x');
  EXPECT_EQ(c.BeginTurn(s, now_).status().code(), Code::kInvalidArgument);
  s.turn = "charter";
  s.text = "forged";
  EXPECT_EQ(c.BeginTurn(s, now_).status().code(), Code::kInvalidArgument);
  EXPECT_EQ(c.Transcript(1)->size(), 1u);
  EXPECT_FALSE(c.View(0)->running);
}

TEST_F(ConversationTest, TheConversationSessionIsReopenedPerTurnWithAFreshToken) {
  std::string id = ConversationSessionId("substack", 1);
  Result<OpenedSession> a = OpenConversationTurnSession(*db_, id, TurnKind::kGoalCheck, now_);
  ASSERT_TRUE(a.ok()) << a.status().message();
  ASSERT_TRUE(CloseToolSession(*db_, id, now_ + 1).ok());
  Result<OpenedSession> b = OpenConversationTurnSession(*db_, id, TurnKind::kAskPulse, now_ + 2);
  ASSERT_TRUE(b.ok());
  EXPECT_EQ(b->session.id, id);
  EXPECT_NE(a->token, b->token);
  EXPECT_EQ(ResolveSessionToken(*db_, a->token).status().code(), Code::kNotFound);
  EXPECT_EQ(ResolveSessionToken(*db_, b->token)->turn, TurnKind::kAskPulse);
  // A session an external agent opens takes another id.
  Result<OpenedSession> other = OpenToolSession(*db_, "substack", TurnKind::kGoalCheck, "", now_);
  EXPECT_NE(other->session.id, id);
}

// A database from before opened sessions took -o<N> ids may hold a
// generation's id in an external agent's open session: the turn that needs
// it names the session and how to free it, and closing it does.
TEST_F(ConversationTest, ALegacySessionHoldingAGenerationsIdIsNamedAndClosingItFreesTheId) {
  const std::string id = ConversationSessionId("substack", 2);
  ASSERT_TRUE(EnsureAutonomySchema(*db_).ok());
  ASSERT_TRUE(db_->Exec("INSERT INTO pulse_tool_sessions(session_id, token_sha256, turn, parent, root, seq, opened_at)"
                        " VALUES('" + id + "', 'legacy', 'goal_work', '', '" + id + "', 7, '2026-10-01T00:00:00Z')")
                  .ok());
  Result<OpenedSession> held = OpenConversationTurnSession(*db_, id, TurnKind::kGoalCheck, now_);
  ASSERT_EQ(held.status().code(), Code::kConflict);
  EXPECT_EQ(held.status().message(), "session \"" + id +
                                         "\": an open session opened for an external agent holds this id;"
                                         " `pulse session close --session " + id + "` frees it");
  ASSERT_TRUE(CloseToolSession(*db_, id, now_ + 1).ok());
  Result<OpenedSession> freed = OpenConversationTurnSession(*db_, id, TurnKind::kGoalCheck, now_ + 2);
  ASSERT_TRUE(freed.ok()) << freed.status().message();
  EXPECT_EQ(ResolveSessionToken(*db_, freed->token)->id, id);
}

TEST(Cron, PreviousFireOfADailyAndAWeeklyExpression) {
  Result<CronSpec> daily = ParseCron("0 6 * * *", "cron");
  ASSERT_TRUE(daily.ok());
  EXPECT_EQ(*PreviousFire(*daily, T("2026-10-07T12:00:00Z")), T("2026-10-07T06:00:00Z"));
  EXPECT_EQ(*PreviousFire(*daily, T("2026-10-07T05:59:00Z")), T("2026-10-06T06:00:00Z"));
  Result<CronSpec> weekly = ParseCron("30 9 * * 1", "cron");  // Mondays
  EXPECT_EQ(*PreviousFire(*weekly, T("2026-10-07T12:00:00Z")), T("2026-10-05T09:30:00Z"));
  EXPECT_EQ(ParseCron("0 25 * * *", "pulse.full_pass.cron").status().message(),
            "pulse.full_pass.cron: the hour field \"25\" is not valid");
  EXPECT_FALSE(ParseCron("* * *", "c").ok());
}

TEST(Pass, DueOncePerFireAndAFastRequestMakesItDueAtOnce) {
  TempDir dir;
  auto db = std::move(testing::OpenWithSchema(dir.Join("db.sqlite"))).value();
  WorkflowConfig config;
  config.raw = nlohmann::json::parse(R"({"pulse": {"full_pass": {"cron": "0 6 * * *"}}})");
  config.primary_metric = PrimaryMetric{};
  config.primary_metric->name = "subscribers";
  int64_t now = T("2026-10-07T12:00:00Z");
  FixedClockEnv env(DefaultEnv(), now);
  Result<PassDue> due = PassDueAt(*db, config, now);
  ASSERT_TRUE(due.ok()) << due.status().message();
  EXPECT_TRUE(due->due);
  EXPECT_EQ(due->kind, "full");
  Result<PassRecord> p = StartPass(*db, env, "full", "tick");
  ASSERT_TRUE(p.ok());
  EXPECT_FALSE(PassDueAt(*db, config, now + 3600)->due);
  // record_pulse_fast_request's store is the one the pass reads.
  env.Set(now + 3600);
  NewRequest fast_request;
  fast_request.kind = RequestKind::kFast;
  fast_request.what = "a run failed";
  ASSERT_TRUE(RecordRequest(*db, env, fast_request).ok());
  due = PassDueAt(*db, config, now + 3700);
  EXPECT_TRUE(due->due);
  EXPECT_EQ(due->kind, "fast");
  EXPECT_NE(due->reason.find("a run failed"), std::string::npos) << due->reason;
  env.Set(now + 3700);
  Result<PassRecord> fast = StartPass(*db, env, "fast", "tick");
  ASSERT_TRUE(fast.ok());
  EXPECT_EQ(fast->fast_requests.size(), 1u);
  Result<std::vector<PulseRequest>> taken = ListRequests(*db, RequestKind::kFast, "taken");
  ASSERT_EQ(taken->size(), 1u);
  EXPECT_EQ(taken->front().taken_by, "pass " + std::to_string(fast->id));
  EXPECT_FALSE(PassDueAt(*db, config, now + 3800)->due);
  EXPECT_TRUE(PassDueAt(*db, config, T("2026-10-08T06:00:00Z"))->due);
  EXPECT_EQ(PassOrder(), (std::vector<std::string>{"gate", "goal_work", "finalize"}));
  EXPECT_FALSE(StartPass(*db, env, "weekly", "tick").ok());
}

}  // namespace
}  // namespace pulse
