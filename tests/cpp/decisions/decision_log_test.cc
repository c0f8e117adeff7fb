// The decision log's reads on a real database: a decision as stored, its
// view (recommendation, events, waiting time) and the lists, with times as
// seconds however the row's text was written.
#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "core/decisions/decisions.h"
#include "tests/cpp/test_util.h"

namespace pulse {
namespace {

using testing::T;
using testing::TempDir;

struct Log {
  TempDir dir;
  FixedClockEnv env{DefaultEnv(), T("2026-10-07T09:00:00Z")};
  std::unique_ptr<Db> db;
  AutonomyLevels levels;
  std::unique_ptr<GoalMemory> memory;
  std::unique_ptr<DecisionContext> ctx;
  Log() {
    auto opened = Db::Open(dir.Join("db.sqlite"));
    EXPECT_TRUE(opened.ok());
    db = std::move(opened).value();
    EXPECT_TRUE(EnsureDecisionsSchema(*db).ok());
    memory = std::make_unique<GoalMemory>(*db, env, dir.Join("goal.md"));
    ctx = std::make_unique<DecisionContext>(DecisionContext{*db, env, levels, *memory});
  }
  int64_t Create(const std::string& question, std::vector<std::string> options = {"a", "b"}) {
    Result<int64_t> id = CreateDecision(*ctx, DecisionRequest{question, std::move(options), "the goal", "pulse"});
    EXPECT_TRUE(id.ok()) << id.status().message();
    return id.ok() ? *id : 0;
  }
};

TEST(DecisionLog, LoadReadsEveryFieldWithTimesAsSeconds) {
  Log log;
  int64_t id = log.Create("Which route?");
  Result<Decision> d = LoadDecision(*log.db, id);
  ASSERT_TRUE(d.ok());
  EXPECT_EQ(d->question, "Which route?");
  EXPECT_EQ(d->options, (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(d->blocks, "the goal");
  EXPECT_EQ(d->raised_by, "pulse");
  EXPECT_EQ(d->status, DecisionStatus::kPending);
  EXPECT_EQ(d->created_at, T("2026-10-07T09:00:00Z"));
  EXPECT_FALSE(d->answered_at);
  EXPECT_FALSE(d->outcome_at);
  EXPECT_EQ(d->Chosen(), "");

  Result<Decision> none = LoadDecision(*log.db, 999);
  EXPECT_EQ(none.status().code(), Code::kNotFound);
  EXPECT_EQ(none.status().message(), "decision 999: no such decision");
}

TEST(DecisionLog, ViewHasTheCurrentRecommendationEventsAndWaitingTime) {
  Log log;
  int64_t id = log.Create("Which route?");
  RecommendationInput in;
  in.decision_id = id;
  in.option = "a";
  in.why = "first";
  in.confidence = Confidence::kMedium;
  log.env.Advance(3600);
  ASSERT_TRUE(Recommend(*log.ctx, in).ok());
  in.option = "b";
  in.why = "second thoughts";
  log.env.Advance(60);
  Result<DecisionView> v = Recommend(*log.ctx, in);
  ASSERT_TRUE(v.ok()) << v.status().message();
  ASSERT_TRUE(v->recommendation);
  EXPECT_EQ(v->recommendation->Chosen(), "b");  // the newer one; the first is superseded
  EXPECT_EQ(v->recommendation->recommended_at, T("2026-10-07T10:01:00Z"));
  EXPECT_EQ(v->recommendation->status, "open");
  EXPECT_EQ(*v->waited_seconds, 3660);
  ASSERT_EQ(v->events.size(), 3u);
  EXPECT_EQ(v->events[0].kind, "created");
  EXPECT_EQ(v->events[0].at, T("2026-10-07T09:00:00Z"));
  EXPECT_EQ(v->events[2].kind, "recommended");
  EXPECT_EQ(v->events[2].at, T("2026-10-07T10:01:00Z"));
  EXPECT_NE(v->events[2].detail.find("\"option\":\"b\""), std::string::npos);

  // Answered: no more waiting time; the answer's time is read back.
  AnswerInput answer;
  answer.decision_id = id;
  answer.accept = true;
  log.env.Advance(60);
  Result<DecisionView> done = Answer(*log.ctx, answer);
  ASSERT_TRUE(done.ok()) << done.status().message();
  EXPECT_FALSE(done->waited_seconds);
  EXPECT_EQ(*done->decision.answered_at, T("2026-10-07T10:02:00Z"));
  EXPECT_EQ(done->decision.Chosen(), "b");
  EXPECT_EQ(*done->recommendation->resolved_at, T("2026-10-07T10:02:00Z"));
  EXPECT_EQ(done->recommendation->status, "accepted");
}

TEST(DecisionLog, ListsFilterByStatusAndNameOutcomesDueAfterADay) {
  Log log;
  int64_t first = log.Create("First?");
  int64_t second = log.Create("Second?");
  int64_t third = log.Create("Third?", {});
  AnswerInput a;
  a.decision_id = first;
  a.option = "a";
  ASSERT_TRUE(Answer(*log.ctx, a).ok());
  AnswerInput d;
  d.decision_id = third;
  d.dismiss = true;
  ASSERT_TRUE(Answer(*log.ctx, d).ok());

  Result<std::vector<Decision>> pending = PendingDecisions(*log.db);
  ASSERT_TRUE(pending.ok());
  ASSERT_EQ(pending->size(), 1u);
  EXPECT_EQ((*pending)[0].id, second);

  Result<DecisionList> all = ListDecisions(*log.ctx, "");
  ASSERT_TRUE(all.ok());
  ASSERT_EQ(all->decisions.size(), 3u);
  EXPECT_EQ(all->decisions[0].decision.id, first);  // oldest first
  EXPECT_TRUE(all->outcomes_due.empty());             // answered just now
  EXPECT_EQ(ListDecisions(*log.ctx, "dismissed")->decisions.size(), 1u);
  EXPECT_EQ(ListDecisions(*log.ctx, "answered")->decisions[0].decision.id, first);
  Result<DecisionList> bad = ListDecisions(*log.ctx, "open");
  EXPECT_EQ(bad.status().code(), Code::kInvalidArgument);
  EXPECT_EQ(bad.status().message(), "status \"open\" is not pending, answered, dismissed or all");

  // A day later the answered decision has no outcome yet: due, whatever the filter.
  log.env.Advance(86400 + 1);
  Result<DecisionList> later = ListDecisions(*log.ctx, "pending");
  ASSERT_EQ(later->outcomes_due.size(), 1u);
  EXPECT_EQ(later->outcomes_due[0].decision.id, first);
  EXPECT_EQ(later->decisions.size(), 1u);
  ASSERT_TRUE(RecordDecisionOutcome(*log.ctx, first, "it worked").ok());
  EXPECT_TRUE(ListDecisions(*log.ctx, "")->outcomes_due.empty());
  EXPECT_EQ(*LoadDecision(*log.db, first)->outcome_at, T("2026-10-08T09:00:01Z"));
}

TEST(DecisionLog, TimesWrittenInAnotherAcceptedFormAreReadAsTheSameSecond) {
  Log log;
  int64_t id = log.Create("Q?");
  // An offset and fractional seconds (another writer), and text that is no time.
  ASSERT_TRUE(log.db->Exec("UPDATE pulse_decisions SET created_at = '2026-10-07T11:00:00.5+02:00'").ok());
  EXPECT_EQ(LoadDecision(*log.db, id)->created_at, T("2026-10-07T09:00:00Z"));
  ASSERT_TRUE(log.db->Exec("UPDATE pulse_decision_events SET at = 'yesterday'").ok());
  Result<DecisionView> v = ViewDecision(*log.db, *LoadDecision(*log.db, id), log.env.NowSeconds());
  ASSERT_TRUE(v.ok());
  EXPECT_EQ(v->events[0].at, 0);  // unreadable: the read still succeeds
}

}  // namespace
}  // namespace pulse
