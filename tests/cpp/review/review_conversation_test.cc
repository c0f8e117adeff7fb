// The Workflow Review's own conversation: one turn per review, ended with
// its reply and outcome, interrupted at a restart, read without creating
// anything in a database that has no review yet.
#include "core/review/review_conversation.h"

#include <gtest/gtest.h>

#include "core/conversation/conversation.h"
#include "tests/cpp/test_util.h"

namespace pulse {
namespace {

using testing::T;

class ReviewConversationTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto db = testing::OpenWithSchema(dir_.Join("db.sqlite"));
    ASSERT_TRUE(db.ok()) << db.status().message();
    db_ = std::move(db).value();
  }
  testing::TempDir dir_;
  std::unique_ptr<Db> db_;
  int64_t now_ = T("2026-10-07T12:00:00Z");
};

TEST_F(ReviewConversationTest, EachReviewIsATurnEndedWithItsReplyAndOutcome) {
  {
    // A database from before the review's tables (a browser copy): the
    // read answers empty and creates nothing.
    auto bare = Db::Open(dir_.Join("bare.sqlite"));
    ASSERT_TRUE(bare.ok());
    Result<nlohmann::json> empty = ReviewConversation(**bare, "substack").ViewJson();
    ASSERT_TRUE(empty.ok()) << empty.status().message();
    EXPECT_EQ((*empty)["total"], 0);
    EXPECT_EQ((*empty)["title"], "Workflow Review");
    EXPECT_EQ(*(*bare)->QueryInt64("SELECT COUNT(*) FROM sqlite_master WHERE name = 'pulse_review_turns'"), 0)
        << "a read creates nothing";
  }
  ReviewConversation conv(*db_, "substack");
  EXPECT_EQ((*conv.ViewJson())["total"], 0);

  Result<int64_t> a = conv.Begin("schedule-review--x-r1", "rev1", "schedule", "pr-1", "WORKFLOW REVIEW ... Due:\n- no_review", now_);
  ASSERT_TRUE(a.ok()) << a.status().message();
  ASSERT_TRUE(conv.Finish(*a, "completed", "references hold", "clean", "", now_ + 5).ok());
  EXPECT_EQ(conv.Finish(*a, "completed", "again", "clean", "", now_ + 6).code(), Code::kConflict) << "ended once";
  EXPECT_EQ(conv.Finish(*a, "done", "", "", "", now_).code(), Code::kInvalidArgument);
  // A long reply with a broken byte is kept, repaired and bounded.
  Result<int64_t> b = conv.Begin("schedule-review--x-r2", "rev2", "tick", "", "second", now_ + 60);
  ASSERT_TRUE(b.ok());
  ASSERT_TRUE(conv.Finish(*b, "failed", std::string(20000, 'x') + "\xff", "unfinished", "the runner timed out", now_ + 70).ok());
  Result<int64_t> c = conv.Begin("schedule-review--x-r3", "rev3", "chat", "", "third", now_ + 120);
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(*conv.RecoverInterrupted(now_ + 200), 1);

  Result<std::vector<ReviewTurn>> turns = conv.Recent();
  ASSERT_TRUE(turns.ok());
  ASSERT_EQ(turns->size(), 3u);
  EXPECT_EQ((*turns)[0].session, "schedule-review--x-r1");
  EXPECT_EQ((*turns)[0].reply, "references hold");
  EXPECT_EQ((*turns)[0].outcome, "clean");
  EXPECT_EQ((*turns)[1].state, "failed");
  EXPECT_LE((*turns)[1].reply.size(), kReviewReplyBytes);
  EXPECT_EQ((*turns)[1].error, "the runner timed out");
  EXPECT_EQ((*turns)[2].state, "interrupted");
  EXPECT_EQ((*turns)[2].outcome, "unfinished");
  Result<nlohmann::json> view = conv.ViewJson(2);
  ASSERT_TRUE(view.ok());
  EXPECT_EQ((*view)["total"], 3);
  ASSERT_EQ((*view)["turns"].size(), 2u);
  EXPECT_EQ((*view)["turns"][1]["session"], "schedule-review--x-r3") << "the newest, oldest first";
  EXPECT_EQ((*view)["turns"][0]["finished_at"], "2026-10-07T12:01:10Z");
  // Pulse's goal conversation is another record: nothing of the review is in it.
  ASSERT_TRUE(EnsureConversationSchema(*db_).ok());
  EXPECT_EQ(Conversation(*db_, "substack").Current().status().code(), Code::kNotFound);
}

}  // namespace
}  // namespace pulse
