// QA, fast and Builder requests in a real database file: stored, listed,
// a pending fast request absorbing later ones, and taken once.
#include "core/conversation/pulse_requests.h"

#include <gtest/gtest.h>

#include "core/store/schema.h"
#include "tests/cpp/test_util.h"

namespace pulse {
namespace {

class Requests : public ::testing::Test {
 protected:
  void SetUp() override {
    auto db = Db::Open(dir_.Join("db.sqlite"));
    ASSERT_TRUE(db.ok()) << db.status().message();
    db_ = std::move(*db);
    ASSERT_TRUE(EnsureSchema(*db_).ok());
  }
  testing::TempDir dir_;
  FixedClockEnv env_{DefaultEnv(), testing::T("2026-10-07T12:00:00Z")};
  std::unique_ptr<Db> db_;
};

TEST_F(Requests, FastRequestsCoalesceAndAreTakenOnce) {
  NewRequest fast;
  fast.kind = RequestKind::kFast;
  fast.what = "the owner resumed the schedules";
  Result<RecordedRequest> first = RecordRequest(*db_, env_, fast);
  ASSERT_TRUE(first.ok()) << first.status().message();
  EXPECT_FALSE(first->coalesced);
  fast.what = "and a run failed";
  Result<RecordedRequest> second = RecordRequest(*db_, env_, fast);
  ASSERT_TRUE(second.ok());
  EXPECT_TRUE(second->coalesced);
  EXPECT_EQ(second->request.id, first->request.id);

  Result<std::vector<PulseRequest>> taken = TakePendingFastRequests(*db_, env_, "pass-1");
  ASSERT_TRUE(taken.ok());
  ASSERT_EQ(taken->size(), 1u);
  EXPECT_EQ((*taken)[0].status, "taken");
  EXPECT_EQ((*taken)[0].taken_by, "pass-1");
  EXPECT_TRUE(TakePendingFastRequests(*db_, env_, "pass-2")->empty()) << "taken once";
  // After the pass took it, a new reason is a new request.
  Result<RecordedRequest> third = RecordRequest(*db_, env_, fast);
  EXPECT_FALSE(third->coalesced);
}

TEST_F(Requests, QaRequestsAreListedAndBounded) {
  NewRequest qa;
  qa.kind = RequestKind::kQa;
  qa.what = "check the export step";
  qa.why = "401 since Monday";
  for (int i = 0; i < kMaxPendingQaRequests; ++i) ASSERT_TRUE(RecordRequest(*db_, env_, qa).ok());
  Result<RecordedRequest> over = RecordRequest(*db_, env_, qa);
  EXPECT_EQ(over.status().code(), Code::kRefused);
  Result<std::vector<PulseRequest>> listed = ListRequests(*db_, RequestKind::kQa, "pending");
  ASSERT_TRUE(listed.ok());
  EXPECT_EQ(listed->size(), static_cast<size_t>(kMaxPendingQaRequests));
  EXPECT_EQ(listed->front().why, "401 since Monday");
  ASSERT_TRUE(CompleteRequest(*db_, env_, listed->front().id, "fixed: token renewed").ok());
  EXPECT_EQ(ListRequests(*db_, RequestKind::kQa, "done")->front().result, "fixed: token renewed");
  qa.what = " ";
  EXPECT_EQ(RecordRequest(*db_, env_, qa).status().code(), Code::kInvalidArgument);
  qa.what = std::string("\xff\xfe", 2);
  EXPECT_EQ(RecordRequest(*db_, env_, qa).status().code(), Code::kInvalidArgument);
}

TEST_F(Requests, AQaRequestIsTakenOnceAndItsFailedFixRunIsNotRetried) {
  NewRequest qa;
  qa.kind = RequestKind::kQa;
  qa.what = "growth_funnel: the export step fails with 401";
  Result<RecordedRequest> made = RecordRequest(*db_, env_, qa);
  ASSERT_TRUE(made.ok());
  Result<std::optional<PulseRequest>> taken = TakeNextQaRequest(*db_, env_, "tick");
  ASSERT_TRUE(taken.ok() && taken->has_value());
  EXPECT_EQ((*taken)->id, made->request.id);
  Result<std::optional<PulseRequest>> again = TakeNextQaRequest(*db_, env_, "tick");
  ASSERT_TRUE(again.ok());
  EXPECT_FALSE(again->has_value()) << "a taken request is not taken twice";
  ASSERT_TRUE(MarkQaRequestTakenBy(*db_, made->request.id, "pr-1").ok());
  Result<int64_t> open = OpenQaRequestCount(*db_);
  ASSERT_TRUE(open.ok());
  EXPECT_EQ(*open, 1);

  QaResult failed{"failed", "", "runner exited with status 1: no network", "pr-1", "2026-10-07T12:05:00Z"};
  ASSERT_TRUE(FinishQaRequest(*db_, made->request.id, failed).ok());
  Result<std::vector<PulseRequest>> list = ListRequests(*db_, RequestKind::kQa, "");
  ASSERT_TRUE(list.ok() && list->size() == 1);
  EXPECT_EQ((*list)[0].status, "failed");
  EXPECT_EQ((*list)[0].detail["qa_result"]["reason"], "runner exited with status 1: no network");
  EXPECT_NE((*list)[0].result.find("failed"), std::string::npos);
  // Never offered again, and a second result is refused.
  again = TakeNextQaRequest(*db_, env_, "tick");
  ASSERT_TRUE(again.ok());
  EXPECT_FALSE(again->has_value());
  EXPECT_EQ(FinishQaRequest(*db_, made->request.id, failed).code(), Code::kConflict);
  open = OpenQaRequestCount(*db_);
  ASSERT_TRUE(open.ok());
  EXPECT_EQ(*open, 0);
}

TEST_F(Requests, AReleasedQaRequestWaitsAgainAndAnAbandonedOneFails) {
  NewRequest qa;
  qa.kind = RequestKind::kQa;
  qa.what = "check the publish step";
  ASSERT_TRUE(RecordRequest(*db_, env_, qa).ok());
  Result<std::optional<PulseRequest>> taken = TakeNextQaRequest(*db_, env_, "tick");
  ASSERT_TRUE(taken.ok() && taken->has_value());
  ASSERT_TRUE(ReleaseQaRequest(*db_, (*taken)->id).ok());
  taken = TakeNextQaRequest(*db_, env_, "tick");
  ASSERT_TRUE(taken.ok() && taken->has_value()) << "a request whose run never started waits again";
  Result<int> failed = FailAbandonedQaRequests(*db_, "interrupted: the server stopped", env_.NowSeconds());
  ASSERT_TRUE(failed.ok());
  EXPECT_EQ(*failed, 1);
  Result<std::vector<PulseRequest>> list = ListRequests(*db_, RequestKind::kQa, "failed");
  ASSERT_TRUE(list.ok());
  ASSERT_EQ(list->size(), 1u);
  EXPECT_EQ(list->front().detail["qa_result"]["reason"], "interrupted: the server stopped");
  EXPECT_EQ(FinishQaRequest(*db_, list->front().id, QaResult{"maybe", "", "", "", ""}).code(), Code::kInvalidArgument);
}

}  // namespace
}  // namespace pulse
