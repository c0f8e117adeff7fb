// The Workflow Review's rules: the due set, one review per revision, which
// break stops which run, a corrupt record rebuilt, the built-in reviewer.
#include "core/review/workflow_review.h"

#include <algorithm>

#include <gtest/gtest.h>

#include "tests/cpp/test_util.h"

namespace pulse {
namespace {

struct Fixture {
  testing::TempDir dir;
  FixedClockEnv env{DefaultEnv(), testing::T("2026-10-07T12:00:00Z")};
  WorkflowConfig config;
  Fixture() {
    testing::WriteFile(dir.Join("planning/plan.json"),
                       R"({"steps": [{"id": "a"}, {"id": "b", "depends_on": ["a"]}]})");
  }
  PlanState State(ReviewFile& file) {
    file = ReadReviewFile(env, ReviewFilePath(dir.path()));
    Result<PlanState> s = ReadPlanState(env, dir.path(), config, file, env.NowSeconds());
    EXPECT_TRUE(s.ok()) << s.status().message();
    return s.ok() ? *s : PlanState{};
  }
};

TEST(WorkflowReview, OneReviewPerRevision) {
  Fixture f;
  ReviewFile file;
  PlanState s = f.State(file);
  EXPECT_TRUE(DecidePreRun(s, "", f.env.NowSeconds()).review_needed);
  ASSERT_EQ(s.due.size(), 1u);
  EXPECT_EQ(s.due[0].kind, "no_review");
  ASSERT_TRUE(ClaimReview(f.env, f.dir.path(), s.revision, s.due, "cli", "sess-1", "pr-1", f.env.NowSeconds()).ok());
  EXPECT_EQ(ClaimReview(f.env, f.dir.path(), s.revision, s.due, "cli", "sess-2", "pr-2", f.env.NowSeconds()).status().code(),
            Code::kBusy) << "one review per workflow at a time";
  ASSERT_TRUE(RecordReviewReceipt(f.env, f.dir.path(), "sess-1", "broken", {{"b", "input missing"}}, "", f.env.NowSeconds()).ok());
  s = f.State(file);
  EXPECT_TRUE(s.due.empty());
  EXPECT_FALSE(DecidePreRun(s, "", f.env.NowSeconds()).go);
  EXPECT_FALSE(DecidePreRun(s, "b", f.env.NowSeconds()).go);
  EXPECT_TRUE(DecidePreRun(s, "a", f.env.NowSeconds()).go) << "a break stops only runs touching its step";
  EXPECT_EQ(ClaimReview(f.env, f.dir.path(), s.revision, {}, "cli", "sess-3", "pr-3", f.env.NowSeconds()).status().code(),
            Code::kRefused) << "never reviewed twice";
}

TEST(WorkflowReview, ReceiptsAreTyped) {
  Fixture f;
  ReviewFile file;
  PlanState s = f.State(file);
  ASSERT_TRUE(ClaimReview(f.env, f.dir.path(), s.revision, s.due, "cli", "s", "p", f.env.NowSeconds()).ok());
  EXPECT_FALSE(RecordReviewReceipt(f.env, f.dir.path(), "s", "fine", {}, "", 0).ok());
  EXPECT_FALSE(RecordReviewReceipt(f.env, f.dir.path(), "s", "broken", {}, "", 0).ok());
  EXPECT_FALSE(RecordReviewReceipt(f.env, f.dir.path(), "s", "clean", {{"a", "x"}}, "", 0).ok());
  EXPECT_EQ(RecordReviewReceipt(f.env, f.dir.path(), "other", "clean", {}, "", 0).status().code(), Code::kRefused);
}

TEST(WorkflowReview, UnfinishedLetsTheRunGo) {
  Fixture f;
  ReviewFile file;
  PlanState s = f.State(file);
  ASSERT_TRUE(ClaimReview(f.env, f.dir.path(), s.revision, s.due, "cli", "s", "p", f.env.NowSeconds()).ok());
  s = f.State(file);
  EXPECT_TRUE(DecidePreRun(s, "", f.env.NowSeconds()).review_running);
  EXPECT_TRUE(DecidePreRun(s, "", f.env.NowSeconds() + kReviewLeaseSeconds + 1).go) << "a dead claim lets the run go";
  ASSERT_TRUE(FinishUnreceipted(f.env, f.dir.path(), "s", "runner timed out", f.env.NowSeconds()).ok());
  s = f.State(file);
  EXPECT_TRUE(DecidePreRun(s, "", f.env.NowSeconds()).go);
}

TEST(WorkflowReview, CorruptRecordIsRebuiltNotTrusted) {
  Fixture f;
  testing::WriteFile(ReviewFilePath(f.dir.path()), R"({"reviews": [{"revision": "short", "outcome": "clean"}]})");
  ReviewFile file;
  PlanState s = f.State(file);
  EXPECT_NE(file.rebuilt_reason.find("no revision hash"), std::string::npos) << file.rebuilt_reason;
  EXPECT_TRUE(file.reviews.empty());
  EXPECT_FALSE(s.due.empty());
}

TEST(WorkflowReview, BuiltInReviewerFindsBrokenReferences) {
  Fixture f;
  testing::WriteFile(f.dir.Join("planning/plan.json"),
                     R"({"steps": [{"id": "a"}, {"id": "a"}, {"id": "c", "depends_on": ["zz"]}]})");
  testing::WriteFile(f.dir.Join("planning/step_config.json"), R"({"a": {}, "ghost": {}})");
  ReviewFile file;
  std::vector<BrokenStep> b = RulesReview(f.State(file));
  ASSERT_EQ(b.size(), 3u);
  EXPECT_EQ(b[0].step, "a");
  EXPECT_EQ(b[1].reason, "depends on \"zz\", which is not a step of the plan");
  EXPECT_EQ(b[2].step, "ghost");
  testing::WriteFile(f.dir.Join("planning/plan.json"), "not json");
  PlanState s = f.State(file);
  // Among the due items (no review yet comes first): the plan that is not JSON.
  EXPECT_TRUE(std::any_of(s.due.begin(), s.due.end(), [](const auto& d) { return d.kind == "plan_not_json"; }));
  EXPECT_EQ(RulesReview(s)[0].step, "plan.json");
}

TEST(WorkflowReview, OldContractAndQuietPlan) {
  Fixture f;
  f.config.contract_version = 2;
  f.config.schedules.push_back(Schedule{"d", "0 9 * * *", true});
  testing::WriteFile(f.dir.Join("planning/changelog.jsonl"),
                     "{\"at\": \"2026-10-07T11:55:00Z\", \"tool\": \"update_step\", \"steps\": [\"a\"]}\n");
  ReviewFile file;
  PlanState s = f.State(file);
  bool contract = false;
  for (const DueItem& d : s.due) contract = contract || d.kind == "contract_version";
  EXPECT_TRUE(contract);
  EXPECT_FALSE(ReviewAheadDue(f.config, s, f.env.NowSeconds())) << "edited five minutes ago";
  EXPECT_TRUE(ReviewAheadDue(f.config, s, f.env.NowSeconds() + 6 * 60));
}

}  // namespace
}  // namespace pulse
