// The words of an ask (core/asks/ask_lines.cc): the decision lines read from
// Pulse's reply, the done line, and what the caller is told to do next.
#include <gtest/gtest.h>

#include "core/asks/asks.h"
#include "core/base/time_util.h"
#include "tests/cpp/test_util.h"

namespace pulse {
namespace {

using testing::T;

TEST(DecisionLines, ReadsDecisionQuestionAndOwnerNeededWithMarks) {
  DecisionLines d = ParseDecisionLines(
      "Subscribers are not measured.\n- **Decision:** add a record step because no run measures it\n"
      "owner_needed: no (within change=auto)\n");
  ASSERT_TRUE(d.decided());
  EXPECT_EQ(*d.decision, "add a record step because no run measures it");
  EXPECT_FALSE(*d.owner_needed);
  EXPECT_EQ(d.owner_needed_why, "within change=auto");

  DecisionLines q = ParseDecisionLines("I need one fact.\nquestion: does step-3 write subscribers.json?");
  EXPECT_FALSE(q.decided());
  EXPECT_EQ(*q.question, "does step-3 write subscribers.json?");

  // A decision without its owner_needed line is not a decision.
  EXPECT_FALSE(ParseDecisionLines("decision: do it").decided());
  EXPECT_FALSE(ParseDecisionLines("decision: do it\nowner_needed: maybe").decided());
  DecisionLines yes = ParseDecisionLines("decision: raise the budget\nOwner needed: yes - spending");
  ASSERT_TRUE(yes.decided());
  EXPECT_TRUE(*yes.owner_needed);
  EXPECT_EQ(yes.owner_needed_why, "spending");
  EXPECT_FALSE(ParseDecisionLines("no lines at all").question.has_value());
}

TEST(DecisionLines, DoneLineSplitsOnBecause) {
  EXPECT_EQ(DoneLine("add a record step because no run measures subscribers."),
            "Pulse recommended add a record step because no run measures subscribers; done.");
  EXPECT_EQ(DoneLine("resume the schedules"), "Pulse recommended resume the schedules because …; done.");
}

TEST(DecisionLines, LastOfEachKindWinsAndAnEmptyValueIsNoLine) {
  DecisionLines d = ParseDecisionLines(
      "decision: first idea\nowner_needed: yes\ndecision: second idea\ndecision:\nowner_needed: no\n");
  ASSERT_TRUE(d.decided());
  EXPECT_EQ(*d.decision, "second idea");
  EXPECT_FALSE(*d.owner_needed);
  EXPECT_EQ(d.owner_needed_why, "");
}

TEST(DecisionLines, BulletsBackticksAndSpacedKeysAreRead) {
  DecisionLines d = ParseDecisionLines(
      "\xE2\x80\xA2 `Decision`: pause step-4\r\n> **Owner needed:** no, (within levels)\r\n");
  ASSERT_TRUE(d.decided()) << d.decision.value_or("<none>");
  EXPECT_EQ(*d.decision, "pause step-4");
  EXPECT_FALSE(*d.owner_needed);
  EXPECT_EQ(d.owner_needed_why, "within levels");
}

TEST(DecisionLines, AColonPastTheKeyLengthOrMidSentenceIsNotAKey) {
  // "the decision we took: x" has its colon after 20 characters: prose.
  DecisionLines d = ParseDecisionLines("the decision we took at noon: add a step\nmy decision: add a step");
  EXPECT_FALSE(d.decision.has_value());
  // A question line mid-reply still counts.
  DecisionLines q = ParseDecisionLines("Some prose.\n\n  Question:   which run failed?  \nMore prose.");
  ASSERT_TRUE(q.question.has_value());
  EXPECT_EQ(*q.question, "which run failed?");
}

TEST(DecisionLines, DoneLineFindsBecauseInAnyCaseAndTrimsTheEnds) {
  EXPECT_EQ(DoneLine("Add a record step. Because nothing measures it..."),
            "Pulse recommended Add a record step because nothing measures it; done.");
  EXPECT_EQ(DoneLine("resume  "), "Pulse recommended resume because …; done.");
}

AskRecord Answered(const std::string& reply) {
  AskRecord r;
  r.call_id = "c-1";
  r.thread_id = "th-1";
  r.status = "answered";
  r.answer = reply;
  r.lines = ParseDecisionLines(reply);
  return r;
}

TEST(AskNext, QueuedAndRunningTellTheCallerToWaitAndAskAgain) {
  AskRecord r;
  r.call_id = "c-7";
  r.status = "queued";
  r.slot_at = T("2026-10-07T10:00:00Z");
  EXPECT_EQ(r.Next(),
            "wait: 20 asks started in the last hour; this one starts at 2026-10-07T10:00:00Z; "
            "ask again with call_id c-7 for the answer");
  r.slot_at.reset();
  EXPECT_NE(r.Next().find("this one starts at the next free slot;"), std::string::npos) << r.Next();
  r.status = "running";
  EXPECT_EQ(r.Next(), "wait: Pulse is still answering; ask again with call_id c-7 for the answer");
}

TEST(AskNext, AnAskEndedWithoutAnAnswerSaysWhyAndAnAskBuilderSaysNothing) {
  AskRecord r = Answered("");
  r.status = "failed";
  r.error = "runner exited 1";
  EXPECT_EQ(r.Next(), "Pulse could not answer (failed: runner exited 1); ask again later or ask the owner yourself");
  r.status = "timeout";
  r.error.clear();
  EXPECT_EQ(r.Next(), "Pulse could not answer (timeout); ask again later or ask the owner yourself");
  r.direction = AskDirection::kToBuilder;
  EXPECT_EQ(r.Next(), "");
}

TEST(AskNext, ADecisionSaysActOrAskTheOwnerOnce) {
  AskRecord act = Answered("decision: add a step because nothing measures it\nowner_needed: no");
  EXPECT_EQ(act.Next(),
            "act without asking the owner again; when it is done, tell the owner in one line: "
            "\"Pulse recommended add a step because nothing measures it; done.\"");
  AskRecord owner = Answered("decision: raise the budget\nowner_needed: yes (spending)");
  EXPECT_EQ(owner.Next(), "ask the owner once, quoting Pulse: \"raise the budget\" (owner needed: spending)");
  AskRecord bare = Answered("decision: raise the budget\nowner_needed: yes");
  EXPECT_EQ(bare.Next(), "ask the owner once, quoting Pulse: \"raise the budget\"");
}

TEST(AskNext, AQuestionKeepsTheThreadOrSendsTheCallerToTheOwnerAfterTheLastRound) {
  AskRecord open = Answered("question: does step-3 write the count?");
  open.thread_open = true;
  open.round = 2;
  EXPECT_EQ(open.Next(),
            "answer Pulse's question in thread th-1 (round 3 of at most 6), then act on its decision: "
            "does step-3 write the count?");
  // A reply without lines is answered as a question: its whole text.
  AskRecord prose = Answered("I could not tell.");
  prose.thread_open = false;
  EXPECT_EQ(prose.Next(),
            "thread th-1 used its 6 rounds without a decision: ask the owner once, quoting Pulse: "
            "\"I could not tell.\"");
}

}  // namespace
}  // namespace pulse
