#include "core/asks/asks.h"

#include <gtest/gtest.h>

#include "tests/cpp/test_util.h"

namespace pulse {
namespace {

using testing::T;
using testing::TempDir;

class AsksTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto db = testing::OpenWithSchema(dir_.Join("db.sqlite"));
    ASSERT_TRUE(db.ok()) << db.status().message();
    db_ = std::move(db).value();
  }
  NewAskPulse Ask(const std::string& thread = "", const std::string& session = "b-1") {
    NewAskPulse a;
    a.caller = "builder";
    a.session = session;
    a.account = "ana";
    a.message = "Should growth_funnel record subscribers?";
    a.thread_id = thread;
    return a;
  }
  TempDir dir_;
  std::unique_ptr<Db> db_;
  int64_t now_ = T("2026-10-07T09:00:00Z");
};

TEST_F(AsksTest, ThreadAsksBackThenDecidesAndCloses) {
  Asks asks(*db_, "substack");
  Result<AskRecord> r1 = asks.OpenAskPulse(Ask(), now_);
  ASSERT_TRUE(r1.ok()) << r1.status().message();
  EXPECT_EQ(r1->status, "running");
  EXPECT_EQ(r1->round, 1);
  EXPECT_EQ(r1->thread_id.rfind(ThreadIdPrefix("substack"), 0), 0u);
  ASSERT_TRUE(asks.FinishAskPulse(r1->call_id, 7, "I need a fact.\nquestion: does step-3 write the count?", now_ + 5).ok());
  AskRecord a1 = *asks.Get(r1->call_id);
  EXPECT_TRUE(a1.thread_open);
  nlohmann::json j1 = a1.ToJson();
  EXPECT_EQ(j1["pulse_question"], "does step-3 write the count?");
  EXPECT_TRUE(j1["decision"].is_null());
  EXPECT_NE(a1.Next().find("round 2 of at most 6"), std::string::npos) << a1.Next();

  Result<AskRecord> r2 = asks.OpenAskPulse(Ask(r1->thread_id), now_ + 10);
  ASSERT_TRUE(r2.ok()) << r2.status().message();
  EXPECT_EQ(r2->round, 2);
  ASSERT_TRUE(asks.FinishAskPulse(r2->call_id, 8,
                                  "decision: add a record step because nothing measures it\nowner_needed: no (change=auto)",
                                  now_ + 15).ok());
  AskRecord a2 = *asks.Get(r2->call_id);
  EXPECT_FALSE(a2.thread_open);
  EXPECT_EQ(a2.ToJson()["owner_needed"], false);
  EXPECT_EQ(a2.Next().rfind("act without asking the owner again", 0), 0u) << a2.Next();
  EXPECT_NE(a2.Next().find("Pulse recommended add a record step because nothing measures it; done."), std::string::npos);
  EXPECT_FALSE(asks.Thread(r1->thread_id)->open);

  Result<AskRecord> closed = asks.OpenAskPulse(Ask(r1->thread_id), now_ + 20);
  EXPECT_EQ(closed.status().code(), Code::kRefused);
  EXPECT_NE(closed.status().message().find("is closed"), std::string::npos);
}

TEST_F(AsksTest, RoundSevenIsRefusedAndTheSixthClosesTheThread) {
  Asks asks(*db_, "substack");
  std::string thread;
  for (int round = 1; round <= kThreadMaxRounds; ++round) {
    Result<AskRecord> r = asks.OpenAskPulse(Ask(thread), now_ + round);
    ASSERT_TRUE(r.ok()) << round << ": " << r.status().message();
    EXPECT_EQ(r->round, round);
    thread = r->thread_id;
    ASSERT_TRUE(asks.FinishAskPulse(r->call_id, round, "question: and then?", now_ + round).ok());
    EXPECT_EQ(asks.Get(r->call_id)->thread_open, round < kThreadMaxRounds);
  }
  Result<AskRecord> seventh = asks.OpenAskPulse(Ask(thread), now_ + 100);
  EXPECT_EQ(seventh.status().code(), Code::kRefused);
  EXPECT_EQ(asks.Get("ask-nope").status().code(), Code::kNotFound);
}

TEST_F(AsksTest, RefusesUnknownOtherWorkflowAndOtherCallerThreads) {
  Asks asks(*db_, "substack");
  Result<AskRecord> r = asks.OpenAskPulse(Ask(), now_);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(asks.OpenAskPulse(Ask(ThreadIdPrefix("substack") + "99"), now_).status().code(), Code::kNotFound);
  EXPECT_EQ(asks.OpenAskPulse(Ask("nonsense"), now_).status().code(), Code::kNotFound);
  Result<AskRecord> other = asks.OpenAskPulse(Ask(ThreadIdPrefix("digest") + "1"), now_);
  EXPECT_EQ(other.status().code(), Code::kRefused);
  EXPECT_NE(other.status().message().find("another workflow"), std::string::npos) << other.status().message();
  Result<AskRecord> stranger = asks.OpenAskPulse(Ask(r->thread_id, "b-2"), now_);
  EXPECT_EQ(stranger.status().code(), Code::kRefused);
  EXPECT_NE(stranger.status().message().find("another caller"), std::string::npos);
  EXPECT_EQ(asks.Load(r->call_id, "b-2").status().code(), Code::kRefused);
  EXPECT_TRUE(asks.Load(r->call_id, "b-1").ok());
}

TEST_F(AsksTest, TwentyAnHourThenQueuedUntilTheOldestSlotFrees) {
  Asks asks(*db_, "substack");
  for (int i = 0; i < kAsksPerHour; ++i) {
    Result<AskRecord> r = asks.OpenAskPulse(Ask(), now_ + i * 60);
    ASSERT_TRUE(r.ok());
    EXPECT_EQ(r->status, "running");
  }
  Result<AskRecord> over = asks.OpenAskPulse(Ask(), now_ + 30 * 60);
  ASSERT_TRUE(over.ok()) << over.status().message();
  EXPECT_EQ(over->status, "queued");
  ASSERT_TRUE(over->slot_at.has_value());
  EXPECT_EQ(*over->slot_at, now_ + kAskWindowSeconds);
  EXPECT_NE(over->Next().find("starts at 2026-10-07T10:00:00Z"), std::string::npos) << over->Next();
  EXPECT_FALSE(*asks.StartIfSlotFree(over->call_id, now_ + 59 * 60));
  EXPECT_TRUE(*asks.StartIfSlotFree(over->call_id, now_ + 60 * 60 + 1));
  EXPECT_EQ(asks.Get(over->call_id)->status, "running");
  // ask_builder has its own count.
  EXPECT_TRUE(asks.OpenAskBuilder("schedule-goallead--x-g1", "question", "why?", nlohmann::json::object(), now_ + 61 * 60).ok());
}

TEST_F(AsksTest, TheTickTakesTheOldestQueuedAskOnceAndAskBuilderHasItsOwnTwenty) {
  Asks asks(*db_, "substack");
  for (int i = 0; i < kAsksPerHour; ++i) ASSERT_TRUE(asks.OpenAskPulse(Ask(), now_).ok());
  Result<AskRecord> first = asks.OpenAskPulse(Ask("", "s-1"), now_ + 60);
  Result<AskRecord> second = asks.OpenAskPulse(Ask("", "s-2"), now_ + 120);
  ASSERT_TRUE(first.ok() && second.ok());
  EXPECT_EQ(*asks.OldestQueued(AskDirection::kToPulse), first->call_id);
  EXPECT_EQ(*asks.OldestQueued(AskDirection::kToBuilder), "");
  // The oldest goes first, and a queued ask is taken once (the tick and a
  // caller asking again may race for it).
  EXPECT_FALSE(*asks.StartIfSlotFree(second->call_id, now_ + kAskWindowSeconds + 1));
  EXPECT_TRUE(*asks.StartIfSlotFree(first->call_id, now_ + kAskWindowSeconds + 1));
  EXPECT_FALSE(*asks.StartIfSlotFree(first->call_id, now_ + kAskWindowSeconds + 1));
  EXPECT_EQ(*asks.OldestQueued(AskDirection::kToPulse), second->call_id);

  // ask_builder: 20 an hour of its own; the 21st is refused naming the next slot.
  for (int i = 0; i < kAsksPerHour; ++i) {
    ASSERT_TRUE(asks.OpenAskBuilder("schedule-goallead--x-g1", "question", "why?", nlohmann::json::object(), now_ + i).ok());
  }
  Result<AskRecord> over = asks.OpenAskBuilder("schedule-goallead--x-g1", "question", "why?", nlohmann::json::object(), now_ + 30);
  EXPECT_EQ(over.status().code(), Code::kRefused);
  EXPECT_NE(over.status().message().find("the next slot frees at 2026-10-07T10:00:00Z"), std::string::npos)
      << over.status().message();
}

TEST_F(AsksTest, InterruptedAsksSurviveARestartAndTheThreadGoesOn) {
  std::string thread;
  {
    Asks asks(*db_, "substack");
    Result<AskRecord> r = asks.OpenAskPulse(Ask(), now_);
    ASSERT_TRUE(r.ok());
    thread = r->thread_id;
    ASSERT_TRUE(asks.FinishAskPulse(r->call_id, 1, "question: which step?", now_ + 1).ok());
    ASSERT_TRUE(asks.OpenAskPulse(Ask(thread), now_ + 2).ok());
  }
  db_.reset();
  auto db = testing::OpenWithSchema(dir_.Join("db.sqlite"));
  ASSERT_TRUE(db.ok());
  db_ = std::move(db).value();
  Asks asks(*db_, "substack");
  EXPECT_EQ(*asks.RecoverInterrupted(now_ + 100), 1);
  Result<AskRecord> r3 = asks.OpenAskPulse(Ask(thread), now_ + 200);
  ASSERT_TRUE(r3.ok()) << r3.status().message();
  EXPECT_EQ(r3->round, 3);
}

TEST_F(AsksTest, BadInputIsRefusedWithTheKeyNamed) {
  Asks asks(*db_, "substack");
  NewAskPulse a = Ask();
  a.caller = "pulse";
  EXPECT_NE(asks.OpenAskPulse(a, now_).status().message().find("caller"), std::string::npos);
  a = Ask();
  a.message = "  ";
  EXPECT_NE(asks.OpenAskPulse(a, now_).status().message().find("message: empty"), std::string::npos);
  a = Ask();
  a.message = "bad \xff";
  EXPECT_EQ(asks.OpenAskPulse(a, now_).status().code(), Code::kInvalidArgument);
}

}  // namespace
}  // namespace pulse
