// QA, fast and Builder requests in a real database file: stored, listed,
// a pending fast request absorbing later ones, and taken once.
#include "core/pulse_requests.h"

#include <gtest/gtest.h>

#include "core/schema.h"
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

}  // namespace
}  // namespace pulse
